/* Reference linear layer: y = act(x w + b), x [tokens, in], w [in, out],
 * act 1 = ReLU, 2 = GELU (erf form, the reference library's erfc-safe one);
 * each y starts from its bias and adds the products in order of in. */
#include "kb/kernel.h"
#include "kbref/activation.h"
#include "kbref/gemm.h"

static void linear_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t tokens = (size_t)kb_case_dim(c, "tokens"), nin = (size_t)kb_case_dim(c, "in");
    const size_t nout = (size_t)kb_case_dim(c, "out");
    const int64_t act = kb_case_dim(c, "act");
    const double *b = in[2];
    double *y = out[0];
    for (size_t t = 0; t < tokens; t++)
        for (size_t o = 0; o < nout; o++) y[t * nout + o] = b[o];
    kbref_gemm(KBREF_NOTRANS, tokens, nout, nin, in[0], nin, in[1], nout, 1.0, y, nout);
    for (size_t i = 0; i < tokens * nout; i++)
        y[i] = act == 1 ? kbref_relu(y[i]) : kbref_gelu(y[i]);
}

KB_REGISTER_REFERENCE(linear_reference)
