/* kb/cpu/gemm.h against the reference library's GEMM loop: every edge a
 * register tile can leave (m, n, k not multiples of its rows and columns),
 * sizes that split into several blocks in every dimension, each epilogue,
 * with and without C0, over a workspace full of garbage, and nothing
 * written outside C. Built twice: portably (the plain-C micro-kernel) and
 * with the kernels' flags (the widest vector micro-kernel the target has). */
#include "kb/cpu/gemm.h"
#include "kb_test.h"
#include "kbref/activation.h"
#include "kbref/gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 16 /* elements after C that must stay untouched */

static unsigned next(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return *s;
}

/* Uniform in (-1, 1), exactly representable in float. */
static double uniform(unsigned *s) {
    return (double)((next(s) >> 8) & 0xffff) / 32768.0 - 1.0;
}

typedef struct problem {
    size_t m, n, k;
    double *a, *b, *c0, *bias; /* the values, as stored in the precision */
    double *want, *bound;      /* the reference result and each element's error bound */
} problem;

/* What the kernel computes, in double: v = 0.75 A B + 0.5 C0, then the
 * epilogue; `bound` is a forward error bound for `prec`: the k products
 * and sums of the dot product and the few operations after it, each
 * rounding by at most u, on the magnitudes they combine. */
static void expect(problem *p, kb_prec prec, kb_cpu_gemm_ep ep, int with_c0) {
    const size_t m = p->m, n = p->n, k = p->k;
    double *abs_a = malloc(m * k * sizeof *abs_a), *abs_b = malloc(k * n * sizeof *abs_b);
    double *mag = malloc(m * n * sizeof *mag);
    for (size_t i = 0; i < m * k; i++) abs_a[i] = fabs(p->a[i]);
    for (size_t i = 0; i < k * n; i++) abs_b[i] = fabs(p->b[i]);
    kbref_gemm(KBREF_NOTRANS, m, n, k, p->a, k, p->b, n, 0.0, p->want, n);
    kbref_gemm(KBREF_NOTRANS, m, n, k, abs_a, k, abs_b, n, 0.0, mag, n);
    const double u = prec == KB_FP64 ? 0x1p-53 : 0x1p-24;
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            const size_t e = i * n + j;
            double v = 0.75 * p->want[e] + (with_c0 ? 0.5 * p->c0[e] : 0.0);
            double size = 0.75 * mag[e] + (with_c0 ? 0.5 * fabs(p->c0[e]) : 0.0) + 1e-300;
            if (ep != KB_CPU_GEMM_EP_NONE) v += p->bias[j], size += fabs(p->bias[j]);
            if (ep == KB_CPU_GEMM_EP_BIAS_RELU) v = v > 0.0 ? v : 0.0;
            if (ep == KB_CPU_GEMM_EP_BIAS_GELU) v = kbref_gelu(v);
            p->want[e] = v;
            /* GELU's slope is at most 1.13; the vector GELU adds a few ulp
             * of its own on values of size at most `size`. */
            p->bound[e] = ((double)k + 8.0) * u * size * 1.13 + 16.0 * u * (size + 1.0);
        }
    free(abs_a);
    free(abs_b);
    free(mag);
}

static void fill(double *x, size_t n, kb_prec prec, unsigned *s) {
    for (size_t i = 0; i < n; i++) {
        const double v = uniform(s);
        x[i] = prec == KB_FP32 ? (double)(float)v : v;
    }
}

