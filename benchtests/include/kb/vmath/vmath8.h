/* kb/vmath/vmath.h's float functions on eight lanes (AVX2, FMA) and, where the
 * target has AVX-512, on sixteen, for loops that GCC would vectorise worse
 * from the scalar forms.
 *
 * Each function performs the operations of its scalar form, in the same
 * order and with the same constants, so its results are the same bit for
 * bit at every width, NaN payloads included (kbench.unit.vmath8 checks it,
 * and kbench.numerics.vmath8 over every float). What changes is only what
 * GCC 12 cannot see from C: kb_expf's clamp, a nested select that lets NaN
 * through, vectorises to two compares, two blends and two mask operations,
 * where maxps/minps do the same in two instructions (their "second operand
 * on NaN" rule is the select's); kb_expf's loop runs about 25 % faster in
 * L1 for it. Two steps take other operations for the same bits: the exps'
 * scaling by 2^n, one vscalefps/pd on sixteen lanes (kb__vscale16), and
 * kb_gelu_half's clamps, min and max where the scalar form works on the bit
 * patterns (kb/vmath/lanes.h says why each gives the same bits). The functions are
 * written once (kb/vmath/lanes.h) over the primitives below, one set per
 * width: kb_expf8 on kb_f32x8, kb_expf16 on kb_f32x16, and so on.
 *
 * KB_VMATH8 is 1 where the target has AVX2, FMA and F16C (-march=native on
 * any x86-64 of the last decade), 0 otherwise; callers keep the scalar path
 * for the latter. KB_VMATH16 is 1 where it also has AVX-512F. The widest
 * set is also named without its width: kb_f32v, KB_VLANES, kb_expfv, ...
 * (and kb_f64v, KB_VLANES64 doubles in a vector of the same size)
 * (sixteen lanes ran swish's float loop 1.9x faster in L2 than eight on a
 * Zen 5, whose vector units are 512 bits wide). */
#ifndef KB_VMATH8_H
#define KB_VMATH8_H

#include "kb/vmath/vmath.h"

#define KB__CAT_(a, b) a##b
#define KB__CAT(a, b)  KB__CAT_(a, b)
#define KB__SQRT1_2F   0.70710678118654752440f

#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define KB_VMATH8 1
#include <immintrin.h>

typedef __m256 kb_f32x8;
typedef __m256i kb__vint8;

/* The arithmetic both kinds of lanes are written in: kb__<P>set<W>, ...
 * for W lanes of T in V (P: v for floats, vd for doubles), their patterns
 * in I, with the intrinsics' prefix MM (_mm256, _mm512), integer suffix SI
 * (si256, si512) and float suffix PX (ps, pd). */
#define KB__VARITH(P, W, V, I, T, MM, SI, PX)                                                      \
    static inline V kb__##P##set##W(T v) {                                                         \
        return MM##_set1_##PX(v);                                                                  \
    }                                                                                              \
    static inline V kb__##P##fma##W(V a, V b, V c) {                                               \
        return MM##_fmadd_##PX(a, b, c);                                                           \
    }                                                                                              \
    static inline V kb__##P##mul##W(V a, V b) {                                                    \
        return MM##_mul_##PX(a, b);                                                                \
    }                                                                                              \
    static inline V kb__##P##add##W(V a, V b) {                                                    \
        return MM##_add_##PX(a, b);                                                                \
    }                                                                                              \
    static inline V kb__##P##sub##W(V a, V b) {                                                    \
        return MM##_sub_##PX(a, b);                                                                \
    }                                                                                              \
    static inline V kb__##P##div##W(V a, V b) {                                                    \
        return MM##_div_##PX(a, b);                                                                \
    }                                                                                              \
    static inline V kb__##P##min##W(V a, V b) {                                                    \
        return MM##_min_##PX(a, b);                                                                \
    }                                                                                              \
    static inline V kb__##P##max##W(V a, V b) {                                                    \
        return MM##_max_##PX(a, b);                                                                \
    }                                                                                              \
    static inline I kb__##P##bits##W(V v) {                                                        \
        return MM##_cast##PX##_##SI(v);                                                            \
    }                                                                                              \
    static inline V kb__##P##float##W(I v) {                                                       \
        return MM##_cast##SI##_##PX(v);                                                            \
    }

/* The primitives kb/vmath/lanes.h is written in, for W lanes of floats V
 * and of 32-bit integers I; each width adds its exps' scaling step
 * (kb__vscale<W>). The sign flip
 * is an integer xor at every width (the float one needs AVX-512DQ at
 * sixteen). */
