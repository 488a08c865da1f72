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

/* v clamped to [lo, hi] in one nested select, which lets NaN through: GCC
 * 12 turns two sequential clamps into twice as many vector mask
 * instructions. */
static inline float kb__clampf(float v, float lo, float hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}

/* kb_expf's clamp: [-87.3, 88.7], so results stay normal and finite. */
static inline float kb__expf_clamp(float x) {
    return kb__clampf(x, -87.3f, 88.7f);
}

/* t = 1.5 * 2^23 + n with n = round(x / ln2): adding 1.5 * 2^23 rounds to an
 * integer (in the current, nearest-even, mode) without a call to rintf, and
 * leaves n in t's low bits. kb__expf_n(t) is n as a float. */
#define KB__EXPF_SHIFT 0x1.8p23f

static inline float kb__expf_t(float x) {
    return kb_fmaf(x, 0x1.715476p+0f, KB__EXPF_SHIFT);
}

static inline float kb__expf_n(float t) {
    return t - KB__EXPF_SHIFT;
}

/* 2^n p for p = e^r in [0.7, 1.42], by adding n (t's low bits, shifted into
 * the exponent field: the shift's own bits leave it) to p's pattern. Unlike
 * multiplying by a constructed 2^n, this reaches 2^128 * p with p < 1 at the
 * top of the range and needs no subnormal 2^n at the bottom; and unlike
 * converting n to an integer it has no undefined case for a NaN. */
static inline float kb__expf_scale(float p, float t) {
    return kb_bits_to_f32(kb_f32_to_bits(p) + (kb_f32_to_bits(t) << 23));
}

/* The result for x: 2^n p, or x quieted (its quiet bit set, as arithmetic
 * on it gives) when x is NaN. A NaN x leaves its payload in t and p, and
 * the scaling adds the payload's low bits to the exponent and sign fields:
 * NaNs whose low 9 payload bits are not all zero (not the default NaN; an
 * input's) came out as ordinary numbers. Quieted, not x itself, because
 * that is what AVX-512's vector form gives, which scales by vscalefps and
 * carries the NaN through (kb/vmath/vmath8.h's kb__vscale16). Chosen by a mask on
 * the patterns: GCC 12 does not if-convert a select here, and a loop over
 * kb_expf would no longer vectorise. */
static inline float kb__expf_result(float x, float p, float t) {
    const uint32_t y = kb_f32_to_bits(kb__expf_scale(p, t));
    const uint32_t nan = (uint32_t)0 - (uint32_t)isnan(x);
    return kb_bits_to_f32((y & ~nan) | ((kb_f32_to_bits(x) | 0x00400000u) & nan));
}

/* e^x, max relative error 0.89 ulp with FMA, 1.16 ulp without (measured over
 * every float in range). Inputs are clamped to [-87.3, 88.7], so results stay
 * normal and finite: below -87.3 it returns about 1.2e-38 rather than a
 * subnormal or 0, above 88.7 about 3.3e38 rather than inf. NaN gives NaN
 * (x quieted, whatever its payload). */
static inline float kb_expf(float x) {
    x = kb__expf_clamp(x);
    /* x = n ln2 + r with |r| <= ln2/2. */
    const float t = kb__expf_t(x), n = kb__expf_n(t);
    /* Cody-Waite: ln2_hi has few mantissa bits, so n * ln2_hi is exact even
     * without FMA, and r keeps full precision for |x| near 88. */
    float r = kb_fmaf(n, -0x1.62e4p-1f, x); /* ln2_hi */
    r = kb_fmaf(n, -0x1.7f7d1cp-20f, r);    /* ln2_lo = ln2 - ln2_hi */
    /* e^r = 1 + r + r^2 q(r), q of degree 4: a relative minimax fit on
     * |r| <= ln2/2 (as benchtests/tools/fit_expf.py fits, DEG 6), within
     * 3.1e-9 (0.03 ulp) before rounding; one multiply-add fewer than the
     * degree-7 Taylor polynomial it replaced, whose remainder was larger. */
    float p = kb_fmaf(r, 0x1.6a23c2p-10f, 0x1.123a22p-7f);
    p = kb_fmaf(p, r, 0x1.5558f4p-5f);
    p = kb_fmaf(p, r, 0x1.555492p-3f);
    p = kb_fmaf(p, r, 0x1.fffffcp-2f);
    p = kb_fmaf(p, r, 1.0f);
    p = kb_fmaf(p, r, 1.0f);
    return kb__expf_result(x, p, t);
}

