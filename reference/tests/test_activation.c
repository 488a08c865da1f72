/* kbref_gelu, kbref_sigmoid, kbref_swish and kbref_relu against long double
 * (and GELU also against values computed to 70+ bits elsewhere), over dense
 * sweeps and at the extremes. */
#include "kb_test.h"
#include "kbref/activation.h"
#include "ulp.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

/* 1/sqrt(2) rounded to a 64-bit long double, what it lacks, and 2/sqrt(pi). */
static const long double rsqrt2 = 0xb504f333f9de6484p-64L;
static const long double rsqrt2_tail = 0xb2fb1366ea957d3ep-129L;
static const long double two_rsqrtpi = 0x906eba8214db688dp-63L;

/* GELU's erfc form in long double, as the library does not compute it: the
 * product -x / sqrt(2) rounded, its exact residual from fmal and the
 * constant's tail, and erfc's first-order change over that residual
 * through its derivative -2/sqrt(pi) e^(-z^2). Without the residual the
 * reference itself would be off by up to ~0.8 ulp near x = -40 (erfc
 * magnifies z's relative rounding 2^-64 by about 2 z^2 = x^2). */
static long double gelu_ref(double x) {
    const long double xl = x;
    const long double z = -xl * rsqrt2;
    const long double e = fmal(-xl, rsqrt2, -z) - xl * rsqrt2_tail;
    return 0.5L * xl * (erfcl(z) - e * two_rsqrtpi * expl(-z * z));
}

/* The naive erf form, 1 + erf cancelling for x << 0. */
static double gelu_naive(double x) {
    return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
}

/* GELU to 22 digits (about 73 bits), computed with 300-bit arithmetic: a
 * check of the long double path that does not share its erfcl. Below
 * x = -37.6 the results are subnormal (-38: 1.1e-314); -40's underflows
 * to -0. */
static const struct {
    double x;
    long double y;
} gelu_exact[] = {
    {-40.0, -1.4623574163660118815e-348L},   {-38.5, -5.421502483206492227815e-323L},
    {-38.0, -1.096462776826138037173e-314L}, {-37.5, -1.727007378593233066435e-306L},
    {-36.0, -1.505744663687021999427e-282L}, {-30.0, -1.47201417814445611786e-196L},
    {-25.0, -7.641741765956402291007e-137L}, {-20.0, -5.507248237212467390151e-88L},
    {-15.0, -5.506449298969126328679e-50L},  {-10.0, -7.619853024160526065973e-23L},
    {-8.0, -4.976768459417427298813e-15L},   {-5.0, -1.433257859395969558369e-6L},
    {-3.0, -0.004049694094890283579955L},    {-2.0, -0.04550026389635841440057L},
    {-1.5, -0.1002108019032870990067L},      {-1.0, -0.1586552539314570514148L},
    {-0.5, -0.1542687693629934481811L},      {-1e-05, -4.999960105771960930645e-6L},
    {1e-05, 5.000039894228039887386e-6L},    {0.5, 0.3457312306370065518189L},
    {1.0, 0.8413447460685429485852L},        {1.5, 1.399789198096712900993L},
    {2.0, 1.954499736103641585599L},         {3.0, 2.99595030590510971642L},
    {5.0, 4.99999856674214060403L},
};

/* The result is the exact value rounded once from within about 2^-60 of it
 * (erfcl's few long double ulps, the first-order residual term), so at
 * most 0.5 ulp plus a hair; the reference errs by a similar hair. 1 ulp
 * leaves room for neither to matter and still fails the plain double erfc
 * form (1700 ulp near x = -37 from the rounding of x / sqrt(2), and up to
 * 3 ulp elsewhere from glibc's erfc). */
#define GELU_ULP 1.0

static void test_gelu_dense(void) {
    const long n = 1000000;
    double worst = 0.0, worst_x = 0.0;
    long bad = 0;
    for (long i = 0; i <= n; i++) {
        const double x = -40.0 + 80.0 * (double)i / (double)n;
        const double err = ulp_err(kbref_gelu(x), gelu_ref(x));
        if (err > worst) worst = err, worst_x = x;
        if (err > GELU_ULP && bad++ < 5)
            KB_TEST_FAIL("kbref_gelu(%.17g) = %.17g: %.3g ulp from %.21Lg", x, kbref_gelu(x), err,
                         gelu_ref(x));
    }
    printf("gelu over [-40, 40], %ld points: worst %.3f ulp at x = %.17g\n", n + 1, worst, worst_x);
    ASSERT(bad == 0);
}

/* Where the long double reference is least trustworthy (it shares erfcl and
 * the rounding of z with the library): values computed apart, the extremes
 * of the range, and the binades around them. */
