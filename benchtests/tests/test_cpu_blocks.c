/* kb/cpu.h's block helpers. The conversions between fp16/bf16 storage and
 * float against kb/prec.h's one-element conversions, bit for bit: widening
 * every one of the 65536 patterns, and rounding every float that a 16-bit
 * value, a midpoint between two neighbours (the ties) or a point near one
 * widens from. The row maxima (integer compares on flipped patterns) against
 * a plain comparison loop, signs and zeros included. The streaming copies
 * (non-temporal stores past an unaligned head) against the source, at every
 * alignment and length around the 32-byte chunks, touching nothing around.
 * The first passes that ask for the next row against the plain ones.
 * Built twice: with the compiler's defaults (the scalar loops; test
 * kbench.unit.cpu_blocks) and with the kernels' flags (F16C and vector
 * loops where the machine has them; kbench.unit.cpu_blocks_native). */
#include "kb/cpu.h"
#include "kb_test.h"

#include <math.h>
#include <stdio.h>

#define PATTERNS 65536

/* Both sides equal, or both NaN (a NaN's payload may differ). */
static int same_f32(float a, float b) {
    return (isnan(a) && isnan(b)) || kb_f32_to_bits(a) == kb_f32_to_bits(b);
}

static int is_nan16(kb_prec p, uint16_t h) {
    return p == KB_FP16 ? (h & 0x7fffu) > 0x7c00u : (h & 0x7fffu) > 0x7f80u;
}

static float widen(kb_prec p, uint16_t h) {
    return p == KB_FP16 ? kb_f16_to_f32(h) : kb_bf16_to_f32(h);
}

static uint16_t narrow(kb_prec p, float f) {
    return p == KB_FP16 ? kb_f32_to_f16(f) : kb_f32_to_bf16(f);
}

/* Every pattern through kb_cpu_to_f32 but the first three and last two, at
 * an odd offset and a length that is not a multiple of 8, so that the
 * vector loop's tail runs too. */
static void check_widen(kb_prec p) {
    static uint16_t h[PATTERNS];
    static float f[PATTERNS];
    for (size_t i = 0; i < PATTERNS; i++) h[i] = (uint16_t)i;
    kb_cpu_to_f32(f, h, p, 3, PATTERNS - 5);
    size_t bad = 0;
    for (size_t i = 0; i < PATTERNS - 5; i++) bad += !same_f32(f[i], widen(p, h[i + 3]));
    ASSERT_INT_EQ(bad, 0);
}

/* NaNs whose payload is not that of a widened 16-bit value (low bits set,
 * all ones, signalling), where narrowing must still give a quiet NaN:
 * without the NaN case, rounding carries 0x7f800001 to inf and 0x7fffffff,
 * 0xffffffff to zero. */
static const uint32_t odd_nans[] = {0x7f800001u, 0x7f80ffffu, 0x7fbfffffu, 0x7fffffffu, 0xff800001u,
                                    0xffc00001u, 0xffffffffu, 0x7fc00000u, 0x7fa00000u};
#define ODD_NANS (sizeof odd_nans / sizeof odd_nans[0])

/* Floats to round: each 16-bit value widened, the midpoint to its upper
 * neighbour and the floats one ulp either side of that midpoint, then the
 * odd NaNs; the length is not a multiple of 8 (the vector loop's tail). A
 * bf16 result must equal the scalar one bit for bit (kb_f32_to_bf16 defines
 * its NaN too), an fp16 NaN only be a NaN (F16C and the compiler's
 * conversion may keep different payloads). */
