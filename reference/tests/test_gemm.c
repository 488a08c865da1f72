/* kbref_gemm against long double, on both layouts of B, with leading
 * dimensions wider than the matrices and every kind of beta. */
#include "kb_test.h"
#include "kbref/gemm.h"
#include "ulp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 37, NN = 29, K = 101, LDA = K + 3, LDB = 40, LDC = NN + 5 };

static double b_at(const double *b, kbref_op op, size_t p, size_t j) {
    return op == KBREF_TRANS ? b[j * LDB + p] : b[p * LDB + j];
}

/* Each element is beta c plus k products, summed in order: by Higham's
 * bound for a dot product the error is at most gamma_{k+1} (|beta c| +
 * sum |a b|), gamma_j = j u / (1 - j u), u = 2^-53 (a beta of 0 or 1 adds
 * no rounding of its own, others one more). */
static void check(kbref_op op, double beta, const char *what) {
    uint64_t seed = 0x9e33 + (uint64_t)op;
    static double a[M * LDA], b[K * LDB > NN * LDB ? K * LDB : NN * LDB], c[M * LDC], c0[M * LDC];
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) a[i] = test_uniform(&seed, -1.0, 1.0);
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) b[i] = test_uniform(&seed, -1.0, 1.0);
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        c0[i] = beta == 0.0 ? NAN : test_uniform(&seed, -4.0, 4.0);
    memcpy(c, c0, sizeof c);
    kbref_gemm(op, M, NN, K, a, LDA, b, LDB, beta, c, LDC);
    const double gamma = (K + 2) * TEST_U / (1.0 - (K + 2) * TEST_U);
    double worst = 0.0;
    for (size_t i = 0; i < M; i++) {
        for (size_t j = 0; j < NN; j++) {
            long double want = beta == 0.0 ? 0.0L : (long double)beta * c0[i * LDC + j];
            long double mag = fabsl(want);
            for (size_t p = 0; p < K; p++) {
                const long double t = (long double)a[i * LDA + p] * b_at(b, op, p, j);
                want += t;
                mag += fabsl(t);
            }
            const double err = (double)(fabsl(c[i * LDC + j] - want) / (gamma * mag));
            worst = fmax(worst, err);
            if (!(err <= 1.0))
                KB_TEST_FAIL("%s: c[%zu, %zu] = %.17g, %.17Lg wanted (%.3g of the bound)", what, i,
                             j, c[i * LDC + j], want, err);
        }
        /* The padding past n columns is left alone. */
        for (size_t j = NN; j < LDC && i + 1 < M; j++)
            if (memcmp(&c[i * LDC + j], &c0[i * LDC + j], sizeof c[0]) != 0)
                KB_TEST_FAIL("%s: c[%zu, %zu] (padding) was written", what, i, j);
    }
    printf("%s: worst error %.3f of the bound\n", what, worst);
}

static void test_against_long_double(void) {
    check(KBREF_NOTRANS, 0.0, "A B");
    check(KBREF_TRANS, 0.0, "A B^T");
    check(KBREF_NOTRANS, 1.0, "A B + C");
    check(KBREF_TRANS, 0.5, "A B^T + C/2");
}

/* Each element is the sum in order of p, whichever way B is laid out: the
 * same bits as a plain dot product loop, and as each other for B and its
 * transpose. */
static void test_sum_order(void) {
    uint64_t seed = 7;
    enum { m = 5, n = 6, k = 300 };
    static double a[m * k], b[k * n], bt[n * k], c1[m * n], c2[m * n];
    for (size_t i = 0; i < m * k; i++) a[i] = test_uniform(&seed, -1.0, 1.0);
    for (size_t p = 0; p < k; p++)
        for (size_t j = 0; j < n; j++)
            bt[j * k + p] = b[p * n + j] = test_uniform(&seed, -1e3, 1e3);
    kbref_gemm(KBREF_NOTRANS, m, n, k, a, k, b, n, 0.0, c1, n);
    kbref_gemm(KBREF_TRANS, m, n, k, a, k, bt, k, 0.0, c2, n);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            double acc = 0.0;
            for (size_t p = 0; p < k; p++) acc += a[i * k + p] * b[p * n + j];
            ASSERT(c1[i * n + j] == acc && c2[i * n + j] == acc);
        }
}

/* Small integers: every product and sum is exact. */
static void test_exact(void) {
    const double a[2 * 3] = {1, 2, 3, 4, 5, 6}, b[3 * 2] = {7, 8, 9, 10, 11, 12};
    double c[2 * 2] = {100, 200, 300, 400};
    kbref_gemm(KBREF_NOTRANS, 2, 2, 3, a, 3, b, 2, 1.0, c, 2);
    ASSERT(c[0] == 158 && c[1] == 264 && c[2] == 439 && c[3] == 554);
    const double bt[2 * 3] = {7, 9, 11, 8, 10, 12};
    kbref_gemm(KBREF_TRANS, 2, 2, 3, a, 3, bt, 3, 0.0, c, 2);
    ASSERT(c[0] == 58 && c[1] == 64 && c[2] == 139 && c[3] == 154);
    kbref_gemm(KBREF_NOTRANS, 2, 2, 0, a, 3, b, 2, 2.0, c, 2); /* k = 0: C = beta C */
    ASSERT(c[0] == 116 && c[3] == 308);
    kbref_gemm(KBREF_NOTRANS, 2, 2, 0, a, 3, b, 2, 0.0, c, 2);
    ASSERT(c[0] == 0.0 && c[3] == 0.0);
}

int main(void) {
    if (extended_long_double()) {
        RUN_TEST(test_against_long_double);
    } else {
        printf("long double is no wider than double here (valgrind?): the products against long "
               "double are not checked\n");
    }
    RUN_TEST(test_sum_order);
    RUN_TEST(test_exact);
    return kb_test_summary();
}
