/* Elementwise CPU paths over a vector float function (kb/vmath8.h) on the
 * widest vectors the target has (KB_VLANES: sixteen lanes with AVX-512F,
 * else eight), where it has AVX2, FMA and F16C (KB_VMATH8).
 *
 * kb/cpu.h's elementwise paths call a float block function, and fp16/bf16
 * go through float scratch blocks in L1: widened there, computed into a
 * second block, narrowed from it. Here each fp16 vector (and bf16, on
 * sixteen lanes) is loaded, widened in a register, computed (in two stages,
 * the first a few vectors ahead: kb__cpu_fused_halfv) and narrowed on its way
 * to memory,
 * and when the output is larger than the last cache it is written with
 * non-temporal stores, which do not read the lines first (a third stream of
 * memory traffic that the kernel's bytes do not count).
 *
 * The function reaches the loop as a constant: every helper here is
 * inlined into the kernel's own path, so the function is inlined into the
 * loop (a call per vector would cost more than some functions do). */
#ifndef KB_CPU8_H
#define KB_CPU8_H

#include "kb/cpu.h"
#include "kb/vmath8.h"

#if KB_VMATH8

#define KB__CPU8_INLINE static inline __attribute__((always_inline))

/* A float function on the widest vectors the target has (kb_f32v, kb/vmath8.h:
 * KB_VLANES lanes), as kb/vmath8.h's kb_expfv, kb_gelu_f32_v, ... */
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

/* A float function in two stages, f(x) = out(x, in(x)), as kb/vmath8.h's
 * kb_gelu_half_ratiov and kb_gelu_half_from_ratiov: the 16-bit maps compute
 * `in` a few vectors ahead of `out` (kb__cpu_fused_halfv). A function of
 * one stage is in = f, out = kb_cpu_stage_result. */
typedef kb_f32v (*kb_cpu_fnv2)(kb_f32v x, kb_f32v t);

static inline kb_f32v kb_cpu_stage_result(kb_f32v x, kb_f32v t) {
    (void)x;
    return t;
}

/* The last n < KB_VLANES elements, padded: the same function gives them the
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
 * into dst (as kb_cpu_to_f32 widens them) and reduced on the way: one pass
 * where widening and then reducing took two. Unlike the float rows' first
 * passes they do not ask for the next row (kb__cpu_ask): on a Zen 5 the
 * 16-bit rows of layernorm and softmax at DRAM size ran as fast or faster
 * without, and at one speed where the requests had made them vary from one
 * process to the next by up to 20 % (docs/kernels.md, the eighth pass).
 * kb_cpu_to_f32_sumv returns kb_cpu_sum_f32(dst, n) and kb_cpu_to_f32_maxv
 * kb_cpu_max_f32(dst, n), bit for bit: the same partial sums (lane j of
 * KB_CPU_LANES adds the values i + j in order) and the same flipped-pattern
 * maxima. */
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

/* kb__cpu_flip on every lane: int32 order is then float order. */
#if KB_VMATH16
typedef __m512i kb__cpu_i32v;
#define kb__cpu_i32v_min()     _mm512_set1_epi32(INT32_MIN)
#define kb__cpu_i32v_max(a, b) _mm512_max_epi32(a, b)
#define kb__cpu_i32v_hmax(v)   _mm512_reduce_max_epi32(v)
KB__CPU8_INLINE kb__cpu_i32v kb__cpu_flipv(kb_f32v v) {
    const __m512i u = _mm512_castps_si512(v);
    return _mm512_xor_si512(
        u, _mm512_and_si512(_mm512_srai_epi32(u, 31), _mm512_set1_epi32(0x7fffffff)));
}
#else
typedef __m256i kb__cpu_i32v;
#define kb__cpu_i32v_min()     _mm256_set1_epi32(INT32_MIN)
#define kb__cpu_i32v_max(a, b) _mm256_max_epi32(a, b)
KB__CPU8_INLINE int32_t kb__cpu_i32v_hmax(__m256i v) {
    __m128i m = _mm_max_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0x4e));
    return _mm_cvtsi128_si32(_mm_max_epi32(m, _mm_shuffle_epi32(m, 0xb1)));
}
KB__CPU8_INLINE kb__cpu_i32v kb__cpu_flipv(kb_f32v v) {
    const __m256i u = _mm256_castps_si256(v);
    return _mm256_xor_si256(
        u, _mm256_and_si256(_mm256_srai_epi32(u, 31), _mm256_set1_epi32(0x7fffffff)));
}
#endif

/* A maximum does not depend on the order: one running maximum of the
 * flipped patterns, a vector at a time, then the tail's. */
