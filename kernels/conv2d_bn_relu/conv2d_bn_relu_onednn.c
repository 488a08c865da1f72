/* conv2d_bn_relu's "vendor" variant: oneDNN's convolution (3x3, stride 1,
 * zero padding 1, NCHW in and out, OIHW weights) with the batch
 * normalisation folded into its weights and bias as the "folded" variant
 * folds it, per call and in the arithmetic type (s = gamma / sqrt(var +
 * eps), w' = w s, b' = (b - mean) s + beta), and ReLU as an eltwise
 * post-op (kb/vendor/onednn.h, docs/vendor.md). The folded weights and bias live
 * in memory of the plan's; for fp16/bf16, were oneDNN to run them, the
 * weights are folded in float and rounded once to the storage format, and
 * the bias stays f32. */
#ifdef KB_HAVE_ONEDNN
#include "conv2d_bn_relu.h"

#include "kb/cpu.h"
#include "kb/kernel.h"
#include "kb/vendor/onednn.h"

#include <math.h>

/* The case's shape: n, cin, cout, h, w. */
typedef struct conv2d_bn_relu_onednn_shape {
    dnnl_dim_t n, cin, cout, h, w;
} conv2d_bn_relu_onednn_shape;

/* The plan's host memory: folded weights (float, then in the run's
 * precision when that is not f32) and folded bias (float). */
typedef struct conv2d_bn_relu_onednn_host {
    float *w, *b;
    void *w_prec;
} conv2d_bn_relu_onednn_host;

static conv2d_bn_relu_onednn_host
conv2d_bn_relu_onednn_host_of(void *base, const conv2d_bn_relu_onednn_shape *s) {
    const size_t nw = (size_t)(s->cout * s->cin * 9);
    float *w = base;
    return (conv2d_bn_relu_onednn_host){w, w + nw, w + nw + s->cout};
}

static int conv2d_bn_relu_onednn_post_ops(dnnl_post_ops_t *po) {
    if (kb_dnnl_check(dnnl_post_ops_create(po), "dnnl_post_ops_create") != 0) return -1;
    if (kb_dnnl_check(dnnl_post_ops_append_eltwise(*po, 1.f, dnnl_eltwise_relu, 0.f, 0.f),
                      "dnnl_post_ops_append_eltwise") != 0) {
        dnnl_post_ops_destroy(*po);
        return -1;
    }
    return 0;
}

static int conv2d_bn_relu_onednn_build(kb_dnnl_plan *plan, const kb_args *a, const void *params) {
    static const int args[] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_DST};
    const conv2d_bn_relu_onednn_shape *s = params;
    const dnnl_dims_t one = {1, 1};
    dnnl_data_type_t dt;
    dnnl_memory_desc_t x, w, b, y;
    dnnl_convolution_desc_t d;
    dnnl_post_ops_t po;
    int rc = kb_dnnl_type(a->prec, &dt);
    if (rc != 0) return rc;
    if (kb_dnnl_md(&x, 4, (dnnl_dims_t){s->n, s->cin, s->h, s->w}, dt) != 0 ||
        kb_dnnl_md(&w, 4, (dnnl_dims_t){s->cout, s->cin, 3, 3}, dt) != 0 ||
        kb_dnnl_md(&b, 1, (dnnl_dims_t){s->cout}, dnnl_f32) != 0 ||
        kb_dnnl_md(&y, 4, (dnnl_dims_t){s->n, s->cout, s->h, s->w}, dt) != 0 ||
        kb_dnnl_check(dnnl_convolution_forward_desc_init(&d, dnnl_forward_inference,
                                                         dnnl_convolution_auto, &x, &w, &b, &y, one,
                                                         one, one),
                      "dnnl_convolution_forward_desc_init") != 0 ||
        conv2d_bn_relu_onednn_post_ops(&po) != 0)
        return -1;
    rc = kb_dnnl_op_create(&plan->op[0], &d, po, 4, args, "convolution + relu", dt);
    dnnl_post_ops_destroy(po);
    const size_t nw = (size_t)(s->cout * s->cin * 9);
    if (rc == 0 && !kb_dnnl_plan_host(plan, (2 * nw + (size_t)s->cout) * sizeof(float))) return -1;
    return rc;
}

/* Element co of input i (0 x, 1 weight, 2 bias, 3 gamma, 4 beta, 5 mean,
 * 6 var) in float. */
static float conv2d_bn_relu_onednn_at(const kb_args *a, int i, size_t co) {
    float v;
    if (a->prec == KB_FP32) return ((const float *)a->in[i])[co];
    kb_cpu_to_f32(&v, a->in[i], a->prec, co, 1);
    return v;
}

/* The fold of the "folded" variant, in float: per output channel the scale
 * s, the folded bias and the weights times s. */
static void conv2d_bn_relu_onednn_fold(const kb_args *a, const conv2d_bn_relu_onednn_shape *s,
                                       const conv2d_bn_relu_onednn_host *h) {
    const size_t k = (size_t)(s->cin * 9);
    for (size_t co = 0; co < (size_t)s->cout; co++) {
        const float sc = conv2d_bn_relu_onednn_at(a, 3, co) /
                         sqrtf(conv2d_bn_relu_onednn_at(a, 6, co) + (float)CONV2D_BN_RELU_EPS);
        h->b[co] = (conv2d_bn_relu_onednn_at(a, 2, co) - conv2d_bn_relu_onednn_at(a, 5, co)) * sc +
                   conv2d_bn_relu_onednn_at(a, 4, co);
        float *w = h->w + co * k;
        if (a->prec == KB_FP32) {
            const float *wi = (const float *)a->in[1] + co * k;
            for (size_t i = 0; i < k; i++) w[i] = wi[i] * sc;
        } else {
            kb_cpu_to_f32(w, a->in[1], a->prec, co * k, k);
            for (size_t i = 0; i < k; i++) w[i] *= sc;
            kb_cpu_from_f32(h->w_prec, a->prec, co * k, w, k);
        }
    }
}

static int conv2d_bn_relu_onednn(const kb_args *a) {
    static kb_dnnl_plan plan;
    const conv2d_bn_relu_onednn_shape s = {kb_case_dim(a->c, "n"), kb_case_dim(a->c, "cin"),
                                           kb_case_dim(a->c, "cout"), kb_case_dim(a->c, "h"),
                                           kb_case_dim(a->c, "w")};
    const int64_t key[] = {s.n, s.cin, s.cout, s.h, s.w, a->prec};
    int rc = kb_dnnl_plan_get(&plan, key, 6, conv2d_bn_relu_onednn_build, a, &s);
    if (rc != 0) return rc;
    const conv2d_bn_relu_onednn_host h = conv2d_bn_relu_onednn_host_of(plan.host, &s);
    conv2d_bn_relu_onednn_fold(a, &s, &h);
    const void *w = a->prec == KB_FP32 ? (const void *)h.w : h.w_prec;
    return kb_dnnl_op_run(&plan.op[0], (const void *const[]){a->in[0], w, h.b, a->out[0]});
}

KB_REGISTER_IMPL("cpu", "vendor", conv2d_bn_relu_onednn)
#endif
