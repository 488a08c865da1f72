/* The vector forms of kb/vmath/vmath.h's double functions, written once for every
 * width: kb/vmath/vmath8.h includes this file once per width it has, with KB__W
 * defined as the lane count (4: AVX2, 8: AVX-512) and its kb__vd*<W>
 * primitives declared. As in kb/vmath/lanes.h, each function performs its
 * scalar form's operations in the same order with the same constants, so
 * every width gives the same results bit for bit (kbench.unit.vmath8 checks
 * it); what changes is what GCC 12 makes of the scalar form's clamp, a
 * nested select that it vectorises to three compares, two blends and a mask
 * operation on the multiply-add ports, where maxpd/minpd do the same on the
 * others (their "second operand on NaN" rule is the select's): swish's
 * double loop ran 19 % faster in L1 for it on a Zen 5. The exp's scaling
 * by 2^n is the other difference: one vscalefpd on eight lanes
 * (kb/vmath/vmath8.h's kb__vdscale8), the same bits. No include guard:
 * kb/vmath/vmath8.h includes it more than once. */
#include "kb/vmath/vmath.h" /* the scalar forms */

#ifdef KB__W

#define KB__V       KB__CAT(kb_f64x, KB__W)
#define KB__L(name) KB__CAT(name, KB__W)
#define KB__O(op)   KB__CAT(kb__vd##op, KB__W)

/* kb_exp after its clamp: t (n in its low bits), then e^c from c and t;
 * 2^n p, or x quieted where x is NaN, by kb/vmath/vmath8.h's kb__vdscale<W> (c,
 * the clamped x, is x for NaN). */
static inline KB__V KB__L(kb__exp_t)(KB__V c) {
    return KB__O(fma)(c, KB__O(set)(0x1.71547652b82fep+0), KB__O(set)(KB__EXP_SHIFT));
}

static inline KB__V KB__L(kb__exp_from_t)(KB__V c, KB__V t) {
    const KB__V n = KB__O(sub)(t, KB__O(set)(KB__EXP_SHIFT));
    KB__V r = KB__O(fma)(n, KB__O(set)(-0x1.62e42fee00000p-1), c);
    r = KB__O(fma)(n, KB__O(set)(-0x1.a39ef35793c76p-33), r);
    KB__V q = KB__O(fma)(r, KB__O(set)(0x1.af389ecfc4b9cp-26), KB__O(set)(0x1.28917c89a43a7p-22));
    q = KB__O(fma)(q, r, KB__O(set)(0x1.71de0db2f6b19p-19));
    q = KB__O(fma)(q, r, KB__O(set)(0x1.a019b9149a41cp-16));
    q = KB__O(fma)(q, r, KB__O(set)(0x1.a01a01a7c2efep-13));
    q = KB__O(fma)(q, r, KB__O(set)(0x1.6c16c17889ef1p-10));
    q = KB__O(fma)(q, r, KB__O(set)(0x1.11111111109b5p-7));
    q = KB__O(fma)(q, r, KB__O(set)(0x1.5555555553d68p-5));
    q = KB__O(fma)(q, r, KB__O(set)(0x1.5555555555556p-3));
    q = KB__O(fma)(q, r, KB__O(set)(0x1.0000000000001p-1));
    KB__V p = KB__O(fma)(q, r, KB__O(set)(1.0));
    p = KB__O(fma)(p, r, KB__O(set)(1.0));
    return KB__O(scale)(p, t, n, c);
}

/* kb_exp: the clamp as max(lo, min(hi, x)), which gives x for NaN as the
 * scalar select does. */
static inline KB__V KB__L(kb_exp)(KB__V x) {
    const KB__V c = KB__O(max)(KB__O(set)(-708.39), KB__O(min)(KB__O(set)(709.78), x));
    return KB__L(kb__exp_from_t)(c, KB__L(kb__exp_t)(c));
}

/* kb_exp in two stages for x <= 0 or NaN (softmax's x - max; kb/vmath/vmath8.h's
 * KB__NONPOS_STAGES): kb_exp(x) bit for bit for those x. */
KB__NONPOS_STAGES(exp, -708.39)

/* kb_swish_f64: x / (1 + e^-x). */
static inline KB__V KB__L(kb_swish_f64_)(KB__V x) {
    return KB__O(div)(x, KB__O(add)(KB__O(set)(1.0), KB__L(kb_exp)(KB__O(neg)(x))));
}

#undef KB__V
#undef KB__L
#undef KB__O

#endif
