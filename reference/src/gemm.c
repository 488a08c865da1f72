#include "kbref/gemm.h"

/* One row of C at a time. B as stored (NOTRANS) is walked row by row, the
 * row of C accumulating a[i, p] * B[p, :] for each p (i-k-j); B transposed
 * is walked as dot products of rows (i-j-k). Either way each element's sum
 * is the same: its start, then the products in order of p. */
void kbref_gemm(kbref_op op_b, size_t m, size_t n, size_t k, const double *a, size_t lda,
                const double *b, size_t ldb, double beta, double *c, size_t ldc) {
    for (size_t i = 0; i < m; i++) {
        const double *ai = a + i * lda;
        double *ci = c + i * ldc;
        if (op_b == KBREF_TRANS) {
            for (size_t j = 0; j < n; j++) {
                const double *bj = b + j * ldb;
                double acc = beta == 0.0 ? 0.0 : beta * ci[j];
                for (size_t p = 0; p < k; p++) acc += ai[p] * bj[p];
                ci[j] = acc;
            }
            continue;
        }
        for (size_t j = 0; j < n; j++) ci[j] = beta == 0.0 ? 0.0 : beta * ci[j];
        for (size_t p = 0; p < k; p++) {
            const double aip = ai[p];
            const double *bp = b + p * ldb;
            for (size_t j = 0; j < n; j++) ci[j] += aip * bp[j];
        }
    }
}
