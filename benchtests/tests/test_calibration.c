/* <results>/calibration/<backend>.json as each test reads it: present for
 * this backend and hardware, absent (with the reason) when missing or from
 * other hardware, and an error naming the file and the field otherwise. */
#include "calibration.h"
#include "kb_test.h"

#include <stdio.h>
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

int main(void) {
    RUN_TEST(test_present);
    RUN_TEST(test_absent_when_missing_or_other_hardware);
    RUN_TEST(test_peak_must_be_positive_finite);
    RUN_TEST(test_backend_must_match);
    RUN_TEST(test_malformed);
    return kb_test_summary();
}
