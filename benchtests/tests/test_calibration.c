/* <results>/calibration/<backend>.json as each test reads it: present for
 * this backend and hardware, absent (with the reason) when missing or from
 * other hardware, and an error naming the file and the field otherwise;
 * and as a calibration run reuses it: only when fresh for this machine,
 * boot, build and cases, else measured again, never an error. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "kb_test.h"
#include "run/calibration.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char path[KB_PATH_MAX];

#define FIELDS "\"hardware_id\": \"hw\", \"measured_at\": \"2026-01-01T00:00:00Z\""

static int read_text(const char *text, kb_calibration *cal, kb_err *err) {
    kb_test_join(path, sizeof path, kb_test_tmpdir("calibration"), "cpu.json");
    kb_test_write(path, text);
    return kb_calibration_read(cal, path, "cpu", "hw", err);
}

static void expect_error(const char *text, const char *want) {
    kb_calibration cal;
    kb_err err;
    snprintf(err.msg, sizeof err.msg, "(no message)");
    ASSERT_INT_EQ(read_text(text, &cal, &err), -1);
    ASSERT(!cal.present);
    ASSERT_STR_CONTAINS(err.msg, path);
    ASSERT_STR_CONTAINS(err.msg, want);
}

static void test_present(void) {
    kb_calibration cal;
    kb_err err = {{0}};
    ASSERT_INT_EQ(read_text("{\"backend\": \"cpu\", " FIELDS ", \"peak_gbps\": 20.5}", &cal, &err),
                  0);
    ASSERT(cal.present);
    ASSERT_NEAR(cal.peak_gbps, 20.5, 0);
    /* a test that reads it records its age, and that it did not decide on
     * reusing it */
    ASSERT(cal.age_s > 0.0);
    ASSERT_INT_EQ(cal.reused, -1);
}

static void test_absent_when_missing_or_other_hardware(void) {
    kb_calibration cal;
    kb_err err = {{0}};
    ASSERT_INT_EQ(read_text("{\"backend\": \"cpu\", \"hardware_id\": \"other\", \"measured_at\": "
                            "\"x\", \"peak_gbps\": 20.5}",
                            &cal, &err),
                  0);
    ASSERT(!cal.present);
    ASSERT_STR_CONTAINS(cal.note, "other hardware");
    kb_test_join(path, sizeof path, kb_test_tmpdir("calibration_none"), "cpu.json");
    ASSERT_INT_EQ(kb_calibration_read(&cal, path, "cpu", "hw", &err), 0);
    ASSERT(!cal.present);
    ASSERT_STR_CONTAINS(cal.note, "no calibration");
}

static void test_peak_must_be_positive_finite(void) {
    expect_error("{\"backend\": \"cpu\", " FIELDS ", \"peak_gbps\": 1e999}",
                 "field 'peak_gbps': inf is not a finite number");
    expect_error("{\"backend\": \"cpu\", " FIELDS ", \"peak_gbps\": -3}",
                 "field 'peak_gbps': expected a positive number");
    expect_error("{\"backend\": \"cpu\", " FIELDS ", \"peak_gbps\": 0}", "field 'peak_gbps'");
    expect_error("{\"backend\": \"cpu\", " FIELDS ", \"peak_gbps\": \"20\"}",
                 "field 'peak_gbps': expected a number");
    expect_error("{\"backend\": \"cpu\", " FIELDS "}", "field 'peak_gbps': missing");
}

/* calibration/cpu.json holding another backend's figure is corrupt: using
 * it would report every case against the wrong memory. */
static void test_backend_must_match(void) {
    expect_error("{\"backend\": \"cuda\", " FIELDS ", \"peak_gbps\": 2000}",
                 "field 'backend': the file holds the calibration of backend 'cuda', not 'cpu'");
    expect_error("{\"backend\": 3, " FIELDS ", \"peak_gbps\": 2000}",
                 "field 'backend': expected a string");
}

