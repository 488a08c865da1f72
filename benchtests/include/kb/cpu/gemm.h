/* A cache-blocked GEMM for CPU kernels: C = epilogue(alpha * A B + beta * C0),
 * row-major, A [m, k], B [k, n], C0 and C [m, n], all contiguous.
 *
 * Structure (GotoBLAS/BLIS style, with the C block accumulated in a buffer):
 *   for each column panel jc of NC columns: pack B[:, jc] (all k rows) into
 *     NR-wide slivers;
 *     for each row block ic of MC rows:
 *       for each depth block pc of KC: pack A[ic, pc] into MR-tall slivers and
 *         run the MR x NR register-tile micro-kernel over the block, adding
 *         into an MC x NC accumulator that stays in L2;
 *       the finished block gets the epilogue (alpha, beta * C0, bias,
 *       activation) while still in cache and is stored to C once.
 * Packing widens fp16/bf16 to float, so the arithmetic is float (fp32, fp16,
 * bf16 storage) or double (fp64 storage) and each output is rounded once.
 * The micro-kernel is one register tile per ISA (AVX-512F or AVX2+FMA
 * intrinsics: A broadcast, two B vectors a k step, one FMA chain per
 * accumulator), else plain C with explicit fma; every tile is full, the
 * edges coming out of the zero padding of the packed slivers. Block sizes
 * follow the cache sizes read at run time (kb__cpu_gemm_blocks).
 *
 * Scratch comes from the caller: kb_cpu_gemm_workspace() bytes, 64-byte
 * aligned (a kernel's kb_layout_workspace). */
#ifndef KB_CPU_GEMM_H
#define KB_CPU_GEMM_H

#include "kb/cpu.h"
#include "kb/prec.h"
#include "kb/vmath/vmath.h"

#include <math.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#if defined(__AVX512F__) || (defined(__AVX__) && defined(__FMA__))
#include <immintrin.h>
#endif

/* What happens to each finished element v = alpha * (A B) + beta * C0. */
typedef enum kb_cpu_gemm_ep {
    KB_CPU_GEMM_EP_NONE = 0,  /* v */
    KB_CPU_GEMM_EP_BIAS,      /* v + bias[col] */
    KB_CPU_GEMM_EP_BIAS_RELU, /* max(v + bias[col], 0) */
    KB_CPU_GEMM_EP_BIAS_GELU, /* gelu(v + bias[col]), erf form */
} kb_cpu_gemm_ep;

typedef struct kb_cpu_gemm {
    size_t m, n, k;
    kb_prec prec;       /* storage of a, b, c0, bias and c */
    const void *a, *b;  /* [m, k], [k, n] */
    const void *c0;     /* [m, n], or NULL (then beta is ignored) */
    void *c;            /* [m, n] */
    double alpha, beta; /* rounded to float for the float path */
    const void *bias;   /* [n], read when ep is not NONE */
    kb_cpu_gemm_ep ep;
} kb_cpu_gemm;

/* Register tile MR x NR per ISA, chosen from the target's features. The
 * accumulators must cover the FMA latency times the FMA units (4 x 2 on
 * Zen 3 to 5) with room left for the B vectors and the broadcast of A:
 *   AVX-512F: 12 x 2 zmm (fp32 12 x 32, fp64 12 x 16): 24 of 32 registers;
 *   AVX2+FMA: 6 x 2 ymm (fp32 6 x 16, fp64 6 x 8): 12 of 16 registers;
 *   otherwise plain C with fma, 8 x 8 / 8 x 4, which the compiler may
 *   vectorise as it can. */
#if defined(__AVX512F__)
#define KB_CPU_GEMM_MR_F32 12
#define KB_CPU_GEMM_NR_F32 32
#define KB_CPU_GEMM_MR_F64 12
#define KB_CPU_GEMM_NR_F64 16
#elif defined(__AVX__) && defined(__FMA__)
#define KB_CPU_GEMM_MR_F32 6
#define KB_CPU_GEMM_NR_F32 16
#define KB_CPU_GEMM_MR_F64 6
#define KB_CPU_GEMM_NR_F64 8
#else
#define KB_CPU_GEMM_MR_F32 8
#define KB_CPU_GEMM_NR_F32 8
#define KB_CPU_GEMM_MR_F64 8
#define KB_CPU_GEMM_NR_F64 4
#endif

