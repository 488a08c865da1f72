/* y = erf(x), elementwise, two ways: SLEEF's vector erf (sleef_vec.h) and
 * the C library's erf, one element at a time. */
#include "kb/cpu.h"
#include "kb/kernel.h"
#include "sleef_vec.h"

#include <math.h>

static void sleef_erf_layout(const kb_case *c, kb_layout *l) {
    size_t n = (size_t)kb_case_dim(c, "n");
    kb_layout_input(l, "x", n, KB_DIST_UNIFORM, -4.0, 4.0);
    kb_layout_output(l, "y", n);
}

static void sleef_f64(const double *restrict x, double *restrict y, size_t n) {
    size_t i = 0;
    for (; i + SLEEF_F64_WIDTH <= n; i += SLEEF_F64_WIDTH) SLEEF_F64(erf, x, y, i);
    for (; i < n; i++) y[i] = Sleef_erf_u10(x[i]);
}

static void sleef_f32(const float *restrict x, float *restrict y, size_t n) {
    size_t i = 0;
    for (; i + SLEEF_F32_WIDTH <= n; i += SLEEF_F32_WIDTH) SLEEF_F32(erf, x, y, i);
    for (; i < n; i++) y[i] = Sleef_erff_u10(x[i]);
}

static void libm_f64(const double *restrict x, double *restrict y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = erf(x[i]);
}

static void libm_f32(const float *restrict x, float *restrict y, size_t n) {
    for (size_t i = 0; i < n; i++) y[i] = erff(x[i]);
}

static int sleef_erf_sleef(const kb_args *a) {
    return kb_cpu_elementwise(a, sleef_f32, sleef_f64, (size_t)kb_case_dim(a->c, "n"));
}

static int sleef_erf_libm(const kb_args *a) {
    return kb_cpu_elementwise(a, libm_f32, libm_f64, (size_t)kb_case_dim(a->c, "n"));
}

static const kb_kernel sleef_erf_kernel = {
    .layout = sleef_erf_layout,
    .impls = {{"cpu", "sleef", sleef_erf_sleef}, {"cpu", "libm", sleef_erf_libm}},
};

KB_REGISTER_KERNEL(sleef_erf_kernel)
