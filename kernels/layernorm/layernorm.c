/* Layer normalisation over the last dimension:
 * y = (x - mean) / sqrt(var + eps) * gamma + beta, biased variance. */
#include "layernorm.h"

#include "kb/cpu.h"
#include "kb/cpu/paths.h"
#include "kb/kernel.h"
#include "kb/vmath/vmath.h"

#include <math.h>

static void layernorm_layout(const kb_case *c, kb_layout *l) {
    size_t rows = (size_t)(kb_case_dim(c, "batch") * kb_case_dim(c, "seq"));
    size_t hidden = (size_t)kb_case_dim(c, "hidden");
    kb_layout_input(l, "x", rows * hidden, KB_DIST_NORMAL, 0.0, 1.0);
    kb_layout_input(l, "gamma", hidden, KB_DIST_UNIFORM, 0.5, 1.5);
    kb_layout_input(l, "beta", hidden, KB_DIST_UNIFORM, -0.5, 0.5);
    kb_layout_output(l, "y", rows * hidden);
    /* fp16/bf16: gamma, beta and two rows widened to float (a row of x and
     * the next, or without kb/cpu/paths.h's vectors a row of x and one of
     * y); fp32/fp64 without those vectors: one row of y, when it is
     * streamed out (layernorm_out_*). */
    kb_layout_workspace(l, 4 * hidden * sizeof(float));
}

/* One row, n >= 1. Mean and variance take two passes (the second sums
 * (x - mean)^2, which does not cancel as sum(x^2) - n mean^2 does), but the row
 * stays in L1/L2, so memory sees one read of x and one write of y. */
#define LAYERNORM_ROW(T, SUFFIX, SQRT, FMA)                                                        \
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
    /* The row's mean from the sum of x, and 1 / sqrt(var + eps). */                               \
    static T layernorm_moments_##SUFFIX(const T *restrict x, size_t n, T sum, T *rstd) {           \
        const T mean = sum / (T)n;                                                                 \
        const T var = layernorm_sqdev_##SUFFIX(x, n, mean) / (T)n;                                 \
        *rstd = (T)1 / SQRT(var + (T)LAYERNORM_EPS);                                               \
        return mean;                                                                               \
    }                                                                                              \
                                                                                                   \
    /* y = (x - mean) * rstd * gamma + beta, the last two in one multiply-add. */                  \
    static void layernorm_norm_##SUFFIX(const T *restrict x, const T *restrict gamma,              \
                                        const T *restrict beta, T mean, T rstd, T *restrict y,     \
                                        size_t n) {                                                \
        for (size_t i = 0; i < n; i++) y[i] = FMA((x[i] - mean) * rstd, gamma[i], beta[i]);        \
    }

LAYERNORM_ROW(double, f64, sqrt, kb_fma)
LAYERNORM_ROW(float, f32, sqrtf, kb_fmaf)

#if KB_VMATH8
/* layernorm_norm_* on the widest vectors: the scalar loop's operations in
 * its order, the same results bit for bit. layernorm_v_*: one vector of y
 * from element i on; layernorm_normv_*: a row, written with kb/cpu/paths.h's
 * stores (past the caches when `stream`), its last n % lanes by the scalar
 * loop. */
#define LAYERNORM_NORMV(T, SUFFIX, V, LANES, PX)                                                   \
    static inline V layernorm_v_##SUFFIX(const T *restrict x, const T *restrict gamma,             \
                                         const T *restrict beta, V mean, V rstd, size_t i) {       \
        const V d = KB_MMV(mul_##PX)(KB_MMV(sub_##PX)(KB_MMV(loadu_##PX)(x + i), mean), rstd);     \
        return KB_MMV(fmadd_##PX)(d, KB_MMV(loadu_##PX)(gamma + i), KB_MMV(loadu_##PX)(beta + i)); \
    }                                                                                              \
                                                                                                   \
    static void layernorm_normv_##SUFFIX(const T *restrict x, const T *restrict gamma,             \
                                         const T *restrict beta, T mean, T rstd, T *restrict y,    \
                                         size_t n, int stream) {                                   \
        const V m = KB_MMV(set1_##PX)(mean), r = KB_MMV(set1_##PX)(rstd);                          \
        const size_t nv = n - n % LANES;                                                           \
        for (size_t i = 0; i < nv; i += LANES)                                                     \
            kb_cpu_store_##SUFFIX##v(y + i, layernorm_v_##SUFFIX(x, gamma, beta, m, r, i),         \
                                     stream);                                                      \
        layernorm_norm_##SUFFIX(x + nv, gamma + nv, beta + nv, mean, rstd, y + nv, n - nv);        \
    }

LAYERNORM_NORMV(double, f64, kb_f64v, KB_VLANES64, pd)
LAYERNORM_NORMV(float, f32, kb_f32v, KB_VLANES, ps)

/* One row of y from x and the sum of x: normalised straight to y (past
 * the caches when `stream`; ws unused). Between the row's variance and its
 * last pass, which waits for the square root and the division, the next
 * row's sum is taken (x1, n; *sum1 gets it, NULL x1: none): its loads and
 * adds fill that wait, where a row at a time left the core idle in it (128
 * rows of 256 ran 1.1-1.2x faster on a Zen 5, AVX2 build). */
#define LAYERNORM_OUT(T, SUFFIX)                                                                   \
    static void layernorm_out_##SUFFIX(const T *restrict x, T sum, const T *restrict gamma,        \
                                       const T *restrict beta, T *restrict y, T *restrict ws,      \
                                       size_t n, const T *x1, T *sum1, int stream) {               \
        (void)ws;                                                                                  \
        T rstd;                                                                                    \
        const T mean = layernorm_moments_##SUFFIX(x, n, sum, &rstd);                               \
        if (x1) *sum1 = kb_cpu_sum_##SUFFIX(x1, n);                                                \
        layernorm_normv_##SUFFIX(x, gamma, beta, mean, rstd, y, n, stream);                        \
    }
