/* <results>/calibration/<backend>.json as each test reads it: present for
 * this backend and hardware, absent (with the reason) when missing or from
 * other hardware, and an error naming the file and the field otherwise. */
#include "calibration.h"
#include "kb_test.h"

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
}

int main(void) {
    RUN_TEST(test_present);
    RUN_TEST(test_absent_when_missing_or_other_hardware);
    RUN_TEST(test_peak_must_be_positive_finite);
    RUN_TEST(test_backend_must_match);
    RUN_TEST(test_malformed);
    RUN_TEST(test_roofs_read);
    RUN_TEST(test_old_file_has_no_roofline);
    RUN_TEST(test_bad_levels);
    RUN_TEST(test_bad_compute);
    RUN_TEST(test_bad_sweep);
    RUN_TEST(test_roofs_round_trip);
    return kb_test_summary();
}
