/* Row-wise softmax, y = e^(x - max) / sum(e^(x - max)), numerically stable. */
#include "kb/cpu.h"
#include "kb/cpu8.h"
#include "kb/kernel.h"
#include "kb/vmath.h"

#include <math.h>

static void softmax_layout(const kb_case *c, kb_layout *l) {
    size_t n = (size_t)(kb_case_dim(c, "rows") * kb_case_dim(c, "cols"));
    /* stddev 4: rows span ~30 in x, so most e^(x - max) are tiny. */
    kb_layout_input(l, "x", n, KB_DIST_NORMAL, 0.0, 4.0);
    kb_layout_output(l, "y", n);
    /* fp16/bf16: one row of x and y widened to float; fp32/fp64: one row
     * of e^(x - max) when y is written past the caches (as many bytes as
     * a row of doubles). */
    _Static_assert(2 * sizeof(float) >= sizeof(double), "a row of doubles fits");
    kb_layout_workspace(l, (size_t)kb_case_dim(c, "cols") * 2 * sizeof(float));
}

/* The middle pass of a row: y = e^(x - m), returning the sum of y, in
 * KB_CPU_LANES partial sums and then the tail. */
#define SOFTMAX_EXP(T, NAME, SUFFIX, EXP)                                                          \
    static T softmax_exp_##NAME(const T *restrict x, T *restrict y, size_t n, T m) {               \
        const size_t nv = n - n % KB_CPU_LANES;                                                    \
        T acc[KB_CPU_LANES] = {0};                                                                 \
        for (size_t i = 0; i < nv; i += KB_CPU_LANES)                                              \
            for (size_t j = 0; j < KB_CPU_LANES; j++) {                                            \
                T e = EXP(x[i + j] - m);                                                           \
                y[i + j] = e;                                                                      \
                acc[j] += e;                                                                       \
            }                                                                                      \
        T sum = kb_cpu_lanes_sum_##SUFFIX(acc);                                                    \
        for (size_t i = nv; i < n; i++) {                                                          \
            y[i] = EXP(x[i] - m);                                                                  \
            sum += y[i];                                                                           \
        }                                                                                          \
        return sum;                                                                                \
    }

#if KB_VMATH8
/* The same on the widest vectors (kb/vmath8.h) of V, LANES lanes of T (PX:
 * the intrinsics' suffix), with the same partial sums in the same order:
 * the same results, bit for bit (kb/cpu8.h asserts that KB_CPU_LANES is
 * whole vectors). */
