/* y = exp(x), elementwise, two ways: SLEEF's vector exp (sleef_vec.h) and
 * the C library's exp, one element at a time. */
#include "kb/cpu.h"
#include "kb/kernel.h"
#include "sleef_vec.h"

#include <math.h>

static void sleef_exp_layout(const kb_case *c, kb_layout *l) {
    size_t n = (size_t)kb_case_dim(c, "n");
    kb_layout_input(l, "x", n, KB_DIST_UNIFORM, -8.0, 8.0);
    kb_layout_output(l, "y", n);
}

static void sleef_f64(const double *restrict x, double *restrict y, size_t n) {
    size_t i = 0;
    for (; i + SLEEF_F64_WIDTH <= n; i += SLEEF_F64_WIDTH) SLEEF_F64(exp, x, y, i);
    for (; i < n; i++) y[i] = Sleef_exp_u10(x[i]);
}

static void sleef_f32(const float *restrict x, float *restrict y, size_t n) {
    size_t i = 0;
    for (; i + SLEEF_F32_WIDTH <= n; i += SLEEF_F32_WIDTH) SLEEF_F32(exp, x, y, i);
    for (; i < n; i++) y[i] = Sleef_expf_u10(x[i]);
}

static void libm_f64(const double *restrict x, double *restrict y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = exp(x[i]);
}

static void libm_f32(const float *restrict x, float *restrict y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = expf(x[i]);
}

static int sleef_exp_sleef(const kb_args *a) {
    return kb_cpu_elementwise(a, sleef_f32, sleef_f64, (size_t)kb_case_dim(a->c, "n"));
}

static int sleef_exp_libm(const kb_args *a) {
    return kb_cpu_elementwise(a, libm_f32, libm_f64, (size_t)kb_case_dim(a->c, "n"));
}

static const kb_kernel sleef_exp_kernel = {
    .layout = sleef_exp_layout,
    .impls = {{"cpu", "sleef", sleef_exp_sleef}, {"cpu", "libm", sleef_exp_libm}},
};

KB_REGISTER_KERNEL(sleef_exp_kernel)
