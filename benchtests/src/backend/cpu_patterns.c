/* The memory access patterns the calibration measures, on the widest
 * vectors the CPU has at run time (AVX-512F, else AVX2, else SSE2;
 * portable C elsewhere), as the compute roof is: the ceiling is the
 * machine's, whatever the flags the harness was compiled with. Four
 * vectors a step keep enough loads in flight for the prefetchers.
 * Non-temporal stores need the destination aligned to the vector: a head
 * up to that alignment and the tail take plain stores, and an sfence
 * orders the stores before the clock is read. */
#include "backend/cpu_patterns.h"

#include "base/clock.h"

#include <stdint.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define KB_PATTERNS_X86 1
#else
#define KB_PATTERNS_X86 0
#endif

/* GCC and Clang could turn a copy loop into a call to memcpy, whose store
 * kind is the library's choice, not the pass's. */
#if defined(__clang__)
#define PLAIN_LOOP __attribute__((noinline, no_builtin("memcpy")))
#elif defined(__GNUC__)
#define PLAIN_LOOP __attribute__((noinline, optimize("no-tree-loop-distribute-patterns")))
#else
#define PLAIN_LOOP __attribute__((noinline))
#endif

/* The reduction's sum, kept so the loads are not dropped. */
static volatile double sink;

typedef struct pattern_passes {
    void (*read)(const double *a, size_t n);
    void (*copy)(double *dst, const double *a, size_t n, int nt);
    void (*triad)(double *dst, const double *a, const double *b, size_t n, int nt);
} pattern_passes;

#if KB_PATTERNS_X86
/* The three passes compiled for `isa` on vectors of W doubles. */
#define PATTERN_PASSES(S, isa, vec, W, LOAD, STORE, STREAM, ADD, FMA, SET1, ZERO)                  \
    __attribute__((target(isa), noinline)) static void read_##S(const double *a, size_t n) {       \
        vec s0 = ZERO(), s1 = ZERO(), s2 = ZERO(), s3 = ZERO();                                    \
        size_t i = 0;                                                                              \
        for (; i + 4 * W <= n; i += 4 * W) {                                                       \
            s0 = ADD(s0, LOAD(a + i));                                                             \
            s1 = ADD(s1, LOAD(a + i + W));                                                         \
            s2 = ADD(s2, LOAD(a + i + 2 * W));                                                     \
            s3 = ADD(s3, LOAD(a + i + 3 * W));                                                     \
        }                                                                                          \
        double l[W], s = 0.0;                                                                      \
        STORE(l, ADD(ADD(s0, s1), ADD(s2, s3)));                                                   \
        for (int k = 0; k < W; ++k) s += l[k];                                                     \
        for (; i < n; ++i) s += a[i];                                                              \
        sink = s;                                                                                  \
    }                                                                                              \
    __attribute__((target(isa)))                                                                   \
    PLAIN_LOOP static void copy_##S(double *dst, const double *a, size_t n, int nt) {              \
        size_t i = 0;                                                                              \
        for (; i < n && ((uintptr_t)(dst + i) & (W * sizeof(double) - 1)) != 0; ++i)               \
            dst[i] = a[i];                                                                         \
        if (nt)                                                                                    \
            for (; i + 4 * W <= n; i += 4 * W)                                                     \
                for (int k = 0; k < 4; ++k) STREAM(dst + i + k * W, LOAD(a + i + k * W));          \
        else                                                                                       \
            for (; i + 4 * W <= n; i += 4 * W)                                                     \
                for (int k = 0; k < 4; ++k) STORE(dst + i + k * W, LOAD(a + i + k * W));           \
        for (; i < n; ++i) dst[i] = a[i];                                                          \
        _mm_sfence();                                                                              \
    }                                                                                              \
    __attribute__((target(isa), noinline)) static void triad_##S(                                  \
        double *dst, const double *a, const double *b, size_t n, int nt) {                         \
        const vec three = SET1(3.0);                                                               \
        size_t i = 0;                                                                              \
        for (; i < n && ((uintptr_t)(dst + i) & (W * sizeof(double) - 1)) != 0; ++i)               \
            dst[i] = a[i] + 3.0 * b[i];                                                            \
        if (nt)                                                                                    \
            for (; i + 4 * W <= n; i += 4 * W)                                                     \
                for (int k = 0; k < 4; ++k)                                                        \
                    STREAM(dst + i + k * W, FMA(three, LOAD(b + i + k * W), LOAD(a + i + k * W))); \
        else                                                                                       \
            for (; i + 4 * W <= n; i += 4 * W)                                                     \
                for (int k = 0; k < 4; ++k)                                                        \
                    STORE(dst + i + k * W, FMA(three, LOAD(b + i + k * W), LOAD(a + i + k * W)));  \
        for (; i < n; ++i) dst[i] = a[i] + 3.0 * b[i];                                             \
        _mm_sfence();                                                                              \
    }

