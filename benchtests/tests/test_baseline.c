/* Baseline files: merge, read back, deterministic bytes, and clear errors on
 * malformed input that never lose the file. */
#define _POSIX_C_SOURCE 200809L
#include "formats/baseline.h"
#include "formats/json_read.h"
#include "formats/json_write.h"
#include "kb_test.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define KEY_A "cpu.fp32.default.small"
#define KEY_B "cpu.fp32.default.large"
#define KEY_C "cpu.fp16.avx2.small"
/* A valid root's fields before "entries". */
#define HEAD "\"format\": \"kbench-baseline-1\", \"kernel\": \"k\", \"profile\": \"p\""

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = calloc(1, 1 << 16);
    size_t n = buf ? fread(buf, 1, (1 << 16) - 1, f) : 0;
    (void)n;
    fclose(f);
    return buf;
}

/* Files whose name contains ".tmp." anywhere under d (one level deep is all
 * these tests create below the scratch dir, plus the dir itself). */
static int count_temp_files(const char *d) {
    DIR *dp = opendir(d);
    if (!dp) return 0;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dp)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        char sub[KB_PATH_MAX];
        snprintf(sub, sizeof sub, "%s/%s", d, de->d_name);
        struct stat st;
        if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) n += count_temp_files(sub);
        if (strstr(de->d_name, ".tmp.")) ++n;
    }
    closedir(dp);
    return n;
}

static cJSON *make_entry(double median, double min, double rmse, const double *samples, int n,
                         const char *hw) {
    cJSON *e = cJSON_CreateObject();
    cJSON_AddNumberToObject(e, "median_ms", median);
    cJSON_AddNumberToObject(e, "min_ms", min);
    cJSON_AddNumberToObject(e, "rmse", rmse);
    if (samples) {
        cJSON_AddNumberToObject(e, "probe_gbps", 28.75);
        cJSON_AddNumberToObject(e, "probe_copy_gbps", 30.5);
        cJSON_AddNumberToObject(e, "probe_madd_gflops", 118.25);
        cJSON_AddNumberToObject(e, "probe_chain_gsteps", 0.96875);
        cJSON_AddStringToObject(e, "bound", "compute");
        cJSON_AddStringToObject(e, "timing", "held");
    }
    if (samples) cJSON_AddItemToObject(e, "samples_ms", cJSON_CreateDoubleArray(samples, n));
    cJSON_AddStringToObject(e, "recorded_at", "2024-05-01T12:00:00Z");
    cJSON *env = cJSON_AddObjectToObject(e, "environment");
    cJSON_AddStringToObject(env, "hardware_id", hw);
    return e;
}

static const double samples_a[] = {1.25, 1.5, 0.984375, 1.0312, 2.5e-3};

/* One batch with KEY_A (and KEY_B when both). */
static cJSON *batch(int both, double median_a) {
    cJSON *entries = cJSON_CreateObject();
    cJSON_AddItemToObject(entries, KEY_A,
                          make_entry(median_a, 0.984375, 1.5e-7, samples_a, 5, "hw-one|avx2"));
    if (both) cJSON_AddItemToObject(entries, KEY_B, make_entry(8.5, 8.25, 0, NULL, 0, "hw-one"));
    return entries;
}

static void test_key(void) {
    char key[128];
    kb_baseline_key(key, sizeof key, "cpu", "fp16", "avx2", "batch16_seq256", 1);
    ASSERT(strcmp(key, "cpu.fp16.avx2.batch16_seq256") == 0);
    /* one thread is the key of old: baselines recorded before "threads" */
    kb_baseline_key(key, sizeof key, "cpu", "fp16", "avx2", "batch16_seq256", 0);
    ASSERT(strcmp(key, "cpu.fp16.avx2.batch16_seq256") == 0);
    kb_baseline_key(key, sizeof key, "cpu", "fp32", "default", "n16m_tall", 4);
    ASSERT(strcmp(key, "cpu.fp32.default+t4.n16m_tall") == 0);
    kb_baseline_key(key, sizeof key, "cpu", "fp32", "default+cold", "n16m", 8);
    ASSERT(strcmp(key, "cpu.fp32.default+cold+t8.n16m") == 0);
}

/* A baseline recorded with 4 threads is found by a run of 4 threads and
 * by no other count, nor by a single-threaded run of the same case. */
