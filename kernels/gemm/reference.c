/* Reference GEMM: c = alpha * a b + beta * c0 (alpha 1, beta 0.5), row-major,
 * the product a plain double loop (no BLAS). */
#include "kb/kernel.h"
#include "kbref/gemm.h"

static void gemm_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t m = (size_t)kb_case_dim(c, "m"), n = (size_t)kb_case_dim(c, "n");
    const size_t k = (size_t)kb_case_dim(c, "k");
    const double alpha = 1.0, beta = 0.5;
    const double *c0 = in[2];
    double *y = out[0];
    kbref_gemm(KBREF_NOTRANS, m, n, k, in[0], k, in[1], n, 0.0, y, n);
    for (size_t i = 0; i < m * n; i++) y[i] = alpha * y[i] + beta * c0[i];
}

KB_REGISTER_REFERENCE(gemm_reference)
