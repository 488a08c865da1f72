#include "machine/fmapeak.h"

#include "base/clock.h"

#include <math.h>
#include <stdio.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define KB_X86 1
#endif

/* Enough independent accumulators to keep every multiply-add pipe busy: two
 * pipes of four cycles' latency need 8 in flight; 12 leaves margin and still
 * fits the 16 vector registers of AVX2 and SSE2 beside the two constants. */
#define ACCUMULATORS 12
/* Many short timings rather than a few long ones: on a shared machine the
 * best of them is likelier to have run undisturbed. A timing shorter than
 * the scheduler's slice (3 ms for two busy tasks on a CPU under Linux's
 * defaults) can fit between two preemptions; one of 5 ms cannot, and with a
 * busy neighbour on every CPU measured about half the quiet figure. */
#define MIN_MS  1.0
#define TIMINGS 30

/* Read through volatile so that the compiler cannot fold the loops; the sum
 * goes to a volatile sink so it cannot drop them. */
static volatile double factor = 0.9999999, addend = 1e-9;
static volatile double sink;

typedef double (*fma_loop)(long steps, double a, double b);

/* One loop body for every instruction set: x = x * a + b on ACCUMULATORS
 * vectors, with OP(x, a, b) the set's multiply-add (fused, or a multiply
 * then an add). Writes the function `name` compiled for `isa`. */
#define FMA_LOOP(name, isa, vec, set1, OP)                                                         \
    __attribute__((target(isa), noinline)) static double name(long steps, double a_, double b_) {  \
        const vec a = set1(a_), b = set1(b_);                                                      \
        vec x0 = set1(1.0), x1 = set1(1.01), x2 = set1(1.02), x3 = set1(1.03), x4 = set1(1.04),    \
            x5 = set1(1.05), x6 = set1(1.06), x7 = set1(1.07), x8 = set1(1.08), x9 = set1(1.09),   \
            x10 = set1(1.1), x11 = set1(1.11);                                                     \
        for (long s = 0; s < steps; ++s) {                                                         \
            x0 = OP(x0, a, b), x1 = OP(x1, a, b), x2 = OP(x2, a, b), x3 = OP(x3, a, b);            \
            x4 = OP(x4, a, b), x5 = OP(x5, a, b), x6 = OP(x6, a, b), x7 = OP(x7, a, b);            \
            x8 = OP(x8, a, b), x9 = OP(x9, a, b), x10 = OP(x10, a, b), x11 = OP(x11, a, b);        \
        }                                                                                          \
        vec sum = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9 + x10 + x11;                     \
        return (double)sum[0];                                                                     \
    }

#ifdef KB_X86
#define SSE2_PD(x, a, b) _mm_add_pd(_mm_mul_pd(x, a), b)
#define SSE2_PS(x, a, b) _mm_add_ps(_mm_mul_ps(x, a), b)
#define SET1_PS(v)       _mm_set1_ps((float)(v))
#define SET1_PS256(v)    _mm256_set1_ps((float)(v))
#define SET1_PS512(v)    _mm512_set1_ps((float)(v))
FMA_LOOP(avx512_f64, "avx512f", __m512d, _mm512_set1_pd, _mm512_fmadd_pd)
FMA_LOOP(avx512_f32, "avx512f", __m512, SET1_PS512, _mm512_fmadd_ps)
FMA_LOOP(avx2_f64, "avx2,fma", __m256d, _mm256_set1_pd, _mm256_fmadd_pd)
FMA_LOOP(avx2_f32, "avx2,fma", __m256, SET1_PS256, _mm256_fmadd_ps)
FMA_LOOP(sse2_f64, "sse2", __m128d, _mm_set1_pd, SSE2_PD)
FMA_LOOP(sse2_f32, "sse2", __m128, SET1_PS, SSE2_PS)
#endif

#ifndef KB_X86
/* Elsewhere: plain C over as many accumulators, vectorized as the build
 * flags allow. */
__attribute__((noinline)) static double portable_f64(long steps, double a, double b) {
    double x[ACCUMULATORS];
    for (int j = 0; j < ACCUMULATORS; ++j) x[j] = 1.0 + 0.01 * j;
    for (long s = 0; s < steps; ++s)
        for (int j = 0; j < ACCUMULATORS; ++j) x[j] = x[j] * a + b;
    double sum = 0.0;
    for (int j = 0; j < ACCUMULATORS; ++j) sum += x[j];
    return sum;
}

