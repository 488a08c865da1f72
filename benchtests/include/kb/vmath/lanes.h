/* The vector forms of kb/vmath/vmath.h's float functions, written once for every
 * width: kb/vmath/vmath8.h includes this file once per width it has, with KB__W
 * defined as the lane count (8: AVX2, 16: AVX-512) and its kb__v*<W>
 * primitives declared. Each function performs its scalar form's operations
 * in the same order with the same constants (but for the two steps
 * kb/vmath/vmath8.h names, which give the same bits another way), so every width
 * gives the same results bit for bit (kbench.unit.vmath8 and
 * kbench.numerics.vmath8 check it). No include guard: kb/vmath/vmath8.h includes
 * it more than once. */
#include "kb/vmath/vmath.h" /* the scalar forms' constants */

/* Included on its own (KB__W not defined) it adds nothing to kb/vmath/vmath.h:
 * include kb/vmath/vmath8.h. */
#ifdef KB__W

#define KB__V       KB__CAT(kb_f32x, KB__W)
#define KB__L(name) KB__CAT(name, KB__W)
#define KB__O(op)   KB__CAT(kb__v##op, KB__W)

/* The scalar forms' clamps, v < lo ? lo : (v > hi ? hi : v): max(lo, v) is
 * lo > v ? lo : v, min(hi, m) is hi < m ? hi : m; both give their second
 * operand, v, for NaN. */
static inline KB__V KB__L(kb__clamp)(KB__V v, float lo, float hi) {
    return KB__O(min)(KB__O(set)(hi), KB__O(max)(KB__O(set)(lo), v));
}

/* kb__expf_clamp. */
static inline KB__V KB__L(kb__expf_clamp)(KB__V x) {
    return KB__L(kb__clamp)(x, -87.3f, 88.7f);
}

/* kb__expf_result: 2^n p, or x quieted where x is NaN (kb/vmath/vmath8.h's
 * kb__vscale<W>). */
static inline KB__V KB__L(kb__expf_result)(KB__V x, KB__V p, KB__V t, KB__V n) {
    return KB__O(scale)(p, t, n, x);
}

/* kb_expf after its clamp: t (kb__expf_t), then e^x from x and t. */
static inline KB__V KB__L(kb__expf_t)(KB__V x) {
    return KB__O(fma)(x, KB__O(set)(0x1.715476p+0f), KB__O(set)(KB__EXPF_SHIFT));
}

static inline KB__V KB__L(kb__expf_from_t)(KB__V x, KB__V t) {
    const KB__V n = KB__O(sub)(t, KB__O(set)(KB__EXPF_SHIFT));
    KB__V r = KB__O(fma)(n, KB__O(set)(-0x1.62e4p-1f), x);
    r = KB__O(fma)(n, KB__O(set)(-0x1.7f7d1cp-20f), r);
    KB__V p = KB__O(fma)(r, KB__O(set)(0x1.6a23c2p-10f), KB__O(set)(0x1.123a22p-7f));
    p = KB__O(fma)(p, r, KB__O(set)(0x1.5558f4p-5f));
    p = KB__O(fma)(p, r, KB__O(set)(0x1.555492p-3f));
    p = KB__O(fma)(p, r, KB__O(set)(0x1.fffffcp-2f));
    p = KB__O(fma)(p, r, KB__O(set)(1.0f));
    p = KB__O(fma)(p, r, KB__O(set)(1.0f));
    return KB__L(kb__expf_result)(x, p, t, n);
}

/* kb_expf. */
static inline KB__V KB__L(kb_expf)(KB__V x) {
    x = KB__L(kb__expf_clamp)(x);
    return KB__L(kb__expf_from_t)(x, KB__L(kb__expf_t)(x));
}

/* kb_expf_half after its clamp: e^x from x and t (kb__expf_t). */
static inline KB__V KB__L(kb__expf_half_from_t)(KB__V x, KB__V t) {
    const KB__V n = KB__O(sub)(t, KB__O(set)(KB__EXPF_SHIFT));
    const KB__V r = KB__O(fma)(n, KB__O(set)(-0x1.62e430p-1f), x);
    KB__V p = KB__O(fma)(r, KB__O(set)(0x1.5224e6p-5f), KB__O(set)(0x1.571d1ep-3f));
    p = KB__O(fma)(p, r, KB__O(set)(0x1.0006b8p-1f));
    p = KB__O(fma)(p, r, KB__O(set)(1.0f));
    p = KB__O(fma)(p, r, KB__O(set)(1.0f));
    return KB__L(kb__expf_result)(x, p, t, n);
}

/* kb_expf_half. */
static inline KB__V KB__L(kb_expf_half)(KB__V x) {
    x = KB__L(kb__expf_clamp)(x);
    return KB__L(kb__expf_half_from_t)(x, KB__L(kb__expf_t)(x));
}