KB__CPU8_INLINE float kb__cpu_to_f32_maxv(float *restrict dst, const uint16_t *restrict x,
                                          kb_prec p, size_t n) {
    const size_t nv = n - n % KB_CPU_LANES;
    kb__cpu_i32v acc = kb__cpu_i32v_min();
    for (size_t i = 0; i < nv; i += KB_VLANES)
        acc = kb__cpu_i32v_max(acc, kb__cpu_flipv(kb__cpu_widen_store(p, x + i, dst + i)));
    kb_cpu_to_f32(dst + nv, x + nv, p, 0, n - nv);
    /* Reduced in registers: stored to an array of lanes, GCC 12 kept the
     * running maximum there, a store and a load on every vector's path. */
    int32_t m = kb__cpu_i32v_hmax(acc);
    for (size_t i = nv; i < n; i++) {
        const int32_t k = (int32_t)kb__cpu_flip(kb_f32_to_bits(dst[i]));
        m = k > m ? k : m;
    }
    return kb_bits_to_f32(kb__cpu_flip((uint32_t)m));
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
KB__CPU_FIRST_PASS(maxv, FP16)
KB__CPU_FIRST_PASS(maxv, BF16)
#undef KB__CPU_FIRST_PASS

static inline float kb_cpu_to_f32_sumv(float *restrict dst, const uint16_t *restrict x, kb_prec p,
                                       size_t n) {
    return p == KB_FP16 ? kb__cpu_to_f32_sumv_FP16(dst, x, n) : kb__cpu_to_f32_sumv_BF16(dst, x, n);
}

static inline float kb_cpu_to_f32_maxv(float *restrict dst, const uint16_t *restrict x, kb_prec p,
                                       size_t n) {
    return p == KB_FP16 ? kb__cpu_to_f32_maxv_FP16(dst, x, n) : kb__cpu_to_f32_maxv_BF16(dst, x, n);
}

/* How many vectors ahead of `out` the 16-bit maps compute `in`. A Zen 5
 * keeps only about 80 vector operations waiting for their operands (a chain
 * of 16 dependent multiply-adds per vector ran at one a cycle, where
 * independent ones run at two), and GELU's chain, one vector's, is about 50
 * cycles long: a loop that computes each vector in turn fills that window
 * with operations that wait. With the first stage, the long part of the
 * chain, computed ahead, the second stage's operations are ready when they
 * enter: fp16 GELU ran 10-15 % faster in L1 and past the caches. Each
 * vector ahead holds two registers: four with AVX-512's 32, two with AVX2's
 * 16. */
#if KB_VMATH16
#define KB__CPU_AHEAD 4
#else
#define KB__CPU_AHEAD 2
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
#pragma GCC unroll 4
    for (size_t k = 0; k < D; k++) kb_cpu_store_halfv(p, y + k * L, o[k], stream);
}

/* Row kernels' last pass: y + i gets v(ctx, i), rounded to p, for each
 * whole vector i = 0, KB_VLANES, ... below nv (a multiple of KB_VLANES), in
 * runs of KB__CPU_AHEAD vectors (kb__cpu_store_halfv_run), then one at a
 * time. v and ctx reach the loop as constants (this is inlined into the
 * kernel's row function), so v is inlined too. */
typedef kb_f32v (*kb_cpu_rowv)(const void *ctx, size_t i);

KB__CPU8_INLINE void kb_cpu_store_half_row(kb_prec p, uint16_t *y, size_t nv, kb_cpu_rowv v,
                                           const void *ctx, int stream) {
    enum { D = KB__CPU_AHEAD, L = KB_VLANES };
    size_t i = 0;
    for (; i + D * L <= nv; i += D * L) {
        kb_f32v o[D];
#pragma GCC unroll 4
        for (size_t k = 0; k < D; k++) o[k] = v(ctx, i + k * L);
        kb__cpu_store_halfv_run(p, y + i, o, stream);
    }
    for (; i < nv; i += L) kb_cpu_store_halfv(p, y + i, v(ctx, i), stream);
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
 * in L1, the stages together: its narrowing takes several integer
 * operations and constants (kb__cpu_bf16_8), and with those in the loop
 * AVX2's 16 registers ran swish 15 % slower than through scratch. */
KB__CPU8_INLINE void kb__cpu_blocks_bf16v(kb_cpu_fnv in, kb_cpu_fnv2 out,
                                          const uint16_t *restrict x, uint16_t *restrict y,
                                          size_t n, int stream) {
    float b[KB_CPU_MAP_BLOCK];
    for (size_t off = 0; off < n; off += KB_CPU_MAP_BLOCK) {
        const size_t m = n - off < KB_CPU_MAP_BLOCK ? n - off : KB_CPU_MAP_BLOCK;
        const size_t mv = m - m % KB_VLANES;
        kb_cpu_to_f32(b, x, KB_BF16, off, m);
        for (size_t i = 0; i < mv; i += KB_VLANES) {
            const kb_f32v v = KB_MMV(loadu_ps)(b + i);
            KB_MMV(storeu_ps)(b + i, out(v, in(v)));
        }
        if (mv < m) kb__cpu_tail_f32v(in, out, b + mv, b + mv, m % KB_VLANES);
        for (size_t i = 0; i < mv; i += KB_VLANES)
            kb__cpu_put16v(y + off + i, kb__cpu_narrow_bf16v(KB_MMV(loadu_ps)(b + i)), stream);
        kb_cpu_from_f32(y, KB_BF16, off + mv, b + mv, m - mv);
    }
}
#endif

/* y[i] = out(x[i], in(x[i])) for n fp16/bf16 values, computed in float;
 * both stream whole vectors of KB_VLANES values. */
KB__CPU8_INLINE void kb_cpu_mapv_half(const kb_args *a, kb_cpu_fnv in, kb_cpu_fnv2 out, size_t n) {
    const int stream = kb_cpu_streams(a, a->out[0], n * sizeof(uint16_t), KB_VLANES * 2);
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