#define KB__VPRIMITIVES(W, V, I, MM, SI)                                                           \
    KB__VARITH(v, W, V, I, float, MM, SI, ps)                                                      \
    static inline I kb__vori##W(I a, I b) {                                                        \
        return MM##_or_##SI(a, b);                                                                 \
    }                                                                                              \
    /* 2^n p for t holding n in its low bits: n << 23 added to p's pattern */                      \
    static inline V kb__vscalei##W(V p, V t) {                                                     \
        return kb__vfloat##W(                                                                      \
            MM##_add_epi32(kb__vbits##W(p), MM##_slli_epi32(kb__vbits##W(t), 23)));                \
    }                                                                                              \
    static inline I kb__vandi##W(I v, uint32_t k) {                                                \
        return MM##_and_##SI(v, MM##_set1_epi32((int)k));                                          \
    }                                                                                              \
    static inline I kb__vxori##W(I v, uint32_t k) {                                                \
        return MM##_xor_##SI(v, MM##_set1_epi32((int)k));                                          \
    }                                                                                              \
    static inline I kb__vminu##W(I v, uint32_t k) {                                                \
        return MM##_min_epu32(v, MM##_set1_epi32((int)k));                                         \
    }

/* The same for W lanes of doubles V and 64-bit integers I (kb/vmath/lanes64.h). */
#define KB__VPRIMITIVES64(W, V, I, MM, SI)                                                         \
    KB__VARITH(vd, W, V, I, double, MM, SI, pd)                                                    \
    /* 2^n p for t holding n in its low bits: n << 52 added to p's pattern */                      \
    static inline V kb__vdscalei##W(V p, V t) {                                                    \
        return kb__vdfloat##W(                                                                     \
            MM##_add_epi64(kb__vdbits##W(p), MM##_slli_epi64(kb__vdbits##W(t), 52)));              \
    }                                                                                              \
    /* -x as C's unary minus: the sign bit flipped (an integer xor) */                             \
    static inline V kb__vdneg##W(V x) {                                                            \
        const I sign = MM##_castpd_##SI(MM##_set1_pd(-0.0));                                       \
        return MM##_cast##SI##_pd(MM##_xor_##SI(MM##_castpd_##SI(x), sign));                       \
    }

KB__VPRIMITIVES(8, kb_f32x8, kb__vint8, _mm256, si256)
/* An exp's two stages for x <= 0 or NaN, as softmax's x - max, at the
 * includer's width (kb/vmath/lanes.h, kb/vmath/lanes64.h): the lower clamp
 * alone (max(lo, x) gives x for NaN, as the clamp does), since such x never
 * reach the upper one, so the exp's own results bit for bit for those x.
 * kb__<E>_nonpos_t gives t (the rounding step's sum, kb__<E>_t), and
 * kb__<E>_nonpos_from_t e^x from x and t: a loop can run the first a few
 * vectors ahead (kb/cpu/paths.h's kb_cpu_map_sum_*). kb__<E>_nonpos is both. */
