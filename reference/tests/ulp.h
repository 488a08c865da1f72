/* What the reference library's tests share: errors in ulps against a long
 * double computation, whether long double is wider than double here, and a
 * small reproducible random source. */
#ifndef KBREF_TEST_ULP_H
#define KBREF_TEST_ULP_H

#include <float.h>
#include <math.h>
#include <stdint.h>

/* The spacing of doubles at |r| rounded to double: 2^-1074 where that is
 * subnormal, so an error in the subnormal range counts in its own steps. */
static inline double ulp_at(long double r) {
    const double a = fabs((double)r);
    if (!(a >= DBL_MIN)) return DBL_TRUE_MIN;
    if (isinf(a)) return ldexp(1.0, DBL_MAX_EXP - DBL_MANT_DIG);
    int e;
    frexp(a, &e);
    return ldexp(1.0, e - DBL_MANT_DIG);
}

/* |got - want| in ulps of want; 0 for equal values (infinities, zeros of
 * either sign), +inf when exactly one is NaN or they differ otherwise at an
 * infinity. */
static inline double ulp_err(double got, long double want) {
    if (isnan(got) || isnan(want)) return isnan(got) && isnan(want) ? 0.0 : INFINITY;
    if ((long double)got == want) return 0.0;
    if (isinf(got) || isinf(want)) return INFINITY;
    return (double)(fabsl((long double)got - want) / ulp_at(want));
}

/* Whether long double arithmetic carries more bits than double: valgrind
 * runs x87 long double as double, and a reference computed so is no better
 * than what it checks. */
static inline int extended_long_double(void) {
    volatile long double x = 1.0L;
    x += 0x1p-60L;
    return x != 1.0L;
}

/* xorshift64*: the same sequence on every platform. */
static inline uint64_t test_rand(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1dull;
}

/* Uniform in [lo, hi). */
static inline double test_uniform(uint64_t *s, double lo, double hi) {
    return lo + (hi - lo) * (double)(test_rand(s) >> 11) * 0x1p-53;
}

/* The unit roundoff of double, 2^-53. */
#define TEST_U 0x1p-53

#endif
