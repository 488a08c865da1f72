/* kernel.json manifests: loading case lists and sweeps, the FLOP and byte
 * counts, and an error naming the file and the field for every kind of
 * malformed input. */
#include "base/affinity.h"
#include "formats/manifest.h"
#include "kb_test.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* Fragments of a valid manifest, so each malformed one differs in one place. */
#define NAME     "\"name\": \"swish\", \"description\": \"x * sigmoid(x)\""
#define COUNTS   "\"flops\": \"4*batch*seq\", \"bytes\": \"2*batch*seq*elem\""
#define BACKENDS "\"backends\": [\"cpu\", \"cuda\"]"
#define PRECS    "\"precisions\": [\"fp32\", \"fp16\"]"
#define TOLS                                                                                       \
    "\"tolerance\": {\"fp32\": {\"rmse\": 1e-6, \"max_abs\": 1e-5}, \"fp16\": {\"rmse\": 1e-3}}"
#define CASES                                                                                      \
    "\"cases\": [{\"name\": \"small\", \"dims\": {\"batch\": 2, \"seq\": 128}},"                   \
    " {\"name\": \"large\", \"dims\": {\"batch\": 16, \"seq\": 4096}}]"
#define WITH_CASES(cases) "{" NAME ", " COUNTS ", " BACKENDS ", " PRECS ", " TOLS ", " cases "}"
#define WITH_CASES_COUNTS(counts, cases)                                                           \
    "{" NAME ", " counts ", " BACKENDS ", " PRECS ", " TOLS ", " cases "}"

static char path[KB_PATH_MAX];
static kb_manifest m; /* large: keep it off the stack */

/* Writes text to <scratch>/<name>/kernel.json and sets `path`. */
static const char *fixture(const char *name, const char *text) {
    const char *d = kb_test_tmpdir(name);
    if (snprintf(path, sizeof path, "%s/kernel.json", d) >= (int)sizeof path) exit(2);
    kb_test_write(path, text);
    return path;
}

/* Loading text must fail with a message holding the path and `want`. */
static void expect_error(const char *text, const char *want) {
    kb_err err;
    snprintf(err.msg, sizeof err.msg, "(no message)");
    fixture("manifest_bad", text);
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), -1);
    ASSERT_STR_CONTAINS(err.msg, path);
    ASSERT_STR_CONTAINS(err.msg, want);
}

static void test_case_list(void) {
    kb_err err = {{0}};
    fixture("manifest_cases", WITH_CASES(CASES));
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), 0);
    if (err.msg[0]) printf("%s\n", err.msg);
    ASSERT(strcmp(m.name, "swish") == 0);
    ASSERT(strcmp(m.description, "x * sigmoid(x)") == 0);
    ASSERT(strcmp(m.path, path) == 0);
    ASSERT_INT_EQ(m.n_backends, 2);
    ASSERT(kb_manifest_has_backend(&m, "cpu") && kb_manifest_has_backend(&m, "cuda"));
    ASSERT(!kb_manifest_has_backend(&m, "hip"));
    ASSERT_INT_EQ(m.precisions, (1u << KB_FP32) | (1u << KB_FP16));
    ASSERT(m.tol[KB_FP32].present && m.tol[KB_FP16].present && !m.tol[KB_FP64].present);
    ASSERT_NEAR(m.tol[KB_FP32].rmse, 1e-6, 0);
    ASSERT_NEAR(m.tol[KB_FP32].max_abs, 1e-5, 0);
    ASSERT_NEAR(m.tol[KB_FP16].max_abs, -1.0, 0); /* not given: not checked */
    ASSERT_INT_EQ(m.n_cases, 2);
    const kb_case *c = kb_manifest_find_case(&m, "large");
    ASSERT(c == &m.cases[1]);
    int64_t v = 0;
    ASSERT(c && kb_case_find_dim(c, "seq", &v) == 0 && v == 4096);
    ASSERT(c && kb_case_find_dim(c, "hidden", &v) == -1);
    ASSERT(kb_manifest_find_case(&m, "medium") == NULL);
}

static void test_sweep(void) {
    kb_err err = {{0}};
    /* 2 x 3 = 6 cases, the last axis varying fastest. */
    fixture("manifest_sweep",
            WITH_CASES("\"sweep\": {\"batch\": [16, 32], \"seq\": [256, 512, 1024]}"));
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), 0);
    if (err.msg[0]) printf("%s\n", err.msg);
    ASSERT_INT_EQ(m.n_cases, 6);
    const char *names[] = {"batch16_seq256", "batch16_seq512", "batch16_seq1024",
                           "batch32_seq256", "batch32_seq512", "batch32_seq1024"};
    for (int i = 0; i < 6 && i < m.n_cases; ++i) {
        if (strcmp(m.cases[i].name, names[i]) != 0)
            KB_TEST_FAIL("case %d is '%s', expected '%s'", i, m.cases[i].name, names[i]);
        ASSERT_INT_EQ(m.cases[i].n_dims, 2);
    }
    const kb_case *c = kb_manifest_find_case(&m, "batch32_seq512");
    ASSERT(c != NULL);
    if (c) {
        ASSERT(strcmp(c->dim_names[0], "batch") == 0 && c->dims[0] == 32);
        ASSERT(strcmp(c->dim_names[1], "seq") == 0 && c->dims[1] == 512);
    }
}

static void test_sweep_and_cases_combine(void) {
    kb_err err = {{0}};
    fixture("manifest_both", WITH_CASES(CASES ", \"sweep\": {\"batch\": [1], \"seq\": [7, 9]}"));
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), 0);
    ASSERT_INT_EQ(m.n_cases, 4);
    ASSERT(kb_manifest_find_case(&m, "batch1_seq9") != NULL);
}

