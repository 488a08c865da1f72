/* GELU, erf form: y = 0.5 x (1 + erf(x / sqrt(2))), elementwise. */
#include "kb/cpu.h"
#include "kb/cpu/paths.h"
#include "kb/kernel.h"
#include "kb/vmath/gelu64.h"
#include "kb/vmath/vmath.h"

#include <math.h>
#include <stdio.h>

static void gelu_layout(const kb_case *c, kb_layout *l) {
    size_t n = (size_t)kb_case_dim(c, "n");
    /* stddev 2 reaches |x| ~ 10, where erf saturates and the tails count. */
    kb_layout_input(l, "x", n, KB_DIST_NORMAL, 0.0, 2.0);
    kb_layout_output(l, "y", n);
}

/* kb/vmath/vmath.h's formula: the branch-free kb_erfc in double (with
 * KB_VMATH8 the table of kb/vmath/gelu64.h instead, at a third of the cost
 * on AVX-512 and half on AVX2), kb_erff in
 * float, and for fp16/bf16 results the cheaper kb_gelu_half (kb_erff_half's fit,
 * in two stages), whose error (1e-5 in y at most, absolute) is below half
 * a 16-bit ulp of y except in the negative tail (x below about -2.3,
 * |y| < 0.03), where the tolerances' absolute bounds are what it answers
 * to; all vectorise. */
#define GELU_BLOCK(T, SUFFIX)                                                                      \
    static void gelu_##SUFFIX(const T *restrict x, T *restrict y, size_t n) {                      \
        for (size_t i = 0; i < n; i++) y[i] = kb_gelu_##SUFFIX(x[i]);                              \
    }

#if KB_VMATH8
/* Not inlined: its four vectors in flight need a larger stack frame, which
 * inlined into gelu_cpu changed the code of the other precisions' loops
 * (bf16 ran 3 % slower for it). */
__attribute__((noinline)) static void gelu_f64(const double *restrict x, double *restrict y,
                                               size_t n) {
    kb_gelu_f64_tab_map(x, y, n);
}
#else
GELU_BLOCK(double, f64)
#endif

#if KB_VMATH8
/* Float and 16-bit results on the widest vectors (kb/vmath/vmath8.h: the same
 * results, bit for bit). */
static int gelu_cpu(const kb_args *a) {
    return kb_cpu_elementwisev(a, gelu_f64, kb_gelu_f32_v, kb_gelu_half_ratiov,
                               kb_gelu_half_from_ratiov, (size_t)kb_case_dim(a->c, "n"));
}
#else
GELU_BLOCK(float, f32)
GELU_BLOCK(float, half)

static int gelu_cpu(const kb_args *a) {
    return kb_cpu_elementwise_half(a, gelu_f32, gelu_f64, gelu_half,
                                   (size_t)kb_case_dim(a->c, "n"));
}
#endif

static const kb_kernel gelu_kernel = {
    .layout = gelu_layout,
    .impls = {{"cpu", "default", gelu_cpu}},
};

KB_REGISTER_KERNEL(gelu_kernel)
