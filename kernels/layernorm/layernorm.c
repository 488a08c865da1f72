/* Layer normalisation over the last dimension:
 * y = (x - mean) / sqrt(var + eps) * gamma + beta, biased variance. */
#include "layernorm.h"

#include "kb/cpu.h"
#include "kb/cpu8.h"
#include "kb/kernel.h"

#include <math.h>

static void layernorm_layout(const kb_case *c, kb_layout *l) {
    size_t rows = (size_t)(kb_case_dim(c, "batch") * kb_case_dim(c, "seq"));
    size_t hidden = (size_t)kb_case_dim(c, "hidden");
    kb_layout_input(l, "x", rows * hidden, KB_DIST_NORMAL, 0.0, 1.0);
    kb_layout_input(l, "gamma", hidden, KB_DIST_UNIFORM, 0.5, 1.5);
    kb_layout_input(l, "beta", hidden, KB_DIST_UNIFORM, -0.5, 0.5);
    kb_layout_output(l, "y", rows * hidden);
    /* fp16/bf16: gamma, beta and one row of x and y widened to float;
     * fp32/fp64: one row of y, when it is streamed out (below). */
    kb_layout_workspace(l, 4 * hidden * sizeof(float));
}

/* One row, n >= 1. Mean and variance take two passes (the second sums
 * (x - mean)^2, which does not cancel as sum(x^2) - n mean^2 does), but the row
 * stays in L1/L2, so memory sees one read of x and one write of y. */
#define LAYERNORM_ROW(T, SUFFIX, SQRT)                                                             \
    static T layernorm_sqdev_##SUFFIX(const T *restrict x, size_t n, T mean) {                     \
        const size_t nv = n - n % KB_CPU_LANES;                                                    \
        T acc[KB_CPU_LANES] = {0};                                                                 \
        for (size_t i = 0; i < nv; i += KB_CPU_LANES)                                              \
            for (size_t j = 0; j < KB_CPU_LANES; j++)                                              \
                acc[j] += (x[i + j] - mean) * (x[i + j] - mean);                                   \
        T sum = kb_cpu_lanes_sum_##SUFFIX(acc);                                                    \
        for (size_t i = nv; i < n; i++) sum += (x[i] - mean) * (x[i] - mean);                      \
        return sum;                                                                                \
    }                                                                                              \
                                                                                                   \
    /* The row's mean and 1 / sqrt(var + eps); the first pass asks for the                         \
     * next row as it goes (kb_cpu_next_row; NULL: none). */                                       \
    static T layernorm_stats_##SUFFIX(const T *restrict x, size_t n, T *rstd, const void *next) {  \
        const T mean = kb_cpu_sum_ahead_##SUFFIX(x, n, next) / (T)n;                               \
        const T var = layernorm_sqdev_##SUFFIX(x, n, mean) / (T)n;                                 \
        *rstd = (T)1 / SQRT(var + (T)LAYERNORM_EPS);                                               \
        return mean;                                                                               \
    }                                                                                              \
                                                                                                   \
    /* y = (x - mean) * rstd * gamma + beta. */                                                    \
    static void layernorm_norm_##SUFFIX(const T *restrict x, const T *restrict gamma,              \
                                        const T *restrict beta, T mean, T rstd, T *restrict y,     \
                                        size_t n) {                                                \
        for (size_t i = 0; i < n; i++) y[i] = (x[i] - mean) * rstd * gamma[i] + beta[i];           \
    }                                                                                              \
                                                                                                   \
    static void layernorm_row_##SUFFIX(const T *restrict x, const T *restrict gamma,               \
                                       const T *restrict beta, T *restrict y, size_t n,            \
                                       const void *next) {                                         \
        T rstd;                                                                                    \
        const T mean = layernorm_stats_##SUFFIX(x, n, &rstd, next);                                \
        layernorm_norm_##SUFFIX(x, gamma, beta, mean, rstd, y, n);                                 \
    }

LAYERNORM_ROW(double, f64, sqrt)
LAYERNORM_ROW(float, f32, sqrtf)

/* The shape every precision's path gets: rows of n. */
typedef struct layernorm_shape {
    size_t rows, n;
} layernorm_shape;

/* An output larger than the last cache goes to memory anyway: then each row
 * is normalised into the workspace and streamed out past the caches, and the
 * next row is asked for during the first pass, so that its read is under
 * way while this one is computed (docs/kernels.md). */