static void check_narrow(kb_prec p) {
    enum { n = 4 * PATTERNS + ODD_NANS };
    static float f[n];
    static uint16_t h[n + 5];
    for (size_t i = 0; i < PATTERNS; i++) {
        float v = widen(p, (uint16_t)i), up = widen(p, (uint16_t)(i + 1));
        float mid = isfinite(v) && isfinite(up) ? v + (up - v) / 2 : v;
        f[4 * i] = v;
        f[4 * i + 1] = mid;
        f[4 * i + 2] = nextafterf(mid, -INFINITY);
        f[4 * i + 3] = nextafterf(mid, INFINITY);
    }
    for (size_t i = 4 * PATTERNS; i < n; i++) f[i] = kb_bits_to_f32(odd_nans[i - 4 * PATTERNS]);
    kb_cpu_from_f32(h, p, 5, f, n);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint16_t want = narrow(p, f[i]), got = h[i + 5];
        bad += p == KB_FP16 && is_nan16(p, want) ? !is_nan16(p, got) : got != want;
    }
    ASSERT_INT_EQ(bad, 0);
    if (p == KB_BF16) /* the scalar side itself: quiet NaNs */
        for (size_t i = 0; i < ODD_NANS; i++)
            ASSERT(is_nan16(p, narrow(p, kb_bits_to_f32(odd_nans[i]))));
}

static void test_f16_widen(void) {
    check_widen(KB_FP16);
}
static void test_bf16_widen(void) {
    check_widen(KB_BF16);
}
static void test_f16_narrow(void) {
    check_narrow(KB_FP16);
}
static void test_bf16_narrow(void) {
    check_narrow(KB_BF16);
}

/* Maxima of rows of mixed signs, zeros and magnitudes, at every length up to
 * 70 (past the vector width, with tails), against x > m ? x : m. */
static void test_max(void) {
    static const double v[] = {-0.0, 0.0, -1.5, 2.25, -1e300, 1e-300, -3.0, 7.0, -7.5, 1e300};
    double d[70];
    float f[70];
    for (size_t start = 0; start < 10; start++)
        for (size_t n = 1; n <= 70; n++) {
            for (size_t i = 0; i < n; i++) {
                d[i] = v[(start + i * 7) % 10] * (double)(i % 5 + 1);
                f[i] = (float)(v[(start + i * 3) % 10] / 1e280) * (float)(i % 5 + 1);
            }
            double want = d[0];
            float wantf = f[0];
            for (size_t i = 1; i < n; i++) {
                want = d[i] > want ? d[i] : want;
                wantf = f[i] > wantf ? f[i] : wantf;
            }
            ASSERT(kb_cpu_max_f64(d, n) == want);
            ASSERT(kb_cpu_max_f32(f, n) == wantf);
        }
    /* All negative: the largest is the one nearest 0. */
    double neg[] = {-5.0, -0.25, -3.0, -1e-300, -7.0};
    ASSERT(kb_cpu_max_f64(neg, 5) == -1e-300);
}

/* Every start offset within 64 bytes (the widest stores: AVX-512) and every
 * length up to 40 elements: the copy is exact and the elements just outside
 * it are untouched. */
static void test_stream_copies(void) {
    static float f_src[48], f_dst[48 + 24] __attribute__((aligned(64)));
    static double d_src[48], d_dst[48 + 16] __attribute__((aligned(64)));
    for (size_t i = 0; i < 48; i++) {
        f_src[i] = (float)i + 0.5f;
        d_src[i] = (double)i + 0.25;
    }
    for (size_t off = 0; off < 16; off++)
        for (size_t n = 0; n <= 40; n++) {
            const int doubles = off < 8;
            for (size_t i = 0; i < 48 + 24; i++) f_dst[i] = -1.0f;
            for (size_t i = 0; i < 48 + 16; i++) d_dst[i] = -1.0;
            kb_cpu_stream_f32(f_dst + 1 + off, f_src, n);
            if (doubles) kb_cpu_stream_f64(d_dst + 1 + off, d_src, n);
            kb_cpu_stream_fence();
            for (size_t i = 0; i < n; i++) {
                ASSERT(f_dst[1 + off + i] == f_src[i]);
                ASSERT(!doubles || d_dst[1 + off + i] == d_src[i]);
            }
            ASSERT(f_dst[off] == -1.0f && f_dst[1 + off + n] == -1.0f);
            ASSERT(d_dst[off % 8] == -1.0 && (!doubles || d_dst[1 + off + n] == -1.0));
        }
}