static void test_malformed(void) {
    expect_error("[1]", "expected a JSON object");
    expect_error("{\"backend\": \"cpu\", " FIELDS ", \"peak_gbps\": 1, \"peak_gbps\": 1e6}",
                 "field 'peak_gbps': the key appears twice");
    expect_error("{\"backend\": \"cpu\", " FIELDS ", \"peak_gbps\": 1, \"cases\": 3}",
                 "field 'cases': expected an array");
    expect_error("", "malformed JSON");
    kb_calibration cal;
    kb_err err = {{0}};
    const char *d = kb_test_tmpdir("calibration_dir");
    ASSERT_INT_EQ(kb_calibration_read(&cal, d, "cpu", "hw", &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "is a directory");
}

/* ---- the roofs: "levels", "compute", "matrix", "sweep" ---- */

#define BASE  "{\"backend\": \"cpu\", " FIELDS ", \"peak_gbps\": 20.5, "
#define L1    "{\"name\": \"L1\", \"capacity_bytes\": 32768, \"gbps\": 150, \"how\": \"h\"}"
#define L2    "{\"name\": \"L2\", \"capacity_bytes\": 524288, \"gbps\": 80, \"how\": \"h\"}"
#define DRAM  "{\"name\": \"DRAM\", \"capacity_bytes\": 0, \"gbps\": 20.5, \"how\": \"h\"}"
#define FP32  "\"fp32\": {\"gflops\": 95, \"how\": \"avx2\"}"
#define POINT "{\"working_set_bytes\": 4096, \"gbps\": 150}"

/* A file with BASE and `roofs`, which must fail naming the field. */
static void expect_bad_roofs(const char *roofs, const char *want) {
    char text[8192];
    snprintf(text, sizeof text, BASE "%s}", roofs);
    expect_error(text, want);
}

static void test_roofs_read(void) {
    kb_calibration cal;
    kb_err err = {{0}};
    ASSERT_INT_EQ(read_text(BASE "\"levels\": [" L1 ", " L2 ", " DRAM "], \"compute\": {" FP32
                                 "}, \"matrix\": {\"fp16\": {\"gflops\": 400, \"how\": \"tc\"}}, "
                                 "\"sweep\": [" POINT ", " POINT "]}",
                            &cal, &err),
                  0);
    ASSERT(cal.present);
    ASSERT_INT_EQ(cal.roofs.n_levels, 3);
    ASSERT_STR_CONTAINS(cal.roofs.levels[1].level.name, "L2");
    ASSERT_NEAR(cal.roofs.levels[1].level.capacity, 524288.0, 0);
    ASSERT_NEAR(cal.roofs.levels[2].gbps, 20.5, 0);
    ASSERT_NEAR(cal.roofs.fma[KB_FP32].gflops, 95.0, 0);
    ASSERT_NEAR(cal.roofs.fma[KB_FP64].gflops, 0.0, 0);
    ASSERT_NEAR(cal.roofs.matrix[KB_FP16].gflops, 400.0, 0);
    ASSERT_STR_CONTAINS(cal.roofs.matrix[KB_FP16].how, "tc");
    ASSERT_INT_EQ(cal.roofs.n_sweep, 2);
    ASSERT_NEAR(cal.roofs.sweep[1].working_set_bytes, 4096.0, 0);
}

/* A file written before the roofline still reads; the roofline is then
 * unavailable, and the note says why. */
static void test_old_file_has_no_roofline(void) {
    kb_calibration cal;
    kb_err err = {{0}};
    ASSERT_INT_EQ(read_text(BASE "\"cases\": []}", &cal, &err), 0);
    ASSERT(cal.present);
    ASSERT_INT_EQ(cal.roofs.n_levels, 0);
    ASSERT_STR_CONTAINS(cal.roof_note, "no 'levels'");
    ASSERT_STR_CONTAINS(cal.roof_note, path);
}

/* ---- memory's ceiling per access pattern: "patterns" ---- */

#define PATTERNS                                                                                   \
    "\"patterns\": {\"read\": {\"gbps\": 40, \"cached_gbps\": 40, \"how\": \"h\"}, "               \
    "\"triad\": {\"gbps\": 30, \"cached_gbps\": 20, \"nt_gbps\": 30, \"how\": \"h\"}, "            \
    "\"copy\": {\"gbps\": 28, \"cached_gbps\": 18, \"nt_gbps\": 27, \"how\": \"c\"}}"

static void test_patterns_read(void) {
    kb_calibration cal;
    kb_err err = {{0}};
    ASSERT_INT_EQ(read_text(BASE "\"levels\": [" L1 ", " DRAM "], " PATTERNS "}", &cal, &err), 0);
    ASSERT_INT_EQ(cal.roofs.n_patterns, KB_PATTERN_COUNT);
    ASSERT_NEAR(cal.roofs.patterns[KB_PATTERN_READ].gbps, 40.0, 0);
    ASSERT_NEAR(cal.roofs.patterns[KB_PATTERN_READ].nt_gbps, 0.0, 0);
    ASSERT_NEAR(cal.roofs.patterns[KB_PATTERN_TRIAD].nt_gbps, 30.0, 0);
    ASSERT_NEAR(cal.roofs.patterns[KB_PATTERN_COPY].gbps, 28.0, 0);
    ASSERT_NEAR(cal.roofs.patterns[KB_PATTERN_COPY].cached_gbps, 18.0, 0);
    ASSERT_STR_CONTAINS(cal.roofs.patterns[KB_PATTERN_COPY].how, "c");
    ASSERT(!*cal.pattern_note);
}

/* A file with roofs but without "patterns" (written before them, or by a
 * backend without the passes) reads: memory keeps its one ceiling, and
 * the note says why. */
static void test_old_file_has_one_memory_ceiling(void) {
    kb_calibration cal;
    kb_err err = {{0}};
    ASSERT_INT_EQ(read_text(BASE "\"levels\": [" L1 ", " DRAM "]}", &cal, &err), 0);
    ASSERT(cal.present);
    ASSERT_INT_EQ(cal.roofs.n_levels, 2);
    ASSERT_INT_EQ(cal.roofs.n_patterns, 0);
    ASSERT_STR_CONTAINS(cal.pattern_note, "no 'patterns'");
    ASSERT_STR_CONTAINS(cal.pattern_note, path);
}

static void test_bad_patterns(void) {
    expect_bad_roofs("\"patterns\": [1]", "field 'patterns': expected an object");
    expect_bad_roofs("\"patterns\": {\"write\": {}}", "patterns");
    expect_bad_roofs("\"patterns\": {\"read\": {\"gbps\": 40, \"how\": \"h\"}}", "patterns.triad");
    const char *bad[][2] = {
        {"1e999", "patterns.copy.gbps"},  {"0", "patterns.copy.gbps"},
        {"-2", "patterns.copy.gbps"},     {"null", "patterns.copy.gbps"},
        {"\"28\"", "patterns.copy.gbps"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        char roofs[1024];
        snprintf(
            roofs, sizeof roofs,
            "\"patterns\": {\"read\": {\"gbps\": 40, \"how\": \"h\"}, \"triad\": {\"gbps\": 30, "
            "\"how\": \"h\"}, \"copy\": {\"gbps\": %s, \"how\": \"h\"}}",
            bad[i][0]);
        expect_bad_roofs(roofs, bad[i][1]);
    }
    expect_bad_roofs(
        "\"patterns\": {\"read\": {\"gbps\": 40, \"how\": \"h\"}, \"triad\": {\"gbps\": 30, "
        "\"nt_gbps\": 1e999, \"how\": \"h\"}, \"copy\": {\"gbps\": 2, \"how\": \"h\"}}",
        "patterns.triad.nt_gbps");
    expect_bad_roofs(
        "\"patterns\": {\"read\": {\"gbps\": 40, \"how\": \"h\"}, \"triad\": {\"gbps\": 30, "
        "\"cached_gbps\": -1, \"how\": \"h\"}, \"copy\": {\"gbps\": 2, \"how\": \"h\"}}",
        "patterns.triad.cached_gbps");
    expect_bad_roofs(
        "\"patterns\": {\"read\": {\"gbps\": 40}, \"triad\": {\"gbps\": 30, \"how\": \"h\"}, "
        "\"copy\": {\"gbps\": 2, \"how\": \"h\"}}",
        "patterns.read.how");
}

static void test_bad_levels(void) {
    expect_bad_roofs("\"levels\": 3", "field 'levels': expected an array");
    expect_bad_roofs("\"levels\": []", "field 'levels': expected 1 to 6 levels, got 0");
    expect_bad_roofs("\"levels\": [" L1 "," L1 "," L1 "," L1 "," L1 "," L1 "," DRAM "]",
                     "field 'levels': expected 1 to 6 levels, got 7");
    expect_bad_roofs("\"levels\": [3]", "field 'levels[0]': expected an object");
    expect_bad_roofs("\"levels\": [{\"capacity_bytes\": 0, \"gbps\": 1, \"how\": \"h\"}]",
                     "field 'levels[0].name': missing");
    expect_bad_roofs(
        "\"levels\": [{\"name\": \"\", \"capacity_bytes\": 0, \"gbps\": 1, \"how\": \"h\"}]",
        "field 'levels[0].name': empty");
    expect_bad_roofs("\"levels\": [{\"name\": \"a-very-long-level-name\", \"capacity_bytes\": 0, "
                     "\"gbps\": 1, \"how\": \"h\"}]",
                     "field 'levels[0].name': longer than");
    expect_bad_roofs("\"levels\": [{\"name\": \"L1\", \"capacity_bytes\": -1, \"gbps\": 1, "
                     "\"how\": \"h\"}, " DRAM "]",
                     "field 'levels[0].capacity_bytes': expected 0 or a positive number");
    expect_bad_roofs("\"levels\": [{\"name\": \"L1\", \"capacity_bytes\": \"32K\", \"gbps\": 1, "
                     "\"how\": \"h\"}, " DRAM "]",
                     "field 'levels[0].capacity_bytes': expected a number");
    expect_bad_roofs("\"levels\": [{\"name\": \"DRAM\", \"capacity_bytes\": 0, \"gbps\": 0, "
                     "\"how\": \"h\"}]",
                     "field 'levels[0].gbps': expected a positive number");
    expect_bad_roofs("\"levels\": [{\"name\": \"DRAM\", \"capacity_bytes\": 0, \"gbps\": 1e999, "
                     "\"how\": \"h\"}]",
                     "field 'levels[0].gbps'");
    expect_bad_roofs("\"levels\": [{\"name\": \"DRAM\", \"capacity_bytes\": 0, \"how\": \"h\"}]",
                     "field 'levels[0].gbps': missing");
    expect_bad_roofs("\"levels\": [{\"name\": \"DRAM\", \"capacity_bytes\": 0, \"gbps\": 1}]",
                     "field 'levels[0].how': missing");
    expect_bad_roofs("\"levels\": [{\"name\": \"DRAM\", \"capacity_bytes\": 0, \"gbps\": 1, "
                     "\"how\": \"h\", \"speed\": 1}]",
                     "field 'levels[0].speed': unknown field");
    expect_bad_roofs("\"levels\": [" L2 ", " L1 ", " DRAM "]",
                     "field 'levels': levels not ordered smallest first");
    expect_bad_roofs("\"levels\": [" DRAM ", " L1 "]",
                     "field 'levels': a cache level without a positive finite capacity");
    expect_bad_roofs("\"levels\": [" L1 ", " L2 "]",
                     "field 'levels': the last level (memory) must have capacity 0");
    expect_bad_roofs("\"levels\": [" L1 ", " L1 ", " DRAM "]",
                     "field 'levels': a level named twice");
}

static void test_bad_compute(void) {
    const char *const keys[] = {"compute", "matrix"};
    for (int i = 0; i < 2; ++i) {
        char roofs[256], want[128];
        const char *k = keys[i];
#define BAD(json, what)                                                                            \
    do {                                                                                           \
        snprintf(roofs, sizeof roofs, "\"%s\": " json, k);                                         \
        snprintf(want, sizeof want, "field '%s" what, k);                                          \
        expect_bad_roofs(roofs, want);                                                             \
    } while (0)
        BAD("[1]", "': expected an object");
        BAD("{\"fp8\": {\"gflops\": 1, \"how\": \"h\"}}", ".fp8': not a precision");
        BAD("{\"fp32\": 95}", ".fp32': expected an object");
        BAD("{\"fp32\": {\"gflops\": 0, \"how\": \"h\"}}", ".fp32.gflops': expected a positive");
        BAD("{\"fp32\": {\"gflops\": -5, \"how\": \"h\"}}", ".fp32.gflops': expected a positive");
        BAD("{\"fp32\": {\"gflops\": \"95\", \"how\": \"h\"}}", ".fp32.gflops': expected a number");
        BAD("{\"fp32\": {\"how\": \"h\"}}", ".fp32.gflops': missing");
        BAD("{\"fp32\": {\"gflops\": 95}}", ".fp32.how': missing");
        BAD("{\"fp32\": {\"gflops\": 95, \"how\": 3}}", ".fp32.how': expected a string");
        BAD("{\"fp32\": {\"gflops\": 95, \"how\": \"h\", \"unit\": 1}}",
            ".fp32.unit': unknown field");
#undef BAD
    }
}

static void test_bad_sweep(void) {
    expect_bad_roofs("\"sweep\": {}", "field 'sweep': expected an array");
    expect_bad_roofs("\"sweep\": [1]", "field 'sweep[0]': expected an object");
    expect_bad_roofs("\"sweep\": [" POINT ", {\"working_set_bytes\": 0, \"gbps\": 1}]",
                     "field 'sweep[1].working_set_bytes': expected a positive number");
    expect_bad_roofs("\"sweep\": [{\"working_set_bytes\": 4096, \"gbps\": -1}]",
                     "field 'sweep[0].gbps': expected a positive number");
    expect_bad_roofs("\"sweep\": [{\"working_set_bytes\": 4096}]",
                     "field 'sweep[0].gbps': missing");
    expect_bad_roofs("\"sweep\": [{\"working_set_bytes\": 4096, \"gbps\": 1, \"ms\": 2}]",
                     "field 'sweep[0].ms': unknown field");
    char many[4096] = "\"sweep\": [";
    for (int i = 0; i <= KB_MAX_SWEEP; ++i) strcat(many, i ? ", " POINT : POINT);
    strcat(many, "]");
    expect_bad_roofs(many, "field 'sweep': more than 64 points (65)");
}

/* What kb_calibration_add_roofs writes, kb_calibration_read reads back. */
static void test_roofs_round_trip(void) {
    kb_roofs roofs = {.n_levels = 2, .n_sweep = 1};
    roofs.levels[0] = (kb_level_roof){{"L2", 1048576.0}, 90.0, "swept"};
    roofs.levels[1] = (kb_level_roof){{"DRAM", 0.0}, 20.0, "swept and cases"};
    roofs.fma[KB_FP64] = (kb_compute_roof){40.0, "avx2 fp64"};
    roofs.matrix[KB_BF16] = (kb_compute_roof){700.0, "tensor cores"};
    roofs.sweep[0] = (kb_sweep_point){8192.0, 140.0};
    roofs.n_patterns = KB_PATTERN_COUNT;
    roofs.patterns[KB_PATTERN_READ] = (kb_pattern_roof){35.0, 35.0, 0.0, "reduction"};
    roofs.patterns[KB_PATTERN_TRIAD] = (kb_pattern_roof){31.0, 22.0, 31.0, "triad"};
    roofs.patterns[KB_PATTERN_COPY] = (kb_pattern_roof){29.0, 19.0, 28.0, "copy and cases"};
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "backend", "cpu");
    cJSON_AddStringToObject(o, "hardware_id", "hw");
    cJSON_AddStringToObject(o, "measured_at", "now");
    cJSON_AddNumberToObject(o, "peak_gbps", 20.0);
    kb_calibration_add_roofs(o, &roofs, 1);
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    kb_calibration cal;
    kb_err err = {{0}};
    ASSERT_INT_EQ(read_text(text, &cal, &err), 0);
    free(text);
    ASSERT_INT_EQ(cal.roofs.n_levels, 2);
    ASSERT_STR_CONTAINS(cal.roofs.levels[0].how, "swept");
    ASSERT_NEAR(cal.roofs.levels[0].level.capacity, 1048576.0, 0);
    ASSERT_NEAR(cal.roofs.levels[1].gbps, 20.0, 0);
    ASSERT_NEAR(cal.roofs.fma[KB_FP64].gflops, 40.0, 0);
    ASSERT_NEAR(cal.roofs.fma[KB_FP32].gflops, 0.0, 0);
    ASSERT_NEAR(cal.roofs.matrix[KB_BF16].gflops, 700.0, 0);
    ASSERT_INT_EQ(cal.roofs.n_sweep, 1);
    ASSERT_NEAR(cal.roofs.sweep[0].gbps, 140.0, 0);
    ASSERT_INT_EQ(cal.roofs.n_patterns, KB_PATTERN_COUNT);
    ASSERT_NEAR(cal.roofs.patterns[KB_PATTERN_READ].gbps, 35.0, 0);
    ASSERT_NEAR(cal.roofs.patterns[KB_PATTERN_READ].nt_gbps, 0.0, 0);
    ASSERT_NEAR(cal.roofs.patterns[KB_PATTERN_TRIAD].nt_gbps, 31.0, 0);
    ASSERT_NEAR(cal.roofs.patterns[KB_PATTERN_COPY].cached_gbps, 19.0, 0);
    ASSERT_STR_CONTAINS(cal.roofs.patterns[KB_PATTERN_COPY].how, "copy and cases");
    ASSERT(cal.age_s < 0.0); /* "now" is no time: its age is unknown, and not an error */
}

/* ---- reusing a calibration (kb_calibration_reusable) ---- */

#define MEASURED    "2026-01-01T00:00:00Z"
#define COPY_BYTES  268435456.0
#define TRIAD_BYTES 402653184.0

static void test_time(void) {
    ASSERT_NEAR(kb_calibration_time(MEASURED), 1767225600.0, 0);
    ASSERT_NEAR(kb_calibration_time("2026-01-01T00:01:40Z") - kb_calibration_time(MEASURED), 100.0,
                0);
    const char *const bad[] = {"",
                               "now",
                               "2026-01-01",
                               "2026-01-01T00:00:00",
                               "2026-01-01T00:00:00+01:00",
                               "2026-1-01T00:00:00Z",
                               "2026-02-30T00:00:00Z",
                               "2026-01-01T24:00:00Z",
                               " 026-01-01T00:00:00Z",
                               "1969-12-31T23:59:59Z"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        if (!(kb_calibration_time(bad[i]) < 0.0)) KB_TEST_FAIL("'%s' read as a time", bad[i]);
    }
}

static void test_age_text(void) {
    char t[32];
    kb_calibration_age_text(40.0, t, sizeof t);
    ASSERT_STR_CONTAINS(t, "40 s");
    kb_calibration_age_text(14 * 60.0, t, sizeof t);
    ASSERT_STR_CONTAINS(t, "14 min");
    kb_calibration_age_text(3.5 * 3600.0, t, sizeof t);
    ASSERT_STR_CONTAINS(t, "3.5 h");
    kb_calibration_age_text(3 * 86400.0, t, sizeof t);
    ASSERT_STR_CONTAINS(t, "3.0 days");
}

/* The run's stamp: the hardware "hw", the CPU (no device), one boot, one
 * build, copy and triad. */
static kb_calibration_stamp stamp_of(void) {
    kb_calibration_stamp s;
    memset(&s, 0, sizeof s);
    snprintf(s.hardware_id, sizeof s.hardware_id, "hw");
    snprintf(s.boot_id, sizeof s.boot_id, "5e3f8c1a-boot");
    snprintf(s.kbench_version, sizeof s.kbench_version, "1.2.3");
    snprintf(s.compiler, sizeof s.compiler, "GNU 12.2.0");
    snprintf(s.c_flags, sizeof s.c_flags, "-O3 -mavx2");
    snprintf(s.build_type, sizeof s.build_type, "Release");
    snprintf(s.executable, sizeof s.executable, "fnv1a64:0123456789abcdef");
    snprintf(s.kernel, sizeof s.kernel, "bandwidth");
    snprintf(s.precision, sizeof s.precision, "fp64");
    kb_calibration_stamp_case(&s, "copy", "default", COPY_BYTES);
    kb_calibration_stamp_case(&s, "triad", "default", TRIAD_BYTES);
    return s;
}

static cJSON *case_json(const char *name, double bytes) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "case", name);
    cJSON_AddStringToObject(o, "variant", "default");
    cJSON_AddNumberToObject(o, "median_ms", 10.0);
    cJSON_AddNumberToObject(o, "bytes", bytes);
    cJSON_AddNumberToObject(o, "gbps", bytes / 1e7);
    return o;
}

