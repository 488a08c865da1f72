/* STREAM-style memory bandwidth: the case's dim op picks the operation,
 * 1 = copy (y = a; the copy cases have no input b) and 2 = triad
 * (y = a + 3 b, one fused multiply-add, so the result is rounded once).
 * fp64 and fp32 only: what is measured is bytes moved, which 16-bit formats
 * would only halve. Inputs are uniform in (-1, 1): their values do not
 * matter here, and uniform ones are quicker for the harness to generate.
 *
 * CPU, variant default: plain vectorised loops with ordinary stores (no
 * library memcpy: the copy loop is kept a loop, see BANDWIDTH_PLAIN_LOOP),
 * so the write of y also reads its lines into the cache first
 * (write-allocate), as in STREAM; the manifest's bytes count, like STREAM,
 * 2 n (copy) and 3 n (triad) elements. Variant nt: the same with
 * non-temporal stores (x86-64), which skip that read, so the counted bytes
 * are all the traffic: what reaches memory's ceiling for the pattern
 * (docs/roofline.md). */
#include "bandwidth.h"

#include "kb/cpu.h"
#include "kb/kernel.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* GCC and Clang turn a copy loop into a call to memcpy, whose large-size
 * path uses non-temporal stores: this keeps the loop as written. */
#if defined(__clang__)
#define BANDWIDTH_PLAIN_LOOP __attribute__((no_builtin("memcpy")))
#elif defined(__GNUC__)
#define BANDWIDTH_PLAIN_LOOP __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define BANDWIDTH_PLAIN_LOOP
#endif

static void bandwidth_layout(const kb_case *c, kb_layout *l) {
    const size_t n = (size_t)kb_case_dim(c, "n");
    kb_layout_input(l, "a", n, KB_DIST_UNIFORM, -1.0, 1.0);
    if (kb_case_dim(c, "op") == BANDWIDTH_TRIAD)
        kb_layout_input(l, "b", n, KB_DIST_UNIFORM, -1.0, 1.0);
    kb_layout_output(l, "y", n);
}

/* What both precisions' paths get. */
typedef struct bandwidth_params {
    int op;
    size_t n;
} bandwidth_params;

/* fma() is one instruction (and vectorises) where the target has FMA; kbench
 * builds C11 without contraction, so a + 3 * b would round twice. */
#define BANDWIDTH_CPU(T, SUFFIX, FMA)                                                              \
    BANDWIDTH_PLAIN_LOOP static void bandwidth_copy_##SUFFIX(const T *restrict a, T *restrict y,   \
                                                             size_t n) {                           \
        for (size_t i = 0; i < n; i++) y[i] = a[i];                                                \
    }                                                                                              \
                                                                                                   \
    static void bandwidth_triad_##SUFFIX(const T *restrict a, const T *restrict b, T *restrict y,  \
                                         size_t n) {                                               \
        for (size_t i = 0; i < n; i++) y[i] = FMA((T)3, b[i], a[i]);                               \
    }                                                                                              \
                                                                                                   \
    static int bandwidth_run_##SUFFIX(const kb_args *a, const void *params) {                      \
        const bandwidth_params *p = params;                                                        \
        if (p->op == BANDWIDTH_COPY)                                                               \
            bandwidth_copy_##SUFFIX(a->in[0], a->out[0], p->n);                                    \
        else                                                                                       \
            bandwidth_triad_##SUFFIX(a->in[0], a->in[1], a->out[0], p->n);                         \
        return 0;                                                                                  \
    }

BANDWIDTH_CPU(double, f64, fma)
BANDWIDTH_CPU(float, f32, fmaf)

static int bandwidth_cpu(const kb_args *a) {
    static const kb_cpu_paths paths = {bandwidth_run_f64, bandwidth_run_f32, NULL};
    const bandwidth_params p = {bandwidth_op(a->c), (size_t)kb_case_dim(a->c, "n")};
    if (!p.op) return 1;
    return kb_cpu_dispatch(a, &paths, &p);
}

#if defined(__x86_64__)
/* Non-temporal stores: 64-byte vectors with AVX-512F, 32-byte ones with
 * AVX2 and FMA (the triad stays one fma), else one element at a time
 * (SSE2's movnti, which every x86-64 has). A vector store needs y aligned
 * to the vector: elements before that and the tail take the scalar one.
 * The sfence orders the stores before the call returns. */
