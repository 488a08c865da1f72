/* The manifest's variants against the implementations a driver contains
 * (variantcheck.h): a misspelt entry or a missing one is an error naming
 * variants.<name>; a variant that only a backend absent from this driver
 * may implement is not. */
#define _GNU_SOURCE
#include "formats/variantcheck.h"
#include "kb_test.h"

#include <stdio.h>
#include <string.h>

static kb_manifest m; /* large: keep it off the stack */

static int run_a(const kb_args *a) {
    (void)a;
    return 0;
}

static const kb_impl cpu_a = {"cpu", "a", run_a}, cpu_b = {"cpu", "b", run_a};
static const kb_impl cuda_a = {"cuda", "a", run_a}, cuda_c = {"cuda", "c", run_a};
static const kb_impl hip_a = {"hip", "a", run_a};

/* A manifest of these backends ("cpu cuda") and variants ("a b"; "" none). */
static void manifest(const char *backends, const char *variants) {
    memset(&m, 0, sizeof m);
    snprintf(m.path, sizeof m.path, "kernels/k/kernel.json");
    char copy[128], *save = NULL;
    snprintf(copy, sizeof copy, "%s", backends);
    for (char *b = strtok_r(copy, " ", &save); b; b = strtok_r(NULL, " ", &save))
        snprintf(m.backends[m.n_backends++], sizeof m.backends[0], "%s", b);
    snprintf(copy, sizeof copy, "%s", variants);
    for (char *v = strtok_r(copy, " ", &save); v; v = strtok_r(NULL, " ", &save))
        snprintf(m.variants[m.n_variants++].name, sizeof m.variants[0].name, "%s", v);
}

static void expect_ok(const char *backend, const kb_impl *const *impls, int n) {
    kb_err err = {{0}};
    ASSERT_INT_EQ(kb_check_variants(&m, backend, impls, n, &err), 0);
    if (err.msg[0]) printf("  unexpected: %s\n", err.msg);
}

static void expect_error(const char *backend, const kb_impl *const *impls, int n, const char *field,
                         const char *also) {
    kb_err err = {{0}};
    ASSERT_INT_EQ(kb_check_variants(&m, backend, impls, n, &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "kernels/k/kernel.json");
    ASSERT_STR_CONTAINS(err.msg, field);
    ASSERT_STR_CONTAINS(err.msg, also);
}

static void test_matching(void) {
    const kb_impl *impls[] = {&cpu_a, &cpu_b};
    manifest("cpu", "a b");
    expect_ok("cpu", impls, 2);
    manifest("cpu", ""); /* no "variants": nothing to check */
    expect_ok("cpu", impls, 2);
}

/* "b" spelt "bb": b's entry is missing, and bb names nothing. */
static void test_misspelt_entry(void) {
    const kb_impl *impls[] = {&cpu_a, &cpu_b};
    manifest("cpu", "a bb");
    expect_error("cpu", impls, 2, "field 'variants.b': missing",
                 "implemented: cpu a, cpu b; listed: a, bb");
    /* the CPU driver of a kernel that also lists cuda: b is still here */
    manifest("cpu cuda", "a bb");
    expect_error("cpu", impls, 2, "field 'variants.b': missing", "cpu implementation");
}

static void test_entry_without_implementation(void) {
    const kb_impl *impls[] = {&cpu_a, &cpu_b};
    manifest("cpu", "a b x");
    expect_error("cpu", impls, 2, "field 'variants.x': no implementation",
                 "implemented: cpu a, cpu b");
    /* x may be cuda's: the CPU driver cannot tell, the CUDA driver can */
    manifest("cpu cuda", "a b x");
    expect_ok("cpu", impls, 2);
    const kb_impl *with_cuda[] = {&cpu_a, &cpu_b, &cuda_a};
    expect_error("cuda", with_cuda, 3, "field 'variants.x'", "cuda a");
}

/* A variant of one backend only (gemm's "vendor": CPU and CUDA, not HIP). */
static void test_backend_only_variant(void) {
    const kb_impl *hip_driver[] = {&cpu_a, &cpu_b, &hip_a};
    manifest("cpu cuda hip", "a b");
    expect_ok("hip", hip_driver, 3);
    const kb_impl *cuda_driver[] = {&cpu_a, &cuda_a, &cuda_c};
    manifest("cpu cuda", "a c");
    expect_ok("cuda", cuda_driver, 3);
    const kb_impl *cpu_driver[] = {&cpu_a};
    expect_ok("cpu", cpu_driver, 1);
    /* the CUDA driver sees c; without its entry it is an error there */
    manifest("cpu cuda", "a");
    expect_error("cuda", cuda_driver, 3, "field 'variants.c': missing", "cuda implementation");
}

/* Implementations of a backend the manifest does not declare never run. */
static void test_undeclared_backend(void) {
    const kb_impl *impls[] = {&cpu_b, &cuda_a};
    manifest("cuda", "a");
    expect_ok("cuda", impls, 2);
}

int main(void) {
    RUN_TEST(test_matching);
    RUN_TEST(test_misspelt_entry);
    RUN_TEST(test_entry_without_implementation);
    RUN_TEST(test_backend_only_variant);
    RUN_TEST(test_undeclared_backend);
    return kb_test_summary();
}
