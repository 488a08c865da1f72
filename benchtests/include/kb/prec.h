/* Storage precisions and their conversions to and from float/double.
 *
 * fp16 and bf16 are storage formats: kernels load them into float, compute in
 * float and round back on store (round to nearest even, NaN kept a NaN). */
#ifndef KB_PREC_H
#define KB_PREC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The conversions below are also device functions in a GPU source (nvcc or
 * hipcc, which define __host__/__device__ before this header is read). */
#if defined(__CUDACC__) || defined(__HIPCC__)
#define KB_HD __host__ __device__
#else
#define KB_HD
#endif

typedef enum kb_prec { KB_FP64 = 0, KB_FP32, KB_FP16, KB_BF16, KB_PREC_COUNT } kb_prec;

/* "fp64" ... "bf16"; NULL for an out-of-range value. */
const char *kb_prec_name(kb_prec p);
/* Parses a precision name; returns -1 when the name is unknown. */
int kb_prec_parse(const char *name);
/* Bytes per element. */
size_t kb_prec_size(kb_prec p);

KB_HD static inline float kb_bits_to_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

KB_HD static inline uint32_t kb_f32_to_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

KB_HD static inline double kb_bits_to_f64(uint64_t u) {
    double f;
    memcpy(&f, &u, sizeof f);
    return f;
}

KB_HD static inline uint64_t kb_f64_to_bits(double f) {
    uint64_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

KB_HD static inline float kb_bf16_to_f32(uint16_t h) {
    return kb_bits_to_f32((uint32_t)h << 16);
}

KB_HD static inline uint16_t kb_f32_to_bf16(float f) {
    uint32_t u = kb_f32_to_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep it quiet and a NaN */
        return (uint16_t)((u >> 16) | 0x0040u);
    u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even */
    return (uint16_t)(u >> 16);
}

/* _Float16 where the target converts it in hardware (F16C on x86; other
 * targets that have the type convert it by instruction). On an x86 without
 * F16C, the harness's own build, GCC converts _Float16 through libgcc's
 * soft-float routines, which raise the IEEE flags by executing float
 * operations: widening and narrowing a case's fp16 inputs, outputs and
 * reference took most of an fp16 driver's time (softmax's three cases 2.7 s
 * against 1.0 s for bf16), where the bit manipulation below takes a few
 * instructions. Both give the same values; a NaN stays a NaN. */
static inline float kb__f16_to_f32_bits(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    if (exp == 0x1f) /* inf / NaN */
        return kb_bits_to_f32(sign | 0x7f800000u | (man << 13));
    if (exp == 0) { /* zero / subnormal: exact in float */
        float v = (float)man * 0x1p-24f;
        return sign ? -v : v;
    }
    return kb_bits_to_f32(sign | ((exp + 112u) << 23) | (man << 13));
}

static inline uint16_t kb__f32_to_f16_bits(float f) {
    uint32_t u = kb_f32_to_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds to inf */
    if (a < 0x38800000u) {                                   /* result is subnormal or zero */
        float v = kb_bits_to_f32(a) * 0x1p24f;               /* exact scale into integer range */
        uint32_t i = (uint32_t)v;
        float r = v - (float)i;                   /* exact: v < 1024 */
        i += r > 0.5f || (r == 0.5f && (i & 1u)); /* round half to even */
        return (uint16_t)(sign | i);
    }
    a += 0xfffu + ((a >> 13) & 1u) - (112u << 23);
    return (uint16_t)(sign | (a >> 13));
}

#if defined(__FLT16_MAX__) && !defined(KB_NO_FLOAT16) &&                                           \
    (defined(__F16C__) || !(defined(__x86_64__) || defined(__i386__)))
#define KB__F16_NATIVE 1
/* It is an ISO C extension: __extension__ keeps a consumer's -Wpedantic
 * quiet. */
static inline float kb__f16_to_f32_native(uint16_t h) {
    __extension__ _Float16 v;
    memcpy(&v, &h, sizeof v);
    return (float)v;
}

static inline uint16_t kb__f32_to_f16_native(float f) {
    __extension__ _Float16 v = (_Float16)f;
    uint16_t h;
    memcpy(&h, &v, sizeof h);
    return h;
}
#else
#define KB__F16_NATIVE 0
#endif

/* One definition of each, whichever way it converts: the same function at
 * two places of this header, in programs built both ways, is more than a
 * coverage tool (gcovr) can merge. */
static inline float kb_f16_to_f32(uint16_t h) {
#if KB__F16_NATIVE
    return kb__f16_to_f32_native(h);
#else
    return kb__f16_to_f32_bits(h);
#endif
}

static inline uint16_t kb_f32_to_f16(float f) {
#if KB__F16_NATIVE
    return kb__f32_to_f16_native(f);
#else
    return kb__f32_to_f16_bits(f);
#endif
}

/* Conversions of one element stored at p[i] in precision prec. */
static inline double kb_load_f64(const void *p, kb_prec prec, size_t i) {
    switch (prec) {
    case KB_FP64: return ((const double *)p)[i];
    case KB_FP32: return ((const float *)p)[i];
    case KB_FP16: return kb_f16_to_f32(((const uint16_t *)p)[i]);
    case KB_BF16: return kb_bf16_to_f32(((const uint16_t *)p)[i]);
    default: return 0.0;
    }
}

static inline void kb_store_f64(void *p, kb_prec prec, size_t i, double v) {
    switch (prec) {
    case KB_FP64: ((double *)p)[i] = v; break;
    case KB_FP32: ((float *)p)[i] = (float)v; break;
    case KB_FP16: ((uint16_t *)p)[i] = kb_f32_to_f16((float)v); break;
    case KB_BF16: ((uint16_t *)p)[i] = kb_f32_to_bf16((float)v); break;
    default: break;
    }
}

#ifdef __cplusplus
}
#endif

#endif
