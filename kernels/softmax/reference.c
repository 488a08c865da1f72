/* Reference row-wise softmax: y = e^(x - max) / sum(e^(x - max)). */
#include "kb/kernel.h"

#include <math.h>

static void softmax_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t rows = (size_t)kb_case_dim(c, "rows"), cols = (size_t)kb_case_dim(c, "cols");
    for (size_t r = 0; r < rows; r++) {
        const double *x = in[0] + r * cols;
        double *y = out[0] + r * cols;
        double max = -INFINITY, sum = 0.0;
        for (size_t i = 0; i < cols; i++) max = fmax(max, x[i]);
        for (size_t i = 0; i < cols; i++) {
            y[i] = exp(x[i] - max);
            sum += y[i];
        }
        for (size_t i = 0; i < cols; i++) y[i] /= sum;
    }
}

KB_REGISTER_REFERENCE(softmax_reference)