static void test_gelu_extremes(void) {
    for (size_t i = 0; i < sizeof gelu_exact / sizeof gelu_exact[0]; i++) {
        const double x = gelu_exact[i].x, got = kbref_gelu(x);
        const double err = ulp_err(got, gelu_exact[i].y);
        if (!(err <= GELU_ULP))
            KB_TEST_FAIL("kbref_gelu(%g) = %.17g: %.3g ulp from %.21Lg", x, got, err,
                         gelu_exact[i].y);
    }
    const double xs[] = {40.0,
                         -40.0,
                         39.999999999999993,
                         -39.999999999999993,
                         DBL_MIN,
                         -DBL_MIN,
                         DBL_TRUE_MIN,
                         -DBL_TRUE_MIN,
                         1e-300,
                         -1e-300,
                         8.5,
                         -8.5,
                         37.5,
                         -37.62,
                         -38.4,
                         1e15,
                         -1e15,
                         1e300,
                         -1e300,
                         DBL_MAX,
                         -DBL_MAX,
                         0x1.6ap-1,
                         -0x1.6ap-1,
                         -26.0};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        const double err = ulp_err(kbref_gelu(xs[i]), gelu_ref(xs[i]));
        if (!(err <= GELU_ULP))
            KB_TEST_FAIL("kbref_gelu(%.17g) = %.17g: %.3g ulp from %.21Lg", xs[i],
                         kbref_gelu(xs[i]), err, gelu_ref(xs[i]));
    }
}

/* Values that need no reference: signs of zero, infinities, NaN, large x. */
static void test_gelu_specials(void) {
    ASSERT(kbref_gelu(0.0) == 0.0 && !signbit(kbref_gelu(0.0)));
    ASSERT(kbref_gelu(-0.0) == 0.0);
    ASSERT(kbref_gelu(INFINITY) == INFINITY);
    ASSERT(kbref_gelu(-INFINITY) == 0.0);
    ASSERT(isnan(kbref_gelu(NAN)));
    ASSERT(kbref_gelu(40.0) == 40.0 && kbref_gelu(DBL_MAX) == DBL_MAX);
    ASSERT(kbref_gelu(-DBL_MAX) == 0.0 && kbref_gelu(-41.0) == 0.0);
    /* Never positive for x < 0 and never above x for x > 0. */
    for (double x = -45.0; x <= 45.0; x += 0.03125) {
        const double y = kbref_gelu(x);
        if (!(x < 0.0 ? (y <= 0.0 && y >= x) : (y >= 0.0 && y <= x)))
            KB_TEST_FAIL("kbref_gelu(%g) = %g: not between 0 and x", x, y);
    }
}

/* The naive erf form loses everything for x << 0: 1 + erf(x / sqrt(2)) is
 * 0 below x = -8.4, and before that mostly the rounding error of erf near
 * -1 (at x = -6, 1e-7 of it: a billion ulps). The library function keeps
 * its 1 ulp there. The naive form is checked against the
 * values computed apart, so that part holds whatever long double is; the
 * library's bound needs a long double wider than double. */
static void test_gelu_naive_fails(void) {
    const int extended = extended_long_double();
    int cases = 0, naive_wrong = 0, lib_wrong = 0;
    for (size_t i = 0; i < sizeof gelu_exact / sizeof gelu_exact[0]; i++) {
        const double x = gelu_exact[i].x;
        if (x > -8.0 || x < -37.5) continue; /* normal results, the naive form's worst */
        cases++;
        naive_wrong += ulp_err(gelu_naive(x), gelu_exact[i].y) > 1e6;
        lib_wrong += ulp_err(kbref_gelu(x), gelu_exact[i].y) > GELU_ULP;
    }
    ASSERT(cases == 8 && naive_wrong == cases);
    ASSERT(!extended || lib_wrong == 0);
    /* At x = -10 the naive form gives 0 where GELU is -7.6e-23. */
    ASSERT(gelu_naive(-10.0) == 0.0);
    ASSERT(kbref_gelu(-10.0) < -7.6e-23 && kbref_gelu(-10.0) > -7.7e-23);
    /* Over a dense sweep of x in [-40, -6], where GELU is normal: the naive
     * form gives 0 at every point below -8.5, and errs by more than a
     * million ulps at all but a few points above (where erf's rounding
     * happens to be small). */
    if (extended) {
        long normal = 0, naive_close = 0, naive_nonzero = 0, lib_bad = 0;
        for (long i = 0; i <= 100000; i++) {
            const double x = -40.0 + 34.0 * (double)i / 100000.0;
            const long double want = gelu_ref(x);
            if (fabsl(want) < DBL_MIN) continue;
            normal++;
            naive_close += ulp_err(gelu_naive(x), want) <= 1e6;
            naive_nonzero += x < -8.5 && gelu_naive(x) != 0.0;
            lib_bad += ulp_err(kbref_gelu(x), want) > GELU_ULP;
        }
        printf("gelu over [-40, -6]: the naive form is within 1e6 ulp at %ld of %ld normal "
               "results, nonzero below -8.5 at %ld; kbref_gelu beyond %g ulp at %ld\n",
               naive_close, normal, naive_nonzero, GELU_ULP, lib_bad);
        ASSERT(normal > 90000 && naive_close * 1000 < normal && naive_nonzero == 0);
        ASSERT(lib_bad == 0);
    }
}

static long double swish_ref(double x) {
    const long double xl = x;
    return x < 0.0 ? xl * expl(xl) / (1.0L + expl(xl)) : xl / (1.0L + expl(-xl));
}

