/* Helpers for CPU implementations.
 *
 * fp16/bf16 runs convert a block of the stored tensor into a float scratch
 * buffer, compute in float and round the result back on store (see kb/prec.h);
 * each conversion loop handles one storage format so that it vectorises.
 * Sums use lane-wise partial sums, which vectorise without -ffast-math. */
#ifndef KB_CPU_H
#define KB_CPU_H

#include "kb/kernel.h"
#include "kb/prec.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__F16C__) || defined(__SSE2__)
#include <immintrin.h>
#endif

/* Elements per float scratch block of a kernel that streams a long array
 * through float (mse, linear, conv2d_bn_relu): two 8 KiB buffers (in and
 * out) stay in L1 while the block is processed. */
#define KB_CPU_BLOCK 2048

/* Elements per block of kb_cpu_map_f32. Each block is read (widened), then
 * computed, then written: while it computes, memory idles unless the
 * previous reads are still in flight. Short blocks keep the phases shorter
 * than a memory access, so reads and writes overlap the arithmetic: at DRAM
 * size fp16 GELU went from 4.4 to 6.0 GB/s with 256 instead of 2048 (64
 * was no faster than 256). */
#define KB_CPU_MAP_BLOCK 256

/* Asks for the 64-byte lines of p[from .. to) into L2 when p is not NULL: a row
 * kernel's pass over a row asks, line for line, for a later row
 * (kb_cpu_next_row; layernorm's first pass the next, softmax's exp pass
 * the one after), so that its read is under way while this row's passes
 * run in cache, spread over the pass rather than asked all at once. (All
 * at once, a row's worth of prefetches ahead of the pass, ran layernorm's
 * float rows at 25 GB/s on a Zen 5 where no prefetch gave 40 and the
 * spread requests 45: the burst fills the queue of misses the pass's own
 * loads wait in. Into L2, not L1: on a Zen 3 a next row of doubles in L1
 * evicted the current one and was slower.) */
static inline void kb__cpu_ask(const void *p, size_t from, size_t to) {
    if (!p || from >= to) return;
    /* From the line that holds byte `from`: stepping from `from` itself
     * would miss the last line when p is not line-aligned. */
    const uintptr_t first = ((uintptr_t)p + from) & ~(uintptr_t)63, end = (uintptr_t)p + to;
    for (uintptr_t at = first; at < end; at += 64) __builtin_prefetch((const void *)at, 0, 2);
}

/* dst[i] = src[off + i] for i < n, widened to float. p is KB_FP16 or KB_BF16. */
static inline void kb_cpu_to_f32(float *restrict dst, const void *restrict src, kb_prec p,
                                 size_t off, size_t n) {
    const uint16_t *restrict s = (const uint16_t *)src + off;
    size_t i = 0;
    if (p == KB_BF16) {
        for (; i < n; i++) dst[i] = kb_bf16_to_f32(s[i]);
        return;
    }
#ifdef __F16C__
    /* GCC 12 does not vectorise _Float16 conversions without AVX512-FP16. */
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + i))));
#endif
    for (; i < n; i++) dst[i] = kb_f16_to_f32(s[i]);
}

#ifdef __AVX2__
/* kb_f32_to_bf16 on 8 floats: GCC 12 vectorises the scalar loop, but with
 * three times the instructions (0.2 ns an element, a third of bf16 GELU's
 * arithmetic). */
static inline __m128i kb__cpu_bf16_8(__m256 v) {
    const __m256i u = _mm256_castps_si256(v), hi = _mm256_srli_epi32(u, 16);
    const __m256i odd = _mm256_and_si256(hi, _mm256_set1_epi32(1));
    const __m256i rounded = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), odd), 16);
    const __m256i quiet = _mm256_or_si256(hi, _mm256_set1_epi32(0x40));
    const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    const __m256i r = _mm256_blendv_epi8(rounded, quiet, nan);
    /* Each lane is below 2^16: packing with unsigned saturation keeps it. */
    return _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
}
#endif

