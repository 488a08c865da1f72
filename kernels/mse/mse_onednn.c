/* mse's "vendor" variant from oneDNN's building blocks: a binary sub with
 * an eltwise square post-op writes d = (pred - target)^2 into memory of the
 * plan's, a reduction (mean) takes d [batch, features] to the row means
 * [batch, 1] and a second one those to the loss (kb/vendor/onednn.h,
 * docs/vendor.md). Two stages, as the kernel's own sum cascades: oneDNN
 * 2.6's reduction accumulates in one float per lane, and a single mean over
 * the 1M elements of b1024_f1024 is off by 4e-5, 40x the fp32 bound. */
#ifdef KB_HAVE_ONEDNN
#include "kb/kernel.h"
#include "kb/vendor/onednn.h"

static int mse_onednn_square(dnnl_post_ops_t *po) {
    if (kb_dnnl_check(dnnl_post_ops_create(po), "dnnl_post_ops_create") != 0) return -1;
    if (kb_dnnl_check(dnnl_post_ops_append_eltwise(*po, 1.f, dnnl_eltwise_square, 0.f, 0.f),
                      "dnnl_post_ops_append_eltwise") != 0) {
        dnnl_post_ops_destroy(*po);
        return -1;
    }
    return 0;
}

/* op[0]: d = (pred - target)^2; op[1]: the row means of d; op[2]: their
 * mean, read as one row [1, batch] (the same memory as [batch, 1]): oneDNN
 * reduces the last dimension in vector lanes, the first one in a single
 * running sum, which was off by 1.8e-6 on b1024_f1024. */
static int mse_onednn_build(kb_dnnl_plan *plan, const kb_args *a, const void *params) {
    static const int sub_args[] = {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_DST};
    static const int mean_args[] = {DNNL_ARG_SRC, DNNL_ARG_DST};
    const dnnl_dim_t *dims = params;
    dnnl_data_type_t dt;
    dnnl_memory_desc_t x, rows, rows_t, loss;
    dnnl_binary_desc_t sub;
    dnnl_reduction_desc_t mean_rows, mean;
    dnnl_post_ops_t po;
    int rc = kb_dnnl_type(a->prec, &dt);
    if (rc != 0) return rc;
    if (kb_dnnl_md(&x, 2, dims, dt) != 0 ||
        kb_dnnl_md(&rows, 2, (dnnl_dims_t){dims[0], 1}, dnnl_f32) != 0 ||
        kb_dnnl_md(&rows_t, 2, (dnnl_dims_t){1, dims[0]}, dnnl_f32) != 0 ||
        kb_dnnl_md(&loss, 2, (dnnl_dims_t){1, 1}, dt) != 0 ||
        kb_dnnl_check(dnnl_binary_desc_init(&sub, dnnl_binary_sub, &x, &x, &x),
                      "dnnl_binary_desc_init") != 0 ||
        kb_dnnl_check(
            dnnl_reduction_desc_init(&mean_rows, dnnl_reduction_mean, &x, &rows, 0.f, 0.f),
            "dnnl_reduction_desc_init") != 0 ||
        kb_dnnl_check(
            dnnl_reduction_desc_init(&mean, dnnl_reduction_mean, &rows_t, &loss, 0.f, 0.f),
            "dnnl_reduction_desc_init") != 0 ||
        mse_onednn_square(&po) != 0)
        return -1;
    rc = kb_dnnl_op_create(&plan->op[0], &sub, po, 3, sub_args, "binary sub + square", dt);
    dnnl_post_ops_destroy(po);
    if (rc == 0)
        rc = kb_dnnl_op_create(&plan->op[1], &mean_rows, NULL, 2, mean_args, "reduction mean", dt);
    if (rc == 0)
        rc = kb_dnnl_op_create(&plan->op[2], &mean, NULL, 2, mean_args, "reduction mean", dt);
    /* d, then the row means (f32) at a cache line's offset. */
    const size_t d_bytes = kb_workspace_align((size_t)(dims[0] * dims[1]) * kb_prec_size(a->prec));
    if (rc == 0 && !kb_dnnl_plan_host(plan, d_bytes + (size_t)dims[0] * sizeof(float))) return -1;
    return rc;
}

static int mse_onednn(const kb_args *a) {
    static kb_dnnl_plan plan;
    const dnnl_dims_t dims = {kb_case_dim(a->c, "batch"), kb_case_dim(a->c, "features")};
    const int64_t key[] = {dims[0], dims[1], a->prec};
    int rc = kb_dnnl_plan_get(&plan, key, 3, mse_onednn_build, a, dims);
    const void *d = plan.host;
    const void *rows =
        (const char *)d + kb_workspace_align((size_t)(dims[0] * dims[1]) * kb_prec_size(a->prec));
    if (rc == 0) rc = kb_dnnl_op_run(&plan.op[0], (const void *const[]){a->in[0], a->in[1], d});
    if (rc == 0) rc = kb_dnnl_op_run(&plan.op[1], (const void *const[]){d, rows});
    if (rc == 0) rc = kb_dnnl_op_run(&plan.op[2], (const void *const[]){rows, a->out[0]});
    return rc;
}

KB_REGISTER_IMPL("cpu", "vendor", mse_onednn)
#endif