#define LAYERNORM_ROWS(T, SUFFIX)                                                                  \
    static int layernorm_rows_##SUFFIX(const kb_args *a, const void *params) {                     \
        const size_t rows = ((const layernorm_shape *)params)->rows;                               \
        const size_t n = ((const layernorm_shape *)params)->n;                                     \
        const int stream = kb_cpu_streams_rows(a, a->out[0], n * sizeof(T), rows);                 \
        for (size_t r = 0; r < rows; r++) {                                                        \
            const T *x = (const T *)a->in[0] + r * n;                                              \
            T *y = (T *)a->out[0] + r * n, *row = stream ? (T *)a->workspace : y;                  \
            const void *next = stream ? kb_cpu_next_row(a->in[0], r, rows, n * sizeof(T)) : NULL;  \
            layernorm_row_##SUFFIX(x, a->in[1], a->in[2], row, n, next);                           \
            if (stream) kb_cpu_stream_##SUFFIX(y, row, n);                                         \
        }                                                                                          \
        if (stream) kb_cpu_stream_fence();                                                         \
        return 0;                                                                                  \
    }

LAYERNORM_ROWS(double, f64)
LAYERNORM_ROWS(float, f32)

/* One fp16/bf16 row from its widened x (xf): normalised, rounded and
 * written to y. With KB_VMATH8 y is rounded in registers on its way out
 * (non-temporal when `stream`), with the scalar loop's operations in its
 * order: the same results, bit for bit, and only the last n % 8 go
 * through the float row yf. */
#if KB_VMATH8
static void layernorm_half_row(kb_prec p, const float *restrict xf, const float *restrict gamma,
                               const float *restrict beta, float *restrict yf, uint16_t *restrict y,
                               size_t n, int stream) {
    float rstd;
    const float mean = layernorm_stats_f32(xf, n, &rstd, NULL);
    const kb_f32x8 m8 = _mm256_set1_ps(mean), r8 = _mm256_set1_ps(rstd);
    const size_t nv = n - n % 8;
    for (size_t i = 0; i < nv; i += 8) {
        const kb_f32x8 d = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(xf + i), m8), r8);
        const kb_f32x8 v =
            _mm256_add_ps(_mm256_mul_ps(d, _mm256_loadu_ps(gamma + i)), _mm256_loadu_ps(beta + i));
        kb_cpu8_store16(y + i, kb_cpu8_narrow(p, v), stream);
    }
    layernorm_norm_f32(xf + nv, gamma + nv, beta + nv, mean, rstd, yf + nv, n - nv);
    kb_cpu_from_f32(y, p, nv, yf + nv, n - nv);
}
#else
static void layernorm_half_row(kb_prec p, const float *restrict xf, const float *restrict gamma,
                               const float *restrict beta, float *restrict yf, uint16_t *restrict y,
                               size_t n, int stream) {
    (void)stream;
    layernorm_row_f32(xf, gamma, beta, yf, n, NULL);
    kb_cpu_from_f32(y, p, 0, yf, n);
}
#endif

/* fp16/bf16: gamma and beta are widened once per call; each row goes through
 * float scratch in the workspace, the next one asked for while it is widened
 * (as softmax's rows and the streamed fp32 rows above: without it memory
 * idles while a row is computed). */
static int layernorm_half(const kb_args *a, const void *params) {
    const size_t rows = ((const layernorm_shape *)params)->rows;
    const size_t n = ((const layernorm_shape *)params)->n;
    float *gamma = a->workspace;
    float *beta = gamma + n, *xf = beta + n, *yf = xf + n;
    kb_cpu_to_f32(gamma, a->in[1], a->prec, 0, n);
    kb_cpu_to_f32(beta, a->in[2], a->prec, 0, n);
    const int stream = KB_VMATH8 && kb_cpu_streams_rows(a, a->out[0], n * sizeof(uint16_t), rows);
    for (size_t r = 0; r < rows; r++) {
        kb_cpu_to_f32_ahead(xf, a->in[0], a->prec, r * n, n,
                            kb_cpu_next_row(a->in[0], r, rows, n * sizeof(uint16_t)));
        layernorm_half_row(a->prec, xf, gamma, beta, yf, (uint16_t *)a->out[0] + r * n, n, stream);
    }
    if (stream) kb_cpu_stream_fence();
    return 0;
}

static int layernorm_cpu(const kb_args *a) {
    static const kb_cpu_paths paths = {layernorm_rows_f64, layernorm_rows_f32, layernorm_half};
    const layernorm_shape s = {(size_t)(kb_case_dim(a->c, "batch") * kb_case_dim(a->c, "seq")),
                               (size_t)kb_case_dim(a->c, "hidden")};
    return kb_cpu_dispatch(a, &paths, &s);
}

static const kb_kernel layernorm_kernel = {
    .layout = layernorm_layout,
    .impls = {{"cpu", "default", layernorm_cpu}},
};

KB_REGISTER_KERNEL(layernorm_kernel)
