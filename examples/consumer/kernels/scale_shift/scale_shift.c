/* Scale and shift: y = x / 2 + 1, elementwise (the example consumer's CPU
 * implementation). */
#include "kb/cpu.h"
#include "kb/kernel.h"

static void scale_shift_layout(const kb_case *c, kb_layout *l) {
    size_t n = (size_t)kb_case_dim(c, "n");
    kb_layout_input(l, "x", n, KB_DIST_NORMAL, 0.0, 2.0);
    kb_layout_output(l, "y", n);
}

/* One loop for both types; the 16-bit precisions run the float one on
 * widened values (kb_cpu_elementwise). */
#define SCALE_SHIFT_BLOCK(T, SUFFIX)                                                               \
    static void scale_shift_##SUFFIX(const T *restrict x, T *restrict y, size_t n) {               \
        for (size_t i = 0; i < n; i++) y[i] = x[i] * (T)0.5 + (T)1;                                \
    }

SCALE_SHIFT_BLOCK(double, f64)
SCALE_SHIFT_BLOCK(float, f32)

static int scale_shift_cpu(const kb_args *a) {
    return kb_cpu_elementwise(a, scale_shift_f32, scale_shift_f64, (size_t)kb_case_dim(a->c, "n"));
}

static const kb_kernel scale_shift_kernel = {
    .layout = scale_shift_layout,
    .impls = {{"cpu", "default", scale_shift_cpu}},
};

KB_REGISTER_KERNEL(scale_shift_kernel)
