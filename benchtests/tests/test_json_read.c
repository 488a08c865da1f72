/* The shared JSON reader: every file kbench reads goes through it, so what
 * it refuses (directories, NUL bytes, a key twice, non-finite numbers,
 * integers out of range) no reader can let through. */
#include "formats/json_read.h"
#include "kb_test.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char path[KB_PATH_MAX];

static const char *fixture(const char *name, const char *text) {
    kb_test_join(path, sizeof path, kb_test_tmpdir(name), "f.json");
    kb_test_write(path, text);
    return path;
}

/* Reading `text` must fail naming the file and holding `want`. */
static void expect_read_error(const char *text, const char *want) {
    kb_err err;
    snprintf(err.msg, sizeof err.msg, "(no message)");
    cJSON *root = kb_json_read_file(fixture("jsonutil_bad", text), &err);
    ASSERT(root == NULL);
    cJSON_Delete(root);
    ASSERT_STR_CONTAINS(err.msg, path);
    ASSERT_STR_CONTAINS(err.msg, want);
}

static void test_reads_valid_file(void) {
    kb_err err = {{0}};
    cJSON *root =
        kb_json_read_file(fixture("jsonutil_ok", "{\"a\": {\"b\": [1, {\"c\": 2}]}}"), &err);
    ASSERT(root != NULL);
    cJSON_Delete(root);
}

/* cJSON keeps the first of a repeated key and CMake's string(JSON) the last:
 * a file that repeats one means two things, and is refused. */
static void test_duplicate_keys_at_any_depth(void) {
    expect_read_error("{\"a\": 1, \"b\": 2, \"a\": 3}", "field 'a': the key appears twice");
    expect_read_error("{\"t\": {\"fp32\": {\"rmse\": 1, \"rmse\": -1}}}",
                      "field 't.fp32.rmse': the key appears twice");
    expect_read_error("{\"cases\": [{\"n\": 1}, {\"dims\": {\"x\": 1, \"x\": 2}}]}",
                      "field 'cases[1].dims.x'");
    /* the same key in two different objects is fine */
    kb_err err = {{0}};
    cJSON *root = kb_json_read_file(
        fixture("jsonutil_twoobj", "{\"a\": {\"k\": 1}, \"b\": {\"k\": 1}}"), &err);
    ASSERT(root != NULL);
    cJSON_Delete(root);
}

static void test_directory_is_named_as_such(void) {
    kb_err err = {{0}};
    const char *d = kb_test_tmpdir("jsonutil_dir");
    ASSERT(kb_json_read_file(d, &err) == NULL);
    ASSERT_STR_CONTAINS(err.msg, d);
    ASSERT_STR_CONTAINS(err.msg, "is a directory");
}

/* A device never ends (/dev/zero): refused before reading. */
static void test_device_is_refused(void) {
    kb_err err = {{0}};
    ASSERT(kb_json_read_file("/dev/zero", &err) == NULL);
    ASSERT_STR_CONTAINS(err.msg, "/dev/zero: is not a regular file");
}

static void test_nul_byte_is_refused(void) {
    kb_test_join(path, sizeof path, kb_test_tmpdir("jsonutil_nul"), "f.json");
    FILE *f = fopen(path, "wb");
    ASSERT(f != NULL);
    if (!f) return;
    fwrite("{\"a\": 1}\0{\"b\": 2}", 1, 17, f);
    fclose(f);
    kb_err err = {{0}};
    ASSERT(kb_json_read_file(path, &err) == NULL);
    ASSERT_STR_CONTAINS(err.msg, "NUL byte");
}

/* A named pipe nobody writes to is refused at once, not waited on. */
static void test_pipe_without_writer_is_refused(void) {
    char fifo[KB_PATH_MAX];
    kb_test_join(fifo, sizeof fifo, kb_test_tmpdir("jsonutil_fifo"), "p.json");
    unlink(fifo);
    ASSERT(mkfifo(fifo, 0600) == 0);
    kb_err err = {{0}};
    ASSERT(kb_json_read_file(fifo, &err) == NULL);
    ASSERT_STR_CONTAINS(err.msg, fifo);
    ASSERT_STR_CONTAINS(err.msg, "nobody writes to");
}

/* "a\u0000b" would be read as "a": refused; an escaped backslash before
 * "u0000" is no such escape. */
static void test_escaped_nul_is_refused(void) {
    expect_read_error("{\"name\": \"a\\u0000b\"}", ":1:12: a string holds \\u0000");
    kb_err err = {{0}};
    cJSON *root = kb_json_read_file(fixture("jsonutil_ok", "{\"name\": \"a\\\\u0000b\"}"), &err);
    ASSERT(root != NULL);
    if (root)
        ASSERT(strcmp(cJSON_GetObjectItemCaseSensitive(root, "name")->valuestring, "a\\u0000b") ==
               0);
    cJSON_Delete(root);
}

