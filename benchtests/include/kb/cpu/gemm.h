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
 * The micro-kernel is plain C with fixed trip counts and explicit fma, which
 * GCC -O3 turns into a vector register tile (no intrinsics).
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

/* Blocking: an A block (MC x KC) and the accumulator (MC x NC) stay in L2,
 * a B sliver (KC x NR) in L1. The MR x NR tile is two 512-bit vectors per
 * row with AVX-512 (16 of its 32 registers), else one 256-bit vector per row
 * (8 of AVX2's 16, leaving room for the operands). MC is a multiple of MR
 * and NC of NR. Measured on the Zen 4
 * build machine (GCC 12, one core, m = n = k = 512): 100 GFLOP/s fp32 and
 * 43 GFLOP/s fp64, 97 % and 88 % of OpenBLAS 0.3 on one thread. */
#define KB_CPU_GEMM_MC 96
#define KB_CPU_GEMM_KC 256
#define KB_CPU_GEMM_NC 256
#define KB_CPU_GEMM_MR 8
#ifdef __AVX512F__
#define KB_CPU_GEMM_NR_F32 32
#define KB_CPU_GEMM_NR_F64 16
#else
#define KB_CPU_GEMM_NR_F32 8
#define KB_CPU_GEMM_NR_F64 4
#endif

#if defined(__GNUC__)
#define KB_CPU_GEMM_NOINLINE __attribute__((noinline, unused))
#else
#define KB_CPU_GEMM_NOINLINE
#endif

