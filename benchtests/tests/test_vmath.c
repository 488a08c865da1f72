/* kb/vmath/vmath.h's double math (kb_exp, kb_erfc, kb_erf, kb_gelu_f64): the max
 * error in ulp against long double libm over dense sweeps of each range; its
 * float erf and GELU (kb_erff, kb_gelu_f32) and the 16-bit results' float
 * math (kb_*_half): the max error against double libm; and the special values as documented. Built
 * with the kernels' flags (FMA where the machine has it), as the kernels use it; the bounds are
 * those of an FMA build, and the test says so and skips the error bounds without FMA. */
#include "kb/vmath/gelu64.h"
#include "kb/vmath/vmath.h"
#include "kb_test.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Every how many points of a sweep are taken: 1 unless KB_VMATH_SPARSE says
 * otherwise (the unit test's quick run, benchtests/tests/CMakeLists.txt). */
static long sparse(void) {
    const char *s = getenv("KB_VMATH_SPARSE");
    long k = s ? strtol(s, NULL, 10) : 1;
    return k >= 1 && k <= 4096 ? k : 1;
}

/* The error bounds are those of an FMA build: without FMA, nothing below
 * up to test_specials is compiled (or used). */
#ifdef __FMA__
/* |got - want| in units of the last place of double at want (want normal). */
static double ulp_err(double got, long double want) {
    double w = (double)want;
    double ulp = nextafter(fabs(w), INFINITY) - fabs(w);
    return (double)(fabsl((long double)got - want) / ulp);
}

/* The worst ulp error of f against ref over n + 1 points evenly spread over
 * [lo, hi] (n / sparse() + 1 with KB_VMATH_SPARSE), printed with the
 * argument where it occurs. */
static double sweep(const char *name, double (*f)(double), long double (*ref)(long double),
                    double lo, double hi, long n) {
    n /= sparse();
    double worst = 0.0, at = lo;
    for (long i = 0; i <= n; i++) {
        double x = lo + (hi - lo) * (double)i / (double)n;
        x = x > hi ? hi : x; /* rounding can step past hi */
        double e = ulp_err(f(x), ref(x));
        if (e > worst) worst = e, at = x;
    }
    printf("%s over [%g, %g], %ld points: max %.3f ulp at %.17g\n", name, lo, hi, n + 1, worst, at);
    return worst;
}

static long double ref_exp(long double x) {
    return expl(x);
}
static long double ref_erfc(long double x) {
    return erfcl(x);
}
static long double ref_erf(long double x) {
    return erfl(x);
}

static void test_exp_ulp(void) {
    /* The whole clamped range, and densely around 0 where r = x. */
    ASSERT(sweep("kb_exp", kb_exp, ref_exp, -708.39, 709.78, 4000000) < 1.0);
    ASSERT(sweep("kb_exp", kb_exp, ref_exp, -1.0, 1.0, 2000000) < 1.0);
}

static void test_erfc_ulp(void) {
    /* Relative error where erfc is normal (its argument up to 26.5); below 0
     * erfc is 2 - erfc(-x) in [1, 2). */
    ASSERT(sweep("kb_erfc", kb_erfc, ref_erfc, -6.0, 26.5, 4000000) < 12.0);
    ASSERT(sweep("kb_erfc", kb_erfc, ref_erfc, 0.0, 1.0, 1000000) < 12.0);
}

static void test_erf_ulp(void) {
    /* Small arguments through the series keep their relative accuracy. */
    ASSERT(sweep("kb_erf", kb_erf, ref_erf, -6.0, 6.0, 4000000) < 4.0);
    ASSERT(sweep("kb_erf", kb_erf, ref_erf, -1e-3, 1e-3, 1000000) < 4.0);
    ASSERT(ulp_err(kb_erf(1e-300), erfl(1e-300L)) < 4.0);
}

/* GELU as the reference writes it, against the kernel's tolerance (max_abs
 * 2e-14 in kernels/gelu/kernel.json): |x| to 12, past the inputs' tails. */
/* The worst absolute error of a double GELU f against that reference over
 * n + 1 points evenly spread over [-12, 12] (n / sparse() + 1 with
 * KB_VMATH_SPARSE), printed with the argument where it occurs. */
static double gelu_f64_sweep(const char *name, double (*f)(double), long n) {
    n /= sparse();
    double worst = 0.0, at = 0.0;
    for (long i = 0; i <= n; i++) {
        const double x = -12.0 + 24.0 * (double)i / (double)n;
        const long double want = 0.5L * x * erfcl(-(long double)x / sqrtl(2.0L));
        const double e = (double)fabsl((long double)f(x) - want);
        if (e > worst) worst = e, at = x;
    }
    printf("%s over [-12, 12]: max abs error %.3g at %.17g\n", name, worst, at);
    return worst;
}

static void test_gelu_abs(void) {
    ASSERT(gelu_f64_sweep("kb_gelu_f64", kb_gelu_f64, 2400000) < 4e-15);
}

/* The table GELU (kb/vmath/gelu64.h, GELU fp64 on AVX2 and AVX-512) against the
 * same reference, over the same range, twice as densely (every piece is
 * crossed at thousands of points): measured 8.9e-16 (the rounding of y
 * near |x| = 8, half an ulp there, as kb_gelu_f64's 1.3e-15 is too); 1e-15
 * leaves 12 %. A piece's constant term off by a part in 1e13 fails it, as
 * does a table of degree 9. Needs a long double wider than double (the
 * reference's own error would be of that size). */
static void test_gelu_tab_abs(void) {
    ASSERT(gelu_f64_sweep("kb_gelu_f64_tab", kb_gelu_f64_tab, 4800000) < 1e-15);
}

/* The float erf and GELU in absolute error, against double libm (exact
 * enough for float, and under valgrind too): a sweep, and the worst points
 * of a check of every float in [0, 12) (kb_erff's comment). The bounds leave
 * 10 % over those maxima (3.8e-7, 1.23e-6); the fp32 tolerance of
 * kernels/gelu/kernel.json is 5e-6. */
static double gelu_want(float x) {
    return 0.5 * x * (1.0 + erf((double)x / sqrt(2.0)));
}

static void test_float_erf_gelu_abs(void) {
    double worst_erf = 0.0, worst_gelu = 0.0, at = 0.0;
    const long n = 4800000 / sparse();
    for (long i = 0; i <= n; i++) {
        float x = (float)(-12.0 + 24.0 * (double)i / (double)n);
        double e = fabs((double)kb_erff(x) - erf((double)x));
        if (e > worst_erf) worst_erf = e, at = x;
        e = fabs((double)kb_gelu_f32(x) - gelu_want(x));
        worst_gelu = e > worst_gelu ? e : worst_gelu;
    }
    printf("kb_erff over [-12, 12]: max abs error %.3g at %.9g; kb_gelu_f32: %.3g\n", worst_erf, at,
           worst_gelu);
    const float erf_worst = 3.31078362f, gelu_worst = 5.3766923f;
    double e = fabs((double)kb_erff(erf_worst) - erf((double)erf_worst));
    double g = fabs((double)kb_gelu_f32(gelu_worst) - gelu_want(gelu_worst));
    printf("at the known worst points: kb_erff %.3g, kb_gelu_f32 %.3g\n", e, g);
    ASSERT(worst_erf < 4.2e-7 && e < 4.2e-7);
    ASSERT(worst_gelu < 1.35e-6 && g < 1.35e-6);
}

/* kb_expf against double libm, in ulps of the float result: a sweep and the
 * worst point of a check of every float in range (0.894 ulp, at
 * 0x1.4cec68p+2: kb/vmath/vmath.h), bounded just above it, and below by most of
 * it, so that the known worst point stays the worst. */
static double ulpf_err(float got, double want) {
    return fabs((double)got - want) / ldexp(1.0, ilogb(want) - 23);
}

static void test_expf_ulp(void) {
    double worst = 0.0;
    const long n = 4800000 / sparse();
    for (long i = 0; i <= n; i++) {
        const float x = (float)(-87.3 + 176.0 * (double)i / (double)n);
        const double e = ulpf_err(kb_expf(x), exp((double)x));
        worst = e > worst ? e : worst;
    }
    const float at = 0x1.4cec68p+2f;
    const double e = ulpf_err(kb_expf(at), exp((double)at));
    printf("kb_expf: max error %.3f ulp (%.3f at the known worst)\n", worst, e);
    ASSERT(worst < 0.9 && e < 0.9 && e > 0.88);
}

/* The 16-bit results' float math (kb_expf_half, kb_erff_half, kb_gelu_half)
 * against double libm: a sweep and the worst points of a check of every float
 * (5.6e-6 relative, 3.7e-6 and 9.8e-6 absolute: kb/vmath/vmath.h, docs/kernels.md),
 * bounded 10 % above those, and below by most of them, so that the known
 * worst points stay the worst. fp16's rounding is at least 2^-12 relative. */
static void test_half_math(void) {
    double worst_exp = 0.0, worst_erf = 0.0, worst_gelu = 0.0;
    const long n = 4800000 / sparse();
    for (long i = 0; i <= n; i++) {
        float x = (float)(-87.3 + 176.0 * (double)i / (double)n);
        double e = fabs((double)kb_expf_half(x) / exp((double)x) - 1.0);
        worst_exp = e > worst_exp ? e : worst_exp;
        x = (float)(-12.0 + 24.0 * (double)i / (double)n);
        e = fabs((double)kb_erff_half(x) - erf((double)x));
        worst_erf = e > worst_erf ? e : worst_erf;
        e = fabs((double)kb_gelu_half(x) - gelu_want(x));
        worst_gelu = e > worst_gelu ? e : worst_gelu;
    }
    const float exp_at = -87.095787f, erf_at = 3.74007297f, gelu_at = 0x1.55b24ap+2f;
    const double e = fabs((double)kb_expf_half(exp_at) / exp((double)exp_at) - 1.0),
                 f = fabs((double)kb_erff_half(erf_at) - erf((double)erf_at)),
                 g = fabs((double)kb_gelu_half(gelu_at) - gelu_want(gelu_at));
    printf("kb_expf_half: max rel error %.3g (%.3g at the known worst); kb_erff_half: max abs "
           "%.3g (%.3g); kb_gelu_half: max abs %.3g (%.3g)\n",
           worst_exp, e, worst_erf, f, worst_gelu, g);
    ASSERT(worst_exp < 6.2e-6 && e < 6.2e-6 && e > 5e-6);
    ASSERT(worst_erf < 4.1e-6 && f < 4.1e-6 && f > 3e-6);
    ASSERT(worst_gelu < 1.1e-5 && g < 1.1e-5 && g > 8e-6);
}
#endif

static void test_specials(void) {
    ASSERT(kb_exp(0.0) == 1.0);
    ASSERT(isnan(kb_exp(NAN)));
    /* Clamped: normal and finite at the ends, as documented. */
    ASSERT(kb_exp(-INFINITY) >= DBL_MIN && kb_exp(-INFINITY) < 2.3e-308);
    ASSERT(kb_exp(-1000.0) == kb_exp(-708.39));
    ASSERT(isfinite(kb_exp(INFINITY)) && kb_exp(INFINITY) > 1.79e308);
    ASSERT(fabs(kb_erfc(0.0) - 1.0) < 4e-15);
    ASSERT(kb_erfc(-INFINITY) == 2.0);
    ASSERT(kb_erfc(INFINITY) >= 0.0 && kb_erfc(INFINITY) < 1e-308);
    ASSERT(isnan(kb_erfc(NAN)));
    ASSERT(kb_erf(INFINITY) == 1.0 && kb_erf(-INFINITY) == -1.0);
    ASSERT(kb_erf(0.0) == 0.0 && signbit(kb_erf(-0.0)));
    ASSERT(isnan(kb_erf(NAN)));
    ASSERT(kb_gelu_f64(0.0) == 0.0);
    ASSERT(kb_gelu_f64(40.0) == 40.0);
    ASSERT(isnan(kb_gelu_f64(NAN)));
    ASSERT(kb_erff(0.0f) == 0.0f && signbit(kb_erff(-0.0f)));
    /* Never above 1: 1 at the clamp and beyond. */
    ASSERT(kb_erff(INFINITY) == 1.0f && kb_erff(-INFINITY) == -1.0f && kb_erff(4.0f) <= 1.0f);
    ASSERT(isnan(kb_erff(NAN)));
    ASSERT(kb_gelu_f32(0.0f) == 0.0f && kb_gelu_f32(40.0f) == 40.0f);
    ASSERT(isnan(kb_gelu_f32(NAN)));
    /* NaN in, NaN out, whatever its payload: the scaling adds the payload's
     * low bits to the exponent field unless the result is selected. */
    const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7fc00001u, 0xffc001ffu,
                             0x7f800001u, 0x7fffffffu, 0xff8000c3u};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        const float x = kb_bits_to_f32(nans[i]);
        ASSERT(isnan(kb_expf(x)) && isnan(kb_expf_half(x)));
        ASSERT(isnan(kb_gelu_f32(x)) && isnan(kb_gelu_half(x)) && isnan(kb_erff(x)));
    }
    ASSERT(kb_expf_half(0.0f) == 1.0f);
    ASSERT(kb_expf_half(-INFINITY) >= FLT_MIN && isfinite(kb_expf_half(INFINITY)));
    ASSERT(kb_erff_half(0.0f) == 0.0f && signbit(kb_erff_half(-0.0f)));
    ASSERT(kb_erff_half(INFINITY) == 1.0f && kb_erff_half(-INFINITY) == -1.0f);
    ASSERT(kb_erff_half(4.0f) <= 1.0f && isnan(kb_erff_half(NAN)));
    ASSERT(kb_gelu_half(0.0f) == 0.0f && kb_gelu_half(40.0f) == 40.0f);
    ASSERT(kb_gelu_half(-0.0f) == 0.0f && kb_gelu_half(-40.0f) == 0.0f);
    ASSERT(kb_gelu_half(INFINITY) == INFINITY);
    ASSERT(isnan(kb_gelu_half(NAN)));
}