/* A calibration file measured under s at MEASURED, as kb_calibration_write
 * writes one, for a test to alter. */
static cJSON *file_of(const kb_calibration_stamp *s) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "backend", "cpu");
    cJSON_AddStringToObject(o, "hardware_id", s->hardware_id);
    cJSON_AddStringToObject(o, "profile", "p");
    cJSON_AddStringToObject(o, "kernel", s->kernel);
    cJSON_AddStringToObject(o, "precision", s->precision);
    cJSON_AddStringToObject(o, "measured_at", MEASURED);
    cJSON_AddStringToObject(o, "boot_id", s->boot_id);
    cJSON_AddStringToObject(o, "device", s->device);
    cJSON *b = cJSON_AddObjectToObject(o, "build");
    cJSON_AddStringToObject(b, "kbench_version", s->kbench_version);
    cJSON_AddStringToObject(b, "compiler", s->compiler);
    cJSON_AddStringToObject(b, "c_flags", s->c_flags);
    cJSON_AddStringToObject(b, "build_type", s->build_type);
    cJSON_AddStringToObject(b, "executable", s->executable);
    cJSON_AddNumberToObject(o, "peak_gbps", 20.5);
    cJSON *cases = cJSON_AddArrayToObject(o, "cases");
    cJSON_AddItemToArray(cases, case_json("copy", COPY_BYTES));
    cJSON_AddItemToArray(cases, case_json("triad", TRIAD_BYTES));
    return o;
}