/* Scratch bytes for a call with these sizes and storage precision. */
static inline size_t kb_cpu_gemm_workspace(size_t m, size_t n, size_t k, kb_prec prec) {
    (void)m;
    const size_t t = prec == KB_FP64 ? sizeof(double) : sizeof(float);
    const size_t row = KB_CPU_GEMM_KC > KB_CPU_GEMM_NC ? KB_CPU_GEMM_KC : KB_CPU_GEMM_NC;
    return kb_workspace_align(k * KB_CPU_GEMM_NC * t) +              /* B panel */
           kb_workspace_align(KB_CPU_GEMM_MC * KB_CPU_GEMM_KC * t) + /* A block */
           kb_workspace_align(KB_CPU_GEMM_MC * KB_CPU_GEMM_NC * t) + /* accumulator */
           2 * kb_workspace_align(row * t) +                         /* row loads: packing, C0 */
           kb_workspace_align(n * t);                                /* bias */
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

/* The core for arithmetic type T (float: fp32/fp16/bf16 storage; double:
 * fp64), NR columns per register tile, FMA and GELU in T. */
#define KB_CPU_GEMM_DEFINE(T, SUFFIX, NR, FMA, GELU)                                               \
    /* c[MR x NR] (row stride ldc) = (first ? 0 : c) + a-sliver * b-sliver over kc. Not            \
     * inlined: compiled on its own, GCC keeps the tile in registers; inlined into the             \
     * loops around it, it spilled the tile to the stack (16x slower). */                          \
    KB_CPU_GEMM_NOINLINE static void kb_cpu_gemm_micro_##SUFFIX(                                   \
        size_t kc, const T *restrict a, const T *restrict b, T *restrict c, size_t ldc,            \
        int first) {                                                                               \
        T acc[KB_CPU_GEMM_MR][NR];                                                                 \
        _Pragma("GCC unroll 8") for (int i = 0; i < KB_CPU_GEMM_MR; i++)                           \
            _Pragma("GCC unroll 16") for (int j = 0; j < NR; j++) acc[i][j] =                      \
                first ? (T)0 : c[i * ldc + j];                                                     \
        for (size_t p = 0; p < kc; p++) {                                                          \
            _Pragma("GCC unroll 8") for (int i = 0; i < KB_CPU_GEMM_MR; i++) {                     \
                const T ai = a[p * KB_CPU_GEMM_MR + i];                                            \
                _Pragma("GCC unroll 16") for (int j = 0; j < NR; j++) acc[i][j] =                  \
                    FMA(ai, b[p * NR + j], acc[i][j]);                                             \
            }                                                                                      \
        }                                                                                          \
        _Pragma("GCC unroll 8") for (int i = 0; i < KB_CPU_GEMM_MR; i++)                           \
            _Pragma("GCC unroll 16") for (int j = 0; j < NR; j++) c[i * ldc + j] = acc[i][j];      \
    }                                                                                              \
                                                                                                   \
    /* B[:, jc .. jc + nc) into NR-wide slivers of all k rows, zero-padded. */                     \
    static inline void kb_cpu_gemm_pack_b_##SUFFIX(const kb_cpu_gemm *g, size_t jc, size_t nc,     \
                                                   T *restrict dst, T *restrict row) {             \
        const size_t k = g->k;                                                                     \
        for (size_t p = 0; p < k; p++) {                                                           \
            kb_cpu_gemm_load_##SUFFIX(row, g->b, g->prec, p * g->n + jc, nc);                      \
            for (size_t t = 0; t * NR < nc; t++) {                                                 \
                T *d = dst + t * k * NR + p * NR;                                                  \
                for (size_t j = 0; j < NR; j++) d[j] = t * NR + j < nc ? row[t * NR + j] : (T)0;   \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* A[ic .. ic + mc, pc .. pc + kc) into MR-tall slivers, zero-padded. */                       \
    static inline void kb_cpu_gemm_pack_a_##SUFFIX(const kb_cpu_gemm *g, size_t ic, size_t mc,     \
                                                   size_t pc, size_t kc, T *restrict dst,          \
                                                   T *restrict row) {                              \
        const size_t mp = (mc + KB_CPU_GEMM_MR - 1) / KB_CPU_GEMM_MR * KB_CPU_GEMM_MR;             \
        for (size_t r = 0; r < mp; r++) {                                                          \
            if (r < mc)                                                                            \
                kb_cpu_gemm_load_##SUFFIX(row, g->a, g->prec, (ic + r) * g->k + pc, kc);           \
            else                                                                                   \
                memset(row, 0, kc * sizeof(T));                                                    \
            T *d = dst + (r / KB_CPU_GEMM_MR) * kc * KB_CPU_GEMM_MR + r % KB_CPU_GEMM_MR;          \
            for (size_t p = 0; p < kc; p++) d[p * KB_CPU_GEMM_MR] = row[p];                        \
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
    /* The MC x NC block at (ic, jc): all depth blocks, then epilogue and store. */                \
    static inline void kb_cpu_gemm_block_##SUFFIX(const kb_cpu_gemm *g, size_t ic, size_t mc,      \
                                                  size_t jc, size_t nc, const T *bp, T *ap,        \
                                                  T *acc, T *row, T *c0row, const T *bias) {       \
        for (size_t pc = 0; pc < g->k; pc += KB_CPU_GEMM_KC) {                                     \
            const size_t kc = g->k - pc < KB_CPU_GEMM_KC ? g->k - pc : KB_CPU_GEMM_KC;             \
            kb_cpu_gemm_pack_a_##SUFFIX(g, ic, mc, pc, kc, ap, row);                               \
            for (size_t jr = 0; jr < nc; jr += NR)                                                 \
                for (size_t ir = 0; ir < mc; ir += KB_CPU_GEMM_MR)                                 \
                    kb_cpu_gemm_micro_##SUFFIX(kc, ap + ir * kc, bp + jr * g->k + pc * NR,         \
                                               acc + ir * KB_CPU_GEMM_NC + jr, KB_CPU_GEMM_NC,     \
                                               pc == 0);                                           \
        }                                                                                          \
        for (size_t i = 0; i < mc; i++) {                                                          \
            T *v = acc + i * KB_CPU_GEMM_NC;                                                       \
            if (g->c0) kb_cpu_gemm_load_##SUFFIX(c0row, g->c0, g->prec, (ic + i) * g->n + jc, nc); \
            kb_cpu_gemm_epilogue_##SUFFIX(g, v, g->c0 ? c0row : NULL, bias + jc, nc);              \
            kb_cpu_gemm_store_##SUFFIX(g->c, g->prec, (ic + i) * g->n + jc, v, nc);                \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static inline void kb_cpu_gemm_run_##SUFFIX(const kb_cpu_gemm *g, void *workspace) {           \
        const size_t rowlen = KB_CPU_GEMM_KC > KB_CPU_GEMM_NC ? KB_CPU_GEMM_KC : KB_CPU_GEMM_NC;   \
        char *w = workspace;                                                                       \
        T *bp = (T *)w;                                                                            \
        w += kb_workspace_align(g->k * KB_CPU_GEMM_NC * sizeof(T));                                \
        T *ap = (T *)w;                                                                            \
        w += kb_workspace_align(KB_CPU_GEMM_MC * KB_CPU_GEMM_KC * sizeof(T));                      \
        T *acc = (T *)w;                                                                           \
        w += kb_workspace_align(KB_CPU_GEMM_MC * KB_CPU_GEMM_NC * sizeof(T));                      \
        T *row = (T *)w;                                                                           \
        w += kb_workspace_align(rowlen * sizeof(T));                                               \
        T *c0row = (T *)w;                                                                         \
        w += kb_workspace_align(rowlen * sizeof(T));                                               \
        T *bias = (T *)w;                                                                          \
        if (g->ep != KB_CPU_GEMM_EP_NONE)                                                          \
            kb_cpu_gemm_load_##SUFFIX(bias, g->bias, g->prec, 0, g->n);                            \
        for (size_t jc = 0; jc < g->n; jc += KB_CPU_GEMM_NC) {                                     \
            const size_t nc = g->n - jc < KB_CPU_GEMM_NC ? g->n - jc : KB_CPU_GEMM_NC;             \
            kb_cpu_gemm_pack_b_##SUFFIX(g, jc, nc, bp, row);                                       \
            for (size_t ic = 0; ic < g->m; ic += KB_CPU_GEMM_MC) {                                 \
                const size_t mc = g->m - ic < KB_CPU_GEMM_MC ? g->m - ic : KB_CPU_GEMM_MC;         \
                kb_cpu_gemm_block_##SUFFIX(g, ic, mc, jc, nc, bp, ap, acc, row, c0row, bias);      \
            }                                                                                      \
        }                                                                                          \
    }

KB_CPU_GEMM_DEFINE(float, f32, KB_CPU_GEMM_NR_F32, kb_fmaf, kb_gelu_f32)
KB_CPU_GEMM_DEFINE(double, f64, KB_CPU_GEMM_NR_F64, kb_fma, kb_gelu_f64)

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