/* kb__expf_half_neg(x) is kb_expf_half(-x) bit for bit but for NaN x, and
 * so kb_swish_half is x / (1 + kb_expf_half(-x)), NaN included: every 61st
 * float pattern (both signs, every exponent), the clamps' bounds and the
 * floats beside them. */
static int expf_half_neg_differs(float x) {
    return kb_f32_to_bits(kb__expf_half_neg(x)) != kb_f32_to_bits(kb_expf_half(-x)) ||
           kb_f32_to_bits(kb_swish_half(x)) != kb_f32_to_bits(x / (1.0f + kb_expf_half(-x)));
}

static void test_expf_half_neg(void) {
    size_t bad = 0, nan_bad = 0;
    const uint64_t step = 61 * (uint64_t)sparse();
    for (uint64_t b = 0; b <= 0xffffffffu; b += step) {
        const float x = kb_bits_to_f32((uint32_t)b);
        if (isnan(x))
            nan_bad += !isnan(kb_swish_half(x));
        else
            bad += (size_t)expf_half_neg_differs(x);
    }
    const float edges[] = {87.3f, -88.7f, 88.7f, -87.3f, 0.0f, -0.0f, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
        for (int d = -2; d <= 2; d++) {
            float x = edges[i];
            for (int k = 0; k < (d < 0 ? -d : d); k++)
                x = nextafterf(x, d < 0 ? -INFINITY : INFINITY);
            bad += (size_t)expf_half_neg_differs(x);
        }
    ASSERT_INT_EQ(bad, 0);
    ASSERT_INT_EQ(nan_bad, 0);
}

#ifdef __FMA__
/* Whether long double arithmetic carries more bits than double here: the
 * ulp references need it. valgrind runs x87 long double as double, so under
 * the memcheck dashboard the references are no better than what they check. */
static int extended_long_double(void) {
    volatile long double x = 1.0L;
    x += 0x1p-60L;
    return x != 1.0L;
}
#endif

/* The table GELU's special values and shape, on every build (no reference
 * needed): 0 and -0 give +0, +inf and large x give x, NaN gives NaN;
 * beyond the cut (8.67) the result is the clamped tail, below 2e-17 in size
 * and never positive; and over a sweep of [-12, 12] the result is GELU's
 * shape: between x and 0 for x < 0, between 0 and x for x >= 0 (a piece
 * whose p went negative, as an unclamped or badly fitted tail does, or
 * above 1, breaks it). */
static void test_gelu_tab_shape(void) {
    ASSERT(kb_gelu_f64_tab(0.0) == 0.0 && !signbit(kb_gelu_f64_tab(0.0)));
    ASSERT(kb_gelu_f64_tab(-0.0) == 0.0 && !signbit(kb_gelu_f64_tab(-0.0)));
    ASSERT(kb_gelu_f64_tab(INFINITY) == INFINITY && kb_gelu_f64_tab(1e300) == 1e300);
    ASSERT(kb_gelu_f64_tab(40.0) == 40.0);
    const uint64_t nans[] = {0x7ff8000000000000u, 0xfff8000000000000u, 0x7ff0000000000001u,
                             0x7ff80000000000ffu, 0xffffffffffffffffu};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++)
        ASSERT(isnan(kb_gelu_f64_tab(kb_bits_to_f64(nans[i]))));
    const double tail[] = {-KB__GELU64_CUT, -9.0, -40.0, -1e300, -INFINITY};
    for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++) {
        const double y = kb_gelu_f64_tab(tail[i]);
        ASSERT(y <= 0.0 && y > -2e-17);
    }
    long bad = 0;
    const long n = 2400000 / sparse();
    for (long i = 0; i <= n; i++) {
        const double x = -12.0 + 24.0 * (double)i / (double)n, y = kb_gelu_f64_tab(x);
        if (!(x < 0.0 ? (y <= 0.0 && y >= x) : (y >= 0.0 && y <= x)) && bad++ < 5)
            KB_TEST_FAIL("kb_gelu_f64_tab(%.17g) = %.17g: not between x and 0", x, y);
    }
    ASSERT(bad == 0);
}

int main(void) {
#ifdef __FMA__
    if (extended_long_double()) {
        RUN_TEST(test_exp_ulp);
        RUN_TEST(test_erfc_ulp);
        RUN_TEST(test_erf_ulp);
        RUN_TEST(test_gelu_tab_abs);
    } else {
        printf("long double is no wider than double here (valgrind?): the ulp sweeps and the "
               "table GELU's sweep, whose references need it, are not run\n");
    }
    RUN_TEST(test_gelu_abs);
    RUN_TEST(test_float_erf_gelu_abs);
    RUN_TEST(test_expf_ulp);
    RUN_TEST(test_half_math);
#else
    printf("no FMA in this build: the ulp bounds (measured with FMA) are not checked\n");
#endif
    RUN_TEST(test_specials);
    RUN_TEST(test_gelu_tab_shape);
    RUN_TEST(test_expf_half_neg);
    return kb_test_summary();
}