static void test_key_keeps_thread_counts_apart(void) {
    const char *d = kb_test_tmpdir("baseline_threads");
    char path[KB_PATH_MAX], key[128];
    kb_test_join(path, sizeof path, d, "k.json");
    cJSON *entries = cJSON_CreateObject();
    kb_baseline_key(key, sizeof key, "cpu", "fp32", "default", "n1m_tall", 4);
    cJSON_AddItemToObject(entries, key, make_entry(2.5, 2.25, 0, NULL, 0, "hw"));
    kb_baseline_key(key, sizeof key, "cpu", "fp32", "default", "n1m_tall", 1);
    cJSON_AddItemToObject(entries, key, make_entry(8.5, 8.25, 0, NULL, 0, "hw"));
    kb_err err = {{0}};
    ASSERT_INT_EQ(kb_baseline_merge(path, "k", "p", entries, &err), 0);
    kb_baseline b;
    ASSERT_INT_EQ(kb_baseline_open(&b, path, &err), 0);
    kb_baseline_entry e;
    kb_baseline_key(key, sizeof key, "cpu", "fp32", "default", "n1m_tall", 4);
    ASSERT_INT_EQ(kb_baseline_get(&b, key, &e), 1);
    ASSERT_NEAR(e.median_ms, 2.5, 0);
    kb_baseline_entry_free(&e);
    kb_baseline_key(key, sizeof key, "cpu", "fp32", "default", "n1m_tall", 1);
    ASSERT_INT_EQ(kb_baseline_get(&b, key, &e), 1);
    ASSERT_NEAR(e.median_ms, 8.5, 0);
    kb_baseline_entry_free(&e);
    kb_baseline_key(key, sizeof key, "cpu", "fp32", "default", "n1m_tall", 8);
    ASSERT_INT_EQ(kb_baseline_get(&b, key, &e), 0);
    kb_baseline_key(key, sizeof key, "cpu", "fp32", "default", "n1m_tall", 2);
    ASSERT_INT_EQ(kb_baseline_get(&b, key, &e), 0);
    kb_baseline_close(&b);
}

static void test_merge_creates_file_and_round_trips(void) {
    const char *d = kb_test_tmpdir("baseline_create");
    char path[KB_PATH_MAX];
    kb_test_join(path, sizeof path, d, "prof/nested/k.json"); /* the parents do not exist yet */
    kb_err err = {{0}};
    ASSERT_INT_EQ(kb_baseline_merge(path, "swish", "prof", batch(0, 1.0312), &err), 0);
    ASSERT(access(path, R_OK) == 0);

    kb_baseline b;
    ASSERT_INT_EQ(kb_baseline_open(&b, path, &err), 0);
    ASSERT(b.root != NULL);
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(b.root, "format");
    ASSERT(cJSON_IsString(fmt) && strcmp(fmt->valuestring, KB_BASELINE_FORMAT) == 0);
    const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(b.root, "kernel");
    ASSERT(cJSON_IsString(kernel) && strcmp(kernel->valuestring, "swish") == 0);

    kb_baseline_entry e;
    ASSERT_INT_EQ(kb_baseline_get(&b, KEY_A, &e), 1);
    /* Every value has at most 8 significant digits, so it survives the
     * writer's number format exactly. */
    ASSERT_NEAR(e.median_ms, 1.0312, 0);
    ASSERT_NEAR(e.min_ms, 0.984375, 0);
    ASSERT_NEAR(e.rmse, 1.5e-7, 0);
    ASSERT_NEAR(e.probe.v[KB_PROBE_SCALE], 28.75, 0);
    ASSERT_NEAR(e.probe.v[KB_PROBE_COPY], 30.5, 0);
    ASSERT_NEAR(e.probe.v[KB_PROBE_MADD], 118.25, 0);
    ASSERT_NEAR(e.probe.v[KB_PROBE_CHAIN], 0.96875, 0);
    ASSERT_INT_EQ(e.bound, KB_BOUND_COMPUTE);
    ASSERT_INT_EQ(e.timing, KB_TIMING_HELD);
    ASSERT_INT_EQ(e.n_samples, 5);
    for (int i = 0; i < 5 && i < e.n_samples; ++i) ASSERT_NEAR(e.samples_ms[i], samples_a[i], 0);
    ASSERT(strcmp(e.hardware_id, "hw-one|avx2") == 0);
    ASSERT(strcmp(e.recorded_at, "2024-05-01T12:00:00Z") == 0);
    kb_baseline_entry_free(&e);
    ASSERT(e.samples_ms == NULL && e.n_samples == 0);

    ASSERT_INT_EQ(kb_baseline_get(&b, "cpu.fp32.default.absent", &e), 0);
    kb_baseline_close(&b);
    ASSERT(b.root == NULL);
    ASSERT_INT_EQ(count_temp_files(d), 0);
}

static void test_entry_without_samples(void) {
    const char *d = kb_test_tmpdir("baseline_nosamples");
    char path[KB_PATH_MAX];
    kb_err err;
    ASSERT_INT_EQ(kb_baseline_merge(kb_test_join(path, sizeof path, d, "k.json"), "k", "p",
                                    batch(1, 1.0), &err),
                  0);
    kb_baseline b;
    kb_baseline_entry e;
    ASSERT_INT_EQ(kb_baseline_open(&b, path, &err), 0);
    ASSERT_INT_EQ(kb_baseline_get(&b, KEY_B, &e), 1);
    ASSERT_NEAR(e.median_ms, 8.5, 0);
    ASSERT_NEAR(e.rmse, 0, 0);
    ASSERT_INT_EQ(e.n_samples, 0);
    ASSERT(e.samples_ms == NULL);
    ASSERT_INT_EQ(e.timing, KB_TIMING_UNKNOWN); /* no field: recorded before it was kept */
    kb_baseline_entry_free(&e);
    kb_baseline_close(&b);
}