/* e^x in float for a result that is rounded to fp16 or bf16: max relative
 * error 5.6e-6 with FMA (every float of the range checked; test_vmath.c), 1/40
 * of fp16's rounding (half an ulp, at least 2^-12 relative), for about half of
 * kb_expf's multiply-adds. The same clamp and scaling as kb_expf; the
 * reduction takes one step, since n ln2 with ln2 rounded to float is off by
 * at most 128 * 1.9e-9 = 2.4e-7 (a relative error of the result), when the
 * product is not rounded (FMA; without it, rounding n ln2 adds up to 3.8e-6
 * near |x| = 88); e^r = 1 + r + r^2 q(r) with q of degree 2, a relative
 * minimax fit (benchtests/tools/fit_expf.py, within 5.3e-6). */
static inline float kb_expf_half(float x) {
    x = kb__expf_clamp(x);
    const float t = kb__expf_t(x), n = kb__expf_n(t);
    const float r = kb_fmaf(n, -0x1.62e430p-1f, x);
    float p = kb_fmaf(r, 0x1.5224e6p-5f, 0x1.571d1ep-3f);
    p = kb_fmaf(p, r, 0x1.0006b8p-1f);
    p = kb_fmaf(p, r, 1.0f);
    p = kb_fmaf(p, r, 1.0f);
    return kb__expf_result(x, p, t);
}

/* min(|x|, c) for c a positive float's pattern, clamped on the bit pattern
 * (a select would stop GCC 12 vectorising, see kb__erfc_pos); NaN gives c. */
static inline float kb__abs_clamp(float x, uint32_t c) {
    const uint32_t b = kb_f32_to_bits(x) & 0x7fffffffu;
    return kb_bits_to_f32(b < c ? b : c);
}

/* kb_erff's argument: a = min(|x|, 4). */
static inline float kb__erff_arg(float x) {
    return kb__abs_clamp(x, 0x40800000u); /* 4.0f */
}

/* The ratio e (about erf(a)) capped at 1, with the sign of x: rounding can
 * carry it one ulp above 1 near the clamp (kb_erff's fit is 2e-8 from erf,
 * erf(4) is 1.5e-8 below 1). Capped on the pattern, as the clamp. */
static inline float kb__erff_sign(float x, float e) {
    const uint32_t r = kb_f32_to_bits(e);
    return copysignf(kb_bits_to_f32(r < 0x3f800000u ? r : 0x3f800000u), x);
}

/* erf(x) in float as a rational function: a P(a^2) / Q(a^2), a = min(|x|, 4),
 * with P of degree 5 and Q of degree 5 (Q(0) = 1), the sign of x copied onto
 * the result. erf(4) = 1 - 1.5e-8 rounds to 1 in float, so clamping there
 * changes nothing. The coefficients minimise the largest absolute error over
 * [0, 4] (a least-squares fit in a^2, linearised and reweighted toward the
 * minimax, in double, then rounded to float: benchtests/tools/fit_erff.py);
 * the fit itself is within 2.1e-8, and float evaluation with FMA makes it
 * 3.8e-7 at most (every float in [0, 12) checked; the worst, x = 3.3107836,
 * is one of test_vmath.c's points), against 5.3e-7 for the exp-based
 * Abramowitz & Stegun 7.1.26 it replaces at half the cost: no exp, eleven
 * multiply-adds and one division. NaN gives +-1 here, NaN from kb_erff. */