static void test_counts_use_elem_size(void) {
    kb_err err = {{0}};
    fixture("manifest_counts", WITH_CASES(CASES));
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), 0);
    const kb_case *c = kb_manifest_find_case(&m, "small"); /* batch 2, seq 128 */
    double flops = 0, bytes = 0;
    ASSERT(c != NULL);
    if (!c) return;
    ASSERT_INT_EQ(kb_manifest_counts(&m, c, KB_FP16, NULL, &flops, &bytes, &err), 0);
    ASSERT_NEAR(flops, 4.0 * 2 * 128, 0);     /* 1024 */
    ASSERT_NEAR(bytes, 2.0 * 2 * 128 * 2, 0); /* elem = 2 for fp16: 1024 */
    ASSERT_INT_EQ(kb_manifest_counts(&m, c, KB_FP64, NULL, &flops, &bytes, &err), 0);
    ASSERT_NEAR(flops, 1024, 0);              /* independent of the precision */
    ASSERT_NEAR(bytes, 2.0 * 2 * 128 * 8, 0); /* elem = 8 for fp64: 4096 */
    ASSERT_INT_EQ(kb_manifest_counts(&m, c, KB_BF16, NULL, &flops, &bytes, &err), 0);
    ASSERT_NEAR(bytes, 1024, 0);
}

static void test_broken_json_and_root(void) {
    expect_error("{\"name\": \"swish\",\n \"flops\": }", "malformed JSON");
    expect_error("{\"name\": \"swish\",\n \"flops\": }", ":2:");
    expect_error("", "malformed JSON (empty file)");
    expect_error("[\"swish\"]", "expected a JSON object");
    expect_error("\"swish\"", "expected a JSON object");
}

static void test_missing_file(void) {
    kb_err err;
    const char *d = kb_test_tmpdir("manifest_missing");
    snprintf(path, sizeof path, "%s/nothere.json", d);
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), -1);
    ASSERT_STR_CONTAINS(err.msg, path);
    ASSERT_STR_CONTAINS(err.msg, "cannot open");
}

static void test_bad_top_level_fields(void) {
    expect_error("{" COUNTS ", " BACKENDS ", " PRECS ", " TOLS ", " CASES "}",
                 "field 'name': missing");
    expect_error("{\"name\": 5, " COUNTS ", " BACKENDS ", " PRECS ", " TOLS ", " CASES "}",
                 "field 'name': expected a string");
    expect_error("{" NAME ", \"bytes\": \"1\", " BACKENDS ", " PRECS ", " TOLS ", " CASES "}",
                 "field 'flops': missing");
    expect_error("{" NAME ", " COUNTS ", " PRECS ", " TOLS ", " CASES "}",
                 "field 'backends': expected a non-empty array");
    expect_error("{" NAME ", " COUNTS ", \"backends\": [\"cpu\", \"tpu\"], " PRECS ", " TOLS
                 ", " CASES "}",
                 "field 'backends[1]': unknown backend 'tpu' (expected cpu, cuda or hip)");
    expect_error("{" NAME ", " COUNTS ", \"backends\": [3], " PRECS ", " TOLS ", " CASES "}",
                 "field 'backends[0]': expected a string");
    expect_error("{" NAME ", " COUNTS ", " BACKENDS ", \"precisions\": [], " TOLS ", " CASES "}",
                 "field 'precisions': expected a non-empty array");
}

static void test_unknown_precision(void) {
    expect_error("{" NAME ", " COUNTS ", " BACKENDS ", \"precisions\": [\"fp32\", \"fp8\"], " TOLS
                 ", " CASES "}",
                 "field 'precisions[1]': unknown precision 'fp8'");
    expect_error("{" NAME ", " COUNTS ", " BACKENDS ", " PRECS
                 ", \"tolerance\": {\"fp32\": {\"rmse\": 1}, \"fp16\": {\"rmse\": 1},"
                 " \"fp8\": {\"rmse\": 1}}, " CASES "}",
                 "field 'tolerance.fp8': unknown precision");
}

static void test_bad_tolerance(void) {
    expect_error("{" NAME ", " COUNTS ", " BACKENDS ", " PRECS
                 ", \"tolerance\": {\"fp32\": {\"rmse\": 1e-6}}, " CASES "}",
                 "field 'tolerance.fp16': missing");
    expect_error(
        "{" NAME ", " COUNTS ", " BACKENDS ", " PRECS
        ", \"tolerance\": {\"fp32\": {\"rmse\": \"1e-6\"}, \"fp16\": {\"rmse\": 1}}, " CASES "}",
        "field 'tolerance.fp32.rmse': expected a number");
    expect_error("{" NAME ", " COUNTS ", " BACKENDS ", " PRECS
                 ", \"tolerance\": {\"fp32\": {\"max_abs\": 1}, \"fp16\": {\"rmse\": 1}}, " CASES
                 "}",
                 "field 'tolerance.fp32.rmse': missing");
    expect_error("{" NAME ", " COUNTS ", " BACKENDS ", " PRECS
                 ", \"tolerance\": {\"fp32\": {\"rmse\": -1}, \"fp16\": {\"rmse\": 1}}, " CASES "}",
                 "field 'tolerance.fp32.rmse': must not be negative");
    expect_error("{" NAME ", " COUNTS ", " BACKENDS ", " PRECS ", \"tolerance\": [], " CASES "}",
                 "field 'tolerance': expected an object");
}

static void test_bad_dims(void) {
    expect_error(WITH_CASES("\"cases\": [{\"name\": \"a\", \"dims\": {\"batch\": 0, \"seq\": 1}}]"),
                 "field 'cases[0].dims.batch': expected a positive integer");
    expect_error(WITH_CASES("\"cases\": [{\"name\": \"a\", \"dims\": {\"batch\": 2, \"seq\": 1}},"
                            " {\"name\": \"b\", \"dims\": {\"batch\": 2.5, \"seq\": 1}}]"),
                 "field 'cases[1].dims.batch': expected a positive integer");
    expect_error(WITH_CASES("\"cases\": [{\"name\": \"a\", \"dims\": {\"batch\": 2, \"seq\": "
                            "\"128\"}}]"),
                 "field 'cases[0].dims.seq': expected a positive integer");
    expect_error(
        WITH_CASES("\"cases\": [{\"name\": \"a\", \"dims\": {\"batch\": -4, \"seq\": 1}}]"),
        "field 'cases[0].dims.batch': expected a positive integer");
    expect_error(WITH_CASES("\"cases\": [{\"name\": \"a\", \"dims\": {}}]"),
                 "field 'cases[0].dims' (case 'a'): expected an object");
    expect_error(WITH_CASES("\"cases\": [{\"dims\": {\"batch\": 1, \"seq\": 1}}]"),
                 "field 'cases[0].name': missing");
    expect_error(WITH_CASES("\"sweep\": {\"batch\": [16, 0], \"seq\": [1]}"),
                 "field 'sweep.batch': expected a positive integer");
    expect_error(WITH_CASES("\"sweep\": {\"batch\": [], \"seq\": [1]}"),
                 "field 'sweep.batch': expected a non-empty array");
    expect_error(WITH_CASES("\"sweep\": {}"), "field 'sweep': no dims");
}

