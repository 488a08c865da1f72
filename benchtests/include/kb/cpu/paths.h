/* Elementwise CPU paths over a vector float function (kb/vmath/vmath8.h) on the
 * widest vectors the target has (KB_VLANES: sixteen lanes with AVX-512F,
 * else eight), where it has AVX2, FMA and F16C (KB_VMATH8).
 *
 * kb/cpu.h's elementwise paths call a float block function, and fp16/bf16
 * go through float scratch blocks in L1: widened there, computed into a
 * second block, narrowed from it. Here each fp16 vector (and bf16, on
 * sixteen lanes) is loaded, widened in a register, computed (in two stages,
 * the first a few vectors ahead: kb__cpu_fused_halfv) and narrowed on its way
 * to memory,
 * and when the output does not fit in the last cache beside the input it
 * is written with non-temporal stores, which do not read the lines first (a
 * third stream of memory traffic that the kernel's bytes do not count).
 *
 * The function reaches the loop as a constant: every helper here is
 * inlined into the kernel's own path, so the function is inlined into the
 * loop (a call per vector would cost more than some functions do). */
#ifndef KB_CPU8_H
#define KB_CPU8_H

#include "kb/cpu.h"
#include "kb/vmath/vmath8.h"

#if KB_VMATH8

#define KB__CPU8_INLINE static inline __attribute__((always_inline))

/* A float function on the widest vectors the target has (kb_f32v, kb/vmath/vmath8.h:
 * KB_VLANES lanes), as kb/vmath/vmath8.h's kb_expfv, kb_gelu_f32_v, ... */
typedef kb_f32v (*kb_cpu_fnv)(kb_f32v);

/* KB_VLANES 16-bit values in a register, and their loads, stores,
 * widening and fp16 rounding at that width. */
#if KB_VMATH16
typedef __m256i kb__cpu_h16v;
#define kb__cpu_load16v(p)      _mm256_loadu_si256((const __m256i *)(p))
#define kb__cpu_store16v(p, v)  _mm256_storeu_si256((__m256i *)(p), v)
#define kb__cpu_stream16v(p, v) _mm256_stream_si256((__m256i *)(p), v)
#define kb__cpu_widen_fp16v(v)  _mm512_cvtph_ps(v)
#define kb__cpu_narrow_fp16v(v) _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT)
#define kb__cpu_narrow_bf16v(v) kb__cpu_bf16_16(v)
#else
typedef __m128i kb__cpu_h16v;
#define kb__cpu_load16v(p)      _mm_loadu_si128((const __m128i *)(p))
#define kb__cpu_store16v(p, v)  _mm_storeu_si128((__m128i *)(p), v)
#define kb__cpu_stream16v(p, v) _mm_stream_si128((__m128i *)(p), v)
#define kb__cpu_widen_fp16v(v)  _mm256_cvtph_ps(v)
#define kb__cpu_narrow_fp16v(v) _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT)
#define kb__cpu_narrow_bf16v(v) kb__cpu_bf16_8(v)
#endif

/* KB_VLANES fp16 or bf16 values from x, widened exactly (as kb_cpu_to_f32):
 * bf16 is a float's top half. */
KB__CPU8_INLINE kb_f32v kb__cpu_widenv(kb_prec p, const uint16_t *x) {
    const kb__cpu_h16v h = kb__cpu_load16v(x);
    if (p == KB_FP16) return kb__cpu_widen_fp16v(h);
#if KB_VMATH16
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
#else
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
#endif
}

/* KB_VLANES 16-bit values to y, non-temporal when `stream` (y then aligned
 * to their size; kb_cpu_stream_fence() before the kernel returns). */
KB__CPU8_INLINE void kb__cpu_put16v(uint16_t *y, kb__cpu_h16v h, int stream) {
    if (stream)
        kb__cpu_stream16v(y, h);
    else
        kb__cpu_store16v(y, h);
}

/* Row kernels' last pass: one vector of results to y, rounded as
 * kb_cpu_from_f32 rounds them for fp16/bf16 (p), non-temporal when `stream`
 * (y then aligned to the vector's size; kb_cpu_stream_fence() before the
 * kernel returns). A row computed in L1 leaves this way straight to
 * memory, without a copy through scratch. */
KB__CPU8_INLINE void kb_cpu_store_halfv(kb_prec p, uint16_t *y, kb_f32v v, int stream) {
    kb__cpu_put16v(y, p == KB_BF16 ? kb__cpu_narrow_bf16v(v) : kb__cpu_narrow_fp16v(v), stream);
}

KB__CPU8_INLINE void kb_cpu_store_f32v(float *y, kb_f32v v, int stream) {
    if (stream)
        KB_MMV(stream_ps)(y, v);
    else
        KB_MMV(storeu_ps)(y, v);
}

KB__CPU8_INLINE void kb_cpu_store_f64v(double *y, kb_f64v v, int stream) {
    if (stream)
        KB_MMV(stream_pd)(y, v);
    else
        KB_MMV(storeu_pd)(y, v);
}