#ifdef __AVX512F__
/* The same on 16 floats (AVX-512F): the NaN select by a mask, the narrowing
 * by truncation of lanes that are below 2^16. */
static inline __m256i kb__cpu_bf16_16_int(__m512 v) {
    const __m512i u = _mm512_castps_si512(v), hi = _mm512_srli_epi32(u, 16);
    const __m512i odd = _mm512_and_si512(hi, _mm512_set1_epi32(1));
    const __m512i rounded = _mm512_srli_epi32(
        _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)), odd), 16);
    const __m512i quiet = _mm512_or_si512(hi, _mm512_set1_epi32(0x40));
    const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    return _mm512_cvtepi32_epi16(_mm512_mask_blend_epi32(nan, rounded, quiet));
}

#ifdef __AVX512BF16__
/* With AVX512-BF16, one instruction: vcvtneps2bf16 rounds to nearest even
 * and quiets NaN as kb_f32_to_bf16 does (the top half, bit 6 set), but
 * flushes denormals to zero; the rare vectors that hold one take the
 * integer path. */
static inline __mmask16 kb__cpu_denormals16(__m512 v) {
#ifdef __AVX512DQ__
    /* One classification (AVX512-DQ; 0x20: denormal, either sign): the
     * integer test below took three operations, and bf16 GELU's and swish's
     * maps ran 10 % faster on a Zen 5 for the two saved. */
    return _mm512_fpclass_ps_mask(v, 0x20);
#else
    const __m512i mag = _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7fffffff));
    /* mag - 1 < 0x7fffff: 0 < mag < 2^-126, a denormal. */
    return _mm512_cmplt_epu32_mask(_mm512_sub_epi32(mag, _mm512_set1_epi32(1)),
                                   _mm512_set1_epi32(0x007fffff));
#endif
}

static inline __m256i kb__cpu_bf16_16(__m512 v) {
    if (__builtin_expect(kb__cpu_denormals16(v) != 0, 0)) return kb__cpu_bf16_16_int(v);
    return (__m256i)_mm512_cvtneps_pbh(v);
}
#else
static inline __m256i kb__cpu_bf16_16(__m512 v) {
    return kb__cpu_bf16_16_int(v);
}
#endif
#endif