static void test_duplicate_case_names(void) {
    expect_error(WITH_CASES("\"cases\": [{\"name\": \"a\", \"dims\": {\"batch\": 1, \"seq\": 1}},"
                            " {\"name\": \"a\", \"dims\": {\"batch\": 2, \"seq\": 2}}]"),
                 "case name 'a' appears twice");
    /* A listed case colliding with a generated sweep name. */
    expect_error(WITH_CASES("\"cases\": [{\"name\": \"batch1_seq2\", \"dims\": {\"batch\": 5,"
                            " \"seq\": 5}}], \"sweep\": {\"batch\": [1], \"seq\": [2]}"),
                 "case name 'batch1_seq2' appears twice");
}

static void test_expression_with_unknown_dim(void) {
    /* The second case lacks "hidden": the message names the field and case. */
    const char *text =
        "{" NAME ", \"flops\": \"2*batch*hidden\", \"bytes\": \"elem\", " BACKENDS ", " PRECS
        ", " TOLS ", \"cases\": [{\"name\": \"ok\", \"dims\": {\"batch\": 1, \"hidden\": 8}},"
        " {\"name\": \"nohidden\", \"dims\": {\"batch\": 1}}]}";
    expect_error(text, "field 'flops' for case 'nohidden'");
    expect_error(text, "unknown name 'hidden'");
    expect_error("{" NAME ", \"flops\": \"batch\", \"bytes\": \"seq * (elem\", " BACKENDS ", " PRECS
                 ", " TOLS ", " CASES "}",
                 "field 'bytes' for case 'small'");
}

static void test_no_cases(void) {
    expect_error(WITH_CASES("\"cases\": []"), "no cases");
    expect_error("{" NAME ", " COUNTS ", " BACKENDS ", " PRECS ", " TOLS "}", "no cases");
    expect_error(WITH_CASES("\"cases\": {\"a\": 1}"), "field 'cases': expected an array");
    expect_error(WITH_CASES("\"sweep\": [1]"), "field 'sweep': expected an object");
}

#define VARIANTS(extra)                                                                            \
    "\"variants\": {\"unfused\": {\"bytes\": \"2*batch*seq*elem + 4*batch*seq*acc\"}, \"fused\": " \
    "{\"flops\": "                                                                                 \
    "\"5*batch*seq\", \"compare_to\": \"unfused\"" extra "}}"

static void test_variants(void) {
    kb_err err = {{0}};
    fixture("manifest_variants", WITH_CASES(CASES ", " VARIANTS("")));
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), 0);
    ASSERT_INT_EQ(m.n_variants, 2);
    const kb_variant_spec *fused = kb_manifest_variant(&m, "fused");
    ASSERT(fused != NULL && strcmp(fused->compare_to, "unfused") == 0);
    ASSERT(kb_manifest_variant(&m, "default") == NULL);
    const kb_case *c = kb_manifest_find_case(&m, "small"); /* batch 2, seq 128 */
    double flops = 0, bytes = 0;
    ASSERT_INT_EQ(kb_manifest_counts(&m, c, KB_FP32, "unfused", &flops, &bytes, &err), 0);
    ASSERT_NEAR(flops, 4.0 * 256, 0); /* the kernel's flops */
    ASSERT_NEAR(bytes, 6.0 * 256 * 4, 0);
    /* acc: the arithmetic type's size, float for 16-bit storage */
    ASSERT_INT_EQ(kb_manifest_counts(&m, c, KB_FP16, "unfused", &flops, &bytes, &err), 0);
    ASSERT_NEAR(bytes, 2.0 * 256 * 2 + 4.0 * 256 * 4, 0);
    ASSERT_INT_EQ(kb_manifest_counts(&m, c, KB_FP64, "unfused", &flops, &bytes, &err), 0);
    ASSERT_NEAR(bytes, 6.0 * 256 * 8, 0);
    ASSERT_INT_EQ(kb_manifest_counts(&m, c, KB_FP32, "fused", &flops, &bytes, &err), 0);
    ASSERT_NEAR(flops, 5.0 * 256, 0);
    ASSERT_NEAR(bytes, 2.0 * 256 * 4, 0); /* the kernel's bytes */
    ASSERT_INT_EQ(kb_manifest_counts(&m, c, KB_FP32, "other", &flops, &bytes, &err), 0);
    ASSERT_NEAR(flops, 4.0 * 256, 0);
}

static void test_bad_variants(void) {
    expect_error(WITH_CASES(CASES ", \"variants\": [1]"), "field 'variants': expected an object");
    expect_error(WITH_CASES(CASES ", \"variants\": {\"fused\": 3}"),
                 "field 'variants.fused': expected an object");
    expect_error(WITH_CASES(CASES ", \"variants\": {\"fused\": {\"compare_to\": \"nope\"}}"),
                 "field 'variants.fused.compare_to': 'nope' is not another variant");
    expect_error(WITH_CASES(CASES ", \"variants\": {\"fused\": {\"compare_to\": \"fused\"}}"),
                 "field 'variants.fused.compare_to'");
    expect_error(WITH_CASES(CASES ", \"variants\": {\"fused\": {\"bytes\": \"hidden\"}}"),
                 "field 'variants.fused.bytes' for case 'small'");
    expect_error(WITH_CASES(CASES ", \"variants\": {\"fused\": {\"bytes\": 5}}"),
                 "field 'variants.fused.bytes': expected a string");
}

