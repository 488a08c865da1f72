/* The matrix product as a plain loop in double. */
#ifndef KBREF_GEMM_H
#define KBREF_GEMM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How B is read: B(p, j) = b[p * ldb + j], or b[j * ldb + p] (B stored
 * transposed, as K in attention's Q K^T). */
typedef enum kbref_op { KBREF_NOTRANS = 0, KBREF_TRANS = 1 } kbref_op;

/* Row-major C = A op(B) + beta C: for i < m, j < n,
 *   c[i * ldc + j] = beta * c[i * ldc + j] + sum over p < k of a[i * lda + p] * B(p, j),
 * each element accumulated in double from its starting value in the order
 * p = 0, 1, ..., k - 1 (the same sums an i-k-j or an i-j-k loop gives).
 * beta 0 does not read C (it may hold anything, NaN included); beta 1
 * starts from C exactly (a bias the caller stored there). */
void kbref_gemm(kbref_op op_b, size_t m, size_t n, size_t k, const double *a, size_t lda,
                const double *b, size_t ldb, double beta, double *c, size_t ldc);

#ifdef __cplusplus
}
#endif

#endif