#else
/* One row of y: normalised into y, or when `stream` into the workspace ws
 * and copied out past the caches (kb_cpu_stream_*); the next row's sum
 * before the last pass, as above. */
#define LAYERNORM_OUT(T, SUFFIX)                                                                   \
    static void layernorm_out_##SUFFIX(const T *restrict x, T sum, const T *restrict gamma,        \
                                       const T *restrict beta, T *restrict y, T *restrict ws,      \
                                       size_t n, const T *x1, T *sum1, int stream) {               \
        T rstd;                                                                                    \
        const T mean = layernorm_moments_##SUFFIX(x, n, sum, &rstd);                               \
        if (x1) *sum1 = kb_cpu_sum_##SUFFIX(x1, n);                                                \
        layernorm_norm_##SUFFIX(x, gamma, beta, mean, rstd, stream ? ws : y, n);                   \
        if (stream) kb_cpu_stream_##SUFFIX(y, ws, n);                                              \
    }
#endif

LAYERNORM_OUT(double, f64)
LAYERNORM_OUT(float, f32)

/* The shape every precision's path gets: rows of n. */
typedef struct layernorm_shape {
    size_t rows, n;
} layernorm_shape;

/* An output that does not fit in the last cache beside the input goes to
 * memory anyway (kb_cpu_streams_rows): then each row is written past the
 * caches (layernorm_out_*), and the next row is asked for during the first
 * pass, so that its read is under way while this one is computed
 * (docs/kernels.md). Such rows take their own sum first: summed before the
 * row above's last pass, they read from memory what was asked a row later,
 * and ran 1.3x (float) to 2x (double) slower on a Zen 5. Rows in cache sum
 * the next row before the last pass. */
#define LAYERNORM_ROWS(T, SUFFIX)                                                                  \
    static int layernorm_rows_##SUFFIX(const kb_args *a, const void *params) {                     \
        const size_t rows = ((const layernorm_shape *)params)->rows;                               \
        const size_t n = ((const layernorm_shape *)params)->n;                                     \
        const int stream = kb_cpu_streams_rows(a, a->out[0], n * sizeof(T), rows);                 \
        const T *x = a->in[0];                                                                     \
        T *y = a->out[0];                                                                          \
        if (stream) {                                                                              \
            for (size_t r = 0; r < rows; r++) {                                                    \
                const void *next = kb_cpu_next_row(x, r, rows, n * sizeof(T));                     \
                layernorm_out_##SUFFIX(x + r * n, kb_cpu_sum_ahead_##SUFFIX(x + r * n, n, next),   \
                                       a->in[1], a->in[2], y + r * n, a->workspace, n, NULL, NULL, \
                                       1);                                                         \
            }                                                                                      \
            kb_cpu_stream_fence();                                                                 \
            return 0;                                                                              \
        }                                                                                          \
        T sum = kb_cpu_sum_##SUFFIX(x, n);                                                         \
        for (size_t r = 0; r < rows; r++) {                                                        \
            T sum1 = 0;                                                                            \
            layernorm_out_##SUFFIX(x + r * n, sum, a->in[1], a->in[2], y + r * n, a->workspace, n, \
                                   r + 1 < rows ? x + (r + 1) * n : NULL, &sum1, 0);               \
            sum = sum1;                                                                            \
        }                                                                                          \
        return 0;                                                                                  \
    }

