/* linear's "vendor" variant: oneDNN's matmul y = x w + b on the row-major
 * x [tokens, in], w [in, out] and b (as [1, out]), with the activation as an
 * eltwise post-op: relu (act 1) or gelu_erf (act 2), as the fused variant's
 * epilogue (kb/vendor/onednn.h, docs/vendor.md). */
#ifdef KB_HAVE_ONEDNN
#include "kb/kernel.h"
#include "kb/vendor/onednn.h"

/* The case's shape: tokens, in, out, act. */
typedef struct linear_onednn_shape {
    dnnl_dim_t t, i, o, act;
} linear_onednn_shape;

/* The post-op of act 1 (ReLU) or 2 (GELU, erf form). */
static int linear_onednn_post_ops(dnnl_post_ops_t *po, dnnl_dim_t act) {
    if (act != 1 && act != 2) {
        fprintf(stderr, "linear: act must be 1 (ReLU) or 2 (GELU), not %lld\n", (long long)act);
        return -1;
    }
    if (kb_dnnl_check(dnnl_post_ops_create(po), "dnnl_post_ops_create") != 0) return -1;
    if (kb_dnnl_check(dnnl_post_ops_append_eltwise(
                          *po, 1.f, act == 1 ? dnnl_eltwise_relu : dnnl_eltwise_gelu_erf, 0.f, 0.f),
                      "dnnl_post_ops_append_eltwise") != 0) {
        dnnl_post_ops_destroy(*po);
        return -1;
    }
    return 0;
}

static int linear_onednn_build(kb_dnnl_plan *plan, const kb_args *a, const void *params) {
    static const int args[] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_DST};
    const linear_onednn_shape *s = params;
    dnnl_data_type_t dt;
    dnnl_memory_desc_t x, w, b, y;
    dnnl_matmul_desc_t d;
    dnnl_post_ops_t po;
    int rc = kb_dnnl_type(a->prec, &dt);
    if (rc != 0) return rc;
    if (kb_dnnl_md(&x, 2, (dnnl_dims_t){s->t, s->i}, dt) != 0 ||
        kb_dnnl_md(&w, 2, (dnnl_dims_t){s->i, s->o}, dt) != 0 ||
        kb_dnnl_md(&b, 2, (dnnl_dims_t){1, s->o}, dt) != 0 ||
        kb_dnnl_md(&y, 2, (dnnl_dims_t){s->t, s->o}, dt) != 0 ||
        kb_dnnl_check(dnnl_matmul_desc_init(&d, &x, &w, &b, &y), "dnnl_matmul_desc_init") != 0 ||
        linear_onednn_post_ops(&po, s->act) != 0)
        return -1;
    rc = kb_dnnl_op_create(&plan->op[0], &d, po, 4, args,
                           s->act == 1 ? "matmul + bias + relu" : "matmul + bias + gelu_erf", dt);
    dnnl_post_ops_destroy(po);
    return rc;
}

static int linear_onednn(const kb_args *a) {
    static kb_dnnl_plan plan;
    const linear_onednn_shape s = {kb_case_dim(a->c, "tokens"), kb_case_dim(a->c, "in"),
                                   kb_case_dim(a->c, "out"), kb_case_dim(a->c, "act")};
    const int64_t key[] = {s.t, s.i, s.o, s.act, a->prec};
    int rc = kb_dnnl_plan_get(&plan, key, 5, linear_onednn_build, a, &s);
    if (rc != 0) return rc;
    return kb_dnnl_op_run(&plan.op[0],
                          (const void *const[]){a->in[0], a->in[1], a->in[2], a->out[0]});
}

KB_REGISTER_IMPL("cpu", "vendor", linear_onednn)
#endif
