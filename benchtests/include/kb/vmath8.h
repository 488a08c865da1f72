/* kb/vmath.h's float functions on eight lanes (AVX2, FMA) and, where the
 * target has AVX-512, on sixteen, for loops that GCC would vectorise worse
 * from the scalar forms.
 *
 * Each function performs the operations of its scalar form, in the same
 * order and with the same constants, so its results are the same bit for
 * bit at every width, NaN payloads included (kbench.unit.vmath8 checks it).
 * What changes is only what GCC 12 cannot see from C: kb_expf's clamp, a
 * nested select that lets NaN through, vectorises to two compares, two
 * blends and two mask operations, where maxps/minps do the same in two
 * instructions (their "second operand on NaN" rule is the select's).
 * kb_expf's loop runs about 25 % faster in L1 for it. The functions are
 * written once (kb/vmath_lanes.h) over the primitives below, one set per
 * width: kb_expf8 on kb_f32x8, kb_expf16 on kb_f32x16, and so on.
 *
 * KB_VMATH8 is 1 where the target has AVX2, FMA and F16C (-march=native on
 * any x86-64 of the last decade), 0 otherwise; callers keep the scalar path
 * for the latter. KB_VMATH16 is 1 where it also has AVX-512F. The widest
 * set is also named without its width: kb_f32v, KB_VLANES, kb_expfv, ...
 * (sixteen lanes ran swish's float loop 1.9x faster in L2 than eight on a
 * Zen 5, whose vector units are 512 bits wide). */
#ifndef KB_VMATH8_H
#define KB_VMATH8_H

#include "kb/vmath.h"

#define KB__CAT_(a, b) a##b
#define KB__CAT(a, b)  KB__CAT_(a, b)
#define KB__SQRT1_2F   0.70710678118654752440f

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define KB_VMATH8 1
#include <immintrin.h>

typedef __m256 kb_f32x8;
typedef __m256i kb__vint8;