/* dst[off + i] = src[i] for i < n, rounded to p (KB_FP16 or KB_BF16). */
static inline void kb_cpu_from_f32(void *restrict dst, kb_prec p, size_t off,
                                   const float *restrict src, size_t n) {
    uint16_t *restrict d = (uint16_t *)dst + off;
    if (p == KB_BF16) {
        size_t i = 0;
#ifdef __AVX512F__
        for (const size_t nv = n - n % 16; i < nv; i += 16)
            _mm256_storeu_si256((__m256i *)(d + i), kb__cpu_bf16_16(_mm512_loadu_ps(src + i)));
#endif
#ifdef __AVX2__
        for (const size_t nv = n - n % 8; i < nv; i += 8)
            _mm_storeu_si128((__m128i *)(d + i), kb__cpu_bf16_8(_mm256_loadu_ps(src + i)));
#endif
        for (; i < n; i++) d[i] = kb_f32_to_bf16(src[i]);
    } else {
        size_t i = 0;
#ifdef __F16C__
        /* Round to nearest even, as kb_f32_to_f16 does. */
        for (const size_t nv = n - n % 8; i < nv; i += 8)
            _mm_storeu_si128((__m128i *)(d + i),
                             _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
#endif
        for (; i < n; i++) d[i] = kb_f32_to_f16(src[i]);
    }
}

/* Row r + 1 of `rows` rows of row_bytes each from base, NULL after the
 * last: what a float row kernel passes as `next` to a pass over row r
 * (kb_cpu_sum_ahead_*, kb_cpu_max_ahead_*), or over row r - 1 to ask two
 * rows ahead (kb/cpu/paths.h's kb_cpu_map_sum_*). */
static inline const void *kb_cpu_next_row(const void *base, size_t r, size_t rows,
                                          size_t row_bytes) {
    return r + 1 < rows ? (const char *)base + (r + 1) * row_bytes : NULL;
}

/* Whether an output of `bytes` from dst is to be written past the caches:
 * when it and as many bytes of input (the kernels that ask read at least
 * as much as they write) exceed the last cache, the output reaches memory
 * anyway, and a cached store would first read each line it writes
 * (write-allocate), a third stream the kernel's bytes do not count. (The
 * test had been the output alone larger than the cache: the 16-bit cases
 * at DRAM size, whose outputs are 32 MiB, as large as a Zen 5's L3, did
 * not stream there; streamed, softmax's bf16 case ran 1.2x faster.) dst
 * must be aligned to `align` for the non-temporal stores the caller makes. */
static inline int kb_cpu_streams(const kb_args *a, const void *dst, size_t bytes, size_t align) {
    return a->last_cache_bytes > 0 && bytes > a->last_cache_bytes / 2 &&
           (uintptr_t)dst % align == 0;
}

/* kb_cpu_streams for `rows` rows of `row_bytes` each, written from `dst` on.
 * Only rows of whole cache lines that start on one: a row that ends
 * inside a line shares it with the next row, and mixing plain and
 * non-temporal stores on one line made layernorm 4-5x slower at hidden 7. */
static inline int kb_cpu_streams_rows(const kb_args *a, const void *dst, size_t row_bytes,
                                      size_t rows) {
    return row_bytes > 0 && row_bytes % 64 == 0 && kb_cpu_streams(a, dst, rows * row_bytes, 64);
}

/* dst[0 .. bytes) = src[0 .. bytes) with non-temporal stores where the
 * target has them (SSE2: every x86-64; 32 bytes a store with AVX, 64 with
 * AVX-512), plain ones for the unaligned head and the tail; src is meant to
 * be in L1 (a row just computed). Call kb_cpu_stream_fence() before the
 * kernel returns. (16-byte stores moved a layernorm-like row loop at 35 GB/s
 * on a Zen 5 where 32-byte ones moved 45; 64-byte ones took layernorm's
 * double rows from 9.0 to 8.6 ms.) */
#if defined(__AVX512F__)
#define KB__CPU_NT 64
#define kb__cpu_nt_store(d, s)                                                                     \
    _mm512_stream_si512((void *)(d), _mm512_loadu_si512((const void *)(s)))
#elif defined(__AVX__)
#define KB__CPU_NT 32
#define kb__cpu_nt_store(d, s)                                                                     \
    _mm256_stream_si256((__m256i *)(d), _mm256_loadu_si256((const __m256i *)(s)))
#elif defined(__SSE2__)
#define KB__CPU_NT 16
#define kb__cpu_nt_store(d, s)                                                                     \
    _mm_stream_si128((__m128i *)(d), _mm_loadu_si128((const __m128i *)(s)))
#endif
static inline void kb__cpu_stream_bytes(void *restrict dst, const void *restrict src,
                                        size_t bytes) {
    char *d = dst;
    const char *s = src;
    size_t i = 0;
#ifdef KB__CPU_NT
    i = (KB__CPU_NT - ((uintptr_t)d & (KB__CPU_NT - 1))) & (KB__CPU_NT - 1);
    i = i < bytes ? i : bytes;
    memcpy(d, s, i);
    for (; i + KB__CPU_NT <= bytes; i += KB__CPU_NT) kb__cpu_nt_store(d + i, s + i);
#endif
    memcpy(d + i, s + i, bytes - i);
}
#undef KB__CPU_NT
#undef kb__cpu_nt_store

static inline void kb_cpu_stream_f32(float *restrict dst, const float *restrict src, size_t n) {
    kb__cpu_stream_bytes(dst, src, n * sizeof *dst);
}

static inline void kb_cpu_stream_f64(double *restrict dst, const double *restrict src, size_t n) {
    kb__cpu_stream_bytes(dst, src, n * sizeof *dst);
}

/* Orders the non-temporal stores before whatever follows the kernel. */
static inline void kb_cpu_stream_fence(void) {
#ifdef __SSE2__
    _mm_sfence();
#endif
}

/* Partial sums for reductions: a float or double sum loop only vectorises when
 * the compiler may reassociate (-ffast-math), but a loop that adds element
 * i + j into acc[j], j < KB_CPU_LANES, vectorises as written (and is more
 * accurate). 32 lanes fill two to four vector registers, enough independent
 * additions to hide the add latency. */
#define KB_CPU_LANES 32

/* The total of acc[0 .. KB_CPU_LANES), summed by halving (a tree that
 * vectorises); acc is overwritten. */
static inline float kb_cpu_lanes_sum_f32(float *acc) {
#pragma GCC unroll 8
    for (size_t w = KB_CPU_LANES / 2; w > 0; w /= 2)
        for (size_t j = 0; j < w; j++) acc[j] += acc[j + w];
    return acc[0];
}

static inline double kb_cpu_lanes_sum_f64(double *acc) {
#pragma GCC unroll 8
    for (size_t w = KB_CPU_LANES / 2; w > 0; w /= 2)
        for (size_t j = 0; j < w; j++) acc[j] += acc[j + w];
    return acc[0];
}

/* The largest of x[0 .. n), n >= 1, NaN aside. A float max loop
 * (x > m ? x : m) does not vectorise without -ffinite-math-only; an integer
 * one does. Flipping the magnitude bits of a negative float's pattern makes
 * int32 order float order, and flipping again restores the float. */
static inline uint32_t kb__cpu_flip(uint32_t u) {
    return u ^ (u >> 31 ? 0x7fffffffu : 0u);
}

/* The same for double, on int64 patterns (AVX2 compares int64 lanes). */
static inline uint64_t kb__cpu_flip64(uint64_t u) {
    return u ^ (u >> 63 ? 0x7fffffffffffffffu : 0u);
}

/* kb_cpu_max_*: the largest flipped pattern (I, signed; U, its unsigned
 * type), lane j taking elements i + j as the sums do (a maximum does not
 * depend on the order), then the tail. The _ahead form asks for next[0 ..
 * n) as it goes when next is not NULL (kb__cpu_ask). */
#define KB__CPU_MAX(T, SUFFIX, I, U, FLIP, TO_BITS, FROM_BITS, IMIN)                               \
    static inline T kb_cpu_max_ahead_##SUFFIX(const T *restrict x, size_t n, const void *next) {   \
        const size_t nv = n - n % KB_CPU_LANES;                                                    \
        I acc[KB_CPU_LANES];                                                                       \
        for (size_t j = 0; j < KB_CPU_LANES; j++) acc[j] = IMIN;                                   \
        for (size_t i = 0; i < nv; i += KB_CPU_LANES) {                                            \
            kb__cpu_ask(next, i * sizeof(T), (i + KB_CPU_LANES) * sizeof(T));                      \
            for (size_t j = 0; j < KB_CPU_LANES; j++) {                                            \
                const I k = (I)FLIP(TO_BITS(x[i + j]));                                            \
                acc[j] = k > acc[j] ? k : acc[j];                                                  \
            }                                                                                      \
        }                                                                                          \
        kb__cpu_ask(next, nv * sizeof(T), n * sizeof(T));                                          \
        I m = acc[0];                                                                              \
        for (size_t j = 1; j < KB_CPU_LANES; j++) m = acc[j] > m ? acc[j] : m;                     \
        for (size_t i = nv; i < n; i++) {                                                          \
            const I k = (I)FLIP(TO_BITS(x[i]));                                                    \
            m = k > m ? k : m;                                                                     \
        }                                                                                          \
        return FROM_BITS(FLIP((U)m));                                                              \
    }                                                                                              \
    static inline T kb_cpu_max_##SUFFIX(const T *restrict x, size_t n) {                           \
        return kb_cpu_max_ahead_##SUFFIX(x, n, NULL);                                              \
    }