/* A float function in two stages, f(x) = out(x, in(x)), as kb/vmath/vmath8.h's
 * kb_gelu_half_ratiov and kb_gelu_half_from_ratiov: the 16-bit maps compute
 * `in` a few vectors ahead of `out` (kb__cpu_fused_halfv). A function of
 * one stage is in = f, out = kb_cpu_stage_result. */
typedef kb_f32v (*kb_cpu_fnv2)(kb_f32v x, kb_f32v t);

static inline kb_f32v kb_cpu_stage_result(kb_f32v x, kb_f32v t) {
    (void)x;
    return t;
}

/* The last n <= KB_VLANES elements, padded: the same function gives them the
 * same results as the full vectors would. */
KB__CPU8_INLINE void kb__cpu_tail_f32v(kb_cpu_fnv in, kb_cpu_fnv2 out, const float *x, float *y,
                                       size_t n) {
    float b[KB_VLANES] = {0};
    memcpy(b, x, n * sizeof *b);
    const kb_f32v v = KB_MMV(loadu_ps)(b);
    KB_MMV(storeu_ps)(b, out(v, in(v)));
    memcpy(y, b, n * sizeof *b);
}

/* y[i] = f(x[i]) for n floats. */
KB__CPU8_INLINE void kb_cpu_mapv_f32(const kb_args *a, kb_cpu_fnv f, size_t n) {
    const float *x = a->in[0];
    float *y = a->out[0];
    const size_t nv = n - n % KB_VLANES;
    const int stream = kb_cpu_streams(a, y, n * sizeof *y, KB_VLANES * sizeof *y);
    for (size_t i = 0; i < nv; i += KB_VLANES)
        kb_cpu_store_f32v(y + i, f(KB_MMV(loadu_ps)(x + i)), stream);
    if (nv < n) kb__cpu_tail_f32v(f, kb_cpu_stage_result, x + nv, y + nv, n % KB_VLANES);
    if (stream) kb_cpu_stream_fence();
}

/* Row kernels' first pass over a row of n fp16/bf16 values x (p): widened
 * into dst (as kb_cpu_to_f32 widens them) and summed on the way: one pass
 * where widening and then summing took two. Unlike the float rows' first
 * passes the 16-bit ones (this and kb_cpu_max_halfv) do not ask for the
 * next row (kb__cpu_ask): on a Zen 5 the 16-bit rows of layernorm and
 * softmax at DRAM size ran as fast or faster without, and at one speed
 * where the requests had made them vary from one process to the next by up
 * to 20 % (docs/results/amd-epyc-fam26-model2-2cpu.md, 2026-11-26). kb_cpu_to_f32_sumv returns
 * kb_cpu_sum_f32(dst, n), bit for bit: the same partial sums (lane j of
 * KB_CPU_LANES adds the values i + j in order). */
_Static_assert(KB_CPU_LANES % KB_VLANES == 0, "the partial reductions are whole vectors");

KB__CPU8_INLINE kb_f32v kb__cpu_widen_store(kb_prec p, const uint16_t *x, float *dst) {
    const kb_f32v v = kb__cpu_widenv(p, x);
    KB_MMV(storeu_ps)(dst, v);
    return v;
}

/* The partial sums are K vectors, named: GCC 12 kept the second of an array
 * of them in memory, a store and a load on every add's path. */
KB__CPU8_INLINE float kb__cpu_to_f32_sumv(float *restrict dst, const uint16_t *restrict x,
                                          kb_prec p, size_t n) {
    enum { K = KB_CPU_LANES / KB_VLANES, V = KB_VLANES };
    _Static_assert(K == 2 || K == 4, "the partial sums are two or four vectors");
    const size_t nv = n - n % KB_CPU_LANES;
    kb_f32v a0 = KB_MMV(setzero_ps)(), a1 = a0, a2 = a0, a3 = a0;
    for (size_t i = 0; i < nv; i += KB_CPU_LANES) {
        a0 = KB_MMV(add_ps)(a0, kb__cpu_widen_store(p, x + i, dst + i));
        a1 = KB_MMV(add_ps)(a1, kb__cpu_widen_store(p, x + i + V, dst + i + V));
        if (K == 4) {
            a2 = KB_MMV(add_ps)(a2, kb__cpu_widen_store(p, x + i + 2 * V, dst + i + 2 * V));
            a3 = KB_MMV(add_ps)(a3, kb__cpu_widen_store(p, x + i + 3 * V, dst + i + 3 * V));
        }
    }
    kb_cpu_to_f32(dst + nv, x + nv, p, 0, n - nv);
    float lanes[KB_CPU_LANES];
    KB_MMV(storeu_ps)(lanes, a0);
    KB_MMV(storeu_ps)(lanes + V, a1);
    if (K == 4) {
        KB_MMV(storeu_ps)(lanes + 2 * V, a2);
        KB_MMV(storeu_ps)(lanes + 3 * V, a3);
    }
    float sum = kb_cpu_lanes_sum_f32(lanes);
    for (size_t i = nv; i < n; i++) sum += dst[i];
    return sum;
}

/* kb_cpu_max_half on 16-bit lanes, without flipping: as int16, every
 * pattern with its sign bit clear (a value >= +0, or a NaN of that sign) is
 * above every one with it set, the first in their order, the second in
 * reverse. So the largest flipped pattern is the largest int16 when that
 * is >= 0, else the smallest: a running maximum and minimum, one
 * operation each a register, where flipping took three more. A register
 * holds 32 patterns with AVX512-BW, else sixteen. */
