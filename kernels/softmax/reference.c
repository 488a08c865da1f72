/* Reference row-wise softmax: y = e^(x - max) / sum(e^(x - max)). */
#include "kb/kernel.h"
#include "kbref/softmax.h"

static void softmax_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t rows = (size_t)kb_case_dim(c, "rows"), cols = (size_t)kb_case_dim(c, "cols");
    for (size_t r = 0; r < rows; r++) kbref_softmax_row(in[0] + r * cols, out[0] + r * cols, cols);
}

KB_REGISTER_REFERENCE(softmax_reference)
