/* Swish (SiLU): y = x sigmoid(x) = x / (1 + e^-x), elementwise. */
#include "kb/cpu.h"
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
SWISH_BLOCK(float, f32, kb_expf)
SWISH_BLOCK(float, half, kb_expf_half)

static int swish_cpu(const kb_args *a) {
    return kb_cpu_elementwise_half(a, swish_f32, swish_f64, swish_half,
                                   (size_t)kb_case_dim(a->c, "n"));
}

static const kb_kernel swish_kernel = {
    .layout = swish_layout,
    .impls = {{"cpu", "default", swish_cpu}},
};

KB_REGISTER_KERNEL(swish_kernel)
