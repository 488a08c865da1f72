/* Attention, O = softmax(Q K^T / sqrt(d)) V for each (batch, head), non-causal;
 * Q, K, V and O are [batch, heads, seq, d]. Two CPU variants:
 *  - unfused: three passes per (batch, head) through a seq x seq score matrix
 *    in the workspace: S = Q K^T / sqrt(d), P = row softmax(S) in place,
 *    O = P V.
 *  - fused: per block of ATTENTION_BQ query rows, the keys in blocks of
 *    ATTENTION_BK: the block's scores (BQ x BK, stays in L1), an online
 *    softmax update per row (running max and sum, the accumulator rescaled by
 *    e^(old max - new max)), and O = accumulator / sum at the end. No
 *    seq x seq matrix.
 * Both run the same loops: K is transposed once per head so that the scores
 * are an i-k-j product whose inner loop runs over contiguous keys, and P V is
 * one whose inner loop runs over the head dim (attention_axpy, four rows per
 * sweep). fp16/bf16: Q, K and V of a head are widened into float in the
 * workspace, computed in float, O rounded once on store; fp64 in double. */
#include "kb/cpu.h"
#include "kb/kernel.h"
#include "kb/vmath/vmath.h"

#include <math.h>
#include <stdint.h>

#define ATTENTION_BQ 32 /* fused: query rows per block */
#define ATTENTION_BK 64 /* fused: keys per block */
/* The GPU's unfused variant keeps the scores of as many heads at once as fit
 * in this many bytes (at least one head); see attention.cu. */
#define ATTENTION_GPU_S_BYTES ((size_t)64 << 20)

typedef struct attention_dims {
    size_t bh, seq, d;
} attention_dims;

static attention_dims attention_dims_of(const kb_case *c) {
    attention_dims t;
    t.bh = (size_t)(kb_case_dim(c, "batch") * kb_case_dim(c, "heads"));
    t.seq = (size_t)kb_case_dim(c, "seq");
    t.d = (size_t)kb_case_dim(c, "d");
    return t;
}

/* What every precision's path gets: the dimensions and the variant. */
typedef struct attention_run {
    attention_dims t;
    int fused;
} attention_run;

/* Elements rounded up to 16 (64 bytes of floats, 128 of doubles): every
 * buffer carved from the workspace starts on a cache line. */
static size_t attention_round(size_t n) {
    return (n + 15) / 16 * 16;
}

/* Elements of the per-variant region: unfused, the seq x seq scores of one
 * head; fused, a BQ x BK score block, the BQ x d accumulator and the running
 * max and sum of BQ rows. */
static size_t attention_scores_elems(size_t seq, size_t d) {
    size_t fused = ATTENTION_BQ * ATTENTION_BK + ATTENTION_BQ * d + 2 * ATTENTION_BQ;
    return seq * seq > fused ? seq * seq : fused;
}

static void attention_layout(const kb_case *c, kb_layout *l) {
    attention_dims t = attention_dims_of(c);
    size_t n = t.bh * t.seq * t.d, head = t.seq * t.d;
    kb_layout_input(l, "q", n, KB_DIST_NORMAL, 0.0, 1.0);
    kb_layout_input(l, "k", n, KB_DIST_NORMAL, 0.0, 1.0);
    kb_layout_input(l, "v", n, KB_DIST_NORMAL, 0.0, 1.0);
    kb_layout_output(l, "o", n);
    /* CPU, sized for double: K^T of one head, the variant's region and, for
     * fp16/bf16, Q, K, V and O of one head in float. */
    size_t cpu =
        (5 * attention_round(head) + attention_round(attention_scores_elems(t.seq, t.d))) * 8;
    /* GPU unfused: the scores of a group of heads, in double at most. */
    size_t per_head = t.seq * t.seq * sizeof(double), heads = ATTENTION_GPU_S_BYTES / per_head;
    heads = heads < 1 ? 1 : (heads > t.bh ? t.bh : heads);
    kb_layout_workspace(l, cpu > heads * per_head ? cpu : heads * per_head);
}

/* The arithmetic of one type T:
 * - axpy: y[0, n) += sum over e < m of alpha a[e] x[e ldx + (0, n)], four
 *   rows of x per sweep over y (one load and store of y per four products);
 * - exp_sum: s = e^(s - mx) in place, returns the sum (lane-wise partial sums);
 * - transpose: kt[e seq + j] = k[j d + e];
 * - unfused_head / fused_head: one (batch, head), see the top of the file. */