/* The primitives kb/vmath_lanes.h is written in, eight lanes. */
static inline kb_f32x8 kb__vset8(float v) {
    return _mm256_set1_ps(v);
}
static inline kb_f32x8 kb__vfma8(kb_f32x8 a, kb_f32x8 b, kb_f32x8 c) {
    return _mm256_fmadd_ps(a, b, c);
}
static inline kb_f32x8 kb__vmul8(kb_f32x8 a, kb_f32x8 b) {
    return _mm256_mul_ps(a, b);
}
static inline kb_f32x8 kb__vadd8(kb_f32x8 a, kb_f32x8 b) {
    return _mm256_add_ps(a, b);
}
static inline kb_f32x8 kb__vsub8(kb_f32x8 a, kb_f32x8 b) {
    return _mm256_sub_ps(a, b);
}
static inline kb_f32x8 kb__vdiv8(kb_f32x8 a, kb_f32x8 b) {
    return _mm256_div_ps(a, b);
}
static inline kb_f32x8 kb__vmin8(kb_f32x8 a, kb_f32x8 b) {
    return _mm256_min_ps(a, b);
}
static inline kb_f32x8 kb__vmax8(kb_f32x8 a, kb_f32x8 b) {
    return _mm256_max_ps(a, b);
}
static inline kb__vint8 kb__vbits8(kb_f32x8 v) {
    return _mm256_castps_si256(v);
}
static inline kb_f32x8 kb__vfloat8(kb__vint8 v) {
    return _mm256_castsi256_ps(v);
}
static inline kb__vint8 kb__vaddi8(kb__vint8 a, kb__vint8 b) {
    return _mm256_add_epi32(a, b);
}
static inline kb__vint8 kb__vori8(kb__vint8 a, kb__vint8 b) {
    return _mm256_or_si256(a, b);
}
static inline kb__vint8 kb__vexpfield8(kb__vint8 v) {
    return _mm256_slli_epi32(v, 23);
}
static inline kb__vint8 kb__vandi8(kb__vint8 v, uint32_t k) {
    return _mm256_and_si256(v, _mm256_set1_epi32((int)k));
}
static inline kb__vint8 kb__vxori8(kb__vint8 v, uint32_t k) {
    return _mm256_xor_si256(v, _mm256_set1_epi32((int)k));
}
static inline kb__vint8 kb__vminu8(kb__vint8 v, uint32_t k) {
    return _mm256_min_epu32(v, _mm256_set1_epi32((int)k));
}
/* x where x is NaN, else y. */
static inline kb_f32x8 kb__vnanpass8(kb_f32x8 y, kb_f32x8 x) {
    return _mm256_blendv_ps(y, x, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

#define KB__W 8
#include "kb/vmath_lanes.h"
#undef KB__W

#else
#define KB_VMATH8 0
#endif

#if KB_VMATH8 && defined(__AVX512F__)
#define KB_VMATH16 1

typedef __m512 kb_f32x16;
typedef __m512i kb__vint16;

/* The same primitives on sixteen lanes (AVX-512F alone: the float xor of
 * AVX-512DQ is not needed, the sign flip is an integer one at every width). */
static inline kb_f32x16 kb__vset16(float v) {
    return _mm512_set1_ps(v);
}
static inline kb_f32x16 kb__vfma16(kb_f32x16 a, kb_f32x16 b, kb_f32x16 c) {
    return _mm512_fmadd_ps(a, b, c);
}
static inline kb_f32x16 kb__vmul16(kb_f32x16 a, kb_f32x16 b) {
    return _mm512_mul_ps(a, b);
}
static inline kb_f32x16 kb__vadd16(kb_f32x16 a, kb_f32x16 b) {
    return _mm512_add_ps(a, b);
}
static inline kb_f32x16 kb__vsub16(kb_f32x16 a, kb_f32x16 b) {
    return _mm512_sub_ps(a, b);
}
static inline kb_f32x16 kb__vdiv16(kb_f32x16 a, kb_f32x16 b) {
    return _mm512_div_ps(a, b);
}
static inline kb_f32x16 kb__vmin16(kb_f32x16 a, kb_f32x16 b) {
    return _mm512_min_ps(a, b);
}
static inline kb_f32x16 kb__vmax16(kb_f32x16 a, kb_f32x16 b) {
    return _mm512_max_ps(a, b);
}
static inline kb__vint16 kb__vbits16(kb_f32x16 v) {
    return _mm512_castps_si512(v);
}
static inline kb_f32x16 kb__vfloat16(kb__vint16 v) {
    return _mm512_castsi512_ps(v);
}
static inline kb__vint16 kb__vaddi16(kb__vint16 a, kb__vint16 b) {
    return _mm512_add_epi32(a, b);
}
static inline kb__vint16 kb__vori16(kb__vint16 a, kb__vint16 b) {
    return _mm512_or_si512(a, b);
}
static inline kb__vint16 kb__vexpfield16(kb__vint16 v) {
    return _mm512_slli_epi32(v, 23);
}
static inline kb__vint16 kb__vandi16(kb__vint16 v, uint32_t k) {
    return _mm512_and_si512(v, _mm512_set1_epi32((int)k));
}
static inline kb__vint16 kb__vxori16(kb__vint16 v, uint32_t k) {
    return _mm512_xor_si512(v, _mm512_set1_epi32((int)k));
}
static inline kb__vint16 kb__vminu16(kb__vint16 v, uint32_t k) {
    return _mm512_min_epu32(v, _mm512_set1_epi32((int)k));
}
static inline kb_f32x16 kb__vnanpass16(kb_f32x16 y, kb_f32x16 x) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q), y, x);
}

#define KB__W 16
#include "kb/vmath_lanes.h"
#undef KB__W

#else
#define KB_VMATH16 0
#endif

/* The widest of them: what the kernels' loops use. */
#if KB_VMATH16
#define KB_VWIDTH 16
typedef kb_f32x16 kb_f32v;
#define KB_MMV(op) _mm512_##op
#elif KB_VMATH8
#define KB_VWIDTH  8
typedef kb_f32x8 kb_f32v;
#define KB_MMV(op) _mm256_##op
#endif
#if KB_VMATH8
#define KB_VLANES      KB_VWIDTH
#define KB__VW(name)   KB__CAT(name, KB_VWIDTH)
#define kb_expfv       KB__VW(kb_expf)
#define kb_expf_halfv  KB__VW(kb_expf_half)
#define kb_gelu_f32_v  KB__VW(kb_gelu_f32_)
#define kb_gelu_halfv  KB__VW(kb_gelu_half)
#define kb_swish_f32_v KB__VW(kb_swish_f32_)
#define kb_swish_halfv KB__VW(kb_swish_half)
#define kb_negv        KB__VW(kb_neg)
#endif

#endif