static void test_full_set(void) {
    kb_err err = {{0}};
    fixture("manifest_full",
            WITH_CASES(CASES ", \"full\": {\"sweep\": {\"batch\": [64], \"seq\": [1, 2]},"
                             " \"cases\": [{\"name\": \"huge\", \"dims\": {\"batch\": 9, "
                             "\"seq\": 9}}]}"));
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), 0);
    ASSERT_INT_EQ(m.n_cases, 5);
    ASSERT(!kb_manifest_find_case(&m, "small")->full);
    ASSERT(kb_manifest_find_case(&m, "huge")->full);
    ASSERT(kb_manifest_find_case(&m, "batch64_seq2")->full);
    expect_error(WITH_CASES(CASES ", \"full\": []"), "field 'full': expected an object");
    expect_error(WITH_CASES(CASES ", \"full\": {}"), "no cases in 'full'");
    expect_error(WITH_CASES(CASES ", \"full\": {\"sweep\": {\"batch\": [0], \"seq\": [1]}}"),
                 "field 'full.sweep.batch': expected a positive integer");
    expect_error(WITH_CASES(CASES ", \"full\": {\"cases\": [{\"name\": \"small\", \"dims\": "
                                  "{\"batch\": 1, \"seq\": 1}}]}"),
                 "case name 'small' appears twice");
}

static void test_calibration_cases(void) {
    kb_err err = {{0}};
    fixture("manifest_calibration", WITH_CASES(CASES ", \"calibration\": [\"large\"]"));
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), 0);
    ASSERT_INT_EQ(m.n_calibration, 1);
    ASSERT(m.calibration[0] == kb_manifest_find_case(&m, "large"));
    expect_error(WITH_CASES(CASES ", \"calibration\": [\"medium\"]"),
                 "field 'calibration[0]': 'medium' is not a case of the default set");
    expect_error(WITH_CASES(CASES ", \"calibration\": []"),
                 "field 'calibration': expected a non-empty array");
}

/* ---- hardening: every bad input is an error naming file, field and case ---- */

/* The source tree, from this file's path (CMake compiles it by absolute path). */
static const char *source_dir(void) {
    static char dir[KB_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", __FILE__);
    char *cut = strstr(dir, "/benchtests/tests/");
    if (!cut || dir[0] != '/') return NULL;
    *cut = '\0';
    return dir;
}

/* The committed kernels must load under every rule below. */
static void test_committed_manifests_load(void) {
    const char *src = source_dir();
    char dir[1024];
    if (!src) {
        printf("note: source tree unknown (__FILE__ relative): skipped\n");
        return;
    }
    snprintf(dir, sizeof dir, "%s/kernels", src);
    DIR *d = opendir(dir);
    ASSERT(d != NULL);
    if (!d) return;
    int loaded = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        if (snprintf(path, sizeof path, "%.1024s/%.256s/kernel.json", dir, e->d_name) < 0) exit(2);
        kb_err err = {{0}};
        if (kb_manifest_load(&m, path, &err) != 0) KB_TEST_FAIL("%s", err.msg);
        ++loaded;
    }
    closedir(d);
    ASSERT(loaded >= 10);
}

/* dims 2^20 * 2^20 * 2^24 wrap size_t to 0: the reference then walked far
 * past its buffers (SIGSEGV in kernels/layernorm/reference.c). Refused at load,
 * naming the case and the dims. */
static void test_dims_whose_product_overflows(void) {
    const char *huge = "\"cases\": [{\"name\": \"small\", \"dims\": {\"batch\": 2, \"seq\": 2}},"
                       " {\"name\": \"wraps\", \"dims\": {\"batch\": 1048576, \"seq\": 1048576,"
                       " \"hidden\": 16777216}}]";
    char text[2048];
    snprintf(text, sizeof text, "{%s, %s, %s, %s, %s, %s}", NAME, COUNTS, BACKENDS, PRECS, TOLS,
             huge);
    expect_error(text, "field 'cases[1].dims': case 'wraps'");
    expect_error(text, "batch=1048576 seq=1048576 hidden=16777216");
    /* each dim fine, the product past 2^53 */
    expect_error(WITH_CASES("\"sweep\": {\"batch\": [134217728], \"seq\": [134217728]}"),
                 "case 'batch134217728_seq134217728'");
    /* the product fits but the bytes do not: 2 * 2^52 * elem */
    expect_error(
        WITH_CASES("\"cases\": [{\"name\": \"big\", \"dims\": {\"batch\": 4503599627370496,"
                   " \"seq\": 1}}]"),
        "field 'bytes' for case 'big'");
}

/* 1e300 as int64 is undefined behaviour: checked before the conversion. */
static void test_dim_far_out_of_range(void) {
    expect_error(
        WITH_CASES("\"cases\": [{\"name\": \"a\", \"dims\": {\"batch\": 1e300, \"seq\": 1}}]"),
        "field 'cases[0].dims.batch': expected a positive integer");
    expect_error(WITH_CASES("\"sweep\": {\"batch\": [1e300], \"seq\": [1]}"),
                 "field 'sweep.batch': expected a positive integer");
    expect_error(
        WITH_CASES("\"cases\": [{\"name\": \"a\", \"dims\": {\"batch\": 1e999, \"seq\": 1}}]"),
        "field 'cases[0].dims.batch'");
    expect_error(WITH_CASES(CASES ", \"timeout\": 1e300"), "field 'timeout'");
    expect_error(WITH_CASES(CASES ", \"timeout\": 0"), "field 'timeout'");
}

/* More calibration entries than the fixed array held overran it; a case
 * listed twice is refused, which bounds the list by the cases. */
static void test_calibration_overflow_and_duplicates(void) {
    static char text[16384], list[8192];
    size_t len = 0;
    for (int i = 0; i < 300; ++i)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s\"small\"", i ? ", " : "");
    snprintf(text, sizeof text, "{%s, %s, %s, %s, %s, %s, \"calibration\": [%s]}", NAME, COUNTS,
             BACKENDS, PRECS, TOLS, CASES, list);
    expect_error(text, "field 'calibration[1]': 'small' is listed twice");
    expect_error(WITH_CASES(CASES ", \"calibration\": [\"large\", 3]"),
                 "field 'calibration[1]': expected a string");
}

/* A count evaluating to <= 0, NaN or inf for any case, precision or variant
 * is a manifest error (a negative byte count once showed as -33 GB/s). */
