/* The accuracy metrics on hand-made outputs, for every precision: poison
 * recognised and counted apart, NaN/Inf outputs counted apart, elements
 * whose reference is not finite skipped, RMSE and the largest error with
 * its index and values. */
#include "kb_test.h"
#include "kbref/metrics.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const kb_prec precs[] = {KB_FP64, KB_FP32, KB_FP16, KB_BF16};
static const char *const names[] = {"fp64", "fp32", "fp16", "bf16"};

/* Output and reference, element by element (every output value is exact in
 * fp16 and bf16):
 *   0  0.25 against 0.25   compared, no error
 *   1  1.5  against 1.0    compared, error 0.5
 *   2  unwritten           counted unwritten
 *   3  NaN  against 3.0    counted non-finite
 *   4  -inf against 3.0    counted non-finite
 *   5  1.0  against NaN    skipped: the reference is not finite
 *   6  NaN  against +inf   skipped
 *   7  2.0  against -2.0   compared, error 4: the worst */
#define COUNT 8
static const double ref[COUNT] = {0.25, 1.0, 0.0, 3.0, 3.0, NAN, INFINITY, -2.0};

static void fill(void *out, kb_prec prec) {
    const double vals[COUNT] = {0.25, 1.5, 0.0, NAN, -INFINITY, 1.0, NAN, 2.0};
    kbref_poison(out, prec, COUNT);
    for (size_t i = 0; i < COUNT; i++)
        if (i != 2) kb_store_f64(out, prec, i, vals[i]);
}

static void test_counts(void) {
    for (size_t p = 0; p < 4; p++) {
        kb_test_current = names[p];
        uint64_t out[COUNT];
        fill(out, precs[p]);
        kbref_accuracy acc;
        memset(&acc, 0, sizeof acc);
        kbref_accuracy_add(&acc, out, precs[p], ref, COUNT);
        kbref_accuracy_finish(&acc);
        ASSERT_INT_EQ(acc.n, COUNT);
        ASSERT_INT_EQ(acc.n_unwritten, 1);
        ASSERT_INT_EQ(acc.n_nonfinite, 2);
        ASSERT_INT_EQ(acc.n_compared, 3);
        ASSERT(acc.sum_sq == 16.25 && acc.max_abs == 4.0);
        ASSERT(acc.rmse == sqrt(16.25 / 3.0));
        ASSERT_INT_EQ(acc.worst, 7);
        ASSERT(acc.worst_out == 2.0 && acc.worst_ref == -2.0);

        /* A second tensor adds to the first; an error equal to the largest
         * so far does not move worst (the first is kept). */
        uint64_t more[2];
        const double ref2[2] = {1.0, -3.0};
        kb_store_f64(more, precs[p], 0, 5.0);
        kb_store_f64(more, precs[p], 1, -1.0);
        kbref_accuracy_add(&acc, more, precs[p], ref2, 2);
        kbref_accuracy_finish(&acc);
        ASSERT_INT_EQ(acc.n, COUNT + 2);
        ASSERT_INT_EQ(acc.n_compared, 5);
        ASSERT(acc.sum_sq == 16.25 + 16.0 + 4.0 && acc.rmse == sqrt(36.25 / 5.0));
        ASSERT_INT_EQ(acc.worst, 7);
        ASSERT(acc.worst_out == 2.0 && acc.max_abs == 4.0);
    }
    kb_test_current = "test_counts";
}

/* Nothing compared (every element unwritten or skipped): RMSE 0, no worst. */
static void test_nothing_compared(void) {
    for (size_t p = 0; p < 4; p++) {
        uint64_t out[3];
        const double r[3] = {1.0, NAN, -INFINITY};
        kbref_poison(out, precs[p], 1);
        kb_store_f64(out, precs[p], 1, 1.0);
        kb_store_f64(out, precs[p], 2, 1.0);
        kbref_accuracy acc;
        memset(&acc, 0, sizeof acc);
        kbref_accuracy_add(&acc, out, precs[p], r, 3);
        kbref_accuracy_finish(&acc);
        ASSERT(acc.n == 3 && acc.n_unwritten == 1 && acc.n_compared == 0 && acc.n_nonfinite == 0);
        ASSERT(acc.rmse == 0.0 && acc.max_abs == 0.0 && acc.worst == 0);
    }
    kbref_accuracy acc;
    memset(&acc, 0, sizeof acc);
    kbref_accuracy_finish(&acc);
    ASSERT(acc.rmse == 0.0);
}

/* The patterns, bit for bit the harness's: NaNs with the quiet bit clear,
 * which no arithmetic or conversion yields. A value stored through the
 * conversions (a NaN, an infinity, a poisoned fp32/fp16/bf16 value widened
 * and narrowed again, which quiets it) is never taken for poison; a double
 * is stored as it is. */
static void test_poison(void) {
    uint64_t d;
    uint32_t f;
    uint16_t h[2];
    kbref_poison(&d, KB_FP64, 1);
    kbref_poison(&f, KB_FP32, 1);
    kbref_poison(&h[0], KB_FP16, 1);
    kbref_poison(&h[1], KB_BF16, 1);
    ASSERT(d == 0x7ff4badbadbadbadull && f == 0x7fbadbadu);
    ASSERT(h[0] == 0x7dadu && h[1] == 0x7fadu);
    ASSERT(isnan(kb_bits_to_f64(d)) && isnan(kb_bits_to_f32(f)));
    ASSERT(isnan(kb_f16_to_f32(h[0])) && isnan(kb_bf16_to_f32(h[1])));
    for (size_t p = 0; p < 4; p++) {
        kb_test_current = names[p];
        uint64_t buf[6];
        kbref_poison(buf, precs[p], 6);
        for (size_t i = 0; i < 6; i++) ASSERT(kbref_is_poison(buf, precs[p], i));
        const double poisoned = kb_load_f64(buf, precs[p], 0);
        ASSERT(isnan(poisoned));
        const double vals[5] = {NAN, -NAN, INFINITY, 0.0, poisoned};
        for (size_t i = 0; i < (precs[p] == KB_FP64 ? 4u : 5u); i++) {
            kb_store_f64(buf, precs[p], i, vals[i]);
            if (kbref_is_poison(buf, precs[p], i))
                KB_TEST_FAIL("value %zu stored as %s reads as poison", i, names[p]);
        }
        ASSERT(kbref_is_poison(buf, precs[p], 5)); /* the untouched one */
        kbref_poison(buf, precs[p], 0);            /* n = 0 writes nothing */
        ASSERT(!kbref_is_poison(buf, precs[p], 0));
    }
    kb_test_current = "test_poison";
    ASSERT(!kbref_is_poison(&d, KB_PREC_COUNT, 0));
}

int main(void) {
    RUN_TEST(test_counts);
    RUN_TEST(test_nothing_compared);
    RUN_TEST(test_poison);
    return kb_test_summary();
}