static const kb_calibration_policy keep = {KB_CALIBRATION_MAX_AGE_S, 0};

/* Writes `file` (taken over) and asks whether a run with s under p at
 * `now` may reuse it. */
static int reusable(cJSON *file, const kb_calibration_stamp *s, const kb_calibration_policy *p,
                    double now, kb_calibration *cal) {
    char *text = cJSON_Print(file);
    cJSON_Delete(file);
    kb_test_join(path, sizeof path, kb_test_tmpdir("calibration_reuse"), "cpu.json");
    kb_test_write(path, text);
    free(text);
    return kb_calibration_reusable(cal, path, "cpu", s, p, now);
}

/* Ten minutes after MEASURED. */
static double soon(void) {
    return kb_calibration_time(MEASURED) + 600.0;
}

/* The file must be measured again, for the reason `why` (and nothing of it
 * kept). */
static void expect_measured_under(cJSON *file, const kb_calibration_stamp *s,
                                  const kb_calibration_policy *p, double now, const char *why) {
    kb_calibration cal;
    ASSERT_INT_EQ(reusable(file, s, p, now, &cal), 0);
    ASSERT_INT_EQ(cal.reused, 0);
    ASSERT(!cal.present);
    ASSERT_NEAR(cal.peak_gbps, 0.0, 0);
    ASSERT_STR_CONTAINS(cal.why_measured, why);
    ASSERT(!strchr(cal.why_measured, '\n')); /* one line */
}

