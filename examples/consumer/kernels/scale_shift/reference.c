/* Reference scale and shift: y = x / 2 + 1 in double. */
#include "kb/kernel.h"

static void scale_shift_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t n = (size_t)kb_case_dim(c, "n");
    for (size_t i = 0; i < n; i++) out[0][i] = in[0][i] * 0.5 + 1.0;
}

KB_REGISTER_REFERENCE(scale_shift_reference)
