/* softmax's "vendor" variant: oneDNN's softmax (v2, algorithm accurate: the
 * row max is subtracted before exp) over the last axis of [rows, cols]
 * (kb/vendor/onednn.h, docs/vendor.md). */
#ifdef KB_HAVE_ONEDNN
#include "kb/kernel.h"
#include "kb/vendor/onednn.h"

static int softmax_onednn_build(kb_dnnl_plan *plan, const kb_args *a, const void *params) {
    static const int args[] = {DNNL_ARG_SRC, DNNL_ARG_DST};
    const dnnl_dim_t *dims = params;
    dnnl_data_type_t dt;
    dnnl_memory_desc_t md;
    dnnl_softmax_v2_desc_t d;
    int rc = kb_dnnl_type(a->prec, &dt);
    if (rc != 0) return rc;
    if (kb_dnnl_md(&md, 2, dims, dt) != 0 ||
        kb_dnnl_check(dnnl_softmax_v2_forward_desc_init(&d, dnnl_forward_inference,
                                                        dnnl_softmax_accurate, &md, &md, 1),
                      "dnnl_softmax_v2_forward_desc_init") != 0)
        return -1;
    return kb_dnnl_op_create(&plan->op[0], &d, NULL, 2, args, "softmax (accurate)", dt);
}

static int softmax_onednn(const kb_args *a) {
    static kb_dnnl_plan plan;
    const dnnl_dims_t dims = {kb_case_dim(a->c, "rows"), kb_case_dim(a->c, "cols")};
    const int64_t key[] = {dims[0], dims[1], a->prec};
    int rc = kb_dnnl_plan_get(&plan, key, 3, softmax_onednn_build, a, dims);
    if (rc != 0) return rc;
    return kb_dnnl_op_run(&plan.op[0], (const void *const[]){a->in[0], a->out[0]});
}

KB_REGISTER_IMPL("cpu", "vendor", softmax_onednn)
#endif