/* kb_expf and kb_expf_half in two stages for x <= 0 or NaN, as softmax's
 * x - max (kb/vmath/vmath8.h's KB__NONPOS_STAGES): kb_expf(x) and kb_expf_half(x)
 * bit for bit for those x. */
KB__NONPOS_STAGES(expf, -87.3f)

/* kb_expf_half's second stage for them, after kb__expf_nonpos_t. */
static inline KB__V KB__L(kb__expf_half_nonpos_from_t)(KB__V x, KB__V t) {
    return KB__L(kb__expf_half_from_t)(KB__L(kb__expf_nonpos_clamp)(x), t);
}

static inline KB__V KB__L(kb__expf_half_nonpos)(KB__V x) {
    return KB__L(kb__expf_half_nonpos_from_t)(x, KB__L(kb__expf_nonpos_t)(x));
}

/* kb__abs_clamp: min(|x|, c) on the patterns. */
static inline KB__V KB__L(kb__abs_clamp)(KB__V x, uint32_t c) {
    return KB__O(float)(KB__O(minu)(KB__O(andi)(KB__O(bits)(x), 0x7fffffffu), c));
}

/* kb__erff_arg. */
static inline KB__V KB__L(kb__erff_arg)(KB__V x) {
    return KB__L(kb__abs_clamp)(x, 0x40800000u);
}

/* kb__erff_sign: e capped at 1 on its pattern, with the sign of x
 * (copysignf: e's other bits, x's sign bit). */
static inline KB__V KB__L(kb__erff_sign)(KB__V x, KB__V e) {
    const KB__O(int) capped = KB__O(minu)(KB__O(bits)(e), 0x3f800000u);
    return KB__O(float)(
        KB__O(ori)(KB__O(andi)(capped, 0x7fffffffu), KB__O(andi)(KB__O(bits)(x), 0x80000000u)));
}

/* kb__erff_finite. */
static inline KB__V KB__L(kb__erff_finite)(KB__V x) {
    const KB__V a = KB__L(kb__erff_arg)(x);
    const KB__V s = KB__O(mul)(a, a);
    KB__V p = KB__O(fma)(s, KB__O(set)(0x1.090af2p-19f), KB__O(set)(0x1.2e0114p-12f));
    p = KB__O(fma)(p, s, KB__O(set)(0x1.0658e6p-8f));
    p = KB__O(fma)(p, s, KB__O(set)(0x1.b5fdf6p-5f));
    p = KB__O(fma)(p, s, KB__O(set)(0x1.91e578p-3f));
    p = KB__O(fma)(p, s, KB__O(set)(0x1.20dd72p+0f));
    KB__V q = KB__O(fma)(s, KB__O(set)(0x1.3a63f2p-15f), KB__O(set)(0x1.3ed19cp-10f));
    q = KB__O(fma)(q, s, KB__O(set)(0x1.fa0c6ap-7f));
    q = KB__O(fma)(q, s, KB__O(set)(0x1.dd1192p-4f));
    q = KB__O(fma)(q, s, KB__O(set)(0x1.03b55ap-1f));
    q = KB__O(fma)(q, s, KB__O(set)(1.0f));
    return KB__L(kb__erff_sign)(x, KB__O(div)(KB__O(mul)(a, p), q));
}

/* kb__erff_half_finite. */
static inline KB__V KB__L(kb__erff_half_finite)(KB__V x) {
    const KB__V a = KB__L(kb__erff_arg)(x);
    const KB__V s = KB__O(mul)(a, a);
    KB__V p = KB__O(fma)(s, KB__O(set)(-0x1.4cabe6p-18f), KB__O(set)(0x1.25e17cp-10f));
    p = KB__O(fma)(p, s, KB__O(set)(0x1.87adf4p-5f));
    p = KB__O(fma)(p, s, KB__O(set)(0x1.4b7076p-3f));
    p = KB__O(fma)(p, s, KB__O(set)(0x1.20df26p+0f));
    KB__V q = KB__O(fma)(s, KB__O(set)(0x1.73a448p-7f), KB__O(set)(0x1.9cfeb8p-4f));
    q = KB__O(fma)(q, s, KB__O(set)(0x1.e8690cp-2f));
    q = KB__O(fma)(q, s, KB__O(set)(1.0f));
    return KB__L(kb__erff_sign)(x, KB__O(div)(KB__O(mul)(a, p), q));
}

/* kb_gelu_f32: 0.5 x (1 + erf(x / sqrt(2))), multiplied in C's order,
 * (0.5 x) (1 + erf). */
