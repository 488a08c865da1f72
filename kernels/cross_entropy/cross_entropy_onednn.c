/* cross_entropy's "vendor" variant: oneDNN's softmax (v2, algorithm log:
 * log-probabilities, the row max subtracted) over the classes of each row of
 * the logits [batch, classes], written into memory of the plan's; then, in
 * C (oneDNN has no gather), the mean over the rows of -logp[row, label]:
 * batch loads and adds against the batch * classes of the softmax
 * (kb/vendor/onednn.h, docs/vendor.md). The label of a row is floor(labels[r])
 * clamped to [0, classes - 1], as the kernel reads it. */
#ifdef KB_HAVE_ONEDNN
#include "kb/kernel.h"
#include "kb/prec.h"
#include "kb/vendor/onednn.h"

#include <math.h>

static int cross_entropy_onednn_build(kb_dnnl_plan *plan, const kb_args *a, const void *params) {
    static const int args[] = {DNNL_ARG_SRC, DNNL_ARG_DST};
    const dnnl_dim_t *dims = params;
    dnnl_data_type_t dt;
    dnnl_memory_desc_t x, logp;
    dnnl_softmax_v2_desc_t d;
    int rc = kb_dnnl_type(a->prec, &dt);
    if (rc != 0) return rc;
    /* The log-probabilities in f32 whatever the input's type: in fp16/bf16
     * a log-probability near -20 would lose most of its digits. */
    if (kb_dnnl_md(&x, 2, dims, dt) != 0 || kb_dnnl_md(&logp, 2, dims, dnnl_f32) != 0 ||
        kb_dnnl_check(dnnl_softmax_v2_forward_desc_init(&d, dnnl_forward_inference,
                                                        dnnl_softmax_log, &x, &logp, 1),
                      "dnnl_softmax_v2_forward_desc_init") != 0)
        return -1;
    rc = kb_dnnl_op_create(&plan->op[0], &d, NULL, 2, args, "softmax (log)", dt);
    if (rc == 0 && !kb_dnnl_plan_host(plan, (size_t)(dims[0] * dims[1]) * sizeof(float))) return -1;
    return rc;
}

/* The mean over the rows of -logp[row, label]. */
static double cross_entropy_onednn_nll(const kb_args *a, const float *logp, size_t batch,
                                       size_t classes) {
    double total = 0.0;
    for (size_t r = 0; r < batch; r++) {
        const double v = floor(kb_load_f64(a->in[1], a->prec, r));
        const size_t label = v < 0.0 ? 0 : (v > (double)(classes - 1) ? classes - 1 : (size_t)v);
        total -= logp[r * classes + label];
    }
    return total / (double)batch;
}

static int cross_entropy_onednn(const kb_args *a) {
    static kb_dnnl_plan plan;
    const dnnl_dims_t dims = {kb_case_dim(a->c, "batch"), kb_case_dim(a->c, "classes")};
    const int64_t key[] = {dims[0], dims[1], a->prec};
    int rc = kb_dnnl_plan_get(&plan, key, 3, cross_entropy_onednn_build, a, dims);
    if (rc == 0) rc = kb_dnnl_op_run(&plan.op[0], (const void *const[]){a->in[0], plan.host});
    if (rc != 0) return rc;
    kb_store_f64(a->out[0], a->prec, 0,
                 cross_entropy_onednn_nll(a, plan.host, (size_t)dims[0], (size_t)dims[1]));
    return 0;
}

KB_REGISTER_IMPL("cpu", "vendor", cross_entropy_onednn)
#endif
