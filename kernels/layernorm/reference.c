/* Reference layer normalisation: per row, two-pass mean and biased
 * variance, y = (x - mean) / sqrt(var + 1e-5) * gamma + beta. */
#include "kb/kernel.h"
#include "kbref/layernorm.h"

static void layernorm_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t rows = (size_t)(kb_case_dim(c, "batch") * kb_case_dim(c, "seq"));
    const size_t n = (size_t)kb_case_dim(c, "hidden");
    for (size_t r = 0; r < rows; r++)
        kbref_layernorm_row(in[0] + r * n, out[0] + r * n, n, 1e-5, in[1], in[2]);
}

KB_REGISTER_REFERENCE(layernorm_reference)
