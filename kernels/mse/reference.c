/* Reference mean squared error: loss = sum((pred - target)^2) / n over all
 * n = batch * features elements. The sum is compensated (Neumaier): a plain
 * double loop over n = 1M terms errs by ~1e-14 relative, more than the fp64
 * kernel's cascaded sum, and the gate is meant to measure the kernel. */
#include "kb/kernel.h"

#include <math.h>

static void mse_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t n = (size_t)(kb_case_dim(c, "batch") * kb_case_dim(c, "features"));
    const double *pred = in[0], *target = in[1];
    double sum = 0.0, comp = 0.0; /* comp: the low-order bits sum has lost */
    for (size_t i = 0; i < n; i++) {
        const double term = (pred[i] - target[i]) * (pred[i] - target[i]);
        const double t = sum + term;
        comp += fabs(sum) >= fabs(term) ? (sum - t) + term : (term - t) + sum;
        sum = t;
    }
    out[0][0] = (sum + comp) / (double)n;
}

KB_REGISTER_REFERENCE(mse_reference)
