#include "kbref/activation.h"

#include <float.h>
#include <math.h>

#if LDBL_MANT_DIG >= 64
/* 1/sqrt(2) as a head of 8 significant bits, so that x * head is exact for
 * any double x in a long double of 64 bits or more, and the rest. */
static const long double rsqrt2_hi = 0x1.6ap-1L;
static const long double rsqrt2_lo = 0x9e667f3bcc908b30p-77L;

/* 0.5 x erfc(z) with z = -x / sqrt(2). For z >> 0 erfc magnifies a
 * relative error of z about 2 z^2 times: rounding z to double costs up to
 * 1700 ulp of the result near x = -37, and even rounding it to long double
 * (2^-64) up to ~0.8 ulp. So z is carried as z + e, e the residual of its
 * rounding, and erfc(z + e) = erfc(z) (1 - e R(z)) to first order, where
 * R(z) = (2/sqrt(pi)) e^(-z^2) / erfc(z) lies between z + sqrt(z^2 + 4/pi)
 * and z + sqrt(z^2 + 2): the correction is at most ~2^-53, so the upper
 * bound is close enough. Long double's range also keeps erfc(z) normal
 * where double's would be subnormal (x < -37.5) and lose digits before the
 * product. The result is rounded once, from within about 2^-60 of GELU. */
double kbref_gelu(double x) {
    if (isinf(x)) return x > 0.0 ? x : -0.0;
    const long double xl = x;
    const long double hi = -xl * rsqrt2_hi; /* exact */
    const long double lo = -xl * rsqrt2_lo;
    const long double z = hi + lo;
    const long double e = (hi - z) + lo; /* exact: |hi| >= |lo| */
    long double q = erfcl(z);
    /* Past erfc's underflow there is nothing to correct (and z^2 may
     * overflow where long double is run as double, as under valgrind). */
    if (z > 0.0L && q > 0.0L) q -= q * e * (z + sqrtl(z * z + 2.0L));
    return (double)(0.5L * xl * q);
}
#else
/* long double is no wider than double here: the erfc form in double, which
 * keeps GELU's relative accuracy for x << 0 up to erfc's own argument
 * sensitivity (about x^2 ulp). */
double kbref_gelu(double x) {
    if (isinf(x)) return x > 0.0 ? x : -0.0;
    return 0.5 * x * erfc(-x / sqrt(2.0));
}
#endif
