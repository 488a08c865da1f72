/* Reference linear layer: y = act(x w + b), x [tokens, in], w [in, out],
 * act 1 = ReLU, 2 = GELU (erf form); plain double loops, i-k-j order. */
#include "kb/kernel.h"

#include <math.h>

static void linear_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t tokens = (size_t)kb_case_dim(c, "tokens"), nin = (size_t)kb_case_dim(c, "in");
    const size_t nout = (size_t)kb_case_dim(c, "out");
    const int64_t act = kb_case_dim(c, "act");
    const double *x = in[0], *w = in[1], *b = in[2];
    for (size_t t = 0; t < tokens; t++) {
        double *y = out[0] + t * nout;
        for (size_t o = 0; o < nout; o++) y[o] = b[o];
        for (size_t i = 0; i < nin; i++) {
            const double xi = x[t * nin + i];
            for (size_t o = 0; o < nout; o++) y[o] += xi * w[i * nout + o];
        }
        for (size_t o = 0; o < nout; o++) {
            const double v = y[o];
            y[o] = act == 1 ? (v > 0.0 ? v : 0.0) : 0.5 * v * (1.0 + erf(v / sqrt(2.0)));
        }
    }
}

KB_REGISTER_REFERENCE(linear_reference)
