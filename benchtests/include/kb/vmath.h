/* Branch-free float math that GCC and Clang vectorise at -O3.
 *
 * glibc's vector expf/erff are only used under -ffast-math, which kbench does
 * not use, so a loop calling libm's expf stays scalar. These inline versions
 * are straight-line code (selects, no branches, no calls) and vectorise. */
#ifndef KB_VMATH_H
#define KB_VMATH_H

#include "kb/prec.h"

#include <math.h>
#include <stdint.h>

/* a * b + c, fused where the target has FMA; without it fmaf would be a libm
 * call that stops vectorisation. Both are accurate enough for the uses below. */
static inline float kb_fmaf(float a, float b, float c) {
#ifdef __FMA__
    return fmaf(a, b, c);
#else
    return a * b + c;
#endif
}

/* The same for double. */
static inline double kb_fma(double a, double b, double c) {
#ifdef __FMA__
    return fma(a, b, c);
#else
    return a * b + c;
#endif
}

/* e^x, max relative error 0.94 ulp with FMA, 1.2 ulp without (measured over
 * every float in range). Inputs are clamped to [-87.3, 88.7], so results stay
 * normal and finite: below -87.3 it returns about 1.2e-38 rather than a
 * subnormal or 0, above 88.7 about 3.3e38 rather than inf. */
static inline float kb_expf(float x) {
    /* One nested select, which lets NaN through: GCC 12 turns two sequential
     * clamps into twice as many vector mask instructions. */
    x = x < -87.3f ? -87.3f : (x > 88.7f ? 88.7f : x);
    /* x = n ln2 + r with |r| <= ln2/2. Adding 1.5 * 2^23 rounds to an integer
     * (in the current, nearest-even, mode) without a call to rintf. */
    const float shift = 0x1.8p23f;
    float n = kb_fmaf(x, 0x1.715476p+0f, shift) - shift;
    /* Cody-Waite: ln2_hi has few mantissa bits, so n * ln2_hi is exact even
     * without FMA, and r keeps full precision for |x| near 88. */
    float r = kb_fmaf(n, -0x1.62e4p-1f, x); /* ln2_hi */
    r = kb_fmaf(n, -0x1.7f7d1cp-20f, r);    /* ln2_lo = ln2 - ln2_hi */
    /* Taylor to degree 7; the r^8/8! remainder is < 0.1 ulp on |r| <= ln2/2. */
    float p = kb_fmaf(r, 1.0f / 5040.0f, 1.0f / 720.0f);
    p = kb_fmaf(p, r, 1.0f / 120.0f);
    p = kb_fmaf(p, r, 1.0f / 24.0f);
    p = kb_fmaf(p, r, 1.0f / 6.0f);
    p = kb_fmaf(p, r, 0.5f);
    p = kb_fmaf(p, r, 1.0f);
    p = kb_fmaf(p, r, 1.0f);
    /* Scale by 2^n by adding n to the exponent field of p (p in [0.7, 1.42]).
     * Unlike multiplying by a constructed 2^n, this reaches 2^128 * p with
     * p < 1 at the top of the range and needs no subnormal 2^n at the bottom. */
    uint32_t e = (uint32_t)(int32_t)n << 23;
    return kb_bits_to_f32(kb_f32_to_bits(p) + e);
}

/* erf(x) by Abramowitz & Stegun 7.1.26, whose max absolute error is 1.5e-7.
 * Evaluated in float, rounding adds to that where 1 - p e^(-x^2) cancels
 * (|x| < 1): measured max absolute error 5.3e-7, near x = 0.04. The formula is
 * for x >= 0; erf is odd, so it is evaluated at |x| and the sign of x copied
 * onto the result. */
static inline float kb_erff(float x) {
    float a = fabsf(x);
    float t = 1.0f / kb_fmaf(0.3275911f, a, 1.0f);
    float p = kb_fmaf(t, 1.061405429f, -1.453152027f);
    p = kb_fmaf(p, t, 1.421413741f);
    p = kb_fmaf(p, t, -0.284496736f);
    p = kb_fmaf(p, t, 0.254829592f);
    p *= t;
    float y = kb_fmaf(-p, kb_expf(-a * a), 1.0f);
    return copysignf(y, x);
}

/* GELU, erf form: 0.5 x (1 + erf(x / sqrt(2))); the float one through
 * kb_erff so that loops over it vectorise, the double one through libm. */
static inline float kb_gelu_f32(float x) {
    return 0.5f * x * (1.0f + kb_erff(x * 0.70710678118654752440f));
}

static inline double kb_gelu_f64(double x) {
    return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440));
}

#endif