static inline float kb__erff_finite(float x) {
    const float a = kb__erff_arg(x);
    const float s = a * a;
    float p = kb_fmaf(s, 0x1.090af2p-19f, 0x1.2e0114p-12f);
    p = kb_fmaf(p, s, 0x1.0658e6p-8f);
    p = kb_fmaf(p, s, 0x1.b5fdf6p-5f);
    p = kb_fmaf(p, s, 0x1.91e578p-3f);
    p = kb_fmaf(p, s, 0x1.20dd72p+0f);
    float q = kb_fmaf(s, 0x1.3a63f2p-15f, 0x1.3ed19cp-10f);
    q = kb_fmaf(q, s, 0x1.fa0c6ap-7f);
    q = kb_fmaf(q, s, 0x1.dd1192p-4f);
    q = kb_fmaf(q, s, 0x1.03b55ap-1f);
    q = kb_fmaf(q, s, 1.0f);
    return kb__erff_sign(x, a * p / q);
}

static inline float kb_erff(float x) {
    const float y = kb__erff_finite(x);
    return isnan(x) ? x : y;
}

/* erf(x) in float for a result that is rounded to fp16 or bf16: kb_erff's
 * scheme with P of degree 4 and Q of degree 3 (fit_erff.py 4 3; the fit is
 * within 3.4e-6), about two thirds of its multiply-adds. Max absolute error
 * 3.7e-6 with FMA (test_vmath.c), which GELU scales by |x| / 2 <= 2.9 before
 * the clamp: 9.8e-6 at most (every float checked), against fp16's half ulp of 2.4e-4 at |y| in
 * [0.5, 1) and more above. */
static inline float kb__erff_half_finite(float x) {
    const float a = kb__erff_arg(x);
    const float s = a * a;
    float p = kb_fmaf(s, -0x1.4cabe6p-18f, 0x1.25e17cp-10f);
    p = kb_fmaf(p, s, 0x1.87adf4p-5f);
    p = kb_fmaf(p, s, 0x1.4b7076p-3f);
    p = kb_fmaf(p, s, 0x1.20df26p+0f);
    float q = kb_fmaf(s, 0x1.73a448p-7f, 0x1.9cfeb8p-4f);
    q = kb_fmaf(q, s, 0x1.e8690cp-2f);
    q = kb_fmaf(q, s, 1.0f);
    return kb__erff_sign(x, a * p / q);
}

static inline float kb_erff_half(float x) {
    const float y = kb__erff_half_finite(x);
    return isnan(x) ? x : y;
}

/* t = 1.5 * 2^52 + n with n = round(x), x well inside +-2^51: adding 1.5 *
 * 2^52 rounds to an integer and leaves n in t's low bits (kb_exp's n, the
 * table GELU's piece in kb/vmath/gelu64.h), as KB__EXPF_SHIFT does for
 * float. */
#define KB__EXP_SHIFT 0x1.8p52

/* e^x in double, the same scheme as kb_expf: max error 0.93 ulp with FMA
 * (benchtests/tests/test_vmath.c, against expl over 4e6 points spread over
 * the range). Inputs are clamped to [-708.39, 709.78], so results
 * stay normal and finite: below -708.39 it returns about 2.2e-308 rather than
 * a subnormal or 0, above 709.78 about 1.8e308 rather than inf. NaN gives NaN. */
static inline double kb_exp(double x) {
    double c = x < -708.39 ? -708.39 : (x > 709.78 ? 709.78 : x);
    /* t = KB__EXP_SHIFT + n, n = round(c / ln2): n is also t's low bits, read
     * below as an integer (AVX2 has no double -> int64 conversion). */
    double t = kb_fma(c, 0x1.71547652b82fep+0, KB__EXP_SHIFT);
    double n = t - KB__EXP_SHIFT;
    double r = kb_fma(n, -0x1.62e42fee00000p-1, c); /* ln2_hi: n * ln2_hi is exact */
    r = kb_fma(n, -0x1.a39ef35793c76p-33, r);       /* ln2_lo = ln2 - ln2_hi */
    /* e^r = 1 + r + r^2 q(r), |r| <= ln2/2; q is a Chebyshev fit of degree 9
     * (relative error 2.3e-16 in q, which weighs at most 0.06 in e^r). */
    double q = kb_fma(r, 0x1.af389ecfc4b9cp-26, 0x1.28917c89a43a7p-22);
    q = kb_fma(q, r, 0x1.71de0db2f6b19p-19);
    q = kb_fma(q, r, 0x1.a019b9149a41cp-16);
    q = kb_fma(q, r, 0x1.a01a01a7c2efep-13);
    q = kb_fma(q, r, 0x1.6c16c17889ef1p-10);
    q = kb_fma(q, r, 0x1.11111111109b5p-7);
    q = kb_fma(q, r, 0x1.5555555553d68p-5);
    q = kb_fma(q, r, 0x1.5555555555556p-3);
    q = kb_fma(q, r, 0x1.0000000000001p-1);
    double p = kb_fma(q, r, 1.0);
    p = kb_fma(p, r, 1.0);
    /* Scale by 2^n: n's low 12 bits, shifted into the exponent field, added
     * to p's pattern (p in [0.7, 1.42], so the sum is 2^n p, as in kb_expf). */
    double y = kb_bits_to_f64(kb_f64_to_bits(p) + (kb_f64_to_bits(t) << 52));
    /* NaN: x quieted, as kb_expf (isnan: GCC 12 does not if-convert x != x
     * here). */
    return isnan(x) ? kb_bits_to_f64(kb_f64_to_bits(x) | 0x0008000000000000u) : y;
}