/* Every number a kbench file holds is finite: 1e999 parses as inf. */
static void test_numbers_are_finite(void) {
    expect_read_error("{\"a\": {\"b\": [1, 1e999]}}", "field 'a.b[1]': inf is not a finite number");
    kb_err err = {{0}};
    cJSON *root = cJSON_Parse("{\"x\": 1e999, \"y\": -1e999, \"z\": 2.5, \"a\": [1e999]}");
    double v = 0.0;
    ASSERT_INT_EQ(kb_json_number(root, "x", 1, &v, "f.json", "top", &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "field 'top.x'");
    ASSERT_STR_CONTAINS(err.msg, "not a finite number");
    ASSERT_INT_EQ(kb_json_number(root, "y", 1, &v, "f.json", "", &err), -1);
    ASSERT_INT_EQ(kb_json_number_value(cJSON_GetArrayItem(cJSON_GetObjectItem(root, "a"), 0), &v,
                                       "f.json", "a[0]", &err),
                  -1);
    ASSERT_STR_CONTAINS(err.msg, "field 'a[0]'");
    ASSERT_INT_EQ(kb_json_number(root, "z", 1, &v, "f.json", "", &err), 0);
    ASSERT_NEAR(v, 2.5, 0);
    cJSON_Delete(root);
}

/* Integers are range-checked in double before any conversion: 1e300 or
 * 2^63 cast to int64 is undefined behaviour. */
static void test_integers_checked_before_conversion(void) {
    kb_err err = {{0}};
    cJSON *root = cJSON_Parse("{\"big\": 1e300, \"edge\": 9223372036854775808, \"frac\": 2.5,"
                              " \"neg\": -3, \"ok\": 42, \"str\": \"42\", \"nan\": 1e999}");
    int64_t v = -1;
    const char *bad[] = {"big", "edge", "frac", "neg", "str", "nan"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        err.msg[0] = '\0';
        ASSERT_INT_EQ(kb_json_int(root, bad[i], 1, 1, 1000, &v, "f.json", "s", &err), -1);
        ASSERT_STR_CONTAINS(err.msg, "f.json: field 's.");
        ASSERT_STR_CONTAINS(err.msg, bad[i]);
        ASSERT_STR_CONTAINS(err.msg, "expected a positive integer of at most 1000");
    }
    ASSERT_INT_EQ(v, -1); /* untouched */
    ASSERT_INT_EQ(kb_json_int(root, "ok", 1, 1, 1000, &v, "f.json", "", &err), 0);
    ASSERT_INT_EQ(v, 42);
    ASSERT_INT_EQ(kb_json_int(root, "edge", 1, 0, INT64_MAX, &v, "f.json", "", &err), -1);
    ASSERT_INT_EQ(kb_json_int(root, "absent", 0, 0, 10, &v, "f.json", "", &err), 0);
    ASSERT_INT_EQ(kb_json_int(root, "absent", 1, 0, 10, &v, "f.json", "", &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "missing");
    cJSON_Delete(root);
}

static void test_unknown_keys_named(void) {
    kb_err err = {{0}};
    cJSON *root = cJSON_Parse("{\"rmse\": 1, \"max_abz\": 2, \"why_note\": \"x\"}");
    static const char *const known[] = {"rmse", "max_abs", NULL};
    ASSERT_INT_EQ(kb_json_known_keys(root, known, "f.json", "tolerance.fp32", &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "field 'tolerance.fp32.max_abz': unknown field");
    cJSON_DeleteItemFromObject(root, "max_abz");
    ASSERT_INT_EQ(kb_json_known_keys(root, known, "f.json", "", &err), 0); /* *_note is free */
    cJSON_Delete(root);
}

/* A path longer than the message buffer: the reason at the end of the
 * message survives (the middle of the path is what goes). */
static void test_long_path_keeps_the_reason(void) {
    static char long_path[5001];
    memset(long_path, 'd', 5000);
    for (int i = 100; i < 5000; i += 100) long_path[i] = '/';
    long_path[0] = '/';
    kb_err err = {{0}};
    ASSERT(kb_json_read_file(long_path, &err) == NULL);
    ASSERT_STR_CONTAINS(err.msg, "cannot open");
    ASSERT(strncmp(err.msg, long_path, 100) == 0); /* the start of the path */
    ASSERT(strlen(err.msg) < sizeof err.msg);
    /* and a message may quote the buffer it is written to */
    kb_fail(&err, "outer: %s", err.msg);
    ASSERT_STR_CONTAINS(err.msg, "outer: /ddd");
    ASSERT_STR_CONTAINS(err.msg, "cannot open");
}

int main(void) {
    RUN_TEST(test_reads_valid_file);
    RUN_TEST(test_duplicate_keys_at_any_depth);
    RUN_TEST(test_directory_is_named_as_such);
    RUN_TEST(test_nul_byte_is_refused);
    RUN_TEST(test_escaped_nul_is_refused);
    RUN_TEST(test_pipe_without_writer_is_refused);
    RUN_TEST(test_device_is_refused);
    RUN_TEST(test_numbers_are_finite);
    RUN_TEST(test_integers_checked_before_conversion);
    RUN_TEST(test_unknown_keys_named);
    RUN_TEST(test_long_path_keeps_the_reason);
    return kb_test_summary();
}