static void expect_measured(cJSON *file, const char *why) {
    kb_calibration_stamp s = stamp_of();
    expect_measured_under(file, &s, &keep, soon(), why);
}

static void test_reuse_fresh(void) {
    kb_calibration_stamp s = stamp_of();
    kb_calibration cal;
    ASSERT_INT_EQ(reusable(file_of(&s), &s, &keep, soon(), &cal), 1);
    ASSERT_INT_EQ(cal.reused, 1);
    ASSERT(cal.present);
    ASSERT_NEAR(cal.peak_gbps, 20.5, 0);
    ASSERT_NEAR(cal.age_s, 600.0, 0);
    ASSERT_STR_CONTAINS(cal.file, path);
    ASSERT_STR_CONTAINS(cal.measured_at, MEASURED);
    /* a GPU's: the same device */
    snprintf(s.device, sizeof s.device, "0000:41:00.0");
    ASSERT_INT_EQ(reusable(file_of(&s), &s, &keep, soon(), &cal), 1);
}

static void test_reuse_other_boot(void) {
    kb_calibration_stamp s = stamp_of();
    cJSON *f = file_of(&s);
    cJSON_ReplaceItemInObject(f, "boot_id", cJSON_CreateString("0a1b2c3d-earlier-boot"));
    expect_measured(f, "was measured in another boot (its boot_id '0a1b2c3d-earlier-boot', this "
                       "machine's '5e3f8c1a-boot')");
}