#define SSE2_FMA(x, y, z) _mm_add_pd(_mm_mul_pd(x, y), z)
PATTERN_PASSES(avx512, "avx512f", __m512d, 8, _mm512_loadu_pd, _mm512_storeu_pd, _mm512_stream_pd,
               _mm512_add_pd, _mm512_fmadd_pd, _mm512_set1_pd, _mm512_setzero_pd)
PATTERN_PASSES(avx2, "avx2,fma", __m256d, 4, _mm256_loadu_pd, _mm256_storeu_pd, _mm256_stream_pd,
               _mm256_add_pd, _mm256_fmadd_pd, _mm256_set1_pd, _mm256_setzero_pd)
PATTERN_PASSES(sse2, "sse2", __m128d, 2, _mm_loadu_pd, _mm_storeu_pd, _mm_stream_pd, _mm_add_pd,
               SSE2_FMA, _mm_set1_pd, _mm_setzero_pd)

static pattern_passes choose(void) {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return (pattern_passes){read_avx512, copy_avx512, triad_avx512};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return (pattern_passes){read_avx2, copy_avx2, triad_avx2};
    return (pattern_passes){read_sse2, copy_sse2, triad_sse2};
}

#else /* portable C: stores through the cache only */

__attribute__((noinline)) static void read_c(const double *a, size_t n) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += a[i];
        s1 += a[i + 1];
        s2 += a[i + 2];
        s3 += a[i + 3];
    }
    for (; i < n; ++i) s0 += a[i];
    sink = s0 + s1 + s2 + s3;
}

PLAIN_LOOP static void copy_c(double *dst, const double *a, size_t n, int nt) {
    (void)nt;
    for (size_t i = 0; i < n; ++i) dst[i] = a[i];
}

__attribute__((noinline)) static void triad_c(double *dst, const double *a, const double *b,
                                              size_t n, int nt) {
    (void)nt;
    for (size_t i = 0; i < n; ++i) dst[i] = a[i] + 3.0 * b[i];
}

static pattern_passes choose(void) {
    return (pattern_passes){read_c, copy_c, triad_c};
}
#endif

int kb_cpu_time_pattern(kb_mem_pattern p, int nt, void *dst, const void *a, const void *b,
                        size_t bytes, int reps, double *ms) {
    if ((unsigned)p >= KB_PATTERN_COUNT) return -1;
    if (nt && (!KB_PATTERNS_X86 || p == KB_PATTERN_READ)) return 1;
    const pattern_passes passes = choose();
    const size_t n = bytes / sizeof(double);
    double t0 = kb_now_s();
    for (int r = 0; r < reps; ++r) {
        if (p == KB_PATTERN_READ)
            passes.read(a, n);
        else if (p == KB_PATTERN_COPY)
            passes.copy(dst, a, n, nt);
        else
            passes.triad(dst, a, b, n, nt);
    }
    *ms = (kb_now_s() - t0) * 1e3;
    return 0;
}