static void test_counts_positive_and_finite_everywhere(void) {
    /* elem - 3 is negative for fp16 only: every declared precision counts */
    expect_error(WITH_CASES_COUNTS("\"flops\": \"batch\", \"bytes\": \"batch*(elem-3)\"", CASES),
                 "field 'bytes' for case 'small' (fp16)");
    expect_error(WITH_CASES_COUNTS("\"flops\": \"batch\", \"bytes\": \"batch*(elem-2)\"", CASES),
                 "evaluates to 0");
    expect_error(WITH_CASES_COUNTS("\"flops\": \"batch - 3\", \"bytes\": \"batch\"", CASES),
                 "field 'flops' for case 'small' (fp32)");
    expect_error(WITH_CASES_COUNTS("\"flops\": \"1e300*1e300*batch\", \"bytes\": \"batch\"", CASES),
                 "field 'flops' for case 'small'");
    expect_error(WITH_CASES_COUNTS("\"flops\": \"batch\", \"bytes\": \"batch\"",
                                   CASES ", \"variants\": {\"v\": {\"bytes\": \"seq - 200\"}}"),
                 "field 'variants.v.bytes' for case 'small'");
    /* a copy does no arithmetic: 0 flops is a count */
    kb_err err = {{0}};
    fixture("manifest_zero_flops",
            WITH_CASES_COUNTS("\"flops\": \"0*batch\", \"bytes\": \"batch*elem\"", CASES));
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), 0);
}

/* "transcendentals": elementary-function calls counted at their cost. The
 * figures' flops are the expression's plus count x flops_each; a variant's
 * entry replaces the kernel's. */
#define TRANSC(count, each)                                                                        \
    "\"transcendentals\": {\"count\": \"" count "\", \"flops_each\": " each "}"

#define TRANSC_VARIANTS "\"variants\": {\"libm\": {" TRANSC("batch*seq", "40") "}, \"fast\": {}}"

static void test_transcendentals(void) {
    kb_err err = {{0}};
    fixture("manifest_transcendentals",
            WITH_CASES(CASES ", " TRANSC("2*batch*seq", "22.5") ", " TRANSC_VARIANTS));
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), 0);
    if (err.msg[0]) printf("%s\n", err.msg);
    const kb_case *c = kb_manifest_find_case(&m, "small"); /* batch 2, seq 128 */
    ASSERT(c != NULL);
    if (!c) return;
    kb_counts k;
    ASSERT_INT_EQ(kb_manifest_case_counts(&m, c, KB_FP16, NULL, &k, &err), 0);
    ASSERT(k.has_transcendentals);
    ASSERT_NEAR(k.flops_arith, 4.0 * 256, 0);
    ASSERT_NEAR(k.transcendentals, 2.0 * 256, 0);
    ASSERT_NEAR(k.flops_each, 22.5, 0);
    ASSERT_NEAR(k.flops, 4.0 * 256 + 2.0 * 256 * 22.5, 0);
    ASSERT_NEAR(k.bytes, 2.0 * 256 * 2, 0);
    double flops = 0, bytes = 0; /* the totals every figure uses */
    ASSERT_INT_EQ(kb_manifest_counts(&m, c, KB_FP16, NULL, &flops, &bytes, &err), 0);
    ASSERT_NEAR(flops, k.flops, 0);
    ASSERT_INT_EQ(kb_manifest_case_counts(&m, c, KB_FP32, "libm", &k, &err), 0);
    ASSERT_NEAR(k.transcendentals, 256, 0);
    ASSERT_NEAR(k.flops, 4.0 * 256 + 256 * 40.0, 0);
    ASSERT_INT_EQ(kb_manifest_case_counts(&m, c, KB_FP32, "fast", &k, &err), 0);
    ASSERT_NEAR(k.flops_each, 22.5, 0); /* the kernel's */
    /* without the key: flops is the expression alone */
    fixture("manifest_no_transcendentals", WITH_CASES(CASES));
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), 0);
    ASSERT_INT_EQ(kb_manifest_case_counts(&m, &m.cases[0], KB_FP32, NULL, &k, &err), 0);
    ASSERT(!k.has_transcendentals);
    ASSERT_NEAR(k.flops, k.flops_arith, 0);
    ASSERT_NEAR(k.transcendentals, 0, 0);
    /* flops_each 0 and a count of 0 are counts; notes are free */
    fixture("manifest_transcendentals_zero",
            WITH_CASES(CASES ", \"transcendentals\": {\"count\": \"0*batch\", \"flops_each\": "
                             "0, \"flops_each_note\": \"a polynomial of degree 6\"}"));
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), 0);
}

static void test_bad_transcendentals(void) {
    expect_error(WITH_CASES(CASES ", \"transcendentals\": 20"),
                 "field 'transcendentals': expected an object with 'count' and 'flops_each'");
    expect_error(WITH_CASES(CASES ", \"transcendentals\": {\"flops_each\": 20}"),
                 "field 'transcendentals.count': missing");
    expect_error(WITH_CASES(CASES ", \"transcendentals\": {\"count\": \"batch\"}"),
                 "field 'transcendentals.flops_each': missing");
    expect_error(WITH_CASES(CASES ", \"transcendentals\": {\"count\": 5, \"flops_each\": 20}"),
                 "field 'transcendentals.count': expected a string");
    expect_error(WITH_CASES(CASES ", " TRANSC("batch", "\"20\"")),
                 "field 'transcendentals.flops_each': expected a number");
    expect_error(WITH_CASES(CASES ", " TRANSC("batch", "true")),
                 "field 'transcendentals.flops_each': expected a number");
    expect_error(WITH_CASES(CASES ", " TRANSC("batch", "-1")),
                 "field 'transcendentals.flops_each': -1 is negative");
    expect_error(WITH_CASES(CASES ", " TRANSC("batch", "1e999")),
                 "field 'transcendentals.flops_each'");
    expect_error(WITH_CASES(CASES ", " TRANSC("", "20")), "field 'transcendentals.count': empty");
    expect_error(WITH_CASES(CASES ", " TRANSC("batch *", "20")),
                 "field 'transcendentals.count' for case 'small' (fp32)");
    expect_error(WITH_CASES(CASES ", " TRANSC("hidden", "20")),
                 "field 'transcendentals.count' for case 'small'");
    expect_error(WITH_CASES(CASES ", " TRANSC("batch - 3", "20")),
                 "field 'transcendentals.count' for case 'small'");
    expect_error(WITH_CASES(CASES ", \"transcendentals\": {\"count\": \"batch\", \"flops_each\": "
                                  "20, \"flops\": 1}"),
                 "field 'transcendentals.flops': unknown field");
    /* each part in range, the total past what a count may be */
    expect_error(WITH_CASES(CASES ", " TRANSC("batch*1e18", "10")),
                 "field 'transcendentals' for case 'small'");
    expect_error(WITH_CASES(CASES ", \"variants\": {\"v\": {" TRANSC("batch", "-2") "}}"),
                 "field 'variants.v.transcendentals.flops_each'");
    expect_error(WITH_CASES(CASES ", \"variants\": {\"v\": {\"transcendentals\": []}}"),
                 "field 'variants.v.transcendentals': expected an object");
    expect_error(WITH_CASES(CASES ", \"variants\": {\"v\": {" TRANSC("seq / 0", "2") "}}"),
                 "field 'variants.v.transcendentals.count' for case 'small'");
}