static void test_reuse_other_hardware(void) {
    kb_calibration_stamp s = stamp_of();
    cJSON *f = file_of(&s);
    cJSON_ReplaceItemInObject(f, "hardware_id", cJSON_CreateString("another CPU|8 cpu"));
    expect_measured(f, "was measured on other hardware (another CPU|8 cpu)");
    /* the same model of GPU, another one of them */
    f = file_of(&s);
    cJSON_ReplaceItemInObject(f, "device", cJSON_CreateString("0000:41:00.0"));
    snprintf(s.device, sizeof s.device, "0000:c1:00.0");
    expect_measured_under(f, &s, &keep, soon(), "was measured on another device ('0000:41:00.0'");
}

static void test_reuse_age(void) {
    kb_calibration_stamp s = stamp_of();
    const double t = kb_calibration_time(MEASURED);
    kb_calibration cal;
    /* as old as allowed: reused; a second older: measured */
    ASSERT_INT_EQ(reusable(file_of(&s), &s, &keep, t + keep.max_age_s, &cal), 1);
    ASSERT_NEAR(cal.age_s, keep.max_age_s, 0);
    expect_measured_under(file_of(&s), &s, &keep, t + keep.max_age_s + 1.0,
                          "longer ago than KBENCH_CALIBRATION_MAX_AGE allows (12.0 h)");
    expect_measured_under(file_of(&s), &s, &keep, t + 13 * 3600.0,
                          "was measured 13.0 h ago, longer ago than KBENCH_CALIBRATION_MAX_AGE");
    /* a shorter limit */
    const kb_calibration_policy minute = {60.0, 0};
    ASSERT_INT_EQ(reusable(file_of(&s), &s, &minute, t + 59.0, &cal), 1);
    expect_measured_under(file_of(&s), &s, &minute, t + 61.0, "(60 s)");
}

static void test_reuse_future(void) {
    kb_calibration_stamp s = stamp_of();
    expect_measured_under(file_of(&s), &s, &keep, kb_calibration_time(MEASURED) - 5.0,
                          "was measured at " MEASURED ", 5 s ahead of this machine's clock");
}

static void test_reuse_other_build(void) {
    const char *const keys[] = {"kbench_version", "compiler", "c_flags", "build_type",
                                "executable"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; ++i) {
        kb_calibration_stamp s = stamp_of();
        cJSON *f = file_of(&s);
        cJSON *b = cJSON_GetObjectItemCaseSensitive(f, "build");
        cJSON_ReplaceItemInObject(b, keys[i], cJSON_CreateString("-O3 -mavx512f"));
        char want[128];
        snprintf(want, sizeof want, "by another build of the driver (build.%s '-O3 -mavx512f'",
                 keys[i]);
        expect_measured(f, want);
    }
}

