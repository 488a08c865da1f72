/* Elementwise CPU paths over a vector float function (kb/vmath8.h) on the
 * widest vectors the target has (KB_VLANES: sixteen lanes with AVX-512F,
 * else eight), where it has AVX2, FMA and F16C (KB_VMATH8).
 *
 * kb/cpu.h's elementwise paths call a float block function, and fp16/bf16
 * go through float scratch blocks in L1: widened there, computed into a
 * second block, narrowed from it. Here each fp16 vector is loaded, widened
 * in a register, computed and narrowed on its way to memory (bf16, whose
 * conversions are longer, still goes through one block, computed in place),
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

/* KB_VLANES 16-bit values to y, non-temporal when `stream` (y then aligned
 * to their size; kb_cpu_stream_fence() before the kernel returns). */
KB__CPU8_INLINE void kb__cpu_put16v(uint16_t *y, kb__cpu_h16v h, int stream) {
    if (stream)
        kb__cpu_stream16v(y, h);
    else
        kb__cpu_store16v(y, h);
}

/* The last n < KB_VLANES elements, padded: the same function gives them the
 * same results as the full vectors would. */
KB__CPU8_INLINE void kb__cpu_tail_f32v(kb_cpu_fnv f, const float *x, float *y, size_t n) {
    float b[KB_VLANES] = {0};
    memcpy(b, x, n * sizeof *b);
    KB_MMV(storeu_ps)(b, f(KB_MMV(loadu_ps)(b)));
    memcpy(y, b, n * sizeof *b);
}

/* y[i] = f(x[i]) for n floats. */
KB__CPU8_INLINE void kb_cpu_mapv_f32(const kb_args *a, kb_cpu_fnv f, size_t n) {
    const float *x = a->in[0];
    float *y = a->out[0];
    const size_t nv = n - n % KB_VLANES;
    const int stream = kb_cpu_streams(a, y, n * sizeof *y, KB_VLANES * sizeof *y);
    for (size_t i = 0; i < nv; i += KB_VLANES) {
        const kb_f32v v = f(KB_MMV(loadu_ps)(x + i));
        if (stream)
            KB_MMV(stream_ps)(y + i, v);
        else
            KB_MMV(storeu_ps)(y + i, v);
    }
    if (nv < n) kb__cpu_tail_f32v(f, x + nv, y + nv, n - nv);
    if (stream) kb_cpu_stream_fence();
}

/* Eight floats rounded as kb_cpu_from_f32 rounds them. */
KB__CPU8_INLINE __m128i kb_cpu8_narrow(kb_prec p, kb_f32x8 v) {
    if (p == KB_BF16) return kb__cpu_bf16_8(v);
    return _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT);
}

/* Eight 16-bit values to y, non-temporal when `stream` (y then 16-byte
 * aligned; kb_cpu_stream_fence() before the kernel returns). */
KB__CPU8_INLINE void kb_cpu8_store16(uint16_t *y, __m128i v, int stream) {
    if (stream)
        _mm_stream_si128((__m128i *)y, v);
    else
        _mm_storeu_si128((__m128i *)y, v);
}

/* bf16 in blocks of KB_CPU_MAP_BLOCK through float scratch in L1: its
 * conversions take several instructions and constants each, and in the
 * same loop as a function of GELU's size they left too few registers (bf16
 * GELU ran 25 % slower in L1 than through scratch; fp16, converted by one
 * instruction each way, ran as fast or faster fused). Narrowed a vector
 * at a time (kb__cpu_bf16_8 / _16). */
KB__CPU8_INLINE void kb__cpu_blocks_bf16v(kb_cpu_fnv f, const uint16_t *restrict x,
                                          uint16_t *restrict y, size_t n, int stream) {
    float b[KB_CPU_MAP_BLOCK];
    for (size_t off = 0; off < n; off += KB_CPU_MAP_BLOCK) {
        const size_t m = n - off < KB_CPU_MAP_BLOCK ? n - off : KB_CPU_MAP_BLOCK;
        const size_t mv = m - m % KB_VLANES;
        kb_cpu_to_f32(b, x, KB_BF16, off, m);
        for (size_t i = 0; i < mv; i += KB_VLANES)
            KB_MMV(storeu_ps)(b + i, f(KB_MMV(loadu_ps)(b + i)));
        if (mv < m) kb__cpu_tail_f32v(f, b + mv, b + mv, m - mv);
        for (size_t i = 0; i < mv; i += KB_VLANES)
            kb__cpu_put16v(y + off + i, kb__cpu_narrow_bf16v(KB_MMV(loadu_ps)(b + i)), stream);
        kb_cpu_from_f32(y, KB_BF16, off + mv, b + mv, m - mv);
    }
}

/* fp16 widened (exactly as kb_cpu_to_f32 widens it), computed and narrowed
 * in registers. */
KB__CPU8_INLINE void kb__cpu_fused_fp16v(kb_cpu_fnv f, const uint16_t *restrict x,
                                         uint16_t *restrict y, size_t n, int stream) {
    const size_t nv = n - n % KB_VLANES;
    for (size_t i = 0; i < nv; i += KB_VLANES)
        kb__cpu_put16v(y + i, kb__cpu_narrow_fp16v(f(kb__cpu_widen_fp16v(kb__cpu_load16v(x + i)))),
                       stream);
    if (nv < n) {
        float b[KB_VLANES];
        kb_cpu_to_f32(b, x, KB_FP16, nv, n - nv);
        kb__cpu_tail_f32v(f, b, b, n - nv);
        kb_cpu_from_f32(y, KB_FP16, nv, b, n - nv);
    }
}

/* y[i] = f(x[i]) for n fp16/bf16 values, computed in float; both stream
 * whole vectors of KB_VLANES values. */
KB__CPU8_INLINE void kb_cpu_mapv_half(const kb_args *a, kb_cpu_fnv f, size_t n) {
    const int stream = kb_cpu_streams(a, a->out[0], n * sizeof(uint16_t), KB_VLANES * 2);
    if (a->prec == KB_BF16)
        kb__cpu_blocks_bf16v(f, a->in[0], a->out[0], n, stream);
    else
        kb__cpu_fused_fp16v(f, a->in[0], a->out[0], n, stream);
    if (stream) kb_cpu_stream_fence();
}

/* kb_cpu_elementwise_half with vector functions for float (f) and for
 * fp16/bf16 results (half), on the widest vectors; f64 stays a double block
 * function. */
KB__CPU8_INLINE int
kb_cpu_elementwisev(const kb_args *a, void (*f64)(const double *restrict, double *restrict, size_t),
                    kb_cpu_fnv f, kb_cpu_fnv half, size_t n) {
    switch (a->prec) {
    case KB_FP64: f64(a->in[0], a->out[0], n); return 0;
    case KB_FP32: kb_cpu_mapv_f32(a, f, n); return 0;
    case KB_FP16:
    case KB_BF16: kb_cpu_mapv_half(a, half, n); return 0;
    default: {
        static const kb_cpu_paths none = {NULL, NULL, NULL};
        return kb_cpu_dispatch(a, &none, NULL); /* declines, naming the precision */
    }
    }
}

#endif

#endif
