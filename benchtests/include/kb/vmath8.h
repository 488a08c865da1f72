/* kb/vmath.h's float functions on eight lanes (AVX2, FMA), for loops that
 * GCC would vectorise worse from the scalar forms.
 *
 * Each function here performs the operations of its scalar form, in the
 * same order and with the same constants, so its results are the same bit
 * for bit, NaN payloads included (kbench.unit.vmath checks it). What changes
 * is only what GCC 12 cannot see from C: kb_expf's clamp, a nested select
 * that lets NaN through, vectorises to two compares, two blends and two
 * mask operations, where maxps/minps do the same in two instructions (their
 * "second operand on NaN" rule is the select's). kb_expf's loop runs about
 * 25 % faster in L1 for it.
 *
 * KB_VMATH8 is 1 where the target has AVX2, FMA and F16C (-march=native on
 * any x86-64 of the last decade), 0 otherwise; callers keep the scalar path
 * for the latter. */
#ifndef KB_VMATH8_H
#define KB_VMATH8_H

#include "kb/vmath.h"

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define KB_VMATH8 1
#include <immintrin.h>

typedef __m256 kb_f32x8;

static inline kb_f32x8 kb__f8(float v) {
    return _mm256_set1_ps(v);
}

static inline __m256i kb__u8(uint32_t v) {
    return _mm256_set1_epi32((int)v);
}

/* kb__expf_clamp: maxps(lo, x) is lo > x ? lo : x, minps(hi, m) is
 * hi < m ? hi : m; both give their second operand, x, for NaN. */
static inline kb_f32x8 kb__expf_clamp8(kb_f32x8 x) {
    return _mm256_min_ps(kb__f8(88.7f), _mm256_max_ps(kb__f8(-87.3f), x));
}

/* kb__expf_result: 2^n p, or x where x is NaN. */
static inline kb_f32x8 kb__expf_result8(kb_f32x8 x, kb_f32x8 p, kb_f32x8 t) {
    const __m256i n = _mm256_slli_epi32(_mm256_castps_si256(t), 23);
    const kb_f32x8 y = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), n));
    return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

/* kb_expf. */
static inline kb_f32x8 kb_expf8(kb_f32x8 x) {
    x = kb__expf_clamp8(x);
    const kb_f32x8 t = _mm256_fmadd_ps(x, kb__f8(0x1.715476p+0f), kb__f8(KB__EXPF_SHIFT));
    const kb_f32x8 n = _mm256_sub_ps(t, kb__f8(KB__EXPF_SHIFT));
    kb_f32x8 r = _mm256_fmadd_ps(n, kb__f8(-0x1.62e4p-1f), x);
    r = _mm256_fmadd_ps(n, kb__f8(-0x1.7f7d1cp-20f), r);
    kb_f32x8 p = _mm256_fmadd_ps(r, kb__f8(1.0f / 5040.0f), kb__f8(1.0f / 720.0f));
    p = _mm256_fmadd_ps(p, r, kb__f8(1.0f / 120.0f));
    p = _mm256_fmadd_ps(p, r, kb__f8(1.0f / 24.0f));
    p = _mm256_fmadd_ps(p, r, kb__f8(1.0f / 6.0f));
    p = _mm256_fmadd_ps(p, r, kb__f8(0.5f));
    p = _mm256_fmadd_ps(p, r, kb__f8(1.0f));
    p = _mm256_fmadd_ps(p, r, kb__f8(1.0f));
    return kb__expf_result8(x, p, t);
}

/* kb_expf_half. */
static inline kb_f32x8 kb_expf_half8(kb_f32x8 x) {
    x = kb__expf_clamp8(x);
    const kb_f32x8 t = _mm256_fmadd_ps(x, kb__f8(0x1.715476p+0f), kb__f8(KB__EXPF_SHIFT));
    const kb_f32x8 n = _mm256_sub_ps(t, kb__f8(KB__EXPF_SHIFT));
    const kb_f32x8 r = _mm256_fmadd_ps(n, kb__f8(-0x1.62e430p-1f), x);
    kb_f32x8 p = _mm256_fmadd_ps(r, kb__f8(0x1.5224e6p-5f), kb__f8(0x1.571d1ep-3f));
    p = _mm256_fmadd_ps(p, r, kb__f8(0x1.0006b8p-1f));
    p = _mm256_fmadd_ps(p, r, kb__f8(1.0f));
    p = _mm256_fmadd_ps(p, r, kb__f8(1.0f));
    return kb__expf_result8(x, p, t);
}

