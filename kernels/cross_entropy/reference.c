/* Reference cross-entropy loss: the mean over the batch of
 * logsumexp(logits_row) - logits_row[label], the log-sum-exp shifted by
 * the row max. The label of row r is floor(labels[r]) clamped to
 * [0, classes - 1] (labels are a float tensor, see kernels/cross_entropy). */
#include "kb/kernel.h"
#include "kbref/softmax.h"

#include <math.h>

static void cross_entropy_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t batch = (size_t)kb_case_dim(c, "batch");
    const size_t classes = (size_t)kb_case_dim(c, "classes");
    double total = 0.0;
    for (size_t r = 0; r < batch; r++) {
        const double *x = in[0] + r * classes;
        const double v = floor(in[1][r]);
        const size_t label = v < 0.0 ? 0 : (v > (double)(classes - 1) ? classes - 1 : (size_t)v);
        total += kbref_logsumexp_row(x, classes) - x[label];
    }
    out[0][0] = total / (double)batch;
}

KB_REGISTER_REFERENCE(cross_entropy_reference)