#if defined(__GNUC__)
#define KB_CPU_GEMM_NOINLINE __attribute__((noinline, unused))
#else
#define KB_CPU_GEMM_NOINLINE
#endif

/* Cache sizes per core, read once (sysconf where the C library has it),
 * with a Zen 3's 32 KiB L1d and 512 KiB L2 when unknown or implausible. */
static inline void kb__cpu_gemm_caches(size_t *l1, size_t *l2) {
    static size_t c1, c2;
    if (!c1) {
        long v1 = -1, v2 = -1;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
        v1 = sysconf(_SC_LEVEL1_DCACHE_SIZE);
        v2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
        c2 = v2 >= (128L << 10) && v2 <= (64L << 20) ? (size_t)v2 : (size_t)512 << 10;
        c1 = v1 >= (16L << 10) && v1 <= (1L << 20) ? (size_t)v1 : (size_t)32 << 10;
    }
    *l1 = c1;
    *l2 = c2;
}

/* Block sizes, in elements, for a type of `t` bytes and an MR x NR tile:
 * KC: a B sliver (KC x NR) fills two thirds of L1, the rest holding the A
 *   sliver (MR x KC) streaming past and the C tile;
 * MC: an A block (MC x KC) fills a quarter of L2, a multiple of MR;
 * NC: the MC x NC accumulator half of L2, a multiple of NR. Wide blocks
 *   matter: A is packed again for every NC columns (fp32 at 512^3 on a
 *   Zen 5: 205-220 GFLOP/s with 192-256 columns a block, 232-241 with 512).
 * A call splits k, m and n into equal blocks no larger than these. */
typedef struct kb_cpu_gemm_blocks {
    size_t mc, kc, nc;
} kb_cpu_gemm_blocks;

static inline size_t kb__cpu_gemm_clamp(size_t v, size_t lo, size_t hi, size_t mult) {
    v = v < lo ? lo : v > hi ? hi : v;
    return v / mult * mult;
}

static inline kb_cpu_gemm_blocks kb__cpu_gemm_blocks(size_t t, size_t mr, size_t nr) {
    size_t l1, l2;
    kb__cpu_gemm_caches(&l1, &l2);
    kb_cpu_gemm_blocks b;
    b.kc = kb__cpu_gemm_clamp(l1 * 2 / 3 / (nr * t), 64, 1024, 16);
    b.mc = kb__cpu_gemm_clamp(l2 / 4 / (b.kc * t), mr, 1024, mr);
    b.nc = kb__cpu_gemm_clamp(l2 / 2 / (b.mc * t), nr, 4096, nr);
    return b;
}

/* Equal blocks of at most `max` covering `len`, rounded up to `mult`
 * (max is a multiple of mult, so the result stays within it). */
static inline size_t kb__cpu_gemm_split(size_t len, size_t max, size_t mult) {
    if (len == 0) return max;
    const size_t nb = (len + max - 1) / max, per = (len + nb - 1) / nb;
    return (per + mult - 1) / mult * mult;
}

/* The accumulator's row stride: a block's width plus one cache line, so
 * that the rows of a C tile do not all fall in the same L1 sets. */
static inline size_t kb__cpu_gemm_ldc(size_t nc, size_t t) {
    return nc + 64 / t;
}

/* Scratch bytes for a call with these sizes and storage precision; fp64's
 * figure also covers the float path, so a kernel may size one workspace
 * for every precision with it. */
static inline size_t kb__cpu_gemm_workspace_t(size_t m, size_t n, size_t k, size_t t, size_t mr,
                                              size_t nr) {
    const kb_cpu_gemm_blocks b = kb__cpu_gemm_blocks(t, mr, nr);
    const size_t kc = kb__cpu_gemm_split(k, b.kc, 1), mc = kb__cpu_gemm_split(m, b.mc, mr);
    const size_t nc = kb__cpu_gemm_split(n, b.nc, nr), row = kc > nc ? kc : nc;
    return kb_workspace_align(k * nc * t) +                       /* B panel */
           kb_workspace_align(mc * kc * t) +                      /* A block */
           kb_workspace_align(mc * kb__cpu_gemm_ldc(nc, t) * t) + /* accumulator */
           2 * kb_workspace_align(row * t) +                      /* row loads: packing, C0 */
           kb_workspace_align(n * t);                             /* bias */
}

