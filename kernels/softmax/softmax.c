/* Row-wise softmax, y = e^(x - max) / sum(e^(x - max)), numerically stable. */
#include "kb/cpu.h"
#include "kb/cpu/paths.h"
#include "kb/kernel.h"
#include "kb/vmath/vmath.h"

#include <math.h>

static void softmax_layout(const kb_case *c, kb_layout *l) {
    size_t n = (size_t)(kb_case_dim(c, "rows") * kb_case_dim(c, "cols"));
    /* stddev 4: rows span ~30 in x, so most e^(x - max) are tiny. */
    kb_layout_input(l, "x", n, KB_DIST_NORMAL, 0.0, 4.0);
    kb_layout_output(l, "y", n);
    /* fp16/bf16: one row of e^(x - max) in float (and without KB_VMATH8 one
     * of x widened); fp32/fp64: one row of e^(x - max) when y is written
     * past the caches (as many bytes as a row of doubles). */
    _Static_assert(2 * sizeof(float) >= sizeof(double), "a row of doubles fits");
    kb_layout_workspace(l, (size_t)kb_case_dim(c, "cols") * 2 * sizeof(float));
}

/* The middle pass of a row: y = e^(x - m), returning the sum of y, in
 * KB_CPU_LANES partial sums and then the tail, asking for next[0 .. n) as
 * it goes (kb__cpu_ask). */
#define SOFTMAX_EXP(T, NAME, SUFFIX, EXP)                                                          \
    static T softmax_exp_##NAME(const T *restrict x, T *restrict y, size_t n, T m,                 \
                                const void *next) {                                                \
        const size_t nv = n - n % KB_CPU_LANES;                                                    \
        T acc[KB_CPU_LANES] = {0};                                                                 \
        for (size_t i = 0; i < nv; i += KB_CPU_LANES) {                                            \
            kb__cpu_ask(next, i * sizeof(T), (i + KB_CPU_LANES) * sizeof(T));                      \
            for (size_t j = 0; j < KB_CPU_LANES; j++) {                                            \
                T e = EXP(x[i + j] - m);                                                           \
                y[i + j] = e;                                                                      \
                acc[j] += e;                                                                       \
            }                                                                                      \
        }                                                                                          \
        kb__cpu_ask(next, nv * sizeof(T), n * sizeof(T));                                          \
        T sum = kb_cpu_lanes_sum_##SUFFIX(acc);                                                    \
        for (size_t i = nv; i < n; i++) {                                                          \
            y[i] = EXP(x[i] - m);                                                                  \
            sum += y[i];                                                                           \
        }                                                                                          \
        return sum;                                                                                \
    }

#if KB_VMATH8
/* The same on the widest vectors, e^ in two stages for x - m <= 0, the
 * first a few vectors ahead, with the same partial sums in the same order
 * (kb/cpu/paths.h's kb_cpu_map_sum_*): the same results, bit for bit. */
static double softmax_exp_f64(const double *restrict x, double *restrict y, size_t n, double m,
                              const void *next) {
    return kb_cpu_map_sum_f64v(y, x, n, m, kb_exp_nonpos_tv, kb_exp_nonpos_from_tv, next);
}

static float softmax_exp_f32(const float *restrict x, float *restrict y, size_t n, float m,
                             const void *next) {
    return kb_cpu_map_sum_f32v(y, x, n, m, kb_expf_nonpos_tv, kb_expf_nonpos_from_tv, next);
}
#else
SOFTMAX_EXP(double, f64, f64, kb_exp)
SOFTMAX_EXP(float, f32, f32, kb_expf)
#endif

/* The last pass: y = e * inv, for rows computed into e (which may be y
 * itself). With KB_VMATH8 on the widest vectors, written with kb/cpu/paths.h's
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

/* fp16/bf16 rows in three passes, as the float rows: the maximum, found on
 * the 16-bit patterns (kb_cpu_max_half); e = e^(x - max) into float scratch
 * with its sum; then y = e / sum, rounded. With KB_VMATH8 the exp pass
 * widens x in registers and computes e^ in two stages, the first a few
 * vectors ahead (kb_cpu_map_sum_halfv), and the last pass rounds in
 * registers on the way out (non-temporal when `stream`; its values are
 * never negative, which spares bf16 a search for denormals vector by
 * vector): the scalar passes' operations, the same results bit for bit. */
#if KB_VMATH8
/* For fp16/bf16 results: kb_expf_half's error (5.6e-6 relative) is small
 * next to their rounding; x - max <= 0, so its two-stage form for such x.
 * A 16-bit row asks for no later row (kb/cpu/paths.h's first passes say why). */
#define SOFTMAX_EXP_HALF(PREC)                                                                     \
    static __attribute__((noinline)) float softmax_exp_##PREC(                                     \
        const uint16_t *restrict x, float *restrict e, size_t n, float m) {                        \
        return kb_cpu_map_sum_halfv(e, x, KB_##PREC, n, m, kb_expf_nonpos_tv,                      \
                                    kb_expf_half_nonpos_from_tv, NULL);                            \
    }
SOFTMAX_EXP_HALF(FP16)
SOFTMAX_EXP_HALF(BF16)