/* The float first passes that ask for the next row as they go give the
 * plain passes' results bit for bit, with and without a next row, at every
 * length around the 32-lane blocks; kb_cpu_next_row is NULL after the last
 * row. And the 16-bit widening, at an odd offset and every length up to
 * 100, against the one-value conversions. */
static void test_ahead(void) {
    enum { N = 100 };
    static float f[2 * N], wf[N], gf[N];
    static double d[2 * N];
    static uint16_t h[2 * N];
    for (size_t i = 0; i < 2 * N; i++) {
        f[i] = (float)sin((double)i * 0.37) * 1e3f;
        d[i] = cos((double)i * 0.61) * 1e-3;
        h[i] = (uint16_t)(i * 2654435761u >> 7);
    }
    for (size_t n = 1; n <= N; n++) {
        ASSERT(kb_f32_to_bits(kb_cpu_sum_ahead_f32(f, n, f + n)) ==
               kb_f32_to_bits(kb_cpu_sum_f32(f, n)));
        ASSERT(kb_f64_to_bits(kb_cpu_sum_ahead_f64(d, n, d + n)) ==
               kb_f64_to_bits(kb_cpu_sum_f64(d, n)));
        ASSERT(kb_cpu_max_ahead_f32(f, n, f + n) == kb_cpu_max_f32(f, n));
        double naive = 0.0;
        float top = f[0];
        for (size_t i = 0; i < n; i++) {
            naive += f[i];
            top = f[i] > top ? f[i] : top;
        }
        ASSERT(fabs(kb_cpu_sum_ahead_f32(f, n, f + n) - naive) <= 1e-3 * (double)n);
        ASSERT(kb_cpu_max_ahead_f32(f, n, f + n) == top);
        ASSERT(kb_cpu_max_ahead_f64(d, n, NULL) == kb_cpu_max_f64(d, n));
        for (int p = 0; p < 2; p++) {
            const kb_prec prec = p ? KB_BF16 : KB_FP16;
            kb_cpu_to_f32(gf, h, prec, 3, n);
            for (size_t i = 0; i < n; i++) wf[i] = widen(prec, h[3 + i]);
            for (size_t i = 0; i < n; i++) ASSERT(same_f32(gf[i], wf[i]));
        }
    }
    ASSERT(kb_cpu_next_row(f, 0, 2, 8) == (const void *)((const char *)f + 8));
    ASSERT(kb_cpu_next_row(f, 1, 2, 8) == NULL);
}

/* Streaming is for outputs larger than half the last cache (with as much
 * input, more than all of it), made of rows of whole cache lines from a
 * line-aligned start, and never when the cache size is unknown. */
static void test_streams_rows(void) {
    static _Alignas(64) char out[128];
    kb_args a = {0};
    ASSERT_INT_EQ(kb_cpu_streams_rows(&a, out, 4096, (size_t)1 << 30), 0);
    a.last_cache_bytes = 8192;
    ASSERT_INT_EQ(kb_cpu_streams_rows(&a, out, 1024, 4), 0); /* = half the cache */
    ASSERT_INT_EQ(kb_cpu_streams_rows(&a, out, 1024, 5), 1);
    ASSERT_INT_EQ(kb_cpu_streams_rows(&a, out, 1000, 5), 0);     /* rows end inside lines */
    ASSERT_INT_EQ(kb_cpu_streams_rows(&a, out + 4, 1024, 5), 0); /* start inside a line */
    ASSERT_INT_EQ(kb_cpu_streams_rows(&a, out, 0, 5), 0);
}

int main(void) {
#ifdef __F16C__
    printf("fp16 through F16C\n");
#else
    printf("fp16 through the scalar conversions\n");
#endif
    RUN_TEST(test_f16_widen);
    RUN_TEST(test_bf16_widen);
    RUN_TEST(test_f16_narrow);
    RUN_TEST(test_bf16_narrow);
    RUN_TEST(test_max);
    RUN_TEST(test_stream_copies);
    RUN_TEST(test_ahead);
    RUN_TEST(test_streams_rows);
    return kb_test_summary();
}