static void test_tolerance_bounds(void) {
    expect_error("{" NAME ", " COUNTS ", " BACKENDS ", " PRECS
                 ", \"tolerance\": {\"fp32\": {\"rmse\": 1, \"max_abs\": -1}, \"fp16\": "
                 "{\"rmse\": 1}}, " CASES "}",
                 "field 'tolerance.fp32.max_abs': -1 is negative");
    expect_error("{" NAME ", " COUNTS ", " BACKENDS ", " PRECS
                 ", \"tolerance\": {\"fp32\": {\"rmse\": 1, \"max_abs\": 1e999}, \"fp16\": "
                 "{\"rmse\": 1}}, " CASES "}",
                 "field 'tolerance.fp32.max_abs'");
    expect_error("{" NAME ", " COUNTS ", " BACKENDS ", " PRECS
                 ", \"tolerance\": {\"fp32\": {\"rmse\": 1e999}, \"fp16\": {\"rmse\": 1}}, " CASES
                 "}",
                 "field 'tolerance.fp32.rmse'");
    expect_error("{" NAME ", " COUNTS ", " BACKENDS ", " PRECS
                 ", \"tolerance\": {\"fp32\": {\"rmse\": 1, \"maxabs\": 1}, \"fp16\": "
                 "{\"rmse\": 1}}, " CASES "}",
                 "field 'tolerance.fp32.maxabs': unknown field");
    expect_error("{" NAME ", " COUNTS ", " BACKENDS ", " PRECS
                 ", \"tolerance\": {\"fp32\": 1, \"fp16\": {\"rmse\": 1}}, " CASES "}",
                 "field 'tolerance.fp32': expected an object");
}

static void test_duplicates_refused(void) {
    expect_error("{" NAME ", " COUNTS ", " BACKENDS ", \"precisions\": [\"fp32\", \"fp32\"], " TOLS
                 ", " CASES "}",
                 "field 'precisions[1]': 'fp32' is listed twice");
    expect_error("{" NAME ", " COUNTS ", \"backends\": [\"cpu\", \"cpu\"], " PRECS ", " TOLS
                 ", " CASES "}",
                 "field 'backends[1]': 'cpu' is listed twice");
    /* cJSON would read the first "rmse" and CMake the last */
    expect_error(
        "{" NAME ", " COUNTS ", " BACKENDS ", " PRECS
        ", \"tolerance\": {\"fp32\": {\"rmse\": 1, \"rmse\": 2}, \"fp16\": {\"rmse\": 1}}, " CASES
        "}",
        "field 'tolerance.fp32.rmse': the key appears twice");
    expect_error("{" NAME ", " COUNTS ", " BACKENDS ", " PRECS ", " TOLS ", " CASES ", " BACKENDS
                 "}",
                 "field 'backends': the key appears twice");
    expect_error(WITH_CASES(CASES ", \"labels\": [\"x\", \"x\"]"), "field 'labels[1]'");
    expect_error(WITH_CASES(CASES ", \"libraries\": [\"openblas\", \"openblas\"]"),
                 "field 'libraries[1]'");
}

/* Names end up in file paths, test names and baseline keys. */
static void test_names_are_safe(void) {
    const char *bad_cases[] = {"a/b", "..", "a b", "a\\tb", "a\\u0001b", "-a", ".a", "", "a;b"};
    for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; ++i) {
        char text[2048];
        snprintf(text, sizeof text,
                 "{%s, %s, %s, %s, %s, \"cases\": [{\"name\": \"%s\", \"dims\": {\"batch\": 1, "
                 "\"seq\": 1}}]}",
                 NAME, COUNTS, BACKENDS, PRECS, TOLS, bad_cases[i]);
        expect_error(text, "field 'cases[0].name': case name");
    }
    const char *bad_kernels[] = {"a/b", "..", "a b", "a.b", "9k", "", "a;b"};
    for (size_t i = 0; i < sizeof bad_kernels / sizeof *bad_kernels; ++i) {
        char text[2048];
        snprintf(text, sizeof text, "{\"name\": \"%s\", %s, %s, %s, %s, %s}", bad_kernels[i],
                 COUNTS, BACKENDS, PRECS, TOLS, CASES);
        expect_error(text, "field 'name': kernel name");
    }
    expect_error(WITH_CASES(CASES ", \"labels\": [\"a;b\"]"), "field 'labels[0]'");
    expect_error(WITH_CASES(CASES ", \"labels\": [\"a b\"]"), "field 'labels[0]'");
    expect_error(WITH_CASES(CASES ", \"variants\": {\"a.b\": {}}"),
                 "field 'variants.a.b': variant name");
    expect_error(WITH_CASES("\"cases\": [{\"name\": \"a\", \"dims\": {\"elem\": 1}}]"),
                 "field 'cases[0].dims.elem': dim name 'elem' is reserved");
    expect_error(WITH_CASES("\"sweep\": {\"a b\": [1]}"), "field 'sweep.a b': dim name");
}

/* A typo in a field name silently dropped what it meant (a tolerance, a
 * calibration list); unknown fields are refused, "*_note" fields are free. */
static void test_unknown_fields(void) {
    expect_error(WITH_CASES(CASES ", \"calibraton\": [\"small\"]"),
                 "field 'calibraton': unknown field");
    expect_error(WITH_CASES("\"cases\": [{\"name\": \"a\", \"dim\": {\"batch\": 1}}]"),
                 "field 'cases[0].dim': unknown field");
    expect_error(WITH_CASES(CASES ", \"variants\": {\"v\": {\"byte\": \"1\"}}"),
                 "field 'variants.v.byte': unknown field");
    /* an empty expression silently meant the kernel's */
    expect_error(WITH_CASES(CASES ", \"variants\": {\"v\": {\"bytes\": \"\"}}"),
                 "field 'variants.v.bytes': empty");
    kb_err err = {{0}};
    fixture("manifest_note", WITH_CASES(CASES ", \"counts_note\": \"why\""));
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), 0);
}