static void test_merge_keeps_other_keys_replaces_same(void) {
    const char *d = kb_test_tmpdir("baseline_merge");
    char path[KB_PATH_MAX];
    kb_test_join(path, sizeof path, d, "k.json");
    kb_err err;
    ASSERT_INT_EQ(kb_baseline_merge(path, "k", "p", batch(1, 1.0), &err), 0);
    /* Second batch: a new key, and KEY_A again with another median. */
    cJSON *second = cJSON_CreateObject();
    cJSON_AddItemToObject(second, KEY_C, make_entry(3.0, 2.0, 0.5, NULL, 0, "hw-one"));
    cJSON_AddItemToObject(second, KEY_A, make_entry(2.0, 1.5, 0.25, NULL, 0, "hw-two"));
    ASSERT_INT_EQ(kb_baseline_merge(path, "k", "p", second, &err), 0);

    kb_baseline b;
    kb_baseline_entry e;
    ASSERT_INT_EQ(kb_baseline_open(&b, path, &err), 0);
    ASSERT_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(b.root, "entries")), 3);
    ASSERT_INT_EQ(kb_baseline_get(&b, KEY_A, &e), 1); /* replaced as a whole */
    ASSERT_NEAR(e.median_ms, 2.0, 0);
    ASSERT_NEAR(e.rmse, 0.25, 0);
    ASSERT_INT_EQ(e.n_samples, 0);
    ASSERT(strcmp(e.hardware_id, "hw-two") == 0);
    kb_baseline_entry_free(&e);
    ASSERT_INT_EQ(kb_baseline_get(&b, KEY_B, &e), 1); /* kept */
    ASSERT_NEAR(e.median_ms, 8.5, 0);
    kb_baseline_entry_free(&e);
    ASSERT_INT_EQ(kb_baseline_get(&b, KEY_C, &e), 1); /* added */
    ASSERT_NEAR(e.median_ms, 3.0, 0);
    kb_baseline_entry_free(&e);
    kb_baseline_close(&b);
    ASSERT_INT_EQ(count_temp_files(d), 0);
}

static void test_output_deterministic_and_sorted(void) {
    const char *d = kb_test_tmpdir("baseline_determinism");
    char p1[KB_PATH_MAX], p2[KB_PATH_MAX];
    kb_err err;
    ASSERT_INT_EQ(kb_baseline_merge(kb_test_join(p1, sizeof p1, d, "one.json"), "k", "p",
                                    batch(1, 1.0), &err),
                  0);
    ASSERT_INT_EQ(kb_baseline_merge(kb_test_join(p2, sizeof p2, d, "two.json"), "k", "p",
                                    batch(1, 1.0), &err),
                  0);
    char *t1 = read_text(p1), *t2 = read_text(p2);
    ASSERT(t1 && t2 && strcmp(t1, t2) == 0);

    /* Merging the same batch again changes nothing either. */
    ASSERT_INT_EQ(kb_baseline_merge(p1, "k", "p", batch(1, 1.0), &err), 0);
    char *t3 = read_text(p1);
    ASSERT(t1 && t3 && strcmp(t1, t3) == 0);

    /* Parse + print gives the file's bytes back. */
    cJSON *root = kb_json_read_file(p1, &err);
    char *again = root ? kb_json_print(root) : NULL;
    ASSERT(t1 && again && strcmp(t1, again) == 0);

    /* Keys sorted at every level: KEY_B ("...large") sorts before KEY_A
     * ("...small") although KEY_A was added first; and inside an entry,
     * environment < median_ms < min_ms < recorded_at < rmse < samples_ms. */
    const char *order[] = {
        "\"entries\"", KEY_B, "\"environment\"", "\"median_ms\"", "\"min_ms\"", "\"recorded_at\"",
        "\"rmse\"",    KEY_A, "\"format\"",      "\"kernel\"",    "\"profile\""};
    const char *at = t1;
    for (size_t i = 0; at && i < sizeof order / sizeof *order; ++i) {
        const char *next = strstr(at, order[i]);
        if (!next) KB_TEST_FAIL("'%s' missing or out of order", order[i]);
        at = next;
    }
    free(again);
    cJSON_Delete(root);
    free(t1);
    free(t2);
    free(t3);
}

static void test_missing_file_opens_empty(void) {
    const char *d = kb_test_tmpdir("baseline_missing");
    char path[KB_PATH_MAX];
    kb_baseline b;
    kb_err err;
    ASSERT_INT_EQ(kb_baseline_open(&b, kb_test_join(path, sizeof path, d, "none.json"), &err), 0);
    ASSERT(b.root == NULL);
    ASSERT(strcmp(b.path, path) == 0);
    kb_baseline_entry e;
    ASSERT_INT_EQ(kb_baseline_get(&b, KEY_A, &e), 0);
    kb_baseline_close(&b);
}