#if KB_VMATH16 && defined(__AVX512BW__)
typedef __m512i kb__cpu_i16v;
#define KB__CPU_I16_LANES         32
#define kb__cpu_i16v_load(p)      _mm512_loadu_si512(p)
#define kb__cpu_i16v_set(k)       _mm512_set1_epi16(k)
#define kb__cpu_i16v_max(a, b)    _mm512_max_epi16(a, b)
#define kb__cpu_i16v_min(a, b)    _mm512_min_epi16(a, b)
#define kb__cpu_i16v_halves(v, F) F(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1))
#else
typedef __m256i kb__cpu_i16v;
#define KB__CPU_I16_LANES         16
#define kb__cpu_i16v_load(p)      _mm256_loadu_si256((const __m256i *)(p))
#define kb__cpu_i16v_set(k)       _mm256_set1_epi16(k)
#define kb__cpu_i16v_max(a, b)    _mm256_max_epi16(a, b)
#define kb__cpu_i16v_min(a, b)    _mm256_min_epi16(a, b)
#define kb__cpu_i16v_halves(v, F) (v)
#endif

/* The largest (NAME max) or smallest (min) lane of v. */
#define KB__CPU_I16_REDUCE(NAME)                                                                   \
    KB__CPU8_INLINE int16_t kb__cpu_i16v_h##NAME(kb__cpu_i16v v) {                                 \
        const __m256i h = kb__cpu_i16v_halves(v, _mm256_##NAME##_epi16);                           \
        __m128i m = _mm_##NAME##_epi16(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1)); \
        m = _mm_##NAME##_epi16(m, _mm_shuffle_epi32(m, 0x4e));                                     \
        m = _mm_##NAME##_epi16(m, _mm_shuffle_epi32(m, 0xb1));                                     \
        m = _mm_##NAME##_epi16(m, _mm_shufflelo_epi16(m, 0xb1));                                   \
        return (int16_t)_mm_cvtsi128_si32(m);                                                      \
    }
KB__CPU_I16_REDUCE(max)
KB__CPU_I16_REDUCE(min)
#undef KB__CPU_I16_REDUCE

/* kb_cpu_max_half, bit for bit: a row's first pass, which reads each
 * pattern once and widens only the largest. (It had widened the row into
 * float scratch for the pass after it, at three times the cost; that pass
 * now widens as it goes, kb_cpu_map_sum_halfv.) */
KB__CPU8_INLINE float kb_cpu_max_halfv(const uint16_t *x, kb_prec p, size_t n) {
    enum { L = KB__CPU_I16_LANES };
    const size_t nv = n - n % L;
    kb__cpu_i16v hi = kb__cpu_i16v_set(INT16_MIN), lo = kb__cpu_i16v_set(INT16_MAX);
    for (size_t i = 0; i < nv; i += L) {
        const kb__cpu_i16v v = kb__cpu_i16v_load(x + i);
        hi = kb__cpu_i16v_max(hi, v);
        lo = kb__cpu_i16v_min(lo, v);
    }
    int16_t top = kb__cpu_i16v_hmax(hi), bottom = kb__cpu_i16v_hmin(lo);
    for (size_t i = nv; i < n; i++) {
        const int16_t k = (int16_t)x[i];
        top = k > top ? k : top;
        bottom = k < bottom ? k : bottom;
    }
    const uint16_t m = (uint16_t)(top >= 0 ? top : bottom);
    float f;
    kb_cpu_to_f32(&f, &m, p, 0, 1);
    return f;
}

/* One function per precision, each with the precision a constant in its
 * loop; not inlined, so that each loop has the registers to itself. */
#define KB__CPU_FIRST_PASS(NAME, PREC)                                                             \
    static __attribute__((noinline, unused)) float kb__cpu_to_f32_##NAME##_##PREC(                 \
        float *restrict dst, const uint16_t *restrict x, size_t n) {                               \
        return kb__cpu_to_f32_##NAME(dst, x, KB_##PREC, n);                                        \
    }
KB__CPU_FIRST_PASS(sumv, FP16)
KB__CPU_FIRST_PASS(sumv, BF16)
#undef KB__CPU_FIRST_PASS

static inline float kb_cpu_to_f32_sumv(float *restrict dst, const uint16_t *restrict x, kb_prec p,
                                       size_t n) {
    return p == KB_FP16 ? kb__cpu_to_f32_sumv_FP16(dst, x, n) : kb__cpu_to_f32_sumv_BF16(dst, x, n);
}

/* How many vectors ahead of `out` the 16-bit maps compute `in`. A Zen 5
 * keeps only about 80 vector operations waiting for their operands (a chain
 * of 16 dependent multiply-adds per vector ran at one a cycle, where
 * independent ones run at two), and GELU's chain, one vector's, is about 50
 * cycles long: a loop that computes each vector in turn fills that window
 * with operations that wait. With the first stage, the long part of the
 * chain, computed ahead, the second stage's operations are ready when they
 * enter: fp16 GELU ran 10-15 % faster in L1 and past the caches. Each
 * vector ahead holds two registers; with AVX2's 16, four ahead still ran
 * softmax's 16-bit rows 7-12 % faster than two on a Zen 5 (the maps alike),
 * the compiler keeping what does not fit on the stack, in L1. */