/* erfc(a) for a >= 0 (NaN for NaN): e^(-a^2) t h(t) with t = 1 / (1 + a/4),
 * h a Chebyshev fit of degree 20 in t over a in [0, 26.6] (relative error
 * 2.5e-16 with the coefficients rounded to double). a^2 is split into
 * hi + lo (exactly, with FMA) and e^(-hi - lo) taken as e^(-hi) (1 - lo):
 * a rounded a^2 alone would cost up to 700 ulp (e^-700) in relative error.
 * Beyond 26.6, where erfc is below 1e-308, it returns about 2e-309. */
static inline double kb__erfc_pos(double a) {
    /* Clamped on the bit patterns (a >= 0 orders as its pattern): GCC 12
     * moves a float select's later arithmetic into its arms, and then cannot
     * vectorise it (the arithmetic might trap). NaN clamps too; see kb_erfc. */
    const uint64_t top = 0x403a99999999999au; /* 26.6 */
    a = kb_bits_to_f64(kb_f64_to_bits(a) < top ? kb_f64_to_bits(a) : top);
    const double t = 4.0 / (4.0 + a);
    /* u maps t in [t0, 1] (t0 = 1 / (1 + 26.6/4)) onto [-1, 1]. */
    const double u = kb_fma(t, 0x1.267f099fc267fp+1, -0x1.4cfe133f84cfep+0);
    double h = kb_fma(u, -0x1.a24424d6a7bebp-34, -0x1.dcc452388fd45p-32);
    /* Written out: GCC 12 vectorises no loop with an inner loop left. */
    h = kb_fma(h, u, 0x1.606dc7304e579p-30);
    h = kb_fma(h, u, 0x1.df9def06d0f79p-28);
    h = kb_fma(h, u, -0x1.50bf9593f1fc3p-27);
    h = kb_fma(h, u, -0x1.6ce7d8acd4f88p-24);
    h = kb_fma(h, u, 0x1.d0a4b15623534p-27);
    h = kb_fma(h, u, 0x1.03c1fcc1304d1p-20);
    h = kb_fma(h, u, 0x1.a6e9c849140e4p-20);
    h = kb_fma(h, u, -0x1.152355ad2f10ap-17);
    h = kb_fma(h, u, -0x1.69c5800ff30e1p-15);
    h = kb_fma(h, u, -0x1.1bdf2463220afp-15);
    h = kb_fma(h, u, 0x1.019c5de5281c2p-11);
    h = kb_fma(h, u, 0x1.93138fc835252p-9);
    h = kb_fma(h, u, 0x1.6db030ee0ee5bp-7);
    h = kb_fma(h, u, 0x1.f0629c91383d9p-6);
    h = kb_fma(h, u, 0x1.10add9cef9b06p-4);
    h = kb_fma(h, u, 0x1.f6a55ce6258adp-4);
    h = kb_fma(h, u, 0x1.8bf9452da3d2cp-3);
    h = kb_fma(h, u, 0x1.0d30b961cb77cp-2);
    h = kb_fma(h, u, 0x1.3cf8e76ac5592p-2);
    const double hi = a * a;
#ifdef __FMA__
    const double lo = fma(a, a, -hi);
#else
    const double lo = 0.0; /* then up to ~700 ulp near a = 26 (see above) */
#endif
    double e = kb_exp(-hi);
    e = kb_fma(e, -lo, e);
    return e * t * h;
}