static inline KB__V KB__L(kb__gelu)(KB__V x, KB__V erf) {
    return KB__O(mul)(KB__O(mul)(KB__O(set)(0.5f), x), KB__O(add)(KB__O(set)(1.0f), erf));
}

static inline KB__V KB__L(kb_gelu_f32_)(KB__V x) {
    return KB__L(kb__gelu)(x, KB__L(kb__erff_finite)(KB__O(mul)(x, KB__O(set)(KB__SQRT1_2F))));
}

/* kb__gelu_half_ratio, kb__gelu_half_from_ratio and kb_gelu_half, with x
 * clamped and e capped by min and max where the scalar forms work on the
 * patterns: the ratio is odd in a, so e comes out with x's sign either way,
 * the same bits (NaN included: h carries it), and the two operations each
 * run beside the multiply-adds where the patterns took up to four (bf16
 * GELU ran 5 % faster for it on a Zen 5). */
static inline KB__V KB__L(kb__gelu_half_ratio)(KB__V x) {
    const KB__V a = KB__L(kb__clamp)(x, -KB__GELU_HALF_CLAMP, KB__GELU_HALF_CLAMP);
    const KB__V s = KB__O(mul)(a, a);
    KB__V p = KB__O(fma)(s, KB__O(set)(-0x1.d677fp-23f), KB__O(set)(0x1.9f9c36p-14f));
    p = KB__O(fma)(p, s, KB__O(set)(0x1.14f59p-7f));
    p = KB__O(fma)(p, s, KB__O(set)(0x1.d4b9d8p-5f));
    p = KB__O(fma)(p, s, KB__O(set)(0x1.9886b8p-1f));
    KB__V q = KB__O(fma)(s, KB__O(set)(0x1.73a448p-10f), KB__O(set)(0x1.9cfeb8p-6f));
    q = KB__O(fma)(q, s, KB__O(set)(0x1.e8690cp-3f));
    q = KB__O(fma)(q, s, KB__O(set)(1.0f));
    return KB__O(div)(KB__O(mul)(a, p), q);
}

static inline KB__V KB__L(kb__gelu_half_from_ratio)(KB__V x, KB__V e) {
    const KB__V h = KB__O(mul)(KB__O(set)(0.5f), x);
    return KB__O(fma)(h, KB__L(kb__clamp)(e, -1.0f, 1.0f), h);
}

static inline KB__V KB__L(kb_gelu_half)(KB__V x) {
    return KB__L(kb__gelu_half_from_ratio)(x, KB__L(kb__gelu_half_ratio)(x));
}

/* -x, as C's unary minus: the sign bit flipped. */
static inline KB__V KB__L(kb_neg)(KB__V x) {
    return KB__O(float)(KB__O(xori)(KB__O(bits)(x), 0x80000000u));
}

/* kb_swish_f32: x / (1 + e^-x). */
static inline KB__V KB__L(kb_swish_f32_)(KB__V x) {
    return KB__O(div)(x, KB__O(add)(KB__O(set)(1.0f), KB__L(kb_expf)(KB__L(kb_neg)(x))));
}

/* kb__expf_half_neg. */
static inline KB__V KB__L(kb__expf_half_neg)(KB__V x) {
    x = KB__L(kb__clamp)(x, -88.7f, 87.3f);
    const KB__V t = KB__O(fma)(x, KB__O(set)(-0x1.715476p+0f), KB__O(set)(KB__EXPF_SHIFT));
    const KB__V n = KB__O(sub)(t, KB__O(set)(KB__EXPF_SHIFT));
    const KB__V r = KB__O(fma)(n, KB__O(set)(0x1.62e430p-1f), x);
    KB__V p = KB__O(fma)(r, KB__O(set)(0x1.5224e6p-5f), KB__O(set)(-0x1.571d1ep-3f));
    p = KB__O(fma)(p, r, KB__O(set)(0x1.0006b8p-1f));
    p = KB__O(fma)(p, r, KB__O(set)(-1.0f));
    p = KB__O(fma)(p, r, KB__O(set)(1.0f));
    return KB__O(scalei)(p, t);
}

/* kb_swish_half in its two stages: the denominator 1 + e^-x, then x over
 * it. */
static inline KB__V KB__L(kb__swish_half_den)(KB__V x) {
    return KB__O(add)(KB__O(set)(1.0f), KB__L(kb__expf_half_neg)(x));
}

static inline KB__V KB__L(kb__swish_half_from_den)(KB__V x, KB__V d) {
    return KB__O(div)(x, d);
}

static inline KB__V KB__L(kb_swish_half)(KB__V x) {
    return KB__L(kb__swish_half_from_den)(x, KB__L(kb__swish_half_den)(x));
}

#undef KB__V
#undef KB__L
#undef KB__O

#endif