/* A valid file with one entry whose body is `entry` (JSON text). */
static void write_with_entry(const char *path, const char *key, const char *entry) {
    char text[4096];
    snprintf(text, sizeof text,
             "{\"format\": \"kbench-baseline-1\", \"kernel\": \"k\", \"profile\": \"p\",\n"
             " \"entries\": {\"%s\": %s}}\n",
             key, entry);
    kb_test_write(path, text);
}

/* Opens path, which must fail with a message containing the path and every
 * one of the `want` strings (NULL-terminated). */
static void expect_open_error(const char *path, const char *const *want) {
    kb_baseline b;
    kb_err err;
    snprintf(err.msg, sizeof err.msg, "(no message)");
    ASSERT_INT_EQ(kb_baseline_open(&b, path, &err), -1);
    ASSERT(b.root == NULL);
    ASSERT_STR_CONTAINS(err.msg, path);
    for (; *want; ++want) ASSERT_STR_CONTAINS(err.msg, *want);
}

#define GOOD_ENV "\"environment\": {\"hardware_id\": \"hw\"}"

static void test_malformed_json(void) {
    const char *d = kb_test_tmpdir("baseline_badjson");
    char path[KB_PATH_MAX];
    kb_test_join(path, sizeof path, d, "k.json");
    /* The stray comma is on line 2. */
    kb_test_write(path, "{\"format\": \"kbench-baseline-1\",\n  \"entries\": {,}}\n");
    char where[KB_PATH_MAX + 8];
    snprintf(where, sizeof where, "%s:2:", path);
    expect_open_error(path, (const char *const[]){where, "malformed JSON", NULL});

    kb_test_write(path, "");
    expect_open_error(path, (const char *const[]){"malformed JSON", "empty file", NULL});
    kb_test_write(path, "{\"format\": \"kbench-baseline-1\"} trailing");
    expect_open_error(path, (const char *const[]){"malformed JSON", NULL});
}

static void test_malformed_structure(void) {
    const char *d = kb_test_tmpdir("baseline_badroot");
    char path[KB_PATH_MAX];
    kb_test_join(path, sizeof path, d, "k.json");
    kb_test_write(path, "[1, 2]");
    expect_open_error(path, (const char *const[]){"expected a JSON object", NULL});
    kb_test_write(path, "{\"format\": \"kbench-baseline-0\", \"entries\": {}}");
    expect_open_error(path, (const char *const[]){"field 'format'", "'kbench-baseline-0'",
                                                  KB_BASELINE_FORMAT, NULL});
    kb_test_write(path, "{\"entries\": {}}");
    expect_open_error(path, (const char *const[]){"field 'format': missing", NULL});
    kb_test_write(path, "{" HEAD ", \"entries\": [1]}");
    expect_open_error(path, (const char *const[]){"field 'entries': expected an object", NULL});
    kb_test_write(path, "{" HEAD "}");
    expect_open_error(path, (const char *const[]){"field 'entries': expected an object", NULL});
    write_with_entry(path, KEY_A, "[]");
    expect_open_error(
        path, (const char *const[]){"field 'entries." KEY_A "'", "expected an object", NULL});
}