#define ATTENTION_IMPL(T, SUFFIX, EXP, SQRT)                                                       \
    static void attention_axpy_##SUFFIX(T *restrict y, const T *restrict a, T alpha,               \
                                        const T *restrict x, size_t ldx, size_t m, size_t n) {     \
        size_t e = 0;                                                                              \
        for (; e + 4 <= m; e += 4) {                                                               \
            const T a0 = alpha * a[e], a1 = alpha * a[e + 1];                                      \
            const T a2 = alpha * a[e + 2], a3 = alpha * a[e + 3];                                  \
            const T *restrict x0 = x + e * ldx;                                                    \
            for (size_t j = 0; j < n; j++)                                                         \
                y[j] +=                                                                            \
                    a0 * x0[j] + a1 * x0[ldx + j] + a2 * x0[2 * ldx + j] + a3 * x0[3 * ldx + j];   \
        }                                                                                          \
        for (; e < m; e++) {                                                                       \
            const T a0 = alpha * a[e];                                                             \
            for (size_t j = 0; j < n; j++) y[j] += a0 * x[e * ldx + j];                            \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static T attention_exp_sum_##SUFFIX(T *restrict s, size_t n, T mx) {                           \
        const size_t nv = n - n % KB_CPU_LANES;                                                    \
        T acc[KB_CPU_LANES] = {0};                                                                 \
        for (size_t i = 0; i < nv; i += KB_CPU_LANES)                                              \
            for (size_t j = 0; j < KB_CPU_LANES; j++) {                                            \
                s[i + j] = EXP(s[i + j] - mx);                                                     \
                acc[j] += s[i + j];                                                                \
            }                                                                                      \
        T sum = kb_cpu_lanes_sum_##SUFFIX(acc);                                                    \
        for (size_t i = nv; i < n; i++) {                                                          \
            s[i] = EXP(s[i] - mx);                                                                 \
            sum += s[i];                                                                           \
        }                                                                                          \
        return sum;                                                                                \
    }                                                                                              \
                                                                                                   \
    static void attention_transpose_##SUFFIX(T *restrict kt, const T *restrict k, size_t seq,      \
                                             size_t d) {                                           \
        for (size_t j = 0; j < seq; j++)                                                           \
            for (size_t e = 0; e < d; e++) kt[e * seq + j] = k[j * d + e];                         \
    }                                                                                              \
                                                                                                   \
    static void attention_zero_##SUFFIX(T *restrict y, size_t n) {                                 \
        for (size_t i = 0; i < n; i++) y[i] = 0;                                                   \
    }                                                                                              \
                                                                                                   \
    static void attention_unfused_head_##SUFFIX(const T *restrict q, const T *restrict kt,         \
                                                const T *restrict v, T *restrict o, T *restrict s, \
                                                size_t seq, size_t d) {                            \
        const T scale = (T)1 / SQRT((T)d);                                                         \
        for (size_t r = 0; r < seq; r++) { /* S = Q K^T / sqrt(d) */                               \
            attention_zero_##SUFFIX(s + r * seq, seq);                                             \
            attention_axpy_##SUFFIX(s + r * seq, q + r * d, scale, kt, seq, d, seq);               \
        }                                                                                          \
        for (size_t r = 0; r < seq; r++) { /* P = softmax(S), in place */                          \
            T *restrict sr = s + r * seq;                                                          \
            const T inv =                                                                          \
                (T)1 / attention_exp_sum_##SUFFIX(sr, seq, kb_cpu_max_##SUFFIX(sr, seq));          \
            for (size_t j = 0; j < seq; j++) sr[j] *= inv;                                         \
        }                                                                                          \
        for (size_t r = 0; r < seq; r++) { /* O = P V */                                           \
            attention_zero_##SUFFIX(o + r * d, d);                                                 \
            attention_axpy_##SUFFIX(o + r * d, s + r * seq, (T)1, v, d, seq, d);                   \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* One row's online softmax step over a block of `keys` scores s: the                          \
     * running max m and sum l, acc rescaled and acc += e^(s - m) V_block. */                      \
    static void attention_online_##SUFFIX(T *restrict s, size_t keys, T *restrict acc,             \
                                          T *restrict m, T *restrict l, const T *restrict v,       \
                                          size_t d) {                                              \
        const T bmax = kb_cpu_max_##SUFFIX(s, keys);                                               \
        const T mnew = bmax > *m ? bmax : *m;                                                      \
        const T corr = *m == -INFINITY ? (T)0 : EXP(*m - mnew);                                    \
        *l = *l * corr + attention_exp_sum_##SUFFIX(s, keys, mnew);                                \
        *m = mnew;                                                                                 \
        for (size_t e = 0; e < d; e++) acc[e] *= corr;                                             \
        attention_axpy_##SUFFIX(acc, s, (T)1, v, d, keys, d);                                      \
    }                                                                                              \
                                                                                                   \
    static void attention_fused_head_##SUFFIX(const T *restrict q, const T *restrict kt,           \
                                              const T *restrict v, T *restrict o, T *restrict ws,  \
                                              size_t seq, size_t d) {                              \
        const T scale = (T)1 / SQRT((T)d);                                                         \
        T *restrict sb = ws, *restrict acc = sb + ATTENTION_BQ * ATTENTION_BK;                     \
        T *restrict m = acc + ATTENTION_BQ * d, *restrict l = m + ATTENTION_BQ;                    \
        for (size_t r0 = 0; r0 < seq; r0 += ATTENTION_BQ) {                                        \
            const size_t rows = seq - r0 < ATTENTION_BQ ? seq - r0 : ATTENTION_BQ;                 \
            for (size_t r = 0; r < rows; r++) m[r] = -INFINITY, l[r] = 0;                          \
            attention_zero_##SUFFIX(acc, rows *d);                                                 \
            for (size_t k0 = 0; k0 < seq; k0 += ATTENTION_BK) {                                    \
                const size_t keys = seq - k0 < ATTENTION_BK ? seq - k0 : ATTENTION_BK;             \
                for (size_t r = 0; r < rows; r++) {                                                \
                    T *restrict sr = sb + r * ATTENTION_BK;                                        \
                    attention_zero_##SUFFIX(sr, keys);                                             \
                    attention_axpy_##SUFFIX(sr, q + (r0 + r) * d, scale, kt + k0, seq, d, keys);   \
                }                                                                                  \
                for (size_t r = 0; r < rows; r++)                                                  \
                    attention_online_##SUFFIX(sb + r * ATTENTION_BK, keys, acc + r * d, m + r,     \
                                              l + r, v + k0 * d, d);                               \
            }                                                                                      \
            for (size_t r = 0; r < rows; r++) {                                                    \
                const T inv = (T)1 / l[r];                                                         \
                for (size_t e = 0; e < d; e++) o[(r0 + r) * d + e] = acc[r * d + e] * inv;         \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* Every head of a T-stored tensor: K^T, then the variant, straight into o. */                 \
    static int attention_heads_##SUFFIX(const kb_args *a, const void *params) {                    \
        const attention_dims t = ((const attention_run *)params)->t;                               \
        const int fused = ((const attention_run *)params)->fused;                                  \
        const size_t n = t.seq * t.d;                                                              \
        T *kt = a->workspace, *region = kt + attention_round(n);                                   \
        for (size_t h = 0; h < t.bh; h++) {                                                        \
            const T *q = (const T *)a->in[0] + h * n, *v = (const T *)a->in[2] + h * n;            \
            T *o = (T *)a->out[0] + h * n;                                                         \
            attention_transpose_##SUFFIX(kt, (const T *)a->in[1] + h * n, t.seq, t.d);             \
            if (fused)                                                                             \
                attention_fused_head_##SUFFIX(q, kt, v, o, region, t.seq, t.d);                    \
            else                                                                                   \
                attention_unfused_head_##SUFFIX(q, kt, v, o, region, t.seq, t.d);                  \
        }                                                                                          \
        return 0;                                                                                  \
    }

ATTENTION_IMPL(double, f64, exp, sqrt)
ATTENTION_IMPL(float, f32, kb_expf, sqrtf)

/* fp16/bf16: each head's Q, K and V are widened into float in the workspace,
 * the float path writes O there, and it is rounded once on store. */
static int attention_half(const kb_args *a, const void *params) {
    const attention_dims t = ((const attention_run *)params)->t;
    const int fused = ((const attention_run *)params)->fused;
    const size_t n = t.seq * t.d, stride = attention_round(n);
    float *kt = a->workspace, *region = kt + stride;
    float *qf = region + attention_round(attention_scores_elems(t.seq, t.d));
    float *kf = qf + stride, *vf = kf + stride, *of = vf + stride;
    for (size_t h = 0; h < t.bh; h++) {
        kb_cpu_to_f32(qf, a->in[0], a->prec, h * n, n);
        kb_cpu_to_f32(kf, a->in[1], a->prec, h * n, n);
        kb_cpu_to_f32(vf, a->in[2], a->prec, h * n, n);
        attention_transpose_f32(kt, kf, t.seq, t.d);
        if (fused)
            attention_fused_head_f32(qf, kt, vf, of, region, t.seq, t.d);
        else
            attention_unfused_head_f32(qf, kt, vf, of, region, t.seq, t.d);
        kb_cpu_from_f32(a->out[0], a->prec, h * n, of, n);
    }
    return 0;
}

static int attention_cpu(const kb_args *a, int fused) {
    static const kb_cpu_paths paths = {attention_heads_f64, attention_heads_f32, attention_half};
    const attention_run run = {attention_dims_of(a->c), fused};
    return kb_cpu_dispatch(a, &paths, &run);
}

static int attention_cpu_unfused(const kb_args *a) {
    return attention_cpu(a, 0);
}

static int attention_cpu_fused(const kb_args *a) {
    return attention_cpu(a, 1);
}

static const kb_kernel attention_kernel = {
    .layout = attention_layout,
    .impls = {{"cpu", "unfused", attention_cpu_unfused}, {"cpu", "fused", attention_cpu_fused}},
};

KB_REGISTER_KERNEL(attention_kernel)
