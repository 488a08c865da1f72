/* A kernel for the harness's own tests of variant comparisons, case sets
 * and calibration: y = 2x, computed in two passes (copy, then scale in
 * place) or in one. Doubling is exact, so both match the reference bit for
 * bit. */
#include "kb/kernel.h"

#include <string.h>

static void pair_layout(const kb_case *c, kb_layout *l) {
    size_t n = (size_t)kb_case_dim(c, "n");
    kb_layout_input(l, "x", n, KB_DIST_NORMAL, 0.0, 1.0);
    kb_layout_output(l, "y", n);
}

static void pair_reference(const kb_case *c, const double *const *in, double *const *out) {
    for (int64_t i = 0; i < kb_case_dim(c, "n"); ++i) out[0][i] = 2.0 * in[0][i];
}

static int pair_twopass(const kb_args *a) {
    size_t n = (size_t)kb_case_dim(a->c, "n");
    float *y = a->out[0];
    memcpy(y, a->in[0], n * sizeof *y);
    for (size_t i = 0; i < n; ++i) y[i] *= 2.0f;
    return 0;
}

static int pair_onepass(const kb_args *a) {
    size_t n = (size_t)kb_case_dim(a->c, "n");
    const float *x = a->in[0];
    float *y = a->out[0];
    for (size_t i = 0; i < n; ++i) y[i] = 2.0f * x[i];
    return 0;
}

static const kb_kernel pair_kernel = {
    .layout = pair_layout,
    .impls = {{"cpu", "twopass", pair_twopass}, {"cpu", "onepass", pair_onepass}},
};

KB_REGISTER_KERNEL(pair_kernel)
KB_REGISTER_REFERENCE(pair_reference)
