/* layernorm's "vendor" variant: oneDNN's layer normalization (forward
 * inference, statistics computed, biased variance) over the rows of
 * [batch * seq, hidden], with the kernel's gamma and beta as its scale and
 * shift and the kernel's epsilon (kb/vendor/onednn.h, docs/vendor.md). oneDNN takes
 * scale and shift in f32: for fp16/bf16, were oneDNN to run them, they are
 * widened in the call into memory of the plan's. */
#ifdef KB_HAVE_ONEDNN
#include "layernorm.h"

#include "kb/cpu.h"
#include "kb/kernel.h"
#include "kb/vendor/onednn.h"

static int layernorm_onednn_build(kb_dnnl_plan *plan, const kb_args *a, const void *params) {
    static const int args[] = {DNNL_ARG_SRC, DNNL_ARG_SCALE, DNNL_ARG_SHIFT, DNNL_ARG_DST};
    const dnnl_dim_t *dims = params;
    dnnl_data_type_t dt;
    dnnl_memory_desc_t md;
    dnnl_layer_normalization_desc_t d;
    int rc = kb_dnnl_type(a->prec, &dt);
    if (rc != 0) return rc;
    if (kb_dnnl_md(&md, 2, dims, dt) != 0 ||
        kb_dnnl_check(dnnl_layer_normalization_forward_desc_init(&d, dnnl_forward_inference, &md,
                                                                 NULL, (float)LAYERNORM_EPS,
                                                                 dnnl_use_scale | dnnl_use_shift),
                      "dnnl_layer_normalization_forward_desc_init") != 0)
        return -1;
    rc = kb_dnnl_op_create(&plan->op[0], &d, NULL, 4, args, "layer normalization", dt);
    if (rc == 0 && a->prec != KB_FP32 && !kb_dnnl_plan_host(plan, 2 * (size_t)dims[1] * 4))
        return -1;
    return rc;
}

static int layernorm_onednn(const kb_args *a) {
    static kb_dnnl_plan plan;
    const dnnl_dims_t dims = {kb_case_dim(a->c, "batch") * kb_case_dim(a->c, "seq"),
                              kb_case_dim(a->c, "hidden")};
    const int64_t key[] = {dims[0], dims[1], a->prec};
    int rc = kb_dnnl_plan_get(&plan, key, 3, layernorm_onednn_build, a, dims);
    if (rc != 0) return rc;
    const void *gamma = a->in[1], *beta = a->in[2];
    if (a->prec != KB_FP32) {
        float *g = plan.host, *b = g + dims[1];
        kb_cpu_to_f32(g, a->in[1], a->prec, 0, (size_t)dims[1]);
        kb_cpu_to_f32(b, a->in[2], a->prec, 0, (size_t)dims[1]);
        gamma = g;
        beta = b;
    }
    return kb_dnnl_op_run(&plan.op[0], (const void *const[]){a->in[0], gamma, beta, a->out[0]});
}

KB_REGISTER_IMPL("cpu", "vendor", layernorm_onednn)
#endif
