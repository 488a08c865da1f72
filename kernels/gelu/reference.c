/* Reference GELU, erf form: y = 0.5 x (1 + erf(x / sqrt(2))), through the
 * reference library's erfc form (no cancellation for x << 0). */
#include "kb/kernel.h"
#include "kbref/activation.h"

static void gelu_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t n = (size_t)kb_case_dim(c, "n");
    for (size_t i = 0; i < n; i++) out[0][i] = kbref_gelu(in[0][i]);
}

KB_REGISTER_REFERENCE(gelu_reference)
