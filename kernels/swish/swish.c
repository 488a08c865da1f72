/* Swish (SiLU): y = x sigmoid(x) = x / (1 + e^-x), elementwise. */
#include "kb/cpu.h"
#include "kb/cpu/paths.h"
#include "kb/kernel.h"
#include "kb/vmath/vmath.h"

#include <math.h>
#include <stdio.h>

static void swish_layout(const kb_case *c, kb_layout *l) {
    size_t n = (size_t)kb_case_dim(c, "n");
    /* stddev 3 reaches |x| ~ 15: both the linear and the vanishing tail. */
    kb_layout_input(l, "x", n, KB_DIST_NORMAL, 0.0, 3.0);
    kb_layout_output(l, "y", n);
}

/* kb/vmath/vmath.h's formula, x / (1 + e^-x), through the branch-free kb_exp /
 * kb_expf; for fp16/bf16 results kb_expf_half, whose error (5.6e-6
 * relative) is small next to their rounding. */
#if KB_VMATH8
/* Every precision on the widest vectors (kb/vmath/vmath8.h: the same results, bit
 * for bit, as the scalar forms, which take the double tail). */
static void swish_f64(const double *restrict x, double *restrict y, size_t n) {
    const size_t nv = n - n % KB_VLANES64;
    for (size_t i = 0; i < nv; i += KB_VLANES64)
        KB_MMV(storeu_pd)(y + i, kb_swish_f64_v(KB_MMV(loadu_pd)(x + i)));
    for (size_t i = nv; i < n; i++) y[i] = kb_swish_f64(x[i]);
}

static int swish_cpu(const kb_args *a) {
    return kb_cpu_elementwisev(a, swish_f64, kb_swish_f32_v, kb_swish_half_denv,
                               kb_swish_half_from_denv, (size_t)kb_case_dim(a->c, "n"));
}
#else
static void swish_f64(const double *restrict x, double *restrict y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = kb_swish_f64(x[i]);
}

static void swish_f32(const float *restrict x, float *restrict y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = kb_swish_f32(x[i]);
}

static void swish_half(const float *restrict x, float *restrict y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = kb_swish_half(x[i]);
}

static int swish_cpu(const kb_args *a) {
    return kb_cpu_elementwise_half(a, swish_f32, swish_f64, swish_half,
                                   (size_t)kb_case_dim(a->c, "n"));
}
#endif

static const kb_kernel swish_kernel = {
    .layout = swish_layout,
    .impls = {{"cpu", "default", swish_cpu}},
};

KB_REGISTER_KERNEL(swish_kernel)