/* erfc(x), 2 - erfc(-x) for x < 0; NaN gives NaN. Max error 8.8 ulp with FMA
 * (test_vmath.c, against erfcl over [-6, 26.5]), worst near x = 0 where
 * the rounding of t = 4 / (4 + x) is amplified about 4.5-fold; 1.3e-15
 * absolute at most in 0.5 x erfc(-x / sqrt(2)) (GELU) for |x| <= 12. */
static inline double kb_erfc(double x) {
    const double y = kb__erfc_pos(fabs(x));
    /* 2 - y or y as one FMA of selected constants (both exact), for the
     * reason given in kb__erfc_pos. */
    const int neg = x < 0.0;
    const double r = kb_fma(neg ? -1.0 : 1.0, y, neg ? 2.0 : 0.0);
    return isnan(x) ? x : r;
}

/* erf(x): for |x| < 0.5 x s(x^2), s a Chebyshev fit of degree 8 of
 * erf(x) / x (relative error 2.1e-17), so that small x keep their relative
 * accuracy; above, 1 - erfc(|x|) with the sign of x. Max error 2.9 ulp with
 * FMA (test_vmath.c, against erfl over [-6, 6]). Both are computed and one
 * selected, so that loops over it vectorise. */
static inline double kb_erf(double x) {
    const double s = x * x;
    double p = kb_fma(s, 0x1.8b4b60851826bp-20, -0x1.f224dfc5409afp-17);
    p = kb_fma(p, s, 0x1.f98db34e8872ep-14);
    p = kb_fma(p, s, -0x1.c02d4f6e4921ap-11);
    p = kb_fma(p, s, 0x1.565bcbf8e0365p-8);
    p = kb_fma(p, s, -0x1.b82ce30f2b28fp-6);
    p = kb_fma(p, s, 0x1.ce2f21a03d814p-4);
    p = kb_fma(p, s, -0x1.812746b0379b5p-2);
    p = kb_fma(p, s, 0x1.20dd750429b6dp+0);
    const double a = fabs(x);
    const double small = a * p, large = 1.0 - kb__erfc_pos(a);
    /* Selected by a mask on the bit patterns: GCC 12 vectorises no select
     * here (it moves the arithmetic into the arms; see kb__erfc_pos). */
    const uint64_t m = (uint64_t)0 - (uint64_t)(a < 0.5);
    const uint64_t r = (kb_f64_to_bits(small) & m) | (kb_f64_to_bits(large) & ~m);
    return isnan(x) ? x : copysign(kb_bits_to_f64(r), x);
}

/* GELU, erf form: 0.5 x (1 + erf(x / sqrt(2))); the float one through
 * kb_erff's rational function, the double one as 0.5 x erfc(-x / sqrt(2)) (as the reference:
 * for x << 0 it keeps its relative accuracy), both branch-free so that loops
 * over them vectorise. */
static inline float kb_gelu_f32(float x) {
    /* NaN propagates through the factor x: no test needed inside erf. */
    return 0.5f * x * (1.0f + kb__erff_finite(x * 0.70710678118654752440f));
}

/* The same for a result rounded to fp16 or bf16, in two stages that a
 * vector loop can run apart (kb/cpu/paths.h computes the first a few vectors
 * ahead of the second):
 * - kb__gelu_half_ratio(x): e = a P(a^2) / Q(a^2), about erf(|x| / sqrt(2)),
 *   with a = min(|x|, 4 sqrt(2)) (kb__abs_clamp). This is kb_erff_half's
 *   fit taken in x rather than x / sqrt(2): P's coefficients times
 *   2^-k / sqrt(2), rounded to float, and Q's times 2^-k (exact), which
 *   saves the scaling multiply.
 * - kb__gelu_half_from_ratio(x, e): h + h e' with h = x / 2 and e' = e
 *   capped at 1 (rounding can carry it one ulp past 1 near the clamp) with
 *   x's sign (kb__erff_sign), one multiply-add where (x / 2)(1 + e') took
 *   an add and a multiply after the division. NaN gives NaN through h. A
 *   zero result is +0, where (x / 2)(1 + e') gave -0 for negative x.
 * Both clamps work on the bit patterns, as kb_erff's do, so that loops over
 * the scalar form vectorise. The vector forms (kb/vmath/lanes.h) clamp x
 * and cap e by min and max instead, which gives the same bits: the ratio is
 * odd in a, and the sign comes back exactly either way.
 * Max absolute error 9.8e-6 in y, as before the split (test_vmath.c checks
 * every float in [-12, 12)); over every fp16 input as many results are
 * correctly rounded as with the unsplit form, and the worst is still the
 * half ulp of y in [2, 4). */