/* One product in `prec` (fp32 or fp64). */
static void check(size_t m, size_t n, size_t k, kb_prec prec, kb_cpu_gemm_ep ep, int with_c0) {
    unsigned s = (unsigned)(m * 131u + n * 7u + k * 3u + (unsigned)ep);
    problem p = {m,
                 n,
                 k,
                 malloc(m * k * 8),
                 malloc(k * n * 8),
                 malloc(m * n * 8),
                 malloc(n * 8),
                 malloc(m * n * 8),
                 malloc(m * n * 8)};
    fill(p.a, m * k, prec, &s);
    fill(p.b, k * n, prec, &s);
    fill(p.c0, m * n, prec, &s);
    fill(p.bias, n, prec, &s);
    expect(&p, prec, ep, with_c0);

    const size_t es = prec == KB_FP64 ? sizeof(double) : sizeof(float);
    void *a = malloc(m * k * es), *b = malloc(k * n * es), *c0 = malloc(m * n * es);
    void *bias = malloc(n * es);
    unsigned char *c = malloc((m * n + GUARD) * es);
    const double *src[4] = {p.a, p.b, p.c0, p.bias};
    void *dst[4] = {a, b, c0, bias};
    const size_t len[4] = {m * k, k * n, m * n, n};
    for (int t = 0; t < 4; t++)
        for (size_t i = 0; i < len[t]; i++) kb_store_f64(dst[t], prec, i, src[t][i]);
    memset(c, 0x5a, (m * n + GUARD) * es);

    const size_t ws = kb_cpu_gemm_workspace(m, n, k, prec);
    void *w = aligned_alloc(64, (ws + 63) / 64 * 64);
    memset(w, 0x7f, ws);
    kb_cpu_gemm g = {.m = m,
                     .n = n,
                     .k = k,
                     .prec = prec,
                     .a = a,
                     .b = b,
                     .c0 = with_c0 ? c0 : NULL,
                     .c = c,
                     .alpha = 0.75,
                     .beta = 0.5,
                     .bias = bias,
                     .ep = ep};
    if (prec == KB_FP64)
        kb_cpu_gemm_run_f64(&g, w);
    else
        kb_cpu_gemm_run_f32(&g, w);

    size_t bad = 0, worst = 0;
    double worst_ratio = 0.0;
    for (size_t e = 0; e < m * n; e++) {
        const double got = kb_load_f64(c, prec, e), ratio = fabs(got - p.want[e]) / p.bound[e];
        if (!(ratio <= 1.0)) bad++;
        if (!(ratio <= worst_ratio)) worst_ratio = ratio, worst = e;
    }
    if (bad)
        KB_TEST_FAIL("%s m=%zu n=%zu k=%zu ep=%d c0=%d: %zu elements beyond their bound, worst "
                     "(%zu, %zu) %.17g for %.17g (%.3g x its bound)",
                     kb_prec_name(prec), m, n, k, (int)ep, with_c0, bad, worst / n, worst % n,
                     kb_load_f64(c, prec, worst), p.want[worst], worst_ratio);
    for (size_t i = m * n * es; i < (m * n + GUARD) * es; i++)
        if (c[i] != 0x5a) {
            KB_TEST_FAIL("%s m=%zu n=%zu k=%zu: byte %zu past C was written", kb_prec_name(prec), m,
                         n, k, i - m * n * es);
            break;
        }
    free(w);
    free(c);
    free(bias);
    free(c0);
    free(b);
    free(a);
    free(p.bound);
    free(p.want);
    free(p.bias);
    free(p.c0);
    free(p.b);
    free(p.a);
}

/* Sizes around every tile edge the micro-kernels have (rows 6, 8, 12;
 * columns 4 to 32), each precision, with and without C0. */
static void test_edges(void) {
    static const size_t sizes[] = {1, 2, 5, 7, 13, 17, 33};
    const size_t ns = sizeof sizes / sizeof sizes[0];
    for (int prec = KB_FP64; prec <= KB_FP32; prec++)
        for (size_t i = 0; i < ns; i++)
            for (size_t j = 0; j < ns; j++)
                for (size_t l = 0; l < ns; l++)
                    check(sizes[i], sizes[j], sizes[l], (kb_prec)prec, KB_CPU_GEMM_EP_NONE,
                          (int)((i + j + l) % 2));
}

static void test_epilogues(void) {
    for (int prec = KB_FP64; prec <= KB_FP32; prec++)
        for (int ep = KB_CPU_GEMM_EP_NONE; ep <= KB_CPU_GEMM_EP_BIAS_GELU; ep++)
            for (int with_c0 = 0; with_c0 < 2; with_c0++)
                check(29, 37, 19, (kb_prec)prec, (kb_cpu_gemm_ep)ep, with_c0);
}

/* Larger than one block in every dimension on any cache size the blocking
 * reads (k past the depth block, m past the row block, n past the
 * column panel). */
static void test_blocks(void) {
    for (int prec = KB_FP64; prec <= KB_FP32; prec++) {
        check(300, 90, 530, (kb_prec)prec, KB_CPU_GEMM_EP_BIAS_GELU, 1);
        check(70, 1100, 40, (kb_prec)prec, KB_CPU_GEMM_EP_BIAS, 0);
    }
}

int main(void) {
    RUN_TEST(test_edges);
    RUN_TEST(test_epilogues);
    RUN_TEST(test_blocks);
    return kb_test_summary();
}
