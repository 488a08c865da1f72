/* SLEEF's vector functions at the widest vectors this build's ISA has,
 * one step of a loop over arrays: SLEEF_F64(exp, x, y, i) computes
 * y[i .. i + SLEEF_F64_WIDTH) = exp(x[i ..]) with Sleef_expd<W>_u10 (1.0-ulp
 * accuracy), and likewise SLEEF_F32. Without x86 vectors, one element with
 * SLEEF's scalar function. */
#ifndef SLEEF_VEC_H
#define SLEEF_VEC_H

#include <sleef.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#if defined(__AVX512F__)
#define SLEEF_F64_WIDTH 8
#define SLEEF_F64(fn, x, y, i)                                                                     \
    _mm512_storeu_pd((y) + (i), Sleef_##fn##d8_u10(_mm512_loadu_pd((x) + (i))))
#define SLEEF_F32_WIDTH 16
#define SLEEF_F32(fn, x, y, i)                                                                     \
    _mm512_storeu_ps((y) + (i), Sleef_##fn##f16_u10(_mm512_loadu_ps((x) + (i))))
#elif defined(__AVX__)
#define SLEEF_F64_WIDTH 4
#define SLEEF_F64(fn, x, y, i)                                                                     \
    _mm256_storeu_pd((y) + (i), Sleef_##fn##d4_u10(_mm256_loadu_pd((x) + (i))))
#define SLEEF_F32_WIDTH 8
#define SLEEF_F32(fn, x, y, i)                                                                     \
    _mm256_storeu_ps((y) + (i), Sleef_##fn##f8_u10(_mm256_loadu_ps((x) + (i))))
#elif defined(__SSE2__)
#define SLEEF_F64_WIDTH        2
#define SLEEF_F64(fn, x, y, i) _mm_storeu_pd((y) + (i), Sleef_##fn##d2_u10(_mm_loadu_pd((x) + (i))))
#define SLEEF_F32_WIDTH        4
#define SLEEF_F32(fn, x, y, i) _mm_storeu_ps((y) + (i), Sleef_##fn##f4_u10(_mm_loadu_ps((x) + (i))))
#else
#define SLEEF_F64_WIDTH        1
#define SLEEF_F64(fn, x, y, i) ((y)[i] = Sleef_##fn##_u10((x)[i]))
#define SLEEF_F32_WIDTH        1
#define SLEEF_F32(fn, x, y, i) ((y)[i] = Sleef_##fn##f_u10((x)[i]))
#endif

#endif