LAYERNORM_ROWS(double, f64)
LAYERNORM_ROWS(float, f32)

/* fp16/bf16: gamma and beta are widened once per call; each row goes through
 * float scratch in the workspace, and unlike the float rows it does not ask
 * for the next row (kb/cpu/paths.h's first passes say why). */
#if KB_VMATH8
/* The last pass's vector i, for kb_cpu_store_half_row. */
typedef struct layernorm_row {
    const float *x, *gamma, *beta;
    kb_f32v mean, rstd;
} layernorm_row;

static inline kb_f32v layernorm_row_v(const void *ctx, size_t i) {
    const layernorm_row *l = ctx;
    return layernorm_v_f32(l->x, l->gamma, l->beta, l->mean, l->rstd, i);
}

/* One row, widened into xf with its sum `sum`: normalised, rounded in
 * registers on its way to y (non-temporal when `stream`), with the scalar
 * loops' operations in their order (the same results, bit for bit; the
 * last n % KB_VLANES through a float vector). Before the last pass the
 * next 16-bit row x1 (NULL: none) is widened into xf1 and summed into
 * *sum1 at once (kb_cpu_to_f32_sumv), filling the wait for rstd as the
 * float rows in cache do. */
static void layernorm_half_row(kb_prec p, const float *restrict xf, float sum,
                               const float *restrict gamma, const float *restrict beta,
                               const uint16_t *restrict x1, float *restrict xf1, float *sum1,
                               uint16_t *restrict y, size_t n, int stream) {
    float rstd;
    const float mean = layernorm_moments_f32(xf, n, sum, &rstd);
    if (x1) *sum1 = kb_cpu_to_f32_sumv(xf1, x1, p, n);
    const layernorm_row row = {xf, gamma, beta, KB_MMV(set1_ps)(mean), KB_MMV(set1_ps)(rstd)};
    const size_t nv = n - n % KB_VLANES;
    kb_cpu_store_half_row(p, y, nv, layernorm_row_v, &row, stream, 0);
    float t[KB_VLANES];
    layernorm_norm_f32(xf + nv, gamma + nv, beta + nv, mean, rstd, t, n - nv);
    kb_cpu_from_f32(y, p, nv, t, n - nv);
}

/* The rows widened into two float rows of the workspace in turn. */
static int layernorm_half(const kb_args *a, const void *params) {
    const size_t rows = ((const layernorm_shape *)params)->rows;
    const size_t n = ((const layernorm_shape *)params)->n;
    float *gamma = a->workspace;
    float *beta = gamma + n, *xf[2] = {beta + n, beta + 2 * n};
    kb_cpu_to_f32(gamma, a->in[1], a->prec, 0, n);
    kb_cpu_to_f32(beta, a->in[2], a->prec, 0, n);
    const uint16_t *x = a->in[0];
    const int stream = kb_cpu_streams_rows(a, a->out[0], n * sizeof(uint16_t), rows);
    /* Rows past the caches, each summed first, as the float rows. */
    float sum = kb_cpu_to_f32_sumv(xf[0], x, a->prec, n);
    for (size_t r = 0; r < rows; r++) {
        const uint16_t *x1 = r + 1 < rows ? x + (r + 1) * n : NULL;
        float sum1 = 0.0f;
        layernorm_half_row(a->prec, xf[stream ? 0 : r % 2], sum, gamma, beta, stream ? NULL : x1,
                           xf[(r + 1) % 2], &sum1, (uint16_t *)a->out[0] + r * n, n, stream);
        if (stream && x1) sum1 = kb_cpu_to_f32_sumv(xf[0], x1, a->prec, n);
        sum = sum1;
    }
    if (stream) kb_cpu_stream_fence();
    return 0;
}
#else
static int layernorm_half(const kb_args *a, const void *params) {
    const size_t rows = ((const layernorm_shape *)params)->rows;
    const size_t n = ((const layernorm_shape *)params)->n;
    float *gamma = a->workspace;
    float *beta = gamma + n, *xf = beta + n, *yf = xf + n;
    kb_cpu_to_f32(gamma, a->in[1], a->prec, 0, n);
    kb_cpu_to_f32(beta, a->in[2], a->prec, 0, n);
    for (size_t r = 0; r < rows; r++) {
        kb_cpu_to_f32(xf, (const uint16_t *)a->in[0] + r * n, a->prec, 0, n);
        layernorm_out_f32(xf, kb_cpu_sum_f32(xf, n), gamma, beta, yf, NULL, n, NULL, NULL, 0);
        kb_cpu_from_f32((uint16_t *)a->out[0] + r * n, a->prec, 0, yf, n);
    }
    return 0;
}
#endif

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