static void test_malformed_entry_fields(void) {
    const char *d = kb_test_tmpdir("baseline_badentry");
    char path[KB_PATH_MAX];
    kb_test_join(path, sizeof path, d, "k.json");
    struct {
        const char *entry, *want1, *want2;
    } cases[] = {
        {"{\"median_ms\": \"1.0\", \"rmse\": 0, " GOOD_ENV "}",
         "field 'entries." KEY_A ".median_ms'", "expected a number"},
        {"{\"rmse\": 0, " GOOD_ENV "}", "field 'entries." KEY_A ".median_ms'", "missing"},
        {"{\"median_ms\": 1.0, " GOOD_ENV "}", "field 'entries." KEY_A ".rmse'", "missing"},
        {"{\"median_ms\": -1.0, \"rmse\": 0, " GOOD_ENV "}", "field 'entries." KEY_A ".median_ms'",
         "must be positive"},
        {"{\"median_ms\": 0, \"rmse\": 0, " GOOD_ENV "}", "field 'entries." KEY_A ".median_ms'",
         "must be positive"},
        {"{\"median_ms\": 1.0, \"rmse\": -0.5, " GOOD_ENV "}", "field 'entries." KEY_A ".rmse'",
         "must not be negative"},
        {"{\"median_ms\": 1.0, \"min_ms\": \"x\", \"rmse\": 0, " GOOD_ENV "}",
         "field 'entries." KEY_A ".min_ms'", "expected a number"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"probe_gbps\": \"fast\", " GOOD_ENV "}",
         "field 'entries." KEY_A ".probe_gbps'", "expected a number"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"probe_gbps\": 0, " GOOD_ENV "}",
         "field 'entries." KEY_A ".probe_gbps'", "must be a positive finite number"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"probe_gbps\": 1e999, " GOOD_ENV "}",
         "field 'entries." KEY_A ".probe_gbps'", "not a finite number"},
        {"{\"median_ms\": 1e999, \"rmse\": 0, " GOOD_ENV "}", "field 'entries." KEY_A ".median_ms'",
         "not a finite number"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"probe_copy_gbps\": -3, " GOOD_ENV "}",
         "field 'entries." KEY_A ".probe_copy_gbps'", "must be a positive finite number"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"probe_madd_gflops\": \"x\", " GOOD_ENV "}",
         "field 'entries." KEY_A ".probe_madd_gflops'", "expected a number"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"probe_chain_gsteps\": 0, " GOOD_ENV "}",
         "field 'entries." KEY_A ".probe_chain_gsteps'", "must be a positive finite number"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"bound\": \"disk\", " GOOD_ENV "}",
         "field 'entries." KEY_A ".bound'", "expected \"memory\""},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"bound\": 1, " GOOD_ENV "}",
         "field 'entries." KEY_A ".bound'", "expected \"memory\""},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"timing\": \"unknown\", " GOOD_ENV "}",
         "field 'entries." KEY_A ".timing'", "expected \"host\", \"held\""},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"timing\": true, " GOOD_ENV "}",
         "field 'entries." KEY_A ".timing'", "expected \"host\", \"held\""},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"intensity\": -1, " GOOD_ENV "}",
         "field 'entries." KEY_A ".intensity'", "not negative"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"balance\": [], " GOOD_ENV "}",
         "field 'entries." KEY_A ".balance'", "expected a number"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"samples_ms\": [1.0, \"2\", 3.0], " GOOD_ENV "}",
         "field 'entries." KEY_A ".samples_ms[1]'", "expected a number"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"samples_ms\": [1.0, -2.0], " GOOD_ENV "}",
         "field 'entries." KEY_A ".samples_ms[1]'", "must be positive"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"samples_ms\": 3, " GOOD_ENV "}",
         "field 'entries." KEY_A ".samples_ms'", "expected a non-empty array"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"environment\": {}}",
         "field 'entries." KEY_A ".environment.hardware_id'", "missing"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"environment\": {\"hardware_id\": 5}}",
         "field 'entries." KEY_A ".environment.hardware_id'", "expected a string"},
        {"{\"median_ms\": 1.0, \"rmse\": 0}", "field 'entries." KEY_A ".environment'",
         "expected an object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        write_with_entry(path, KEY_A, cases[i].entry);
        expect_open_error(path, (const char *const[]){cases[i].want1, cases[i].want2, NULL});
    }
}

/* A negative min_ms is reported under the right field. */
static void test_negative_min_names_min_ms(void) {
    const char *d = kb_test_tmpdir("baseline_badmin");
    char path[KB_PATH_MAX];
    kb_test_join(path, sizeof path, d, "k.json");
    write_with_entry(path, KEY_A,
                     "{\"median_ms\": 1.0, \"min_ms\": -1.0, \"rmse\": 0, " GOOD_ENV "}");
    expect_open_error(
        path, (const char *const[]){"field 'entries." KEY_A ".min_ms'", "must be positive", NULL});
}

/* An entry key longer than the message's field buffer: the error must still
 * name the whole field path (and building it must not overrun the buffer). */
static void test_long_key_error_names_field(void) {
    const char *d = kb_test_tmpdir("baseline_longkey");
    char path[KB_PATH_MAX], key[401], want[480];
    kb_test_join(path, sizeof path, d, "k.json");
    memset(key, 'k', 396);
    strcpy(key + 396, "TAIL");
    write_with_entry(path, key, "{\"median_ms\": 1.0, \"rmse\": 0, \"environment\": {}}");
    snprintf(want, sizeof want, "TAIL'");
    expect_open_error(path, (const char *const[]){want, "<backend>.<precision>", NULL});
}

/* A key far longer than the harness ever writes (3000 characters; real keys
 * are backend.precision.variant.case, well under 200). Opening the file may
 * accept it or reject it with the file named, but must not overrun a
 * fixed-size buffer while building the field path for messages: with a
 * 320- or 1024-byte buffer and strcat that corrupts the stack (a crash in
 * the -O3 build, a report under -fsanitize=address). */
