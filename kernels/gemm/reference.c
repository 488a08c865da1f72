/* Reference GEMM: c = alpha * a b + beta * c0 (alpha 1, beta 0.5), row-major,
 * plain double loops in i-k-j order (no BLAS). */
#include "kb/kernel.h"

static void gemm_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t m = (size_t)kb_case_dim(c, "m"), n = (size_t)kb_case_dim(c, "n");
    const size_t k = (size_t)kb_case_dim(c, "k");
    const double alpha = 1.0, beta = 0.5;
    const double *a = in[0], *b = in[1], *c0 = in[2];
    for (size_t i = 0; i < m; i++) {
        double *y = out[0] + i * n;
        for (size_t j = 0; j < n; j++) y[j] = 0.0;
        for (size_t p = 0; p < k; p++) {
            const double aip = a[i * k + p];
            for (size_t j = 0; j < n; j++) y[j] += aip * b[p * n + j];
        }
        for (size_t j = 0; j < n; j++) y[j] = alpha * y[j] + beta * c0[i * n + j];
    }
}

KB_REGISTER_REFERENCE(gemm_reference)