static void test_not_objects(void) {
    expect_error(WITH_CASES("\"cases\": [3]"), "field 'cases[0]': expected an object");
    expect_error(WITH_CASES("\"cases\": [[]]"), "field 'cases[0]': expected an object");
    kb_err err = {{0}};
    const char *d = kb_test_tmpdir("manifest_dir");
    ASSERT_INT_EQ(kb_manifest_load(&m, d, &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "is a directory");
}

/* "threads": one count for every case, a list expanding every case into
 * one per count (named <case>_t<count>, <case>_tall for "all"), and a
 * case's own value replacing the kernel's. */
static void test_threads(void) {
    kb_err err = {{0}};
    const int all = kb_affinity_start()->n > 0 ? kb_affinity_start()->n : 1;
    fixture("manifest_threads", WITH_CASES(CASES));
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), 0);
    ASSERT_INT_EQ(kb_case_threads(&m.cases[0]), 1); /* not given: one thread */

    fixture("manifest_threads", WITH_CASES("\"threads\": 4, " CASES));
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), 0);
    ASSERT_INT_EQ(m.n_cases, 2);
    ASSERT(strcmp(m.cases[0].name, "small") == 0); /* one count: the name stays */
    ASSERT_INT_EQ(kb_case_threads(&m.cases[0]), 4);
    ASSERT_INT_EQ(kb_case_threads(&m.cases[1]), 4);

    fixture("manifest_threads", WITH_CASES("\"threads\": [1, 4, \"all\"], " CASES));
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), 0);
    if (err.msg[0]) printf("%s\n", err.msg);
    ASSERT_INT_EQ(m.n_cases, 6);
    const char *names[] = {"small_t1", "small_t4", "small_tall",
                           "large_t1", "large_t4", "large_tall"};
    const int counts[] = {1, 4, all, 1, 4, all};
    for (int i = 0; i < 6 && i < m.n_cases; ++i) {
        ASSERT(strcmp(m.cases[i].name, names[i]) == 0);
        ASSERT_INT_EQ(kb_case_threads(&m.cases[i]), counts[i]);
        ASSERT_INT_EQ(m.cases[i].threads_all, i % 3 == 2);
        int64_t v = 0; /* the dims go with every copy */
        ASSERT(kb_case_find_dim(&m.cases[i], "seq", &v) == 0 && v == (i < 3 ? 128 : 4096));
    }

    /* a sweep's cases and the full set expand alike; a case's own value wins */
    fixture("manifest_threads",
            WITH_CASES("\"threads\": [2, 8], \"sweep\": {\"batch\": [16], \"seq\": [256]}, "
                       "\"cases\": [{\"name\": \"one\", \"dims\": {\"batch\": 1, \"seq\": 1}, "
                       "\"threads\": \"all\"}], \"full\": {\"cases\": [{\"name\": \"big\", "
                       "\"dims\": {\"batch\": 64, \"seq\": 64}}]}"));
    ASSERT_INT_EQ(kb_manifest_load(&m, path, &err), 0);
    if (err.msg[0]) printf("%s\n", err.msg);
    ASSERT_INT_EQ(m.n_cases, 5);
    ASSERT(kb_manifest_find_case(&m, "one") != NULL);
    ASSERT_INT_EQ(kb_case_threads(kb_manifest_find_case(&m, "one")), all);
    ASSERT(kb_manifest_find_case(&m, "batch16_seq256_t2") != NULL);
    ASSERT(kb_manifest_find_case(&m, "batch16_seq256_t8") != NULL);
    const kb_case *big = kb_manifest_find_case(&m, "big_t8");
    ASSERT(big && big->full && kb_case_threads(big) == 8);
    ASSERT(kb_manifest_find_case(&m, "big_t2") != NULL);
}

/* Every bad value of "threads" is refused naming the file and the field. */
static void test_bad_threads(void) {
    static const struct {
        const char *threads, *want;
    } bad[] = {
        {"0", "field 'threads': 0 is not a thread count"},
        {"-2", "field 'threads': -2 is not a thread count"},
        {"1.5", "field 'threads': 1.5 is not a thread count"},
        {"1025", "field 'threads': 1025 is not a thread count"},
        {"1e300", "is not a thread count"},
        {"true", "field 'threads': expected a thread count"},
        {"null", "field 'threads': expected a thread count"},
        {"{}", "field 'threads': expected a thread count"},
        {"\"4\"", "field 'threads': \"4\" is not a thread count"},
        {"\"All\"", "field 'threads': \"All\" is not a thread count"},
        {"[]", "field 'threads': an empty list"},
        {"[1, 0]", "field 'threads[1]': 0 is not a thread count"},
        {"[1, [2]]", "field 'threads[1]': expected a thread count"},
        {"[2, 4, 2]", "field 'threads[2]': 2 is listed twice (also as 'threads[0]')"},
        {"[\"all\", 2, \"all\"]", "field 'threads[2]': \"all\" is listed twice"},
        {"[1, 2, 3, 4, 5, 6, 7, 8, 9]", "field 'threads': 9 thread counts, more than 8"},
    };
    char text[2048];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        snprintf(text, sizeof text, WITH_CASES("\"threads\": %s, " CASES), bad[i].threads);
        expect_error(text, bad[i].want);
        /* the same in a case of its own */
        snprintf(text, sizeof text,
                 WITH_CASES("\"cases\": [{\"name\": \"c\", \"dims\": {\"batch\": 1, \"seq\": "
                            "1}, \"threads\": %s}]"),
                 bad[i].threads);
        expect_error(text, "field 'cases[0].threads");
    }
    /* a name the count makes too long, and one that collides */
    expect_error(WITH_CASES("\"threads\": [1, 16], \"cases\": [{\"name\": "
                            "\"c23456789012345678901234567890123456789012345678901234567890\", "
                            "\"dims\": {\"batch\": 1, \"seq\": 1}}]"),
                 "field 'cases[0]': case "
                 "'c23456789012345678901234567890123456789012345678901234567890' with its thread "
                 "count ('_t16') makes a name longer than 63 characters");
    expect_error(WITH_CASES("\"threads\": [1, 2], \"cases\": [{\"name\": \"a_t2\", \"dims\": "
                            "{\"batch\": 1, \"seq\": 1}, \"threads\": 1}, {\"name\": \"a\", "
                            "\"dims\": {\"batch\": 1, \"seq\": 1}}]"),
                 "case name 'a_t2' appears twice");
}

