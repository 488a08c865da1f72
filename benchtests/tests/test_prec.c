/* Precision names and the fp16 / bf16 storage conversions. */
#include "kb/prec.h"
#include "kb_test.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

/* x * 2^e without relying on the exact-literal spelling. */
static float p2(float x, int e) {
    return ldexpf(x, e);
}

static int f16_is_nan(uint16_t h) {
    return (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu) != 0;
}
static int bf16_is_nan(uint16_t h) {
    return (h & 0x7f80u) == 0x7f80u && (h & 0x007fu) != 0;
}

static void test_names(void) {
    ASSERT_INT_EQ(kb_prec_parse("fp64"), KB_FP64);
    ASSERT_INT_EQ(kb_prec_parse("fp32"), KB_FP32);
    ASSERT_INT_EQ(kb_prec_parse("fp16"), KB_FP16);
    ASSERT_INT_EQ(kb_prec_parse("bf16"), KB_BF16);
    ASSERT_INT_EQ(kb_prec_parse("fp8"), -1);
    ASSERT_INT_EQ(kb_prec_parse("FP32"), -1); /* names are case-sensitive */
    ASSERT_INT_EQ(kb_prec_parse("fp3"), -1);
    ASSERT_INT_EQ(kb_prec_parse("fp321"), -1);
    ASSERT_INT_EQ(kb_prec_parse(""), -1);
    ASSERT_INT_EQ(kb_prec_parse(NULL), -1);
    for (int p = 0; p < KB_PREC_COUNT; ++p)
        ASSERT_INT_EQ(kb_prec_parse(kb_prec_name((kb_prec)p)), p);
    ASSERT(kb_prec_name(KB_PREC_COUNT) == NULL);
    ASSERT(kb_prec_name((kb_prec)-1) == NULL);
}

static void test_sizes(void) {
    ASSERT_INT_EQ(kb_prec_size(KB_FP64), 8);
    ASSERT_INT_EQ(kb_prec_size(KB_FP32), 4);
    ASSERT_INT_EQ(kb_prec_size(KB_FP16), 2);
    ASSERT_INT_EQ(kb_prec_size(KB_BF16), 2);
    ASSERT_INT_EQ(kb_prec_size(KB_PREC_COUNT), 0);
    ASSERT_INT_EQ(kb_prec_size((kb_prec)-1), 0);
}

static void test_f16_exact_values(void) {
    ASSERT_INT_EQ(kb_f32_to_f16(1.0f), 0x3c00);
    ASSERT_INT_EQ(kb_f32_to_f16(-2.0f), 0xc000);
    ASSERT_INT_EQ(kb_f32_to_f16(0.0f), 0x0000);
    ASSERT_INT_EQ(kb_f32_to_f16(-0.0f), 0x8000);
    ASSERT_INT_EQ(kb_f32_to_f16(0.5f), 0x3800);
    ASSERT_INT_EQ(kb_f32_to_f16(65504.0f), 0x7bff);         /* largest finite */
    ASSERT_INT_EQ(kb_f32_to_f16(p2(1.0f, -14)), 0x0400);    /* smallest normal */
    ASSERT_INT_EQ(kb_f32_to_f16(p2(1.0f, -24)), 0x0001);    /* smallest subnormal */
    ASSERT_INT_EQ(kb_f32_to_f16(p2(1023.0f, -24)), 0x03ff); /* largest subnormal */
    ASSERT_INT_EQ(kb_f32_to_f16(-p2(1.0f, -24)), 0x8001);
    ASSERT_INT_EQ(kb_f32_to_f16(p2(1.0f, -30)), 0x0000); /* underflows to zero */
    ASSERT_INT_EQ(kb_f32_to_f16(1e6f), 0x7c00);          /* overflows to inf */
    ASSERT_INT_EQ(kb_f32_to_f16(-1e6f), 0xfc00);
    ASSERT_INT_EQ(kb_f32_to_f16(INFINITY), 0x7c00);
    ASSERT_INT_EQ(kb_f32_to_f16(FLT_MAX), 0x7c00);
    ASSERT(f16_is_nan(kb_f32_to_f16(NAN)));
    ASSERT(f16_is_nan(kb_f32_to_f16(-NAN)));
    /* A float NaN whose payload lives only in the low mantissa bits must not
     * be truncated to an infinity. */
    ASSERT(f16_is_nan(kb_f32_to_f16(kb_bits_to_f32(0x7f800001u))));

    ASSERT_NEAR(kb_f16_to_f32(0x3c00), 1.0, 0);
    ASSERT_NEAR(kb_f16_to_f32(0xc000), -2.0, 0);
    ASSERT_NEAR(kb_f16_to_f32(0x7bff), 65504.0, 0);
    ASSERT_NEAR(kb_f16_to_f32(0x0001), ldexp(1.0, -24), 0);
    ASSERT_NEAR(kb_f16_to_f32(0x3555), 0.333251953125, 0); /* 1365/4096 */
    ASSERT(isinf(kb_f16_to_f32(0x7c00)) && kb_f16_to_f32(0x7c00) > 0);
    ASSERT(isinf(kb_f16_to_f32(0xfc00)) && kb_f16_to_f32(0xfc00) < 0);
    ASSERT(isnan(kb_f16_to_f32(0x7e00)));
    ASSERT(isnan(kb_f16_to_f32(0x7c01)));
    ASSERT(signbit(kb_f16_to_f32(0x8000)));
}