static void test_very_long_key_is_safe(void) {
    static char key[3001], text[8192];
    fflush(stdout); /* keep the other tests' lines should this one crash */
    const char *d = kb_test_tmpdir("baseline_verylongkey");
    char path[KB_PATH_MAX];
    kb_test_join(path, sizeof path, d, "k.json");
    memset(key, 'x', 3000);
    snprintf(text, sizeof text,
             "{" HEAD ", \"entries\": {\"%s\": {\"median_ms\": 1.5,"
             " \"rmse\": 0, " GOOD_ENV "}}}\n",
             key);
    kb_test_write(path, text);
    kb_baseline b;
    kb_err err = {{0}};
    if (kb_baseline_open(&b, path, &err) == 0) {
        kb_baseline_entry e;
        ASSERT_INT_EQ(kb_baseline_get(&b, key, &e), 1);
        ASSERT_NEAR(e.median_ms, 1.5, 0);
        kb_baseline_entry_free(&e);
        kb_baseline_close(&b);
    } else {
        ASSERT_STR_CONTAINS(err.msg, path);
    }

    /* The same key on a broken entry: an error, naming the file. */
    snprintf(text, sizeof text,
             "{" HEAD ", \"entries\": {\"%s\": {\"median_ms\": 1.5,"
             " \"rmse\": 0, \"environment\": {}}}}\n",
             key);
    kb_test_write(path, text);
    expect_open_error(path, (const char *const[]){"entries", NULL});
}