/* kb__erff_arg: min(|x|, 4) on the patterns. */
static inline kb_f32x8 kb__erff_arg8(kb_f32x8 x) {
    const __m256i b = _mm256_and_si256(_mm256_castps_si256(x), kb__u8(0x7fffffffu));
    return _mm256_castsi256_ps(_mm256_min_epu32(b, kb__u8(0x40800000u)));
}

/* kb__erff_sign: e capped at 1 on its pattern, with the sign of x
 * (copysignf: e's other bits, x's sign bit). */
static inline kb_f32x8 kb__erff_sign8(kb_f32x8 x, kb_f32x8 e) {
    const __m256i capped = _mm256_min_epu32(_mm256_castps_si256(e), kb__u8(0x3f800000u));
    const __m256i sign = _mm256_and_si256(_mm256_castps_si256(x), kb__u8(0x80000000u));
    const __m256i mag = _mm256_and_si256(capped, kb__u8(0x7fffffffu));
    return _mm256_castsi256_ps(_mm256_or_si256(mag, sign));
}

/* kb__erff_finite. */
static inline kb_f32x8 kb__erff_finite8(kb_f32x8 x) {
    const kb_f32x8 a = kb__erff_arg8(x);
    const kb_f32x8 s = _mm256_mul_ps(a, a);
    kb_f32x8 p = _mm256_fmadd_ps(s, kb__f8(0x1.090af2p-19f), kb__f8(0x1.2e0114p-12f));
    p = _mm256_fmadd_ps(p, s, kb__f8(0x1.0658e6p-8f));
    p = _mm256_fmadd_ps(p, s, kb__f8(0x1.b5fdf6p-5f));
    p = _mm256_fmadd_ps(p, s, kb__f8(0x1.91e578p-3f));
    p = _mm256_fmadd_ps(p, s, kb__f8(0x1.20dd72p+0f));
    kb_f32x8 q = _mm256_fmadd_ps(s, kb__f8(0x1.3a63f2p-15f), kb__f8(0x1.3ed19cp-10f));
    q = _mm256_fmadd_ps(q, s, kb__f8(0x1.fa0c6ap-7f));
    q = _mm256_fmadd_ps(q, s, kb__f8(0x1.dd1192p-4f));
    q = _mm256_fmadd_ps(q, s, kb__f8(0x1.03b55ap-1f));
    q = _mm256_fmadd_ps(q, s, kb__f8(1.0f));
    return kb__erff_sign8(x, _mm256_div_ps(_mm256_mul_ps(a, p), q));
}

/* kb__erff_half_finite. */
static inline kb_f32x8 kb__erff_half_finite8(kb_f32x8 x) {
    const kb_f32x8 a = kb__erff_arg8(x);
    const kb_f32x8 s = _mm256_mul_ps(a, a);
    kb_f32x8 p = _mm256_fmadd_ps(s, kb__f8(-0x1.4cabe6p-18f), kb__f8(0x1.25e17cp-10f));
    p = _mm256_fmadd_ps(p, s, kb__f8(0x1.87adf4p-5f));
    p = _mm256_fmadd_ps(p, s, kb__f8(0x1.4b7076p-3f));
    p = _mm256_fmadd_ps(p, s, kb__f8(0x1.20df26p+0f));
    kb_f32x8 q = _mm256_fmadd_ps(s, kb__f8(0x1.73a448p-7f), kb__f8(0x1.9cfeb8p-4f));
    q = _mm256_fmadd_ps(q, s, kb__f8(0x1.e8690cp-2f));
    q = _mm256_fmadd_ps(q, s, kb__f8(1.0f));
    return kb__erff_sign8(x, _mm256_div_ps(_mm256_mul_ps(a, p), q));
}

/* kb_gelu_f32 and kb_gelu_half: 0.5 x (1 + erf(x / sqrt(2))), multiplied
 * in C's order, (0.5 x) (1 + erf). */
static inline kb_f32x8 kb__gelu8(kb_f32x8 x, kb_f32x8 erf) {
    return _mm256_mul_ps(_mm256_mul_ps(kb__f8(0.5f), x), _mm256_add_ps(kb__f8(1.0f), erf));
}

static inline kb_f32x8 kb_gelu_f32_8(kb_f32x8 x) {
    return kb__gelu8(x, kb__erff_finite8(_mm256_mul_ps(x, kb__f8(0.70710678118654752440f))));
}

static inline kb_f32x8 kb_gelu_half8(kb_f32x8 x) {
    return kb__gelu8(x, kb__erff_half_finite8(_mm256_mul_ps(x, kb__f8(0.70710678118654752440f))));
}

/* -x, as C's unary minus: the sign bit flipped. */
static inline kb_f32x8 kb_neg8(kb_f32x8 x) {
    return _mm256_xor_ps(x, kb__f8(-0.0f));
}

#else
#define KB_VMATH8 0
#endif

#endif