static float softmax_half_exp(kb_prec p, const uint16_t *x, float *ws, size_t n, float m) {
    return p == KB_FP16 ? softmax_exp_FP16(x, ws, n, m) : softmax_exp_BF16(x, ws, n, m);
}

/* The last pass's vector i: e times 1 / sum. */
typedef struct softmax_scaled {
    const float *e;
    kb_f32v inv;
} softmax_scaled;

static inline kb_f32v softmax_scaled_v(const void *ctx, size_t i) {
    const softmax_scaled *s = ctx;
    return KB_MMV(mul_ps)(KB_MMV(loadu_ps)(s->e + i), s->inv);
}

static void softmax_half_scale(kb_prec p, float *e, float inv, uint16_t *y, size_t n, int stream) {
    const softmax_scaled s = {e, KB_MMV(set1_ps)(inv)};
    const size_t nv = n - n % KB_VLANES;
    kb_cpu_store_half_row(p, y, nv, softmax_scaled_v, &s, stream, 1); /* e / sum >= 0 */
    for (size_t i = nv; i < n; i++) e[i] *= inv;
    kb_cpu_from_f32(y, p, nv, e + nv, n - nv);
}
#define softmax_half_max kb_cpu_max_halfv
#else
/* For fp16/bf16 results: kb_expf_half's error (5.6e-6 relative) is small
 * next to their rounding. */
SOFTMAX_EXP(float, half, f32, kb_expf_half)

/* Through a widened copy of x, ws + n. */
static float softmax_half_exp(kb_prec p, const uint16_t *x, float *ws, size_t n, float m) {
    kb_cpu_to_f32(ws + n, x, p, 0, n);
    return softmax_exp_half(ws + n, ws, n, m, NULL);
}

static void softmax_half_scale(kb_prec p, float *e, float inv, uint16_t *y, size_t n, int stream) {
    (void)stream;
    softmax_scale_f32(e, inv, e, n, 0);
    kb_cpu_from_f32(y, p, 0, e, n);
}
#define softmax_half_max kb_cpu_max_half
#endif

/* The shape every precision's path gets. */
typedef struct softmax_shape {
    size_t rows, cols;
} softmax_shape;

/* fp32/fp64 rows, each in three passes over a row that stays in cache:
 * max, then e = e^(x - max) with its sum, then y = e / sum. e is y, or
 * when `stream` the workspace, from which the last pass writes y past the
 * caches. As the 16-bit rows (below, which say why) each row's maximum is
 * found before the last pass of the row above, and the exp pass, the
 * longest, asks for the row after the next as it goes (kb_cpu_next_row). */
#define SOFTMAX_ROWS(T, SUFFIX)                                                                    \
    static int softmax_rows_##SUFFIX(const kb_args *a, const void *params) {                       \
        const size_t rows = ((const softmax_shape *)params)->rows;                                 \
        const size_t cols = ((const softmax_shape *)params)->cols, bytes = cols * sizeof(T);       \
        const T *x = a->in[0];                                                                     \
        T *y = a->out[0];                                                                          \
        const int stream = KB_VMATH8 && kb_cpu_streams_rows(a, y, bytes, rows);                    \
        T m = kb_cpu_max_ahead_##SUFFIX(x, cols, kb_cpu_next_row(x, 0, rows, bytes));              \
        for (size_t r = 0; r < rows; r++) {                                                        \
            T *e = stream ? (T *)a->workspace : y + r * cols;                                      \
            const T sum = softmax_exp_##SUFFIX(x + r * cols, e, cols, m,                           \
                                               kb_cpu_next_row(x, r + 1, rows, bytes));            \
            if (r + 1 < rows) m = kb_cpu_max_##SUFFIX(x + (r + 1) * cols, cols);                   \
            softmax_scale_##SUFFIX(e, (T)1 / sum, y + r * cols, cols, stream);                     \
        }                                                                                          \
        if (stream) kb_cpu_stream_fence();                                                         \
        return 0;                                                                                  \
    }

SOFTMAX_ROWS(double, f64)
SOFTMAX_ROWS(float, f32)

/* fp16/bf16: each row goes through float scratch in the workspace. Each
 * row's maximum is found before the last pass of the row above: that pass
 * waits for the sum (the exp pass's last vectors, its reduction and a
 * division), and the maximum's loads, which do not, fill the wait. */
static int softmax_half(const kb_args *a, const void *params) {
    const size_t rows = ((const softmax_shape *)params)->rows;
    const size_t cols = ((const softmax_shape *)params)->cols;
    const kb_prec p = a->prec;
    const uint16_t *x = a->in[0];
    uint16_t *y = a->out[0];
    const int stream = KB_VMATH8 && kb_cpu_streams_rows(a, y, cols * sizeof *y, rows);
    float m = softmax_half_max(x, p, cols);
    for (size_t r = 0; r < rows; r++) {
        const float sum = softmax_half_exp(p, x + r * cols, a->workspace, cols, m);
        if (r + 1 < rows) m = softmax_half_max(x + (r + 1) * cols, p, cols);
        softmax_half_scale(p, a->workspace, 1.0f / sum, y + r * cols, cols, stream);
    }
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