#define BANDWIDTH_NT_VEC(T, V, LANES, LOAD, STREAM, FMADD, SET1)                                   \
    for (; i + LANES <= n; i += LANES) {                                                           \
        const V va = LOAD(a + i);                                                                  \
        STREAM(y + i, triad ? FMADD(SET1((T)3), LOAD(b + i), va) : va);                            \
    }
#if defined(__AVX512F__)
#define BANDWIDTH_NT_F64                                                                           \
    BANDWIDTH_NT_VEC(double, __m512d, 8, _mm512_loadu_pd, _mm512_stream_pd, _mm512_fmadd_pd,       \
                     _mm512_set1_pd)
#define BANDWIDTH_NT_F32                                                                           \
    BANDWIDTH_NT_VEC(float, __m512, 16, _mm512_loadu_ps, _mm512_stream_ps, _mm512_fmadd_ps,        \
                     _mm512_set1_ps)
#define BANDWIDTH_NT_ALIGN 64
#elif defined(__AVX2__) && defined(__FMA__)
#define BANDWIDTH_NT_F64                                                                           \
    BANDWIDTH_NT_VEC(double, __m256d, 4, _mm256_loadu_pd, _mm256_stream_pd, _mm256_fmadd_pd,       \
                     _mm256_set1_pd)
#define BANDWIDTH_NT_F32                                                                           \
    BANDWIDTH_NT_VEC(float, __m256, 8, _mm256_loadu_ps, _mm256_stream_ps, _mm256_fmadd_ps,         \
                     _mm256_set1_ps)
#define BANDWIDTH_NT_ALIGN 32
#else
#define BANDWIDTH_NT_F64
#define BANDWIDTH_NT_F32
#define BANDWIDTH_NT_ALIGN 1
#endif

static inline void bandwidth_stream_f64(double *p, double v) {
    long long bits;
    memcpy(&bits, &v, sizeof bits);
    _mm_stream_si64((long long *)(void *)p, bits);
}

static inline void bandwidth_stream_f32(float *p, float v) {
    int bits;
    memcpy(&bits, &v, sizeof bits);
    _mm_stream_si32((int *)(void *)p, bits);
}

/* y = a (copy) or y = fma(3, b, a) (triad), stored non-temporally. */
#define BANDWIDTH_NT(T, SUFFIX, FMA, VEC)                                                          \
    static int bandwidth_nt_run_##SUFFIX(const kb_args *args, const void *params) {                \
        const bandwidth_params *p = params;                                                        \
        const T *restrict a = args->in[0];                                                         \
        const T *restrict b = p->op == BANDWIDTH_TRIAD ? args->in[1] : NULL;                       \
        T *restrict y = args->out[0];                                                              \
        const size_t n = p->n;                                                                     \
        const int triad = b != NULL;                                                               \
        size_t i = 0;                                                                              \
        for (; i < n && ((uintptr_t)(y + i) & (BANDWIDTH_NT_ALIGN - 1)) != 0; ++i)                 \
            bandwidth_stream_##SUFFIX(y + i, triad ? FMA((T)3, b[i], a[i]) : a[i]);                \
        VEC for (; i < n; ++i)                                                                     \
            bandwidth_stream_##SUFFIX(y + i, triad ? FMA((T)3, b[i], a[i]) : a[i]);                \
        _mm_sfence();                                                                              \
        return 0;                                                                                  \
    }

BANDWIDTH_NT(double, f64, fma, BANDWIDTH_NT_F64)
BANDWIDTH_NT(float, f32, fmaf, BANDWIDTH_NT_F32)

static int bandwidth_cpu_nt(const kb_args *a) {
    static const kb_cpu_paths paths = {bandwidth_nt_run_f64, bandwidth_nt_run_f32, NULL};
    const bandwidth_params p = {bandwidth_op(a->c), (size_t)kb_case_dim(a->c, "n")};
    if (!p.op) return 1;
    return kb_cpu_dispatch(a, &paths, &p);
}
#else
static int bandwidth_cpu_nt(const kb_args *a) {
    (void)a;
    return kb_unsupported("bandwidth nt: non-temporal stores are written for x86-64 only");
}
#endif

static const kb_kernel bandwidth_kernel = {
    .layout = bandwidth_layout,
    .impls = {{"cpu", "default", bandwidth_cpu}, {"cpu", "nt", bandwidth_cpu_nt}},
};

KB_REGISTER_KERNEL(bandwidth_kernel)