__attribute__((noinline)) static double portable_f32(long steps, double a, double b) {
    float x[ACCUMULATORS], fa = (float)a, fb = (float)b;
    for (int j = 0; j < ACCUMULATORS; ++j) x[j] = 1.0f + 0.01f * (float)j;
    for (long s = 0; s < steps; ++s)
        for (int j = 0; j < ACCUMULATORS; ++j) x[j] = x[j] * fa + fb;
    float sum = 0.0f;
    for (int j = 0; j < ACCUMULATORS; ++j) sum += x[j];
    return sum;
}
#endif

typedef struct loop_choice {
    fma_loop fn;
    int lanes; /* elements per accumulator */
    const char *what;
} loop_choice;

static loop_choice choose(int f64) {
#ifdef KB_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return f64 ? (loop_choice){avx512_f64, 8, "AVX-512F vfmadd, 512-bit"}
                   : (loop_choice){avx512_f32, 16, "AVX-512F vfmadd, 512-bit"};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return f64 ? (loop_choice){avx2_f64, 4, "AVX2+FMA vfmadd, 256-bit"}
                   : (loop_choice){avx2_f32, 8, "AVX2+FMA vfmadd, 256-bit"};
    return f64 ? (loop_choice){sse2_f64, 2, "SSE2 mul+add, 128-bit"}
               : (loop_choice){sse2_f32, 4, "SSE2 mul+add, 128-bit"};
#else
    return f64 ? (loop_choice){portable_f64, 1, "portable C (as the build vectorizes it)"}
               : (loop_choice){portable_f32, 1, "portable C (as the build vectorizes it)"};
#endif
}

static double time_steps(const loop_choice *c, long steps) {
    double t0 = kb_now_s();
    sink = c->fn(steps, factor, addend);
    return (kb_now_s() - t0) * 1e3;
}

/* One figure per arithmetic (fp64, fp32): fp32, fp16 and bf16 all compute in
 * fp32, so they share it instead of timing the same loop three times (and
 * reading three noisy figures as three roofs). Each call for fp64 or fp32
 * adds a batch of timings and keeps the best over all batches, so a caller
 * that asks again later in the run (roofs.c, before and after its memory
 * sweep) gets the best over timings spread in time. */
typedef struct fma_figure {
    long steps; /* 0: not sized yet */
    double best_ms;
    int batches;
    loop_choice c;
} fma_figure;

/* Steps enough for one timing of MIN_MS. */
static void size_steps(fma_figure *fig, int f64) {
    fig->c = choose(f64);
    long steps = 1L << 12;
    double ms = time_steps(&fig->c, steps);
    while (ms < MIN_MS && steps < (1L << 40)) {
        steps *= ms > 0.1 ? (long)(MIN_MS / ms) + 1 : 16;
        ms = time_steps(&fig->c, steps);
    }
    fig->steps = steps;
    fig->best_ms = HUGE_VAL; /* the sizing timings do not count */
}

static void add_batch(fma_figure *fig) {
    for (int i = 0; i < TIMINGS; ++i) {
        double ms = time_steps(&fig->c, fig->steps);
        if (ms < fig->best_ms) fig->best_ms = ms;
    }
    fig->batches++;
}

void kb_fma_peak(kb_prec p, double *gflops, char *how, size_t how_size) {
    static fma_figure figures[2]; /* [0] fp32, [1] fp64 */
    const int f64 = p == KB_FP64, shared = p == KB_FP16 || p == KB_BF16;
    fma_figure *fig = &figures[f64];
    if (!fig->steps) size_steps(fig, f64);
    if (!shared || fig->batches == 0) add_batch(fig);
    const double flops = 2.0 * ACCUMULATORS * fig->c.lanes * (double)fig->steps;
    *gflops = flops / (fig->best_ms * 1e-3) * 1e-9;
    snprintf(how, how_size,
             "%s%s: %d independent accumulators of x = x * a + b in %s, one thread, best of %d "
             "timings of %ld steps (>= %.0f ms each, in batches of %d taken apart in time), a "
             "multiply-add counted as 2 flops",
             shared ? "the fp32 figure (kbench's CPU kernels compute 16-bit storage in fp32; a "
                      "native 16-bit FMA, where the CPU has one, is not used): "
                    : "",
             fig->c.what, ACCUMULATORS, f64 ? "fp64" : "fp32", fig->batches * TIMINGS, fig->steps,
             MIN_MS, TIMINGS);
}