KB__CPU_MAX(float, f32, int32_t, uint32_t, kb__cpu_flip, kb_f32_to_bits, kb_bits_to_f32, INT32_MIN)
KB__CPU_MAX(double, f64, int64_t, uint64_t, kb__cpu_flip64, kb_f64_to_bits, kb_bits_to_f64,
            INT64_MIN)

/* The same on fp16/bf16 patterns, whose sign and magnitude bits lie as a
 * float's do: flipped, int16 order is their order. */
static inline uint16_t kb__cpu_flip16(uint16_t u) {
    return (uint16_t)(u ^ (u >> 15 ? 0x7fffu : 0u));
}

/* The largest of n >= 1 fp16/bf16 values x (p), widened: the largest
 * flipped 16-bit pattern, so that a row is reduced before it is widened (and
 * kb/cpu/paths.h's kb_cpu_max_halfv, 16 bits to a lane, finds the same one).
 * Widening keeps the order, so NaN aside this is kb_cpu_max_f32 of the
 * widened row; where the row holds NaNs of positive sign it is the widened
 * NaN of the largest 16-bit pattern. */
static inline float kb_cpu_max_half(const uint16_t *x, kb_prec p, size_t n) {
    int16_t m = INT16_MIN;
    for (size_t i = 0; i < n; i++) {
        const int16_t k = (int16_t)kb__cpu_flip16(x[i]);
        m = k > m ? k : m;
    }
    const uint16_t top = kb__cpu_flip16((uint16_t)m);
    float f;
    kb_cpu_to_f32(&f, &top, p, 0, 1);
    return f;
}

