/* Reference GELU, erf form: y = 0.5 x (1 + erf(x / sqrt(2))). */
#include "kb/kernel.h"

#include <math.h>

static void gelu_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t n = (size_t)kb_case_dim(c, "n");
    for (size_t i = 0; i < n; i++) {
        const double x = in[0][i];
        /* 1 + erf(z) = erfc(-z), written as erfc so that for x << 0 the
         * result keeps its relative accuracy instead of cancelling. */
        out[0][i] = 0.5 * x * erfc(-x / sqrt(2.0));
    }
}

KB_REGISTER_REFERENCE(gelu_reference)