static inline size_t kb_cpu_gemm_workspace(size_t m, size_t n, size_t k, kb_prec prec) {
    const size_t f =
        kb__cpu_gemm_workspace_t(m, n, k, sizeof(float), KB_CPU_GEMM_MR_F32, KB_CPU_GEMM_NR_F32);
    if (prec != KB_FP64) return f;
    const size_t d =
        kb__cpu_gemm_workspace_t(m, n, k, sizeof(double), KB_CPU_GEMM_MR_F64, KB_CPU_GEMM_NR_F64);
    return d > f ? d : f;
}

/* Row loads and stores between storage and the arithmetic type. */
static inline void kb_cpu_gemm_load_f32(float *restrict dst, const void *restrict src, kb_prec p,
                                        size_t off, size_t n) {
    if (p == KB_FP32)
        memcpy(dst, (const float *)src + off, n * sizeof(float));
    else
        kb_cpu_to_f32(dst, src, p, off, n);
}

static inline void kb_cpu_gemm_store_f32(void *restrict dst, kb_prec p, size_t off,
                                         const float *restrict src, size_t n) {
    if (p == KB_FP32)
        memcpy((float *)dst + off, src, n * sizeof(float));
    else
        kb_cpu_from_f32(dst, p, off, src, n);
}

static inline void kb_cpu_gemm_load_f64(double *restrict dst, const void *restrict src, kb_prec p,
                                        size_t off, size_t n) {
    (void)p;
    memcpy(dst, (const double *)src + off, n * sizeof(double));
}

static inline void kb_cpu_gemm_store_f64(void *restrict dst, kb_prec p, size_t off,
                                         const double *restrict src, size_t n) {
    (void)p;
    memcpy((double *)dst + off, src, n * sizeof(double));
}

/* The micro-kernel: c[MR x NR] (row stride ldc) = (first ? 0 : c) +
 * a-sliver * b-sliver over kc; slivers packed by k step (MR values of A,
 * NR of B). Not inlined: compiled on its own, the compiler keeps the tile
 * in registers; inlined into the loops around it, GCC spilled it. */
#define KB__CPU_GEMM_MICRO_PROTO(T, SUFFIX)                                                        \
    KB_CPU_GEMM_NOINLINE static void kb_cpu_gemm_micro_##SUFFIX(                                   \
        size_t kc, const T *restrict a, const T *restrict b, T *restrict c, size_t ldc, int first)

/* With intrinsics: NV vectors of VL lanes a row, A broadcast from memory,
 * B loaded once a k step and used by every row. */
#define KB__CPU_GEMM_MICRO_VEC(T, SUFFIX, MR, NV, VL, V, LOAD, STORE, BCAST, FMA, ZERO)            \
    KB__CPU_GEMM_MICRO_PROTO(T, SUFFIX) {                                                          \
        V acc[MR][NV];                                                                             \
        if (first) {                                                                               \
            _Pragma("GCC unroll 16") for (int i = 0; i < MR; i++)                                  \
                _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++) acc[i][j] = ZERO();           \
        } else {                                                                                   \
            _Pragma("GCC unroll 16") for (int i = 0; i < MR; i++)                                  \
                _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++) acc[i][j] =                   \
                    LOAD(c + i * ldc + j * VL);                                                    \
        }                                                                                          \
        for (size_t p = 0; p < kc; p++) {                                                          \
            V bv[NV];                                                                              \
            _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++) bv[j] =                           \
                LOAD(b + p * (NV * VL) + j * VL);                                                  \
            _Pragma("GCC unroll 16") for (int i = 0; i < MR; i++) {                                \
                const V ai = BCAST(a + p * MR + i);                                                \
                _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++) acc[i][j] =                   \
                    FMA(ai, bv[j], acc[i][j]);                                                     \
            }                                                                                      \
        }                                                                                          \
        _Pragma("GCC unroll 16") for (int i = 0; i < MR; i++)                                      \
            _Pragma("GCC unroll 4") for (int j = 0; j < NV; j++)                                   \
                STORE(c + i * ldc + j * VL, acc[i][j]);                                            \
    }