static void test_f16_round_to_nearest_even(void) {
    /* Near 1 an fp16 step is 2^-10; 2^-11 is exactly half a step. */
    ASSERT_INT_EQ(kb_f32_to_f16(1.0f + p2(1, -11)), 0x3c00);              /* tie -> even 0x3c00 */
    ASSERT_INT_EQ(kb_f32_to_f16(1.0f + p2(3, -11)), 0x3c02);              /* tie -> even 0x3c02 */
    ASSERT_INT_EQ(kb_f32_to_f16(1.0f + p2(1, -11) + p2(1, -20)), 0x3c01); /* above the tie */
    ASSERT_INT_EQ(kb_f32_to_f16(1.0f + p2(1, -11) - p2(1, -20)), 0x3c00); /* below it */
    ASSERT_INT_EQ(kb_f32_to_f16(-(1.0f + p2(1, -11))), 0xbc00);
    ASSERT_INT_EQ(kb_f32_to_f16(-(1.0f + p2(3, -11))), 0xbc02);
    /* 65520 is halfway between 65504 (mantissa odd) and 65536 (inf). */
    ASSERT_INT_EQ(kb_f32_to_f16(65520.0f), 0x7c00);
    ASSERT_INT_EQ(kb_f32_to_f16(65519.0f), 0x7bff);
    /* Subnormals: a step is 2^-24. */
    ASSERT_INT_EQ(kb_f32_to_f16(p2(1, -25)), 0x0000); /* 0.5 steps -> even 0 */
    ASSERT_INT_EQ(kb_f32_to_f16(p2(3, -25)), 0x0002); /* 1.5 steps -> even 2 */
    ASSERT_INT_EQ(kb_f32_to_f16(p2(5, -25)), 0x0002); /* 2.5 steps -> even 2 */
    ASSERT_INT_EQ(kb_f32_to_f16(p2(1, -25) + p2(1, -40)), 0x0001);
    /* Halfway between the largest subnormal and the smallest normal
     * (1023.5 steps) rounds up to the even 0x0400. */
    ASSERT_INT_EQ(kb_f32_to_f16(p2(2047, -25)), 0x0400);
}

