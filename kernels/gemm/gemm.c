/* GEMM, c = alpha * a b + beta * c0 with alpha 1 and beta 0.5, row-major:
 * a [m, k], b [k, n], c0 and c [m, n]. c0 is an input, so every call computes
 * the same c.
 *
 * "blocked": the hand-written cache-blocked core of kb/cpu/gemm.h (packed
 * panels, register-tile micro-kernel; float arithmetic for fp32/fp16/bf16,
 * double for fp64).
 * "vendor": OpenBLAS (cblas_sgemm / cblas_dgemm) on one thread; fp16/bf16
 * widen a, b and c0 to float in the workspace, call sgemm and round once.
 * That conversion is part of the timed call, as the blocked variant's packing
 * is of its own. */
#include "gemm.h"

#include "kb/cpu.h"
#include "kb/cpu/gemm.h"
#include "kb/kernel.h"

#include <math.h>
#include <string.h>

#ifdef KB_HAVE_OPENBLAS
#include <cblas.h>
#endif

static void gemm_dims(const kb_case *c, size_t *m, size_t *n, size_t *k) {
    *m = (size_t)kb_case_dim(c, "m");
    *n = (size_t)kb_case_dim(c, "n");
    *k = (size_t)kb_case_dim(c, "k");
}

static size_t gemm_max(size_t a, size_t b) {
    return a > b ? a : b;
}

static void gemm_layout(const kb_case *c, kb_layout *l) {
    size_t m, n, k;
    gemm_dims(c, &m, &n, &k);
    /* b scaled by 1/sqrt(k), like a layer's weights: c stays O(1) for every
     * k, so the error bounds measure the summation, not the size of c. */
    kb_layout_input(l, "a", m * k, KB_DIST_NORMAL, 0.0, 1.0);
    kb_layout_input(l, "b", k * n, KB_DIST_NORMAL, 0.0, 1.0 / sqrt((double)k));
    kb_layout_input(l, "c0", m * n, KB_DIST_NORMAL, 0.0, 1.0);
    kb_layout_output(l, "c", m * n);
    /* The larger of the blocked core's panels and the vendor variant's float
     * copies of a, b and c (fp16/bf16). */
    kb_layout_workspace(l, gemm_max(kb_cpu_gemm_workspace(m, n, k, KB_FP64),
                                    (m * k + k * n + m * n) * sizeof(float)));
}

static int gemm_blocked(const kb_args *a) {
    kb_cpu_gemm g = {.prec = a->prec,
                     .a = a->in[0],
                     .b = a->in[1],
                     .c0 = a->in[2],
                     .c = a->out[0],
                     .alpha = GEMM_ALPHA,
                     .beta = GEMM_BETA,
                     .ep = KB_CPU_GEMM_EP_NONE};
    gemm_dims(a->c, &g.m, &g.n, &g.k);
    return kb_cpu_gemm_run(a, &g);
}

#ifdef KB_HAVE_OPENBLAS
/* The harness times one pinned CPU: OpenBLAS must not start its own threads. */
static void gemm_openblas_init(void) {
    static int done = 0;
    if (!done) {
        openblas_set_num_threads(1);
        done = 1;
    }
}

static void gemm_sgemm(size_t m, size_t n, size_t k, const float *x, const float *y, float *c) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k,
                (float)GEMM_ALPHA, x, (int)k, y, (int)n, (float)GEMM_BETA, c, (int)n);
}

/* The vendor variant's paths get the shape. */
typedef struct gemm_shape {
    size_t m, n, k;
} gemm_shape;

static int gemm_vendor_f64(const kb_args *a, const void *params) {
    const gemm_shape *s = params;
    memcpy(a->out[0], a->in[2], s->m * s->n * sizeof(double));
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)s->m, (int)s->n, (int)s->k,
                GEMM_ALPHA, a->in[0], (int)s->k, a->in[1], (int)s->n, GEMM_BETA, a->out[0],
                (int)s->n);
    return 0;
}

static int gemm_vendor_f32(const kb_args *a, const void *params) {
    const gemm_shape *s = params;
    memcpy(a->out[0], a->in[2], s->m * s->n * sizeof(float));
    gemm_sgemm(s->m, s->n, s->k, a->in[0], a->in[1], a->out[0]);
    return 0;
}

static int gemm_vendor_half(const kb_args *a, const void *params) {
    const size_t m = ((const gemm_shape *)params)->m, n = ((const gemm_shape *)params)->n,
                 k = ((const gemm_shape *)params)->k;
    float *x = a->workspace, *y = x + m * k, *c = y + k * n;
    kb_cpu_to_f32(x, a->in[0], a->prec, 0, m * k);
    kb_cpu_to_f32(y, a->in[1], a->prec, 0, k * n);
    kb_cpu_to_f32(c, a->in[2], a->prec, 0, m * n);
    gemm_sgemm(m, n, k, x, y, c);
    kb_cpu_from_f32(a->out[0], a->prec, 0, c, m * n);
    return 0;
}

static int gemm_vendor(const kb_args *a) {
    static const kb_cpu_paths paths = {gemm_vendor_f64, gemm_vendor_f32, gemm_vendor_half};
    gemm_shape s;
    gemm_dims(a->c, &s.m, &s.n, &s.k);
    gemm_openblas_init();
    return kb_cpu_dispatch(a, &paths, &s);
}
#endif

static const kb_kernel gemm_kernel = {
    .layout = gemm_layout,
    .impls =
        {
            {"cpu", "blocked", gemm_blocked},
#ifdef KB_HAVE_OPENBLAS
            {"cpu", "vendor", gemm_vendor},
#endif
        },
};

KB_REGISTER_KERNEL(gemm_kernel)