/* The sum of x[0 .. n) in KB_CPU_LANES partial sums, then the tail; the
 * _ahead form asks for next[0 .. n) as it goes when next is not NULL
 * (kb__cpu_ask). */
#define KB__CPU_SUM(T, SUFFIX)                                                                     \
    static inline T kb_cpu_sum_ahead_##SUFFIX(const T *restrict x, size_t n, const void *next) {   \
        const size_t nv = n - n % KB_CPU_LANES;                                                    \
        T acc[KB_CPU_LANES] = {0};                                                                 \
        for (size_t i = 0; i < nv; i += KB_CPU_LANES) {                                            \
            kb__cpu_ask(next, i * sizeof(T), (i + KB_CPU_LANES) * sizeof(T));                      \
            for (size_t j = 0; j < KB_CPU_LANES; j++) acc[j] += x[i + j];                          \
        }                                                                                          \
        kb__cpu_ask(next, nv * sizeof(T), n * sizeof(T));                                          \
        T sum = kb_cpu_lanes_sum_##SUFFIX(acc);                                                    \
        for (size_t i = nv; i < n; i++) sum += x[i];                                               \
        return sum;                                                                                \
    }                                                                                              \
    static inline T kb_cpu_sum_##SUFFIX(const T *restrict x, size_t n) {                           \
        return kb_cpu_sum_ahead_##SUFFIX(x, n, NULL);                                              \
    }
KB__CPU_SUM(float, f32)
KB__CPU_SUM(double, f64)

/* y = f(x) for n fp16/bf16 elements, through float scratch blocks of
 * KB_CPU_MAP_BLOCK elements. f is an elementwise float block function; called
 * with a constant f this inlines to a direct call per block. */
static inline void kb_cpu_map_f32(void (*f)(const float *restrict, float *restrict, size_t),
                                  kb_prec p, const void *x, void *y, size_t n) {
    float xf[KB_CPU_MAP_BLOCK], yf[KB_CPU_MAP_BLOCK];
    for (size_t off = 0; off < n; off += KB_CPU_MAP_BLOCK) {
        size_t m = n - off < KB_CPU_MAP_BLOCK ? n - off : KB_CPU_MAP_BLOCK;
        kb_cpu_to_f32(xf, x, p, off, m);
        f(xf, yf, m);
        kb_cpu_from_f32(y, p, off, yf, m);
    }
}