static void test_reuse_other_cases(void) {
    kb_calibration_stamp s = stamp_of();
    cJSON *f = file_of(&s);
    cJSON *cases = cJSON_GetObjectItemCaseSensitive(f, "cases");
    cJSON_ReplaceItemInArray(cases, 1, case_json("triad", TRIAD_BYTES / 2));
    expect_measured(f, "holds other calibration cases (bandwidth fp64: copy default 268435456; "
                       "triad default 201326592; this run's bandwidth fp64: copy default "
                       "268435456; triad default 402653184)");
    f = file_of(&s);
    cJSON_DeleteItemFromArray(cJSON_GetObjectItemCaseSensitive(f, "cases"), 0);
    expect_measured(f, "holds other calibration cases");
    f = file_of(&s);
    cJSON_ReplaceItemInObject(f, "precision", cJSON_CreateString("fp32"));
    expect_measured(f, "holds other calibration cases (bandwidth fp32:");
    f = file_of(&s);
    cJSON_ReplaceItemInObject(f, "kernel", cJSON_CreateString("pair"));
    expect_measured(f, "holds other calibration cases (pair fp64:");
}

static void test_reuse_missing_fields(void) {
    kb_calibration_stamp s = stamp_of();
    struct {
        const char *object, *key, *why;
    } const removed[] = {
        {NULL, "boot_id", "has no 'boot_id': it cannot be told to be of this boot"},
        {NULL, "device", "field 'device': missing"},
        {NULL, "build", "field 'build': missing"},
        {"build", "executable", "field 'build.executable': missing"},
        {"build", "c_flags", "field 'build.c_flags': missing"},
        {NULL, "kernel", "field 'kernel': missing"},
        {NULL, "precision", "field 'precision': missing"},
        {NULL, "cases", "field 'cases': missing"},
        {NULL, "peak_gbps", "field 'peak_gbps': missing"},
        {NULL, "measured_at", "field 'measured_at': missing"},
    };
    for (size_t i = 0; i < sizeof removed / sizeof *removed; ++i) {
        cJSON *f = file_of(&s);
        cJSON *o = removed[i].object ? cJSON_GetObjectItemCaseSensitive(f, removed[i].object) : f;
        cJSON_DeleteItemFromObjectCaseSensitive(o, removed[i].key);
        expect_measured(f, removed[i].why);
    }
    cJSON *f = file_of(&s);
    cJSON_DeleteItemFromObjectCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(f, "cases"), 1), "bytes");
    expect_measured(f, "field 'cases[1].bytes': missing");
}

static void test_reuse_malformed(void) {
    kb_calibration_stamp s = stamp_of();
    cJSON *f = file_of(&s);
    cJSON_ReplaceItemInObject(f, "boot_id", cJSON_CreateNumber(3));
    expect_measured(f, "field 'boot_id': expected a string");
    f = file_of(&s);
    cJSON_ReplaceItemInObject(f, "build", cJSON_CreateString("today's"));
    expect_measured(f, "field 'build': expected an object");
    f = file_of(&s);
    cJSON_ReplaceItemInArray(cJSON_GetObjectItemCaseSensitive(f, "cases"), 0,
                             cJSON_CreateString("copy"));
    expect_measured(f, "field 'cases[0]': expected an object");
    f = file_of(&s);
    cJSON_ReplaceItemInObject(f, "measured_at", cJSON_CreateString("2026-02-30T00:00:00Z"));
    expect_measured(f, "field 'measured_at': '2026-02-30T00:00:00Z' is not a UTC time");
    f = file_of(&s);
    cJSON_ReplaceItemInObject(f, "peak_gbps", cJSON_CreateString("fast"));
    expect_measured(f, "field 'peak_gbps': expected a number");
    f = file_of(&s);
    cJSON_ReplaceItemInObject(f, "backend", cJSON_CreateString("cuda"));
    expect_measured(f, "field 'backend': the file holds the calibration of backend 'cuda'");
    f = file_of(&s);
    cJSON_AddItemToObject(f, "levels", cJSON_CreateNumber(3));
    expect_measured(f, "field 'levels': expected an array");

    /* not JSON, a directory, no file at all: measured, each saying so */
    kb_calibration cal;
    kb_test_join(path, sizeof path, kb_test_tmpdir("calibration_reuse"), "cpu.json");
    kb_test_write(path, "{\"backend\": \"cpu\",");
    ASSERT_INT_EQ(kb_calibration_reusable(&cal, path, "cpu", &s, &keep, soon()), 0);
    ASSERT_STR_CONTAINS(cal.why_measured, path);
    ASSERT_STR_CONTAINS(cal.why_measured, "malformed JSON");
    const char *d = kb_test_tmpdir("calibration_reuse_dir");
    ASSERT_INT_EQ(kb_calibration_reusable(&cal, d, "cpu", &s, &keep, soon()), 0);
    ASSERT_STR_CONTAINS(cal.why_measured, "is a directory");
    kb_test_join(path, sizeof path, kb_test_tmpdir("calibration_reuse_none"), "cpu.json");
    ASSERT_INT_EQ(kb_calibration_reusable(&cal, path, "cpu", &s, &keep, soon()), 0);
    ASSERT_STR_CONTAINS(cal.why_measured, "no calibration at ");
    ASSERT_STR_CONTAINS(cal.why_measured, path);
}