/* Configure reads the manifest too (cmake/KbenchKernels.cmake): the same
 * inputs must fail there with the file and the field named. */
static void expect_configure_error(const char *text, const char *want) {
    const char *src = source_dir();
    if (!src || system("cmake --version >/dev/null 2>&1") != 0) {
        printf("note: no cmake or source tree: configure-time checks skipped\n");
        return;
    }
    char dir[KB_PATH_MAX], script[KB_PATH_MAX], manifest[KB_PATH_MAX], cmd[4 * KB_PATH_MAX];
    snprintf(dir, sizeof dir, "%s/k", kb_test_tmpdir("manifest_cmake"));
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (system(cmd) != 0) exit(2);
    kb_test_join(manifest, sizeof manifest, dir, "kernel.json");
    kb_test_write(manifest, text);
    kb_test_join(script, sizeof script, dir, "read.cmake");
    snprintf(cmd, sizeof cmd,
             "cmake_policy(VERSION 3.25)\nset(KBENCH_KNOWN_BACKENDS cpu cuda hip)\n"
             "set(KBENCH_KNOWN_PRECISIONS fp64 fp32 fp16 bf16)\n"
             "include(\"%s/cmake/KbenchKernels.cmake\")\n"
             "_kb_read_manifest(\"%s\" k)\n",
             src, manifest);
    kb_test_write(script, cmd);
    snprintf(cmd, sizeof cmd, "cmake -P '%s' > '%s.out' 2>&1", script, script);
    int status = system(cmd);
    ASSERT(status != 0);
    char out_path[KB_PATH_MAX + 8], out[8192] = "";
    snprintf(out_path, sizeof out_path, "%s.out", script);
    FILE *f = fopen(out_path, "r");
    if (f) {
        size_t n = fread(out, 1, sizeof out - 1, f);
        out[n] = '\0';
        fclose(f);
    }
    /* CMake wraps long messages: compare with line breaks and indents gone */
    char flat[8192];
    size_t j = 0;
    for (size_t i = 0; out[i] && j + 1 < sizeof flat; ++i) {
        if (out[i] == '\n') {
            while (out[i + 1] == ' ') ++i;
            if (j && flat[j - 1] != ' ') flat[j++] = ' ';
            continue;
        }
        flat[j++] = out[i];
    }
    flat[j] = '\0';
    ASSERT_STR_CONTAINS(flat, "kernel.json");
    ASSERT_STR_CONTAINS(flat, want);
}

#define CMAKE_OK "\"name\": \"k\", \"backends\": [\"cpu\"], \"precisions\": [\"fp32\"]"

static void test_configure_rejects_what_the_driver_rejects(void) {
    expect_configure_error("{\"name\": \"k\", \"backends\": [\"cpu\"], \"precisions\": []}",
                           "field 'precisions': expected a non-empty array");
    expect_configure_error("{\"name\": \"k\", \"backends\": [], \"precisions\": [\"fp32\"]}",
                           "field 'backends': expected a non-empty array");
    expect_configure_error(
        "{\"name\": \"k\", \"backends\": [\"cpu\"], \"precisions\": [\"fp32\", \"fp32\"]}",
        "field 'precisions[1]': 'fp32' is listed twice");
    expect_configure_error("{" CMAKE_OK ", \"name\": \"k\"}",
                           "field 'name': the key appears twice");
    expect_configure_error("{" CMAKE_OK ", \"tolerance\": {\"fp32\": {\"rmse\": 1, \"rmse\": 2}}}",
                           "field 'tolerance.fp32.rmse': the key appears twice");
    expect_configure_error("[{" CMAKE_OK "}]", "expected a JSON object");
    expect_configure_error("{" CMAKE_OK ", \"labels\": [\"a;b\"]}", "field 'labels[0]'");
    expect_configure_error("{" CMAKE_OK ", \"labels\": [\"a b\"]}", "field 'labels'");
    expect_configure_error(
        "{\"name\": \"a/b\", \"backends\": [\"cpu\"], \"precisions\": [\"fp32\"]}", "field 'name'");
    expect_configure_error("{" CMAKE_OK ", \"timeout\": 0}", "field 'timeout'");
    expect_configure_error("{" CMAKE_OK "} trailing", "malformed JSON");
    expect_configure_error("{" CMAKE_OK ", \"transcendental\": {}}",
                           "field 'transcendental': unknown key");
}

int main(void) {
    RUN_TEST(test_case_list);
    RUN_TEST(test_sweep);
    RUN_TEST(test_sweep_and_cases_combine);
    RUN_TEST(test_counts_use_elem_size);
    RUN_TEST(test_broken_json_and_root);
    RUN_TEST(test_missing_file);
    RUN_TEST(test_bad_top_level_fields);
    RUN_TEST(test_unknown_precision);
    RUN_TEST(test_bad_tolerance);
    RUN_TEST(test_bad_dims);
    RUN_TEST(test_duplicate_case_names);
    RUN_TEST(test_expression_with_unknown_dim);
    RUN_TEST(test_no_cases);
    RUN_TEST(test_variants);
    RUN_TEST(test_bad_variants);
    RUN_TEST(test_full_set);
    RUN_TEST(test_calibration_cases);
    RUN_TEST(test_committed_manifests_load);
    RUN_TEST(test_dims_whose_product_overflows);
    RUN_TEST(test_dim_far_out_of_range);
    RUN_TEST(test_calibration_overflow_and_duplicates);
    RUN_TEST(test_counts_positive_and_finite_everywhere);
    RUN_TEST(test_transcendentals);
    RUN_TEST(test_bad_transcendentals);
    RUN_TEST(test_tolerance_bounds);
    RUN_TEST(test_duplicates_refused);
    RUN_TEST(test_names_are_safe);
    RUN_TEST(test_unknown_fields);
    RUN_TEST(test_not_objects);
    RUN_TEST(test_threads);
    RUN_TEST(test_bad_threads);
    RUN_TEST(test_configure_rejects_what_the_driver_rejects);
    return kb_test_summary();
}
