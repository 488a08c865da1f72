/* Reference layer normalisation: two-pass mean and biased variance per row. */
#include "kb/kernel.h"

#include <math.h>

static void layernorm_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t rows = (size_t)(kb_case_dim(c, "batch") * kb_case_dim(c, "seq"));
    const size_t n = (size_t)kb_case_dim(c, "hidden");
    const double *gamma = in[1], *beta = in[2];
    for (size_t r = 0; r < rows; r++) {
        const double *x = in[0] + r * n;
        double *y = out[0] + r * n;
        double mean = 0.0, var = 0.0;
        for (size_t i = 0; i < n; i++) mean += x[i];
        mean /= (double)n;
        for (size_t i = 0; i < n; i++) var += (x[i] - mean) * (x[i] - mean);
        var /= (double)n;
        const double rstd = 1.0 / sqrt(var + 1e-5);
        for (size_t i = 0; i < n; i++) y[i] = (x[i] - mean) * rstd * gamma[i] + beta[i];
    }
}

KB_REGISTER_REFERENCE(layernorm_reference)