/* One precision's path of a CPU implementation: the run's arguments and the
 * implementation's own parameters (its dimensions, its variant). Returns 0,
 * or kb_unsupported() for a case it cannot run. */
typedef int (*kb_cpu_path)(const kb_args *a, const void *params);

/* The paths of an implementation, one per way of computing: in double, in
 * float, and for fp16/bf16 (the storage formats with no arithmetic of their
 * own, computed in float). NULL: no such path. */
typedef struct kb_cpu_paths {
    kb_cpu_path f64, f32, half;
} kb_cpu_paths;

/* The CPU counterpart of kb_gpu_dispatch (kb/gpu.h): runs the path for the
 * run's precision with `params`, or declines the case with kb_unsupported()
 * naming the precision when there is none. */
static inline int kb_cpu_dispatch(const kb_args *a, const kb_cpu_paths *paths, const void *params) {
    kb_cpu_path path = NULL;
    switch (a->prec) {
    case KB_FP64: path = paths->f64; break;
    case KB_FP32: path = paths->f32; break;
    case KB_FP16:
    case KB_BF16: path = paths->half; break;
    default: break;
    }
    if (path) return path(a, params);
    const char *name = kb_prec_name(a->prec);
    if (!name)
        return kb_unsupported("no cpu implementation for precision %d (not a precision)",
                              (int)a->prec);
    return kb_unsupported("no cpu implementation for precision %s", name);
}

/* An elementwise kernel: its block functions and the element count. */
typedef struct kb__cpu_map {
    void (*f32)(const float *restrict, float *restrict, size_t);
    void (*f64)(const double *restrict, double *restrict, size_t);
    void (*half)(const float *restrict, float *restrict, size_t);
    size_t n;
} kb__cpu_map;

static inline int kb__cpu_map_f64(const kb_args *a, const void *params) {
    const kb__cpu_map *m = params;
    m->f64(a->in[0], a->out[0], m->n);
    return 0;
}

static inline int kb__cpu_map_f32(const kb_args *a, const void *params) {
    const kb__cpu_map *m = params;
    m->f32(a->in[0], a->out[0], m->n);
    return 0;
}

static inline int kb__cpu_map_half(const kb_args *a, const void *params) {
    const kb__cpu_map *m = params;
    kb_cpu_map_f32(m->half, a->prec, a->in[0], a->out[0], m->n);
    return 0;
}

/* An elementwise kernel in any precision: f64 on doubles, f32 on floats and
 * half, through kb_cpu_map_f32, on fp16/bf16. half may be a cheaper float
 * function than f32, whose error is small next to the rounding to 16 bits
 * (kb/vmath/vmath.h's *_half functions), or f32 itself. */
static inline int
kb_cpu_elementwise_half(const kb_args *a,
                        void (*f32)(const float *restrict, float *restrict, size_t),
                        void (*f64)(const double *restrict, double *restrict, size_t),
                        void (*half)(const float *restrict, float *restrict, size_t), size_t n) {
    static const kb_cpu_paths paths = {kb__cpu_map_f64, kb__cpu_map_f32, kb__cpu_map_half};
    const kb__cpu_map m = {f32, f64, half, n};
    return kb_cpu_dispatch(a, &paths, &m);
}

/* The same with f32 for fp16/bf16 too. */
static inline int kb_cpu_elementwise(const kb_args *a,
                                     void (*f32)(const float *restrict, float *restrict, size_t),
                                     void (*f64)(const double *restrict, double *restrict, size_t),
                                     size_t n) {
    return kb_cpu_elementwise_half(a, f32, f64, f32, n);
}

#endif