#define SOFTMAX_EXPV(T, NAME, SUFFIX, EXP, EXPV, V, LANES, PX)                                     \
    static T softmax_exp_##NAME(const T *restrict x, T *restrict y, size_t n, T m) {               \
        enum { K = KB_CPU_LANES / (LANES) };                                                       \
        const size_t nv = n - n % KB_CPU_LANES;                                                    \
        const V mv = KB_MMV(set1_##PX)(m);                                                         \
        V accv[K];                                                                                 \
        for (size_t k = 0; k < K; k++) accv[k] = KB_MMV(setzero_##PX)();                           \
        for (size_t i = 0; i < nv; i += KB_CPU_LANES)                                              \
            for (size_t k = 0; k < K; k++) {                                                       \
                const size_t at = i + (LANES)*k;                                                   \
                const V e = EXPV(KB_MMV(sub_##PX)(KB_MMV(loadu_##PX)(x + at), mv));                \
                KB_MMV(storeu_##PX)(y + at, e);                                                    \
                accv[k] = KB_MMV(add_##PX)(accv[k], e);                                            \
            }                                                                                      \
        T acc[KB_CPU_LANES];                                                                       \
        for (size_t k = 0; k < K; k++) KB_MMV(storeu_##PX)(acc + (LANES)*k, accv[k]);              \
        T sum = kb_cpu_lanes_sum_##SUFFIX(acc);                                                    \
        for (size_t i = nv; i < n; i++) {                                                          \
            y[i] = EXP(x[i] - m);                                                                  \
            sum += y[i];                                                                           \
        }                                                                                          \
        return sum;                                                                                \
    }
#define SOFTMAX_EXP_F64(NAME, EXP, EXPV)                                                           \
    SOFTMAX_EXPV(double, NAME, f64, EXP, EXPV, kb_f64v, KB_VLANES64, pd)
#define SOFTMAX_EXP_F32(NAME, EXP, EXPV)                                                           \
    SOFTMAX_EXPV(float, NAME, f32, EXP, EXPV, kb_f32v, KB_VLANES, ps)
#else
#define SOFTMAX_EXP_F64(NAME, EXP, EXPV) SOFTMAX_EXP(double, NAME, f64, EXP)
#define SOFTMAX_EXP_F32(NAME, EXP, EXPV) SOFTMAX_EXP(float, NAME, f32, EXP)
#endif

SOFTMAX_EXP_F64(f64, kb_exp, kb_expv)
SOFTMAX_EXP_F32(f32, kb_expf, kb_expfv)
/* For fp16/bf16 results: kb_expf_half's error (5.6e-6 relative) is small
 * next to their rounding. */
SOFTMAX_EXP_F32(half, kb_expf_half, kb_expf_halfv)

/* The last pass: y = e * inv, for rows computed into e (which may be y
 * itself). With KB_VMATH8 on the widest vectors, written with kb/cpu8.h's
 * stores (past the caches when `stream`, y then aligned to a vector): the
 * scalar loop's operation, bit for bit. */
#if KB_VMATH8
#define SOFTMAX_SCALE(T, SUFFIX, V, LANES, PX)                                                     \
    static void softmax_scale_##SUFFIX(const T *e, T inv, T *y, size_t n, int stream) {            \
        const V iv = KB_MMV(set1_##PX)(inv);                                                       \
        const size_t nv = n - n % LANES;                                                           \
        for (size_t i = 0; i < nv; i += LANES)                                                     \
            kb_cpu_store_##SUFFIX##v(y + i, KB_MMV(mul_##PX)(KB_MMV(loadu_##PX)(e + i), iv),       \
                                     stream);                                                      \
        for (size_t i = nv; i < n; i++) y[i] = e[i] * inv;                                         \
    }
SOFTMAX_SCALE(double, f64, kb_f64v, KB_VLANES64, pd)
SOFTMAX_SCALE(float, f32, kb_f32v, KB_VLANES, ps)
#else
#define SOFTMAX_SCALE(T, SUFFIX)                                                                   \
    static void softmax_scale_##SUFFIX(const T *e, T inv, T *y, size_t n, int stream) {            \
        (void)stream;                                                                              \
        for (size_t i = 0; i < n; i++) y[i] = e[i] * inv;                                          \
    }
SOFTMAX_SCALE(double, f64)
SOFTMAX_SCALE(float, f32)
#endif

/* One row, n >= 1, three passes over a row that stays in cache: max (which
 * asks for the next row as it goes, kb_cpu_next_row), then e = e^(x - max)
 * with its sum, then y = e / sum. e is y, or when `stream` the workspace
 * ws, from which the last pass writes y past the caches. NAME: the row
 * function's suffix; SUFFIX: the type's, for kb/cpu.h's helpers. */
#define SOFTMAX_ROW(T, NAME, SUFFIX)                                                               \
    static void softmax_row_##NAME(const T *restrict x, T *y, T *ws, size_t n, const void *next,   \
                                   int stream) {                                                   \
        T *e = stream ? ws : y;                                                                    \
        const T sum = softmax_exp_##NAME(x, e, n, kb_cpu_max_ahead_##SUFFIX(x, n, next));          \
        softmax_scale_##SUFFIX(e, (T)1 / sum, y, n, stream);                                       \
    }

SOFTMAX_ROW(double, f64, f64)
SOFTMAX_ROW(float, f32, f32)

/* One fp16/bf16 row x (p), through float scratch xf (x widened) and yf,
 * rounded and written to y; unlike the float rows it does not ask for the
 * next row (kb/cpu8.h's first passes say why). With KB_VMATH8 the first
 * pass widens and finds the maximum at once (kb_cpu_to_f32_maxv) and the
 * last scales and rounds in registers on the way out (non-temporal when
 * `stream`), the scalar passes' operations: the same results, bit for bit,
 * without a float row to narrow afterwards. */
#if KB_VMATH8
/* The last pass's vector i: e times 1 / sum. */
typedef struct softmax_scaled {
    const float *e;
    kb_f32v inv;
} softmax_scaled;

static inline kb_f32v softmax_scaled_v(const void *ctx, size_t i) {
    const softmax_scaled *s = ctx;
    return KB_MMV(mul_ps)(KB_MMV(loadu_ps)(s->e + i), s->inv);
}

static void softmax_half_row(kb_prec p, const uint16_t *restrict x, float *restrict xf,
                             float *restrict yf, uint16_t *restrict y, size_t n, int stream) {
    const float inv = 1.0f / softmax_exp_half(xf, yf, n, kb_cpu_to_f32_maxv(xf, x, p, n));
    const softmax_scaled s = {yf, KB_MMV(set1_ps)(inv)};
    const size_t nv = n - n % KB_VLANES;
    kb_cpu_store_half_row(p, y, nv, softmax_scaled_v, &s, stream);
    for (size_t i = nv; i < n; i++) yf[i] *= inv;
    kb_cpu_from_f32(y, p, nv, yf + nv, n - nv);
}
#else
SOFTMAX_ROW(float, half, f32)

static void softmax_half_row(kb_prec p, const uint16_t *restrict x, float *restrict xf,
                             float *restrict yf, uint16_t *restrict y, size_t n, int stream) {
    (void)stream;
    kb_cpu_to_f32(xf, x, p, 0, n);
    softmax_row_half(xf, yf, NULL, n, NULL, 0);
    kb_cpu_from_f32(y, p, 0, yf, n);
}
#endif

/* The shape every precision's path gets. */
typedef struct softmax_shape {
    size_t rows, cols;
} softmax_shape;

#define SOFTMAX_ROWS(T, SUFFIX)                                                                    \
    static int softmax_rows_##SUFFIX(const kb_args *a, const void *params) {                       \
        const size_t rows = ((const softmax_shape *)params)->rows;                                 \
        const size_t cols = ((const softmax_shape *)params)->cols;                                 \
        const int stream = KB_VMATH8 && kb_cpu_streams_rows(a, a->out[0], cols * sizeof(T), rows); \
        for (size_t r = 0; r < rows; r++)                                                          \
            softmax_row_##SUFFIX((const T *)a->in[0] + r * cols, (T *)a->out[0] + r * cols,        \
                                 a->workspace, cols,                                               \
                                 kb_cpu_next_row(a->in[0], r, rows, cols * sizeof(T)), stream);    \
        if (stream) kb_cpu_stream_fence();                                                         \
        return 0;                                                                                  \
    }

SOFTMAX_ROWS(double, f64)
SOFTMAX_ROWS(float, f32)

/* fp16/bf16: each row goes through float scratch in the workspace. */
static int softmax_half(const kb_args *a, const void *params) {
    const size_t rows = ((const softmax_shape *)params)->rows;
    const size_t cols = ((const softmax_shape *)params)->cols;
    float *xf = a->workspace, *yf = xf + cols;
    const int stream =
        KB_VMATH8 && kb_cpu_streams_rows(a, a->out[0], cols * sizeof(uint16_t), rows);
    for (size_t r = 0; r < rows; r++)
        softmax_half_row(a->prec, (const uint16_t *)a->in[0] + r * cols, xf, yf,
                         (uint16_t *)a->out[0] + r * cols, cols, stream);
    if (stream) kb_cpu_stream_fence();
    return 0;
}

static int softmax_cpu(const kb_args *a) {
    static const kb_cpu_paths paths = {softmax_rows_f64, softmax_rows_f32, softmax_half};
    const softmax_shape s = {(size_t)kb_case_dim(a->c, "rows"), (size_t)kb_case_dim(a->c, "cols")};
    return kb_cpu_dispatch(a, &paths, &s);
}

static const kb_kernel softmax_kernel = {
    .layout = softmax_layout,
    .impls = {{"cpu", "default", softmax_cpu}},
};

KB_REGISTER_KERNEL(softmax_kernel)