/* Plain C with explicit fma and fixed trip counts, for targets without
 * the intrinsics above. */
#define KB__CPU_GEMM_MICRO_C(T, SUFFIX, MR, NR, FMA)                                               \
    KB__CPU_GEMM_MICRO_PROTO(T, SUFFIX) {                                                          \
        T acc[MR][NR];                                                                             \
        _Pragma("GCC unroll 16") for (int i = 0; i < MR; i++)                                      \
            _Pragma("GCC unroll 16") for (int j = 0; j < NR; j++) acc[i][j] =                      \
                first ? (T)0 : c[i * ldc + j];                                                     \
        for (size_t p = 0; p < kc; p++) {                                                          \
            _Pragma("GCC unroll 16") for (int i = 0; i < MR; i++) {                                \
                const T ai = a[p * MR + i];                                                        \
                _Pragma("GCC unroll 16") for (int j = 0; j < NR; j++) acc[i][j] =                  \
                    FMA(ai, b[p * NR + j], acc[i][j]);                                             \
            }                                                                                      \
        }                                                                                          \
        _Pragma("GCC unroll 16") for (int i = 0; i < MR; i++)                                      \
            _Pragma("GCC unroll 16") for (int j = 0; j < NR; j++) c[i * ldc + j] = acc[i][j];      \
    }

#if defined(__AVX512F__)
#define KB__CPU_GEMM_SET1_PS(p) _mm512_set1_ps(*(p))
#define KB__CPU_GEMM_SET1_PD(p) _mm512_set1_pd(*(p))
KB__CPU_GEMM_MICRO_VEC(float, f32, KB_CPU_GEMM_MR_F32, 2, 16, __m512, _mm512_loadu_ps,
                       _mm512_storeu_ps, KB__CPU_GEMM_SET1_PS, _mm512_fmadd_ps, _mm512_setzero_ps)
KB__CPU_GEMM_MICRO_VEC(double, f64, KB_CPU_GEMM_MR_F64, 2, 8, __m512d, _mm512_loadu_pd,
                       _mm512_storeu_pd, KB__CPU_GEMM_SET1_PD, _mm512_fmadd_pd, _mm512_setzero_pd)
#elif defined(__AVX__) && defined(__FMA__)
KB__CPU_GEMM_MICRO_VEC(float, f32, KB_CPU_GEMM_MR_F32, 2, 8, __m256, _mm256_loadu_ps,
                       _mm256_storeu_ps, _mm256_broadcast_ss, _mm256_fmadd_ps, _mm256_setzero_ps)
KB__CPU_GEMM_MICRO_VEC(double, f64, KB_CPU_GEMM_MR_F64, 2, 4, __m256d, _mm256_loadu_pd,
                       _mm256_storeu_pd, _mm256_broadcast_sd, _mm256_fmadd_pd, _mm256_setzero_pd)
#else
KB__CPU_GEMM_MICRO_C(float, f32, KB_CPU_GEMM_MR_F32, KB_CPU_GEMM_NR_F32, kb_fmaf)
KB__CPU_GEMM_MICRO_C(double, f64, KB_CPU_GEMM_MR_F64, KB_CPU_GEMM_NR_F64, kb_fma)
#endif

/* The rest of the core for arithmetic type T (float: fp32/fp16/bf16
 * storage; double: fp64), MR x NR tile, FMA and GELU in T. */