static long double sigmoid_ref(double x) {
    return 1.0L / (1.0L + expl(-(long double)x));
}

/* Bounds from the roundings each form does (exp within 0.51 ulp, as
 * glibc's, reaching the sum 1 + e^-x in full; the sum's and the quotient's
 * roundings): 2.1 u relative plus the final half ulp, at most 2.6 ulp for
 * swish and sigmoid alike. Below x = -708 swish is x e^x in long double
 * rounded once (half an ulp), sigmoid e^x (exp's 0.51 ulp, or about a
 * step of 2^-1074 where it is subnormal). */
#define SWISH_ULP   3.0
#define SIGMOID_ULP 3.0

static void sweep(const char *name, double (*f)(double), long double (*ref)(double), double lo,
                  double hi, long n, double tol) {
    double worst = 0.0, worst_x = 0.0;
    long bad = 0;
    for (long i = 0; i <= n; i++) {
        const double x = lo + (hi - lo) * (double)i / (double)n;
        const long double want = ref(x);
        const double err = ulp_err(f(x), want);
        if (err > worst) worst = err, worst_x = x;
        if (err > tol && bad++ < 5)
            KB_TEST_FAIL("%s(%.17g) = %.17g: %.3g ulp from %.21Lg", name, x, f(x), err, want);
    }
    printf("%s over [%g, %g], %ld points: worst %.3f ulp at x = %.17g\n", name, lo, hi, n + 1,
           worst, worst_x);
    ASSERT(bad == 0);
}

static void test_swish_sigmoid_dense(void) {
    sweep("kbref_swish", kbref_swish, swish_ref, -800.0, 800.0, 400000, SWISH_ULP);
    sweep("kbref_swish", kbref_swish, swish_ref, -20.0, 20.0, 400000, SWISH_ULP);
    /* Where e^x turns subnormal, and the result after it. */
    sweep("kbref_swish", kbref_swish, swish_ref, -750.0, -700.0, 200000, SWISH_ULP);
    sweep("kbref_sigmoid", kbref_sigmoid, sigmoid_ref, -760.0, 760.0, 400000, SIGMOID_ULP);
    sweep("kbref_sigmoid", kbref_sigmoid, sigmoid_ref, -20.0, 20.0, 400000, SIGMOID_ULP);
}

static void test_swish_specials(void) {
    ASSERT(kbref_swish(0.0) == 0.0 && kbref_swish(INFINITY) == INFINITY);
    ASSERT(kbref_swish(-INFINITY) == 0.0 && signbit(kbref_swish(-INFINITY)));
    ASSERT(isnan(kbref_swish(NAN)) && isnan(kbref_sigmoid(NAN)));
    ASSERT(kbref_swish(DBL_MAX) == DBL_MAX && kbref_swish(-DBL_MAX) == 0.0);
    ASSERT(kbref_sigmoid(INFINITY) == 1.0 && kbref_sigmoid(-INFINITY) == 0.0);
    ASSERT(kbref_sigmoid(0.0) == 0.5 && kbref_swish(1e-300) == 5e-301);
    /* x / (1 + e^-x) alone overflows e^-x below -709.78 and gives -0 where
     * swish is still normal (-3.2e-306 at -710); the library keeps its
     * bound there (in long double, when it is wider than double). */
    ASSERT(-710.0 / (1.0 + exp(710.0)) == 0.0);
    ASSERT(kbref_swish(-710.0) < -3.1e-306 && kbref_swish(-710.0) > -3.2e-306);
    if (extended_long_double()) {
        ASSERT(ulp_err(kbref_swish(-710.0), -3.178163220229342268819e-306L) <= SWISH_ULP);
        ASSERT(ulp_err(kbref_swish(-745.0), -2.102651294201593121883e-321L) <= SWISH_ULP);
    }
    ASSERT(ulp_err(kbref_swish(-100.0), -3.72007597602083596296e-42L) <= SWISH_ULP);
    ASSERT(ulp_err(kbref_swish(30.0), 29.99999999999719271311L) <= SWISH_ULP);
}

static void test_relu(void) {
    ASSERT(kbref_relu(2.5) == 2.5 && kbref_relu(-2.5) == 0.0);
    ASSERT(kbref_relu(-0.0) == 0.0 && !signbit(kbref_relu(-0.0)));
    ASSERT(kbref_relu(INFINITY) == INFINITY && kbref_relu(-INFINITY) == 0.0);
    ASSERT(kbref_relu(NAN) == 0.0 && kbref_relu(DBL_TRUE_MIN) == DBL_TRUE_MIN);
}

int main(void) {
    if (extended_long_double()) {
        RUN_TEST(test_gelu_dense);
        RUN_TEST(test_gelu_extremes);
        RUN_TEST(test_swish_sigmoid_dense);
    } else {
        printf("long double is no wider than double here (valgrind?): the sweeps against long "
               "double are not run\n");
    }
    RUN_TEST(test_gelu_specials);
    RUN_TEST(test_gelu_naive_fails);
    RUN_TEST(test_swish_specials);
    RUN_TEST(test_relu);
    return kb_test_summary();
}