#define KB__GELU_HALF_CLAMP      0x1.6a09e6p+2f /* 4 sqrt(2) */
#define KB__GELU_HALF_CLAMP_BITS 0x40b504f3u    /* its pattern */

static inline float kb__gelu_half_ratio(float x) {
    const float a = kb__abs_clamp(x, KB__GELU_HALF_CLAMP_BITS);
    const float s = a * a;
    float p = kb_fmaf(s, -0x1.d677fp-23f, 0x1.9f9c36p-14f);
    p = kb_fmaf(p, s, 0x1.14f59p-7f);
    p = kb_fmaf(p, s, 0x1.d4b9d8p-5f);
    p = kb_fmaf(p, s, 0x1.9886b8p-1f);
    float q = kb_fmaf(s, 0x1.73a448p-10f, 0x1.9cfeb8p-6f);
    q = kb_fmaf(q, s, 0x1.e8690cp-3f);
    q = kb_fmaf(q, s, 1.0f);
    return a * p / q;
}

static inline float kb__gelu_half_from_ratio(float x, float e) {
    const float h = 0.5f * x;
    return kb_fmaf(h, kb__erff_sign(x, e), h);
}

static inline float kb_gelu_half(float x) {
    return kb__gelu_half_from_ratio(x, kb__gelu_half_ratio(x));
}

/* swish (SiLU), x / (1 + e^-x), in float; for fp16/bf16 results through
 * kb_expf_half, whose error (5.6e-6 relative) is small next to their
 * rounding. For very negative x, e^-x is large (or clamped) and y goes to
 * 0 from below as it should. */
static inline float kb_swish_f32(float x) {
    return x / (1.0f + kb_expf(-x));
}

/* e^-x for kb_swish_half: kb_expf_half(-x) bit for bit for every x but NaN,
 * with the negation folded into the constants (the clamp's bounds and the
 * first multiplier negated; r comes out as -r, so Horner's rule on it with
 * the odd coefficients negated gives each partial sum exactly, up to its
 * sign) and without the NaN select: for NaN x the result is unspecified
 * (a number, or NaN), and x / (1 + e^-x) is x's NaN all the same. Two fewer operations on the
 * multiply-add ports' side of the chain (the sign flip and the NaN compare)
 * ran swish's fp16 loop about 15 % faster on a Zen 5. */
static inline float kb__expf_half_neg(float x) {
    x = kb__clampf(x, -88.7f, 87.3f);
    const float t = kb_fmaf(x, -0x1.715476p+0f, KB__EXPF_SHIFT), n = kb__expf_n(t);
    const float r = kb_fmaf(n, 0x1.62e430p-1f, x);
    float p = kb_fmaf(r, 0x1.5224e6p-5f, -0x1.571d1ep-3f);
    p = kb_fmaf(p, r, 0x1.0006b8p-1f);
    p = kb_fmaf(p, r, -1.0f);
    p = kb_fmaf(p, r, 1.0f);
    return kb__expf_scale(p, t);
}

static inline float kb_swish_half(float x) {
    return x / (1.0f + kb__expf_half_neg(x));
}

/* The same in double, through kb_exp. */
static inline double kb_swish_f64(double x) {
    return x / (1.0 + kb_exp(-x));
}

static inline double kb_gelu_f64(double x) {
    return 0.5 * x * kb_erfc(x * -0.70710678118654752440);
}

#endif