static void test_bf16_values_and_ties(void) {
    ASSERT_INT_EQ(kb_f32_to_bf16(1.0f), 0x3f80);
    ASSERT_INT_EQ(kb_f32_to_bf16(-2.0f), 0xc000);
    ASSERT_INT_EQ(kb_f32_to_bf16(0.0f), 0x0000);
    ASSERT_INT_EQ(kb_f32_to_bf16(-0.0f), 0x8000);
    ASSERT_INT_EQ(kb_f32_to_bf16(INFINITY), 0x7f80);
    ASSERT_INT_EQ(kb_f32_to_bf16(-INFINITY), 0xff80);
    ASSERT_INT_EQ(kb_f32_to_bf16(FLT_MAX), 0x7f80); /* above the last midpoint: inf */
    /* Near 1 a bf16 step is 2^-7; 2^-8 is half a step. */
    ASSERT_INT_EQ(kb_f32_to_bf16(1.0f + p2(1, -8)), 0x3f80); /* tie -> even */
    ASSERT_INT_EQ(kb_f32_to_bf16(1.0f + p2(3, -8)), 0x3f82); /* tie -> even */
    ASSERT_INT_EQ(kb_f32_to_bf16(1.0f + p2(1, -8) + p2(1, -20)), 0x3f81);
    ASSERT_INT_EQ(kb_f32_to_bf16(-(1.0f + p2(3, -8))), 0xbf82);
    ASSERT_NEAR(kb_bf16_to_f32(0x3f80), 1.0, 0);
    ASSERT_NEAR(kb_bf16_to_f32(0x4049), 3.140625, 0);
    ASSERT(isnan(kb_bf16_to_f32(0x7fc0)));
    ASSERT(bf16_is_nan(kb_f32_to_bf16(NAN)));
    ASSERT(bf16_is_nan(kb_f32_to_bf16(-NAN)));
    /* Payload only in the 16 bits that are dropped: still a NaN, not inf. */
    ASSERT(bf16_is_nan(kb_f32_to_bf16(kb_bits_to_f32(0x7f800001u))));
    ASSERT(bf16_is_nan(kb_f32_to_bf16(kb_bits_to_f32(0xff80ffffu))));
}

static void test_f16_round_trip_all_patterns(void) {
    int bad = 0, nan_lost = 0;
    for (uint32_t h = 0; h <= 0xffffu; ++h) {
        float f = kb_f16_to_f32((uint16_t)h);
        uint16_t back = kb_f32_to_f16(f);
        if (f16_is_nan((uint16_t)h)) {
            nan_lost += !isnan(f) || !f16_is_nan(back);
        } else if (back != h) {
            if (bad++ < 5) KB_TEST_FAIL("fp16 0x%04x -> %g -> 0x%04x", (unsigned)h, f, back);
        }
    }
    ASSERT_INT_EQ(bad, 0);
    ASSERT_INT_EQ(nan_lost, 0);
}

static void test_bf16_round_trip_all_patterns(void) {
    int bad = 0, nan_lost = 0;
    for (uint32_t h = 0; h <= 0xffffu; ++h) {
        float f = kb_bf16_to_f32((uint16_t)h);
        uint16_t back = kb_f32_to_bf16(f);
        if (bf16_is_nan((uint16_t)h))
            nan_lost += !isnan(f) || !bf16_is_nan(back);
        else if (back != h && bad++ < 5)
            KB_TEST_FAIL("bf16 0x%04x -> %g -> 0x%04x", (unsigned)h, f, back);
    }
    ASSERT_INT_EQ(bad, 0);
    ASSERT_INT_EQ(nan_lost, 0);
}

static void test_load_store(void) {
    double f64[2];
    float f32[2];
    uint16_t h[2], b[2];
    kb_store_f64(f64, KB_FP64, 1, 0.1);
    kb_store_f64(f32, KB_FP32, 1, 0.1);
    kb_store_f64(h, KB_FP16, 1, 0.1);
    kb_store_f64(b, KB_BF16, 1, 0.1);
    ASSERT_NEAR(kb_load_f64(f64, KB_FP64, 1), 0.1, 0);
    ASSERT_NEAR(kb_load_f64(f32, KB_FP32, 1), (double)0.1f, 0);
    ASSERT_INT_EQ(h[1], 0x2e66); /* 0.1 = 1638.4 / 2^14: 0x2e66 is 0.0999755859375 */
    ASSERT_NEAR(kb_load_f64(h, KB_FP16, 1), 0.0999755859375, 0);
    ASSERT_INT_EQ(b[1], 0x3dcd); /* 0.1f = 0x3dcccccd rounds up to 0x3dcd */
    ASSERT_NEAR(kb_load_f64(b, KB_BF16, 1), 0.10009765625, 0);
}

int main(void) {
    RUN_TEST(test_names);
    RUN_TEST(test_sizes);
    RUN_TEST(test_f16_exact_values);
    RUN_TEST(test_f16_round_to_nearest_even);
    RUN_TEST(test_bf16_values_and_ties);
    RUN_TEST(test_f16_round_trip_all_patterns);
    RUN_TEST(test_bf16_round_trip_all_patterns);
    RUN_TEST(test_load_store);
    return kb_test_summary();
}
