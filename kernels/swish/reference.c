/* Reference swish (SiLU): y = x / (1 + e^-x). */
#include "kb/kernel.h"
#include "kbref/activation.h"

static void swish_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t n = (size_t)kb_case_dim(c, "n");
    for (size_t i = 0; i < n; i++) out[0][i] = kbref_swish(in[0][i]);
}

KB_REGISTER_REFERENCE(swish_reference)
