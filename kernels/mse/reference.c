/* Reference mean squared error: loss = sum((pred - target)^2) / n over all
 * n = batch * features elements. The sum is compensated (kbref_sum): a
 * plain double loop over n = 1M terms errs by ~1e-14 relative, more than
 * the fp64 kernel's cascaded sum, and the gate is meant to measure the
 * kernel. */
#include "kb/kernel.h"
#include "kbref/sum.h"

static void mse_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t n = (size_t)(kb_case_dim(c, "batch") * kb_case_dim(c, "features"));
    const double *pred = in[0], *target = in[1];
    kbref_sum sum = KBREF_SUM_INIT;
    for (size_t i = 0; i < n; i++)
        kbref_sum_add(&sum, (pred[i] - target[i]) * (pred[i] - target[i]));
    out[0][0] = kbref_sum_value(&sum) / (double)n;
}

KB_REGISTER_REFERENCE(mse_reference)