#define KB_CPU_GEMM_DEFINE(T, SUFFIX, MR, NR, FMA, GELU)                                           \
    /* B[:, jc .. jc + nc) into NR-wide slivers of all k rows, zero-padded. */                     \
    static inline void kb_cpu_gemm_pack_b_##SUFFIX(const kb_cpu_gemm *g, size_t jc, size_t nc,     \
                                                   T *restrict dst, T *restrict row) {             \
        const size_t k = g->k;                                                                     \
        for (size_t p = 0; p < k; p++) {                                                           \
            kb_cpu_gemm_load_##SUFFIX(row, g->b, g->prec, p * g->n + jc, nc);                      \
            for (size_t t = 0; t * NR < nc; t++) {                                                 \
                T *d = dst + t * k * NR + p * NR;                                                  \
                if ((t + 1) * NR <= nc)                                                            \
                    memcpy(d, row + t * NR, NR * sizeof(T));                                       \
                else                                                                               \
                    for (size_t j = 0; j < NR; j++)                                                \
                        d[j] = t * NR + j < nc ? row[t * NR + j] : (T)0;                           \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* A[ic .. ic + mc, pc .. pc + kc) into MR-tall slivers, zero-padded. */                       \
    static inline void kb_cpu_gemm_pack_a_##SUFFIX(const kb_cpu_gemm *g, size_t ic, size_t mc,     \
                                                   size_t pc, size_t kc, T *restrict dst,          \
                                                   T *restrict row) {                              \
        const size_t mp = (mc + MR - 1) / MR * MR;                                                 \
        for (size_t r = 0; r < mp; r++) {                                                          \
            if (r < mc)                                                                            \
                kb_cpu_gemm_load_##SUFFIX(row, g->a, g->prec, (ic + r) * g->k + pc, kc);           \
            else                                                                                   \
                memset(row, 0, kc * sizeof(T));                                                    \
            T *d = dst + (r / MR) * kc * MR + r % MR;                                              \
            for (size_t p = 0; p < kc; p++) d[p * MR] = row[p];                                    \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* One finished row segment v[0 .. nc): alpha, beta * c0, bias, activation. */                 \
    static inline void kb_cpu_gemm_epilogue_##SUFFIX(const kb_cpu_gemm *g, T *restrict v,          \
                                                     const T *restrict c0, const T *restrict bias, \
                                                     size_t nc) {                                  \
        const T alpha = (T)g->alpha, beta = (T)g->beta;                                            \
        if (c0)                                                                                    \
            for (size_t j = 0; j < nc; j++) v[j] = FMA(beta, c0[j], alpha * v[j]);                 \
        else if (alpha != (T)1)                                                                    \
            for (size_t j = 0; j < nc; j++) v[j] *= alpha;                                         \
        if (g->ep == KB_CPU_GEMM_EP_NONE) return;                                                  \
        for (size_t j = 0; j < nc; j++) v[j] += bias[j];                                           \
        if (g->ep == KB_CPU_GEMM_EP_BIAS_RELU)                                                     \
            for (size_t j = 0; j < nc; j++) v[j] = v[j] > (T)0 ? v[j] : (T)0;                      \
        else if (g->ep == KB_CPU_GEMM_EP_BIAS_GELU)                                                \
            for (size_t j = 0; j < nc; j++) v[j] = GELU(v[j]);                                     \
    }                                                                                              \
                                                                                                   \
    /* The mc x nc block at (ic, jc), depth blocks of kb: all of k, then the                       \
     * epilogue and the store. acc's rows are ldc apart. */                                        \
    static inline void kb_cpu_gemm_block_##SUFFIX(                                                 \
        const kb_cpu_gemm *g, size_t ic, size_t mc, size_t jc, size_t nc, size_t kb, const T *bp,  \
        T *ap, T *acc, size_t ldc, T *row, T *c0row, const T *bias) {                              \
        for (size_t pc = 0; pc < g->k; pc += kb) {                                                 \
            const size_t kc = g->k - pc < kb ? g->k - pc : kb;                                     \
            kb_cpu_gemm_pack_a_##SUFFIX(g, ic, mc, pc, kc, ap, row);                               \
            for (size_t jr = 0; jr < nc; jr += NR)                                                 \
                for (size_t ir = 0; ir < mc; ir += MR)                                             \
                    kb_cpu_gemm_micro_##SUFFIX(kc, ap + ir * kc, bp + jr * g->k + pc * NR,         \
                                               acc + ir * ldc + jr, ldc, pc == 0);                 \
        }                                                                                          \
        for (size_t i = 0; i < mc; i++) {                                                          \
            T *v = acc + i * ldc;                                                                  \
            if (g->c0) kb_cpu_gemm_load_##SUFFIX(c0row, g->c0, g->prec, (ic + i) * g->n + jc, nc); \
            kb_cpu_gemm_epilogue_##SUFFIX(g, v, g->c0 ? c0row : NULL, bias + jc, nc);              \
            kb_cpu_gemm_store_##SUFFIX(g->c, g->prec, (ic + i) * g->n + jc, v, nc);                \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* Carves the workspace as kb__cpu_gemm_workspace_t counts it. */                              \
    static inline void kb_cpu_gemm_run_##SUFFIX(const kb_cpu_gemm *g, void *workspace) {           \
        const kb_cpu_gemm_blocks bl = kb__cpu_gemm_blocks(sizeof(T), MR, NR);                      \
        const size_t kb = kb__cpu_gemm_split(g->k, bl.kc, 1);                                      \
        const size_t mb = kb__cpu_gemm_split(g->m, bl.mc, MR);                                     \
        const size_t nb = kb__cpu_gemm_split(g->n, bl.nc, NR);                                     \
        const size_t ldc = kb__cpu_gemm_ldc(nb, sizeof(T)), rowlen = kb > nb ? kb : nb;            \
        char *w = workspace;                                                                       \
        T *bp = (T *)w;                                                                            \
        w += kb_workspace_align(g->k * nb * sizeof(T));                                            \
        T *ap = (T *)w;                                                                            \
        w += kb_workspace_align(mb * kb * sizeof(T));                                              \
        T *acc = (T *)w;                                                                           \
        w += kb_workspace_align(mb * ldc * sizeof(T));                                             \
        T *row = (T *)w;                                                                           \
        w += kb_workspace_align(rowlen * sizeof(T));                                               \
        T *c0row = (T *)w;                                                                         \
        w += kb_workspace_align(rowlen * sizeof(T));                                               \
        T *bias = (T *)w;                                                                          \
        if (g->ep != KB_CPU_GEMM_EP_NONE)                                                          \
            kb_cpu_gemm_load_##SUFFIX(bias, g->bias, g->prec, 0, g->n);                            \
        for (size_t jc = 0; jc < g->n; jc += nb) {                                                 \
            const size_t nc = g->n - jc < nb ? g->n - jc : nb;                                     \
            kb_cpu_gemm_pack_b_##SUFFIX(g, jc, nc, bp, row);                                       \
            for (size_t ic = 0; ic < g->m; ic += mb) {                                             \
                const size_t mc = g->m - ic < mb ? g->m - ic : mb;                                 \
                kb_cpu_gemm_block_##SUFFIX(g, ic, mc, jc, nc, kb, bp, ap, acc, ldc, row, c0row,    \
                                           bias);                                                  \
            }                                                                                      \
        }                                                                                          \
    }

KB_CPU_GEMM_DEFINE(float, f32, KB_CPU_GEMM_MR_F32, KB_CPU_GEMM_NR_F32, kb_fmaf, kb_gelu_f32)
KB_CPU_GEMM_DEFINE(double, f64, KB_CPU_GEMM_MR_F64, KB_CPU_GEMM_NR_F64, kb_fma, kb_gelu_f64)

static inline int kb__cpu_gemm_f64(const kb_args *a, const void *g) {
    kb_cpu_gemm_run_f64(g, a->workspace);
    return 0;
}

static inline int kb__cpu_gemm_f32(const kb_args *a, const void *g) {
    kb_cpu_gemm_run_f32(g, a->workspace);
    return 0;
}

/* Runs g, whose tensors and precision are a's, in a's workspace with the
 * arithmetic of its storage precision (double for fp64, float otherwise).
 * Returns 0, or kb_cpu_dispatch's decline of a precision it does not know. */
static inline int kb_cpu_gemm_run(const kb_args *a, const kb_cpu_gemm *g) {
    static const kb_cpu_paths paths = {kb__cpu_gemm_f64, kb__cpu_gemm_f32, kb__cpu_gemm_f32};
    return kb_cpu_dispatch(a, &paths, g);
}

#endif