#define KB__CPU_AHEAD 4

#if !KB_VMATH16
/* kb__cpu_bf16_8 without its narrowing: each 32-bit lane holds the bf16
 * pattern (below 2^16), so that two vectors pack into one at once. */
KB__CPU8_INLINE __m256i kb__cpu_bf16_8_lanes(__m256 v) {
    const __m256i u = _mm256_castps_si256(v), hi = _mm256_srli_epi32(u, 16);
    const __m256i odd = _mm256_and_si256(hi, _mm256_set1_epi32(1));
    const __m256i rounded = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), odd), 16);
    const __m256i quiet = _mm256_or_si256(hi, _mm256_set1_epi32(0x40));
    const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    return _mm256_blendv_epi8(rounded, quiet, nan);
}
#endif

/* KB__CPU_AHEAD vectors of results o[] to y, y + KB_VLANES, ..., as
 * kb_cpu_store_halfv stores each. With AVX512-BF16, bf16 is narrowed by one
 * instruction a vector and the run is classified at once
 * (kb__cpu_denormals16, kb/cpu.h):
 * vcvtneps2bf16 flushes float denormals, and a run that holds one is stored
 * again through the integer path (kb__cpu_bf16_16_int), so such a run is
 * written twice. A test and branch per vector had cost bf16 GELU's map 6 %
 * on a Zen 5, and classifying the run before storing any of it 3 %. */
KB__CPU8_INLINE void kb__cpu_store_halfv_run(kb_prec p, uint16_t *y, const kb_f32v *o, int stream) {
    enum { D = KB__CPU_AHEAD, L = KB_VLANES };
#if KB_VMATH16 && defined(__AVX512BF16__)
    if (p == KB_BF16) {
        __mmask16 denormal = 0;
#pragma GCC unroll 4
        for (size_t k = 0; k < D; k++) {
            denormal |= kb__cpu_denormals16(o[k]);
            kb__cpu_put16v(y + k * L, (__m256i)_mm512_cvtneps_pbh(o[k]), stream);
        }
        if (__builtin_expect(denormal != 0, 0))
            for (size_t k = 0; k < D; k++)
                kb__cpu_put16v(y + k * L, kb__cpu_bf16_16_int(o[k]), stream);
        return;
    }
#endif
#if !KB_VMATH16
    _Static_assert(D % 2 == 0, "whole pairs of vectors");
    /* bf16 on eight lanes: two vectors rounded, packed (which interleaves
     * their halves, put back in order by one permute) and stored at once,
     * where each took a pack of its own halves and a store. */
    if (p == KB_BF16 && (!stream || (uintptr_t)y % 32 == 0)) {
#pragma GCC unroll 4
        for (size_t k = 0; k < D; k += 2) {
            const __m256i h = _mm256_permute4x64_epi64(
                _mm256_packus_epi32(kb__cpu_bf16_8_lanes(o[k]), kb__cpu_bf16_8_lanes(o[k + 1])),
                0xd8);
            if (stream)
                _mm256_stream_si256((__m256i *)(y + k * L), h);
            else
                _mm256_storeu_si256((__m256i *)(y + k * L), h);
        }
        return;
    }
#endif
#pragma GCC unroll 4
    for (size_t k = 0; k < D; k++) kb_cpu_store_halfv(p, y + k * L, o[k], stream);
}

/* Row kernels' last pass: y + i gets v(ctx, i), rounded to p, for each
 * whole vector i = 0, KB_VLANES, ... below nv (a multiple of KB_VLANES), in
 * runs of KB__CPU_AHEAD vectors (kb__cpu_store_halfv_run), then one at a
 * time. v and ctx reach the loop as constants (this is inlined into the
 * kernel's row function), so v is inlined too, and so is `nonneg`: no
 * value can be negative (NaN aside), as softmax's. A bf16 row of such
 * values is narrowed with no search for denormals, its least value kept
 * by a running minimum (NaNs left out), and when that is below FLT_MIN,
 * zero included, it is stored again the usual way. A minimum takes none of
 * the ports that the classification shares with the multiply-adds and
 * conversions on a Zen 5: softmax's bf16 rows ran 5 % faster so. */
typedef kb_f32v (*kb_cpu_rowv)(const void *ctx, size_t i);

#if KB_VMATH16 && defined(__AVX512BF16__)
KB__CPU8_INLINE void kb__cpu_store_bf16_least(uint16_t *y, __m512 o, __m512 *least, int stream) {
    *least = _mm512_min_ps(o, *least); /* o NaN: *least is kept */
    kb__cpu_put16v(y, (__m256i)_mm512_cvtneps_pbh(o), stream);
}

/* The bf16 row narrowed without a search; whether its least value is below
 * FLT_MIN. The minimum runs in KB__CPU_AHEAD chains (one was a minimum's
 * latency a vector, twice the narrowing's cost). */