static void test_reuse_never_or_forced(void) {
    kb_calibration_stamp s = stamp_of();
    const kb_calibration_policy never = {0.0, 0}, forced = {KB_CALIBRATION_MAX_AGE_S, 1};
    expect_measured_under(file_of(&s), &s, &never, soon(), "KBENCH_CALIBRATION_MAX_AGE=0");
    expect_measured_under(file_of(&s), &s, &forced, soon(), "KBENCH_RECALIBRATE=1");
    /* this run cannot tell its boot or build: nothing is reused */
    snprintf(s.unknown, sizeof s.unknown, "this machine's boot is unknown (no /proc)");
    expect_measured_under(file_of(&s), &s, &keep, soon(), "this machine's boot is unknown");
}

/* What the driver reads of this machine and itself. */
static void test_stamp_of_this_run(void) {
    kb_calibration_stamp a, b;
    kb_calibration_stamp_init(&a, "hw", "", "bandwidth", "fp64");
    kb_calibration_stamp_init(&b, "hw", "", "bandwidth", "fp64");
    ASSERT_INT_EQ(strlen(a.unknown), 0); /* both readable here */
    ASSERT(strlen(a.boot_id) > 0);
    ASSERT(!strchr(a.boot_id, '\n'));
    ASSERT_STR_CONTAINS(a.executable, "fnv1a64:");
    ASSERT_INT_EQ(strlen(a.executable), strlen("fnv1a64:") + 16);
    ASSERT(strcmp(a.boot_id, b.boot_id) == 0);
    ASSERT(strcmp(a.executable, b.executable) == 0);
    ASSERT(strlen(a.kbench_version) > 0);
    /* cases in order, with their bytes */
    kb_calibration_stamp_case(&a, "copy", "default", COPY_BYTES);
    kb_calibration_stamp_case(&a, "triad", "vendor+cold", 1.0);
    ASSERT_STR_CONTAINS(a.cases, "copy default 268435456; triad vendor+cold 1");
    /* more cases than the stamp holds: nothing can be reused */
    for (int i = 0; i < 200; ++i) kb_calibration_stamp_case(&b, "a_long_case_name", "v", 1e9);
    ASSERT_STR_CONTAINS(b.unknown, "too many calibration cases");
}

static void test_policy_env(void) {
    kb_calibration_policy p;
    kb_err err = {{0}};
    unsetenv("KBENCH_RECALIBRATE");
    unsetenv("KBENCH_CALIBRATION_MAX_AGE");
    ASSERT_INT_EQ(kb_calibration_policy_env(&p, &err), 0);
    ASSERT_NEAR(p.max_age_s, KB_CALIBRATION_MAX_AGE_S, 0);
    ASSERT_INT_EQ(p.forced, 0);
    setenv("KBENCH_RECALIBRATE", "1", 1);
    setenv("KBENCH_CALIBRATION_MAX_AGE", "600", 1);
    ASSERT_INT_EQ(kb_calibration_policy_env(&p, &err), 0);
    ASSERT_NEAR(p.max_age_s, 600.0, 0);
    ASSERT_INT_EQ(p.forced, 1);
    setenv("KBENCH_RECALIBRATE", "0", 1);
    setenv("KBENCH_CALIBRATION_MAX_AGE", "0", 1);
    ASSERT_INT_EQ(kb_calibration_policy_env(&p, &err), 0);
    ASSERT_NEAR(p.max_age_s, 0.0, 0);
    ASSERT_INT_EQ(p.forced, 0);
    setenv("KBENCH_RECALIBRATE", "yes", 1);
    ASSERT_INT_EQ(kb_calibration_policy_env(&p, &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "KBENCH_RECALIBRATE: 'yes' is not 0 or 1");
    unsetenv("KBENCH_RECALIBRATE");
    const char *const bad[] = {"-1", "12h", "inf", "nan", "1e999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        setenv("KBENCH_CALIBRATION_MAX_AGE", bad[i], 1);
        ASSERT_INT_EQ(kb_calibration_policy_env(&p, &err), -1);
        ASSERT_STR_CONTAINS(err.msg, "KBENCH_CALIBRATION_MAX_AGE: '");
        ASSERT_STR_CONTAINS(err.msg, bad[i]);
    }
    unsetenv("KBENCH_CALIBRATION_MAX_AGE");
}

int main(void) {
    RUN_TEST(test_present);
    RUN_TEST(test_absent_when_missing_or_other_hardware);
    RUN_TEST(test_peak_must_be_positive_finite);
    RUN_TEST(test_backend_must_match);
    RUN_TEST(test_malformed);
    RUN_TEST(test_roofs_read);
    RUN_TEST(test_old_file_has_no_roofline);
    RUN_TEST(test_patterns_read);
    RUN_TEST(test_old_file_has_one_memory_ceiling);
    RUN_TEST(test_bad_patterns);
    RUN_TEST(test_bad_levels);
    RUN_TEST(test_bad_compute);
    RUN_TEST(test_bad_sweep);
    RUN_TEST(test_roofs_round_trip);
    RUN_TEST(test_time);
    RUN_TEST(test_age_text);
    RUN_TEST(test_reuse_fresh);
    RUN_TEST(test_reuse_other_boot);
    RUN_TEST(test_reuse_other_hardware);
    RUN_TEST(test_reuse_age);
    RUN_TEST(test_reuse_future);
    RUN_TEST(test_reuse_other_build);
    RUN_TEST(test_reuse_other_cases);
    RUN_TEST(test_reuse_missing_fields);
    RUN_TEST(test_reuse_malformed);
    RUN_TEST(test_reuse_never_or_forced);
    RUN_TEST(test_stamp_of_this_run);
    RUN_TEST(test_policy_env);
    return kb_test_summary();
}
