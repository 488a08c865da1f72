/* Swish (SiLU): y = x sigmoid(x) = x / (1 + e^-x), elementwise. */
#include "kb/cpu.h"
#include "kb/cpu8.h"
#include "kb/kernel.h"
#include "kb/vmath.h"

#include <math.h>
#include <stdio.h>

static void swish_layout(const kb_case *c, kb_layout *l) {
    size_t n = (size_t)kb_case_dim(c, "n");
    /* stddev 3 reaches |x| ~ 15: both the linear and the vanishing tail. */
    kb_layout_input(l, "x", n, KB_DIST_NORMAL, 0.0, 3.0);
    kb_layout_output(l, "y", n);
}

/* One formula for every type, through the branch-free kb_exp / kb_expf so
 * that the loops vectorise; for fp16/bf16 results kb_expf_half, whose error
 * (5.6e-6 relative) is small next to their rounding. For very negative x, e^-x is large (or
 * clamped) and y goes to 0 from below as it should. */
#define SWISH_BLOCK(T, SUFFIX, EXP)                                                                \
    static void swish_##SUFFIX(const T *restrict x, T *restrict y, size_t n) {                     \
        for (size_t i = 0; i < n; i++) y[i] = x[i] / ((T)1 + EXP(-x[i]));                          \
    }

SWISH_BLOCK(double, f64, kb_exp)

#if KB_VMATH8
/* The same on eight lanes (kb/vmath8.h): the same results, bit for bit. */
#define SWISH8(SUFFIX, EXP8)                                                                       \
    static inline kb_f32x8 swish_##SUFFIX(kb_f32x8 x) {                                            \
        return _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), EXP8(kb_neg8(x))));            \
    }

SWISH8(f32x8, kb_expf8)
SWISH8(half8, kb_expf_half8)

static int swish_cpu(const kb_args *a) {
    return kb_cpu_elementwise8(a, swish_f64, swish_f32x8, swish_half8,
                               (size_t)kb_case_dim(a->c, "n"));
}
#else
SWISH_BLOCK(float, f32, kb_expf)
SWISH_BLOCK(float, half, kb_expf_half)

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