#define KB__NONPOS_STAGES(E, LO)                                                                   \
    static inline KB__V KB__L(kb__##E##_nonpos_clamp)(KB__V x) {                                   \
        return KB__O(max)(KB__O(set)(LO), x);                                                      \
    }                                                                                              \
    static inline KB__V KB__L(kb__##E##_nonpos_t)(KB__V x) {                                       \
        return KB__L(kb__##E##_t)(KB__L(kb__##E##_nonpos_clamp)(x));                               \
    }                                                                                              \
    static inline KB__V KB__L(kb__##E##_nonpos_from_t)(KB__V x, KB__V t) {                         \
        return KB__L(kb__##E##_from_t)(KB__L(kb__##E##_nonpos_clamp)(x), t);                       \
    }                                                                                              \
    static inline KB__V KB__L(kb__##E##_nonpos)(KB__V x) {                                         \
        return KB__L(kb__##E##_nonpos_from_t)(x, KB__L(kb__##E##_nonpos_t)(x));                    \
    }

/* The exps' last step (kb__expf_result, kb_exp): 2^n p, where t holds n in
 * its low bits (the rounding shift's), or x quieted (its quiet bit set)
 * where x is NaN. Without AVX-512, n is added to p's exponent field; with
 * it, vscalefps/pd scales p by 2^n in one operation, and a NaN x, carried
 * through n and p, comes out quieted as it is (kb/vmath/vmath.h: p in [0.7,
 * 1.42] and the clamps keep 2^n p normal, where both ways are exact). The
 * integer add, the NaN compare and the blend it replaced had cost the exp
 * pass of softmax's 16-bit rows 16 % on a Zen 5. */
static inline kb_f32x8 kb__vscale8(kb_f32x8 p, kb_f32x8 t, kb_f32x8 n, kb_f32x8 x) {
    (void)n;
    const __m256i q = _mm256_or_si256(_mm256_castps_si256(x), _mm256_set1_epi32(0x00400000));
    return _mm256_blendv_ps(kb__vscalei8(p, t), _mm256_castsi256_ps(q),
                            _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

#define KB__W 8
#include "kb/vmath/lanes.h"
#undef KB__W

typedef __m256d kb_f64x4;
KB__VPRIMITIVES64(4, kb_f64x4, __m256i, _mm256, si256)
static inline kb_f64x4 kb__vdscale4(kb_f64x4 p, kb_f64x4 t, kb_f64x4 n, kb_f64x4 x) {
    (void)n;
    const __m256i q =
        _mm256_or_si256(_mm256_castpd_si256(x), _mm256_set1_epi64x(0x0008000000000000LL));
    return _mm256_blendv_pd(kb__vdscalei4(p, t), _mm256_castsi256_pd(q),
                            _mm256_cmp_pd(x, x, _CMP_UNORD_Q));
}

#define KB__W 4
#include "kb/vmath/lanes64.h"
#undef KB__W

#else
#define KB_VMATH8 0
#endif

#if KB_VMATH8 && defined(__AVX512F__)
#define KB_VMATH16 1

typedef __m512 kb_f32x16;
typedef __m512i kb__vint16;

KB__VPRIMITIVES(16, kb_f32x16, kb__vint16, _mm512, si512)
static inline kb_f32x16 kb__vscale16(kb_f32x16 p, kb_f32x16 t, kb_f32x16 n, kb_f32x16 x) {
    (void)t;
    (void)x;
    return _mm512_scalef_ps(p, n);
}

#define KB__W 16
#include "kb/vmath/lanes.h"
#undef KB__W

typedef __m512d kb_f64x8;
KB__VPRIMITIVES64(8, kb_f64x8, __m512i, _mm512, si512)
static inline kb_f64x8 kb__vdscale8(kb_f64x8 p, kb_f64x8 t, kb_f64x8 n, kb_f64x8 x) {
    (void)t;
    (void)x;
    return _mm512_scalef_pd(p, n);
}

#define KB__W 8
#include "kb/vmath/lanes64.h"
#undef KB__W

#else
#define KB_VMATH16 0
#endif
#undef KB__VARITH
#undef KB__VPRIMITIVES
#undef KB__VPRIMITIVES64
#undef KB__NONPOS_STAGES

/* The widest of them: what the kernels' loops use. */
#if KB_VMATH16
#define KB_VWIDTH   16
#define KB_VWIDTH64 8
typedef kb_f32x16 kb_f32v;
typedef kb_f64x8 kb_f64v;
#define KB_MMV(op) _mm512_##op
#elif KB_VMATH8
#define KB_VWIDTH   8
#define KB_VWIDTH64 4
typedef kb_f32x8 kb_f32v;
typedef kb_f64x4 kb_f64v;
#define KB_MMV(op)  _mm256_##op
#endif
#if KB_VMATH8
#define KB_VLANES      KB_VWIDTH
#define KB_VLANES64    KB_VWIDTH64 /* kb_f64v's lanes: the same bytes */
#define KB__VW(name)   KB__CAT(name, KB_VWIDTH)
#define kb_expfv       KB__VW(kb_expf)
#define kb_expf_halfv  KB__VW(kb_expf_half)
#define kb_gelu_f32_v  KB__VW(kb_gelu_f32_)
#define kb_gelu_halfv  KB__VW(kb_gelu_half)
#define kb_swish_f32_v KB__VW(kb_swish_f32_)
#define kb_swish_halfv KB__VW(kb_swish_half)
/* the two-stage functions' stages (kb/cpu/paths.h's kb_cpu_mapv_half, kb_cpu_map_sum_*) */
#define kb_gelu_half_ratiov         KB__VW(kb__gelu_half_ratio)
#define kb_gelu_half_from_ratiov    KB__VW(kb__gelu_half_from_ratio)
#define kb_swish_half_denv          KB__VW(kb__swish_half_den)
#define kb_swish_half_from_denv     KB__VW(kb__swish_half_from_den)
#define kb_expf_nonpos_tv           KB__VW(kb__expf_nonpos_t)
#define kb_expf_nonpos_from_tv      KB__VW(kb__expf_nonpos_from_t)
#define kb_expf_half_nonpos_from_tv KB__VW(kb__expf_half_nonpos_from_t)
#define kb_negv                     KB__VW(kb_neg)
/* the double functions on kb_f64v, KB_VLANES64 lanes */
#define KB__VW64(name)        KB__CAT(name, KB_VWIDTH64)
#define kb_expv               KB__VW64(kb_exp)
#define kb_swish_f64_v        KB__VW64(kb_swish_f64_)
#define kb_exp_nonpos_tv      KB__VW64(kb__exp_nonpos_t)
#define kb_exp_nonpos_from_tv KB__VW64(kb__exp_nonpos_from_t)
#endif

#endif