KB__CPU8_INLINE int kb__cpu_store_bf16_row_least(uint16_t *y, size_t nv, kb_cpu_rowv v,
                                                 const void *ctx, int stream) {
    enum { D = KB__CPU_AHEAD, L = KB_VLANES };
    __m512 least[D];
#pragma GCC unroll 4
    for (size_t k = 0; k < D; k++) least[k] = _mm512_set1_ps(__builtin_inff());
    size_t i = 0;
    for (; i + D * L <= nv; i += D * L) {
#pragma GCC unroll 4
        for (size_t k = 0; k < D; k++)
            kb__cpu_store_bf16_least(y + i + k * L, v(ctx, i + k * L), &least[k], stream);
    }
    for (; i < nv; i += L) kb__cpu_store_bf16_least(y + i, v(ctx, i), &least[0], stream);
#pragma GCC unroll 4
    for (size_t k = 1; k < D; k++) least[0] = _mm512_min_ps(least[k], least[0]);
    return _mm512_cmp_ps_mask(least[0], _mm512_set1_ps(0x1p-126f), _CMP_LT_OQ) != 0;
}
#endif

KB__CPU8_INLINE void kb_cpu_store_half_row(kb_prec p, uint16_t *y, size_t nv, kb_cpu_rowv v,
                                           const void *ctx, int stream, int nonneg) {
    enum { D = KB__CPU_AHEAD, L = KB_VLANES };
#if KB_VMATH16 && defined(__AVX512BF16__)
    if (p == KB_BF16 && nonneg && !kb__cpu_store_bf16_row_least(y, nv, v, ctx, stream)) return;
#else
    (void)nonneg;
#endif
    size_t i = 0;
    for (; i + D * L <= nv; i += D * L) {
        kb_f32v o[D];
#pragma GCC unroll 4
        for (size_t k = 0; k < D; k++) o[k] = v(ctx, i + k * L);
        kb__cpu_store_halfv_run(p, y + i, o, stream);
    }
    for (; i < nv; i += L) kb_cpu_store_halfv(p, y + i, v(ctx, i), stream);
}

/* kb__cpu_ask for elements [from, to) of es bytes each. */
KB__CPU8_INLINE void kb__cpu_ask_elems(const void *p, size_t es, size_t from, size_t to) {
    kb__cpu_ask(p, from * es, to * es);
}

/* A row's middle pass: dst[i] = f(v) for v = x[i] - shift, f(v) =
 * out(v, in(v)) with `in` KB__CPU_AHEAD vectors ahead of `out` as in
 * kb__cpu_fused_halfv (a Zen 5 ran softmax's exp pass 16 % faster so in
 * double, 15 % in float); returns the sum of dst as kb_cpu_sum_f32/_f64(dst,
 * n) sums it, bit for bit: vector q adds into partial sum q % K, so lane j
 * of KB_CPU_LANES adds the values i + j in order, and the tail's come
 * after. x is float or double, or fp16/bf16 values (p), widened here in
 * registers rather than read back from a widened copy of the row. A step of
 * G vectors holds whole rings of both the vectors ahead (D) and the partial
 * sums (K); the step that finishes the vectors ahead computes the rest of
 * its G at once.
 *
 * T: the element type of dst; V, L, PX: its vectors, their lanes and the
 * intrinsics' suffix; FN, FN2: the stages' types; LOAD(p, x, i): the
 * vector of x from element i. */
