/* kb_ref_cache: a case's reference is shared with its other variants, never with
 * another case or another shape, and never freed while one reads it. */
#include "formats/case.h"
#include "kb_test.h"
#include "measure/refcache.h"

#include <stdlib.h>
#include <string.h>

static kb_layout one_output(size_t count) {
    kb_layout l;
    memset(&l, 0, sizeof l);
    l.n_out = 1;
    l.out[0].count = count;
    return l;
}

static double *filled(size_t n, double v) {
    double *p = malloc(n * sizeof *p);
    for (size_t i = 0; i < n; ++i) p[i] = v;
    return p;
}

static void test_lent_to_the_same_case_only(void) {
    kb_ref_cache rc = {0};
    kb_case a = {.name = "a"}, b = {.name = "b"};
    kb_layout l = one_output(4), other = one_output(5);
    double *out[KB_MAX_TENSORS] = {0}, *got[KB_MAX_TENSORS] = {0};
    ASSERT_INT_EQ(kb_ref_cache_lend(&rc, &a, &l, got), 0); /* nothing held yet */
    out[0] = filled(4, 1.5);
    ASSERT_INT_EQ(kb_ref_cache_offer(&rc, &a, &l, out), 1);
    kb_ref_cache_release(&rc);
    ASSERT_INT_EQ(kb_ref_cache_lend(&rc, &a, &l, got), 1);
    ASSERT(got[0] == out[0] && got[0][3] == 1.5);
    kb_ref_cache_release(&rc);
    ASSERT_INT_EQ(kb_ref_cache_lend(&rc, &b, &l, got), 0);     /* another case */
    ASSERT_INT_EQ(kb_ref_cache_lend(&rc, &a, &other, got), 0); /* another shape */
    kb_ref_cache_clear(&rc);
    ASSERT_INT_EQ(kb_ref_cache_lend(&rc, &a, &l, got), 0);
}

/* A reference in use stays: the next case's is not taken (its owner frees
 * it) until the reader is done. */
static void test_not_replaced_while_read(void) {
    kb_ref_cache rc = {0};
    kb_case a = {.name = "a"}, b = {.name = "b"};
    kb_layout l = one_output(3);
    double *first[KB_MAX_TENSORS] = {filled(3, 1.0)}, *second[KB_MAX_TENSORS] = {filled(3, 2.0)};
    double *got[KB_MAX_TENSORS] = {0};
    ASSERT_INT_EQ(kb_ref_cache_offer(&rc, &a, &l, first), 1); /* the offerer reads it */
    ASSERT_INT_EQ(kb_ref_cache_offer(&rc, &b, &l, second), 0);
    ASSERT_INT_EQ(kb_ref_cache_lend(&rc, &a, &l, got), 1);
    ASSERT(got[0][0] == 1.0);
    kb_ref_cache_release(&rc);
    kb_ref_cache_release(&rc);
    ASSERT_INT_EQ(kb_ref_cache_offer(&rc, &b, &l, second), 1); /* frees a's */
    kb_ref_cache_release(&rc);
    ASSERT_INT_EQ(kb_ref_cache_lend(&rc, &b, &l, got), 1);
    ASSERT(got[0][2] == 2.0);
    kb_ref_cache_release(&rc);
    kb_ref_cache_clear(&rc);
}

/* An idle reference is dropped before the next is made; one in use stays. */
static void test_drop_idle(void) {
    kb_ref_cache rc = {0};
    kb_case a = {.name = "a"};
    kb_layout l = one_output(2);
    double *out[KB_MAX_TENSORS] = {filled(2, 3.0)}, *got[KB_MAX_TENSORS] = {0};
    ASSERT_INT_EQ(kb_ref_cache_offer(&rc, &a, &l, out), 1);
    kb_ref_cache_drop_idle(&rc); /* still read by its offerer */
    ASSERT_INT_EQ(kb_ref_cache_lend(&rc, &a, &l, got), 1);
    kb_ref_cache_release(&rc);
    kb_ref_cache_release(&rc);
    kb_ref_cache_drop_idle(&rc);
    ASSERT_INT_EQ(kb_ref_cache_lend(&rc, &a, &l, got), 0);
    kb_ref_cache_drop_idle(NULL);
}

static void test_no_cache(void) {
    kb_case a = {.name = "a"};
    kb_layout l = one_output(1);
    double *out[KB_MAX_TENSORS] = {0};
    ASSERT_INT_EQ(kb_ref_cache_lend(NULL, &a, &l, out), 0);
    ASSERT_INT_EQ(kb_ref_cache_offer(NULL, &a, &l, out), 0);
    kb_ref_cache_release(NULL);
    kb_ref_cache_clear(NULL);
}

int main(void) {
    RUN_TEST(test_lent_to_the_same_case_only);
    RUN_TEST(test_not_replaced_while_read);
    RUN_TEST(test_drop_idle);
    RUN_TEST(test_no_cache);
    return kb_test_summary();
}