static void test_merge_into_malformed_file_keeps_it(void) {
    const char *d = kb_test_tmpdir("baseline_merge_bad");
    char path[KB_PATH_MAX];
    kb_test_join(path, sizeof path, d, "k.json");
    const char *bad = "{" HEAD ", \"entries\": {\n"
                      "  \"" KEY_B "\": {\"median_ms\": 2.0, \"rmse\": 0, " GOOD_ENV "},\n"
                      "  oops\n}}\n";
    kb_test_write(path, bad);
    kb_err err = {{0}};
    ASSERT_INT_EQ(kb_baseline_merge(path, "k", "p", batch(1, 1.0), &err), -1);
    ASSERT_STR_CONTAINS(err.msg, path);
    ASSERT_STR_CONTAINS(err.msg, "malformed JSON");
    char *now = read_text(path);
    ASSERT(now && strcmp(now, bad) == 0); /* byte for byte */
    free(now);

    /* Same for a file that parses but fails validation. */
    const char *invalid = "{" HEAD ", \"entries\": {\"" KEY_B
                          "\": {\"median_ms\": \"fast\", \"rmse\": 0, " GOOD_ENV "}}}\n";
    kb_test_write(path, invalid);
    ASSERT_INT_EQ(kb_baseline_merge(path, "k", "p", batch(1, 1.0), &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "median_ms");
    now = read_text(path);
    ASSERT(now && strcmp(now, invalid) == 0);
    free(now);
    ASSERT_INT_EQ(count_temp_files(d), 0);
}

static void test_merge_into_unwritable_dir(void) {
    const char *d = kb_test_tmpdir("baseline_readonly");
    char ro[KB_PATH_MAX], path[KB_PATH_MAX];
    kb_test_join(ro, sizeof ro, d, "ro");
    ASSERT_INT_EQ(mkdir(ro, 0755), 0);
    kb_test_join(path, sizeof path, ro, "k.json");
    ASSERT_INT_EQ(chmod(ro, 0555), 0);
    if (access(ro, W_OK) == 0) {
        printf("note: %s stays writable (running as root?): unwritable-dir check skipped\n", ro);
    } else {
        kb_err err = {{0}};
        ASSERT_INT_EQ(kb_baseline_merge(path, "k", "p", batch(1, 1.0), &err), -1);
        ASSERT_STR_CONTAINS(err.msg, path);
        ASSERT(access(path, F_OK) != 0);
        ASSERT_INT_EQ(count_temp_files(d), 0);
    }
    chmod(ro, 0755);
}

static void test_merge_through_regular_file_fails(void) {
    /* The baseline directory's parent is a regular file: creating the
     * directory fails, and the message names it. Works as root too. */
    const char *d = kb_test_tmpdir("baseline_notdir");
    char file[KB_PATH_MAX], path[KB_PATH_MAX];
    kb_test_join(file, sizeof file, d, "plain");
    kb_test_write(file, "not a directory\n");
    kb_test_join(path, sizeof path, file, "prof/k.json");
    kb_err err = {{0}};
    ASSERT_INT_EQ(kb_baseline_merge(path, "k", "p", batch(1, 1.0), &err), -1);
    ASSERT_STR_CONTAINS(err.msg, file);
    ASSERT_INT_EQ(count_temp_files(d), 0);
}

/* The file's "kernel" and "profile" must be those being run: a baseline of
 * another kernel or profile was read and gated against silently. */
static void test_identity_must_match(void) {
    const char *d = kb_test_tmpdir("baseline_identity");
    char path[KB_PATH_MAX];
    kb_test_join(path, sizeof path, d, "k.json");
    write_with_entry(path, KEY_A, "{\"median_ms\": 1.0, \"rmse\": 0, " GOOD_ENV "}");
    kb_baseline b;
    kb_err err = {{0}};
    ASSERT_INT_EQ(kb_baseline_open_for(&b, path, "k", "p", &err), 0);
    kb_baseline_close(&b);
    ASSERT_INT_EQ(kb_baseline_open_for(&b, path, "softmax", "p", &err), -1);
    ASSERT_STR_CONTAINS(err.msg, path);
    ASSERT_STR_CONTAINS(err.msg, "field 'kernel'");
    ASSERT_STR_CONTAINS(err.msg, "'k'");
    ASSERT_STR_CONTAINS(err.msg, "'softmax'");
    ASSERT_INT_EQ(kb_baseline_open_for(&b, path, "k", "other-box", &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "field 'profile'");
    ASSERT_STR_CONTAINS(err.msg, "'other-box'");
    /* recording into another kernel's file is refused, the file kept */
    ASSERT_INT_EQ(kb_baseline_merge(path, "softmax", "p", batch(1, 1.0), &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "field 'kernel'");
    /* the fields themselves are required and plain names */
    kb_test_write(path, "{\"format\": \"kbench-baseline-1\", \"profile\": \"p\", \"entries\": {}}");
    expect_open_error(path, (const char *const[]){"field 'kernel': missing", NULL});
    kb_test_write(path, "{\"format\": \"kbench-baseline-1\", \"kernel\": \"../k\", \"profile\": "
                        "\"p\", \"entries\": {}}");
    expect_open_error(path, (const char *const[]){"field 'kernel'", NULL});
    kb_test_write(path, "{\"format\": \"kbench-baseline-1\", \"kernel\": \"k\", \"profile\": "
                        "\"a/b\", \"entries\": {}}");
    expect_open_error(path, (const char *const[]){"field 'profile'", NULL});
}

/* Series and times: finite, positive, non-empty; min not above median. */
static void test_times_and_series(void) {
    const char *d = kb_test_tmpdir("baseline_times");
    char path[KB_PATH_MAX];
    kb_test_join(path, sizeof path, d, "k.json");
    struct {
        const char *entry, *want;
    } cases[] = {
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"samples_ms\": [], " GOOD_ENV "}",
         ".samples_ms': expected a non-empty array"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"round_medians_ms\": [], " GOOD_ENV "}",
         ".round_medians_ms': expected a non-empty array"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"samples_ms\": [1, 1e999], " GOOD_ENV "}",
         ".samples_ms[1]': inf is not a finite number"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"round_medians_ms\": [1e999], " GOOD_ENV "}",
         ".round_medians_ms[0]'"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"round_medians_ms\": [0], " GOOD_ENV "}",
         ".round_medians_ms[0]': must be positive"},
        {"{\"median_ms\": 1.0, \"rmse\": 1e999, " GOOD_ENV "}", ".rmse'"},
        {"{\"median_ms\": 1.0, \"min_ms\": 2.0, \"rmse\": 0, " GOOD_ENV "}",
         ".min_ms': 2 is above median_ms 1"},
        {"{\"median_ms\": 1.0, \"p90_ms\": -1, \"rmse\": 0, " GOOD_ENV "}",
         ".p90_ms': must be positive"},
        {"{\"median_ms\": 1.0, \"rmse\": 0, \"recorded_at\": 5, " GOOD_ENV "}",
         ".recorded_at': expected a string"},
        {"{\"median_ms\": 1.0, \"median_ms\": 2.0, \"rmse\": 0, " GOOD_ENV "}",
         ".median_ms': the key appears twice"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        write_with_entry(path, KEY_A, cases[i].entry);
        expect_open_error(path,
                          (const char *const[]){"field 'entries." KEY_A, cases[i].want, NULL});
    }
}

/* Keys the driver could never look up are refused: they hid typos. */
static void test_entry_keys_have_the_driver_form(void) {
    const char *d = kb_test_tmpdir("baseline_keys");
    char path[KB_PATH_MAX];
    kb_test_join(path, sizeof path, d, "k.json");
    const char *bad[] = {
        "cpu.fp32.small",           "tpu.fp32.default.small", "cpu.fp8.default.small",
        "cpu.fp32.def ault.small",  "cpu.fp32.default.a/b",   "cpu.fp32.default..",
        "cpu.fp32.default+t1.n",    "cpu.fp32.default+t0.n",  "cpu.fp32.default+t04.n",
        "cpu.fp32.default+t1025.n", "cpu.fp32.default+t4x.n", "cpu.fp32.default+t4+cold.n",
        "cpu.fp32.default+t+t4.n",  "cpu.fp32.default+tall.n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        write_with_entry(path, bad[i], "{\"median_ms\": 1.0, \"rmse\": 0, " GOOD_ENV "}");
        expect_open_error(path, (const char *const[]){"field 'entries.", "the key", NULL});
    }
    write_with_entry(path, "tpu.fp32.default.small",
                     "{\"median_ms\": 1.0, \"rmse\": 0, " GOOD_ENV "}");
    expect_open_error(
        path, (const char *const[]){"names an unknown backend (expected cpu, cuda or hip)", NULL});
    /* what kb_baseline_key writes reads back */
    const char *good[] = {"cpu.fp16.fused+cold.b16_s256", "cpu.fp32.default+t4.n16m_t4",
                          "cpu.fp32.default+cold+t1024.n", "cpu.fp32.default+t2.n_tall"};
    kb_baseline b;
    kb_err err = {{0}};
    for (size_t i = 0; i < sizeof good / sizeof *good; ++i) {
        write_with_entry(path, good[i], "{\"median_ms\": 1.0, \"rmse\": 0, " GOOD_ENV "}");
        ASSERT_INT_EQ(kb_baseline_open(&b, path, &err), 0);
        kb_baseline_close(&b);
    }
    write_with_entry(path, KEY_A, "3");
    expect_open_error(path,
                      (const char *const[]){"field 'entries." KEY_A "': expected an object", NULL});
}

/* <build>/bin/kbench-baseline, found from this test's own executable
 * (<build>/benchtests/tests/test_baseline); NULL when it is not there. */
static const char *tool_path(void) {
    static char tool[KB_PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", tool, sizeof tool - 64);
    if (n <= 0) return NULL;
    tool[n] = '\0';
    char *cut = strstr(tool, "/benchtests/tests/");
    if (!cut) return NULL;
    strcpy(cut, "/bin/kbench-baseline");
    return access(tool, X_OK) == 0 ? tool : NULL;
}

/* Runs `kbench-baseline check ARGS` and returns its exit status. */
static int run_check(const char *tool, const char *args) {
    char cmd[3 * KB_PATH_MAX];
    snprintf(cmd, sizeof cmd, "'%s' check %s >/dev/null 2>&1", tool, args);
    int status = system(cmd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* kbench-baseline check runs the driver's validation, identity included. */
static void test_check_tool_shares_validation(void) {
    const char *tool = tool_path();
    if (!tool) {
        printf("note: kbench-baseline not built beside this test: skipped\n");
        return;
    }
    const char *d = kb_test_tmpdir("baseline_tool");
    char path[KB_PATH_MAX], args[KB_PATH_MAX + 64];
    kb_test_join(path, sizeof path, d, "k.json");
    write_with_entry(path, KEY_A, "{\"median_ms\": 1.0, \"rmse\": 0, " GOOD_ENV "}");
    snprintf(args, sizeof args, "'%s'", path);
    ASSERT_INT_EQ(run_check(tool, args), 0);
    snprintf(args, sizeof args, "--kernel k --profile p '%s'", path);
    ASSERT_INT_EQ(run_check(tool, args), 0);
    snprintf(args, sizeof args, "--kernel other '%s'", path);
    ASSERT_INT_EQ(run_check(tool, args), 1);
    snprintf(args, sizeof args, "--profile other '%s'", path);
    ASSERT_INT_EQ(run_check(tool, args), 1);
    write_with_entry(path, KEY_A,
                     "{\"median_ms\": 1.0, \"rmse\": 0, \"samples_ms\": [], " GOOD_ENV "}");
    snprintf(args, sizeof args, "'%s'", path);
    ASSERT_INT_EQ(run_check(tool, args), 1);
    /* an edit whose result the driver would refuse is not written */
    char out[KB_PATH_MAX + 8], cmd[4 * KB_PATH_MAX];
    write_with_entry(path, KEY_A, "{\"median_ms\": 1.0, \"rmse\": 0, " GOOD_ENV "}");
    snprintf(out, sizeof out, "%s.out", path);
    snprintf(cmd, sizeof cmd, "'%s' shift-rmse -1 '%s' '%s' >/dev/null 2>&1", tool, path, out);
    ASSERT(system(cmd) != 0);
    ASSERT(access(out, F_OK) != 0);
}

int main(void) {
    RUN_TEST(test_key);
    RUN_TEST(test_key_keeps_thread_counts_apart);
    RUN_TEST(test_merge_creates_file_and_round_trips);
    RUN_TEST(test_entry_without_samples);
    RUN_TEST(test_merge_keeps_other_keys_replaces_same);
    RUN_TEST(test_output_deterministic_and_sorted);
    RUN_TEST(test_missing_file_opens_empty);
    RUN_TEST(test_malformed_json);
    RUN_TEST(test_malformed_structure);
    RUN_TEST(test_malformed_entry_fields);
    RUN_TEST(test_negative_min_names_min_ms);
    RUN_TEST(test_long_key_error_names_field);
    RUN_TEST(test_merge_into_malformed_file_keeps_it);
    RUN_TEST(test_merge_into_unwritable_dir);
    RUN_TEST(test_merge_through_regular_file_fails);
    RUN_TEST(test_identity_must_match);
    RUN_TEST(test_times_and_series);
    RUN_TEST(test_entry_keys_have_the_driver_form);
    RUN_TEST(test_check_tool_shares_validation);
    RUN_TEST(test_very_long_key_is_safe); /* last: overrunning a buffer may crash */
    return kb_test_summary();
}