#define KB__CPU_MAP_SUM(NAME, T, V, L, PX, FN, FN2, LOAD, SUM)                                     \
    KB__CPU8_INLINE T kb__cpu_map_sum_##NAME(T *restrict dst, const void *restrict x, kb_prec p,   \
                                             size_t n, T shift, FN in, FN2 out,                    \
                                             const void *next) {                                   \
        enum { D = KB__CPU_AHEAD, K = KB_CPU_LANES / (L), G = D > K ? D : K };                     \
        _Static_assert(G % D == 0 && G % K == 0, "a step holds whole rings");                      \
        const size_t es = p == KB_FP64 ? 8 : p == KB_FP32 ? 4 : 2; /* x's element size */          \
        const V s = KB_MMV(set1_##PX)(shift);                                                      \
        const size_t nv = n - n % KB_CPU_LANES;                                                    \
        V acc[K], v[D], t[D];                                                                      \
        _Pragma("GCC unroll 8") for (size_t k = 0; k < K; k++) {                                   \
            acc[k] = KB_MMV(setzero_##PX)();                                                       \
        }                                                                                          \
        size_t i = 0;                                                                              \
        if (nv >= (G + D) * (L)) {                                                                 \
            _Pragma("GCC unroll 8") for (size_t k = 0; k < D; k++) {                               \
                v[k] = KB_MMV(sub_##PX)(LOAD(p, x, k * (L)), s);                                   \
                t[k] = in(v[k]);                                                                   \
            }                                                                                      \
            for (; i + (G + D) * (L) <= nv; i += G * (L)) {                                        \
                kb__cpu_ask_elems(next, es, i, i + G * (L));                                       \
                _Pragma("GCC unroll 8") for (size_t k = 0; k < G; k++) {                           \
                    const V w = KB_MMV(sub_##PX)(LOAD(p, x, i + (D + k) * (L)), s), u = in(w);     \
                    const V o = out(v[k % D], t[k % D]);                                           \
                    v[k % D] = w;                                                                  \
                    t[k % D] = u;                                                                  \
                    KB_MMV(storeu_##PX)(dst + i + k * (L), o);                                     \
                    acc[k % K] = KB_MMV(add_##PX)(acc[k % K], o);                                  \
                }                                                                                  \
            }                                                                                      \
            /* nv - i is at least D vectors and a multiple of K: at least G. */                    \
            kb__cpu_ask_elems(next, es, i, i + G * (L));                                           \
            _Pragma("GCC unroll 8") for (size_t k = 0; k < G; k++) {                               \
                V o;                                                                               \
                if (k < D) {                                                                       \
                    o = out(v[k], t[k]);                                                           \
                } else {                                                                           \
                    const V w = KB_MMV(sub_##PX)(LOAD(p, x, i + k * (L)), s);                      \
                    o = out(w, in(w));                                                             \
                }                                                                                  \
                KB_MMV(storeu_##PX)(dst + i + k * (L), o);                                         \
                acc[k % K] = KB_MMV(add_##PX)(acc[k % K], o);                                      \
            }                                                                                      \
            i += G * (L);                                                                          \
        }                                                                                          \
        kb__cpu_ask_elems(next, es, i, n);                                                         \
        for (; i < nv; i += K * (L)) {                                                             \
            _Pragma("GCC unroll 8") for (size_t k = 0; k < K; k++) {                               \
                const V w = KB_MMV(sub_##PX)(LOAD(p, x, i + k * (L)), s), o = out(w, in(w));       \
                KB_MMV(storeu_##PX)(dst + i + k * (L), o);                                         \
                acc[k] = KB_MMV(add_##PX)(acc[k], o);                                              \
            }                                                                                      \
        }                                                                                          \
        T lanes[KB_CPU_LANES];                                                                     \
        _Pragma("GCC unroll 8") for (size_t k = 0; k < K; k++) {                                   \
            KB_MMV(storeu_##PX)(lanes + k * (L), acc[k]);                                          \
        }                                                                                          \
        return kb__cpu_tail_sum_##NAME(kb_cpu_lanes_sum_##SUM(lanes), dst, x, p, nv, n, s, in,     \
                                       out);                                                       \
    }

/* The tail of a middle pass, dst[nv .. n), through vectors padded with
 * zeros (the same functions give its values the same results as whole
 * vectors would), added to sum in order. */
#define KB__CPU_TAIL_SUM(NAME, T, V, L, PX, FN, FN2)                                               \
    KB__CPU8_INLINE T kb__cpu_tail_sum_##NAME(T sum, T *dst, const void *x, kb_prec p, size_t nv,  \
                                              size_t n, V s, FN in, FN2 out) {                     \
        for (size_t i = nv; i < n; i += L) {                                                       \
            const size_t m = n - i < (L) ? n - i : (L);                                            \
            T b[L];                                                                                \
            kb__cpu_load_##NAME(b, x, p, i, m);                                                    \
            const V w = KB_MMV(sub_##PX)(KB_MMV(loadu_##PX)(b), s);                                \
            KB_MMV(storeu_##PX)(b, out(w, in(w)));                                                 \
            memcpy(dst + i, b, m * sizeof *b);                                                     \
        }                                                                                          \
        for (size_t i = nv; i < n; i++) sum += dst[i];                                             \
        return sum;                                                                                \
    }

/* The vector of x from element i, float: fp32 or fp16/bf16 widened. */
KB__CPU8_INLINE kb_f32v kb__cpu_load_f32v(kb_prec p, const void *x, size_t i) {
    if (p == KB_FP32) return KB_MMV(loadu_ps)((const float *)x + i);
    return kb__cpu_widenv(p, (const uint16_t *)x + i);
}

KB__CPU8_INLINE kb_f64v kb__cpu_load_f64v(kb_prec p, const void *x, size_t i) {
    (void)p;
    return KB_MMV(loadu_pd)((const double *)x + i);
}

/* b[0 .. m) = x[i .. i + m), widened, the rest of a vector zero. */
KB__CPU8_INLINE void kb__cpu_load_f32(float *b, const void *x, kb_prec p, size_t i, size_t m) {
    memset(b, 0, KB_VLANES * sizeof *b);
    if (p == KB_FP32)
        memcpy(b, (const float *)x + i, m * sizeof *b);
    else
        kb_cpu_to_f32(b, x, p, i, m);
}

KB__CPU8_INLINE void kb__cpu_load_f64(double *b, const void *x, kb_prec p, size_t i, size_t m) {
    (void)p;
    memset(b, 0, KB_VLANES64 * sizeof *b);
    memcpy(b, (const double *)x + i, m * sizeof *b);
}

/* Double functions on kb_f64v, in two stages as kb_cpu_fnv2. */
typedef kb_f64v (*kb_cpu_fnv64)(kb_f64v);
typedef kb_f64v (*kb_cpu_fnv64_2)(kb_f64v x, kb_f64v t);

KB__CPU_TAIL_SUM(f32, float, kb_f32v, KB_VLANES, ps, kb_cpu_fnv, kb_cpu_fnv2)
KB__CPU_TAIL_SUM(f64, double, kb_f64v, KB_VLANES64, pd, kb_cpu_fnv64, kb_cpu_fnv64_2)
KB__CPU_MAP_SUM(f32, float, kb_f32v, KB_VLANES, ps, kb_cpu_fnv, kb_cpu_fnv2, kb__cpu_load_f32v, f32)
KB__CPU_MAP_SUM(f64, double, kb_f64v, KB_VLANES64, pd, kb_cpu_fnv64, kb_cpu_fnv64_2,
                kb__cpu_load_f64v, f64)
#undef KB__CPU_MAP_SUM
#undef KB__CPU_TAIL_SUM

/* The pass for each type of x: float, double, fp16/bf16 (p). It asks for
 * next[0 .. n) as it goes when next is not NULL (kb__cpu_ask). */
KB__CPU8_INLINE float kb_cpu_map_sum_f32v(float *restrict dst, const float *restrict x, size_t n,
                                          float shift, kb_cpu_fnv in, kb_cpu_fnv2 out,
                                          const void *next) {
    return kb__cpu_map_sum_f32(dst, x, KB_FP32, n, shift, in, out, next);
}

KB__CPU8_INLINE double kb_cpu_map_sum_f64v(double *restrict dst, const double *restrict x, size_t n,
                                           double shift, kb_cpu_fnv64 in, kb_cpu_fnv64_2 out,
                                           const void *next) {
    return kb__cpu_map_sum_f64(dst, x, KB_FP64, n, shift, in, out, next);
}

KB__CPU8_INLINE float kb_cpu_map_sum_halfv(float *restrict dst, const uint16_t *restrict x,
                                           kb_prec p, size_t n, float shift, kb_cpu_fnv in,
                                           kb_cpu_fnv2 out, const void *next) {
    return kb__cpu_map_sum_f32(dst, x, p, n, shift, in, out, next);
}

/* fp16 or bf16 (p) widened (exactly as kb_cpu_to_f32 widens it), computed
 * and narrowed in registers, `in` KB__CPU_AHEAD vectors ahead of `out`: v[k]
 * and t[k] hold vector i + k and its first stage, and each step computes
 * vector i + k + KB__CPU_AHEAD's first stage before vector i + k's second
 * (the loop over k unrolled, so that they stay in registers). The same
 * operations on each vector as computing it at once: the same results, bit
 * for bit. (On sixteen lanes bf16 went through float scratch blocks while its
 * narrowing tested each vector for denormals and GELU took no stages:
 * widened, computed and narrowed in registers, it had run GELU 20 % slower.
 * Now it runs bf16 GELU and swish 15 and 9 % faster than the blocks even
 * with the integer narrowing of a target without AVX512-BF16, measured on
 * a Zen 5 built without it. On eight lanes bf16 still takes the blocks:
 * kb__cpu_blocks_bf16v.) */
KB__CPU8_INLINE void kb__cpu_fused_halfv(kb_prec p, kb_cpu_fnv in, kb_cpu_fnv2 out,
                                         const uint16_t *restrict x, uint16_t *restrict y, size_t n,
                                         int stream) {
    enum { D = KB__CPU_AHEAD, L = KB_VLANES };
    const size_t nv = n - n % L;
    size_t i = 0;
    if (nv >= 2 * D * L) {
        kb_f32v v[D], t[D], o[D];
#pragma GCC unroll 4
        for (size_t k = 0; k < D; k++) t[k] = in(v[k] = kb__cpu_widenv(p, x + k * L));
        for (; i + 2 * D * L <= nv; i += D * L) {
#pragma GCC unroll 4
            for (size_t k = 0; k < D; k++) {
                const kb_f32v w = kb__cpu_widenv(p, x + i + (D + k) * L), u = in(w);
                o[k] = out(v[k], t[k]);
                v[k] = w;
                t[k] = u;
            }
            kb__cpu_store_halfv_run(p, y + i, o, stream);
        }
#pragma GCC unroll 4
        for (size_t k = 0; k < D; k++) o[k] = out(v[k], t[k]);
        kb__cpu_store_halfv_run(p, y + i, o, stream);
        i += D * L;
    }
    for (; i < nv; i += L) {
        const kb_f32v w = kb__cpu_widenv(p, x + i);
        kb_cpu_store_halfv(p, y + i, out(w, in(w)), stream);
    }
    if (nv < n) {
        float b[KB_VLANES];
        kb_cpu_to_f32(b, x, p, nv, n - nv);
        kb__cpu_tail_f32v(in, out, b, b, n % KB_VLANES);
        kb_cpu_from_f32(y, p, nv, b, n - nv);
    }
}

#if !KB_VMATH16
/* bf16 on eight lanes, in blocks of KB_CPU_MAP_BLOCK through float scratch
 * in L1: its narrowing takes several integer operations and constants, and
 * with those in the loop AVX2's 16 registers ran swish 15 % slower than
 * through scratch. Sixteen values are widened by two unpacks (elements
 * 0-3 and 8-11 in one vector, 4-7 and 12-15 in the other) and narrowed by
 * one pack, which puts them back in order: an elementwise function does
 * not mind the order in between, and the conversions took half the
 * operations of widening and narrowing eight at a time. The block is
 * computed in two stages, the first KB__CPU_AHEAD vectors ahead, as
 * kb__cpu_fused_halfv computes. The output, when streamed, is to be
 * aligned to 32 bytes. */
KB__CPU8_INLINE void kb__cpu_blocks_bf16v(kb_cpu_fnv in, kb_cpu_fnv2 out,
                                          const uint16_t *restrict x, uint16_t *restrict y,
                                          size_t n, int stream) {
    enum { D = KB__CPU_AHEAD, L = KB_VLANES, B = KB_CPU_MAP_BLOCK };
    _Static_assert(B % (D * L) == 0 && B % (2 * L) == 0, "a block holds whole steps");
    _Alignas(32) float b[B];
    const __m256i zero = _mm256_setzero_si256();
    size_t off = 0;
    for (; off + B <= n; off += B) {
        for (size_t i = 0; i < B; i += 2 * L) {
            const __m256i h = _mm256_loadu_si256((const __m256i *)(x + off + i));
            _mm256_store_si256((__m256i *)(b + i), _mm256_unpacklo_epi16(zero, h));
            _mm256_store_si256((__m256i *)(b + i + L), _mm256_unpackhi_epi16(zero, h));
        }
        kb_f32v v[D], t[D];
#pragma GCC unroll 4
        for (size_t k = 0; k < D; k++) t[k] = in(v[k] = _mm256_load_ps(b + k * L));
        for (size_t i = 0; i + D * L < B; i += D * L) {
#pragma GCC unroll 4
            for (size_t k = 0; k < D; k++) {
                const kb_f32v w = _mm256_load_ps(b + i + (D + k) * L), u = in(w);
                _mm256_store_ps(b + i + k * L, out(v[k], t[k]));
                v[k] = w;
                t[k] = u;
            }
        }
#pragma GCC unroll 4
        for (size_t k = 0; k < D; k++) _mm256_store_ps(b + B - (D - k) * L, out(v[k], t[k]));
        for (size_t i = 0; i < B; i += 2 * L) {
            const __m256i h = _mm256_packus_epi32(kb__cpu_bf16_8_lanes(_mm256_load_ps(b + i)),
                                                  kb__cpu_bf16_8_lanes(_mm256_load_ps(b + i + L)));
            if (stream)
                _mm256_stream_si256((__m256i *)(y + off + i), h);
            else
                _mm256_storeu_si256((__m256i *)(y + off + i), h);
        }
    }
    /* The last partial block, in order. */
    if (off < n) {
        const size_t m = n - off, mv = m - m % L;
        kb_cpu_to_f32(b, x, KB_BF16, off, m);
        for (size_t i = 0; i < mv; i += L) {
            const kb_f32v w = _mm256_load_ps(b + i);
            _mm256_store_ps(b + i, out(w, in(w)));
        }
        if (mv < m) kb__cpu_tail_f32v(in, out, b + mv, b + mv, m % L);
        kb_cpu_from_f32(y, KB_BF16, off, b, m);
    }
}
#endif

/* y[i] = out(x[i], in(x[i])) for n fp16/bf16 values, computed in float;
 * both stream whole vectors of KB_VLANES values. */
KB__CPU8_INLINE void kb_cpu_mapv_half(const kb_args *a, kb_cpu_fnv in, kb_cpu_fnv2 out, size_t n) {
    /* bf16 on eight lanes streams 32 bytes a store (kb__cpu_blocks_bf16v). */
    const size_t align = KB_VMATH16 || a->prec != KB_BF16 ? KB_VLANES * 2 : 32;
    const int stream = kb_cpu_streams(a, a->out[0], n * sizeof(uint16_t), align);
#if KB_VMATH16
    if (a->prec == KB_BF16) kb__cpu_fused_halfv(KB_BF16, in, out, a->in[0], a->out[0], n, stream);
#else
    if (a->prec == KB_BF16) kb__cpu_blocks_bf16v(in, out, a->in[0], a->out[0], n, stream);
#endif
    else
        kb__cpu_fused_halfv(KB_FP16, in, out, a->in[0], a->out[0], n, stream);
    if (stream) kb_cpu_stream_fence();
}

/* kb_cpu_elementwise_half with vector functions for float (f) and for
 * fp16/bf16 results (half_in and half_out, kb_cpu_mapv_half's stages), on
 * the widest vectors; f64 stays a double block function. */
KB__CPU8_INLINE int
kb_cpu_elementwisev(const kb_args *a, void (*f64)(const double *restrict, double *restrict, size_t),
                    kb_cpu_fnv f, kb_cpu_fnv half_in, kb_cpu_fnv2 half_out, size_t n) {
    switch (a->prec) {
    case KB_FP64: f64(a->in[0], a->out[0], n); return 0;
    case KB_FP32: kb_cpu_mapv_f32(a, f, n); return 0;
    case KB_FP16:
    case KB_BF16: kb_cpu_mapv_half(a, half_in, half_out, n); return 0;
    default: {
        static const kb_cpu_paths none = {NULL, NULL, NULL};
        return kb_cpu_dispatch(a, &none, NULL); /* declines, naming the precision */
    }
    }
}

#endif

#endif
