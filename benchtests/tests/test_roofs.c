/* kb_roofs_measure on a made-up backend whose passes take the time a
 * known hierarchy implies: each level's figure comes from its own window of
 * the sweep, the runtime's copy counts inside the caches only, and missing
 * hooks or figures leave notes, not errors. */
#include "kb_test.h"
#include "measure/roofs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* L1 32 KiB, L2 1 MiB, then memory: 200, 100 and 20 GB/s for the scale
 * pass by working set (both buffers); the copy is twice as fast. */
static double stream_gbps(size_t bytes) {
    double ws = 2.0 * (double)bytes;
    return ws <= 32768.0 ? 200.0 : ws <= 1048576.0 ? 100.0 : 20.0;
}

/* The buffers written so far (by an upload or as a pass's destination),
 * and whether a pass read one that was not: on a real machine it would read
 * the operating system's zero page, from the caches. */
static const void *written[8];
static int n_written, read_unwritten;

static void wrote(const void *p) {
    for (int i = 0; i < n_written; ++i)
        if (written[i] == p) return;
    if (n_written < 8) written[n_written++] = p;
}

static void reads(const void *p) {
    for (int i = 0; i < n_written; ++i)
        if (written[i] == p) return;
    read_unwritten = 1;
}

static int fake_stream(void *dst, const void *src, size_t bytes, int reps, double *ms) {
    reads(src);
    wrote(dst);
    *ms = 2.0 * (double)bytes * reps / (stream_gbps(bytes) * 1e9) * 1e3;
    return 0;
}

/* Non-temporal stores: 1.5x the scale pass (no write-allocate read). */
static int fake_stream_nt(void *dst, const void *src, size_t bytes, int reps, double *ms) {
    fake_stream(dst, src, bytes, reps, ms);
    *ms /= 1.5;
    return 0;
}

static int fake_upload(void *dst, const void *src, size_t bytes, kb_err *err) {
    (void)src;
    (void)bytes;
    (void)err;
    wrote(dst);
    return 0;
}

static int fake_copy(void *dst, const void *src, size_t bytes, int reps, double *ms) {
    fake_stream(dst, src, bytes, reps, ms);
    *ms /= 2.0;
    return 0;
}

/* Memory's passes per pattern, in GB/s of counted bytes: the reduction
 * 40; the triad 20 with cached stores, 30 non-temporal; the copy 18 and
 * 27. `no_nt` declines non-temporal stores. Every array must have been
 * written. */
static int no_nt;

static int fake_pattern(kb_mem_pattern p, int nt, void *dst, const void *a, const void *b,
                        size_t bytes, int reps, double *ms) {
    if (nt && (no_nt || p == KB_PATTERN_READ)) return 1;
    static const double cached[] = {40.0, 20.0, 18.0}, streamed[] = {0.0, 30.0, 27.0};
    static const double arrays[] = {1.0, 3.0, 2.0};
    reads(a);
    if (p == KB_PATTERN_TRIAD) reads(b);
    if (p != KB_PATTERN_READ) wrote(dst);
    *ms = arrays[p] * (double)bytes * reps / ((nt ? streamed : cached)[p] * 1e9) * 1e3;
    return 0;
}

static int levels(kb_mem_level *l, int max) {
    (void)max;
    l[0] = (kb_mem_level){"L1", 32768.0};
    l[1] = (kb_mem_level){"L2", 1048576.0};
    l[2] = (kb_mem_level){"DRAM", 0.0};
    return 3;
}

static int unordered(kb_mem_level *l, int max) {
    levels(l, max);
    l[1].capacity = 1024.0;
    return 3;
}

/* fp64 and fp32 figures; fp16 declined; no matrix unit; bf16 fails. */
static int compute(kb_prec p, kb_compute_unit unit, double *gflops, char *how, size_t size,
                   kb_err *err) {
    if (p == KB_BF16) return kb_fail(err, "bf16 loop failed");
    if (unit == KB_UNIT_MATRIX || p == KB_FP16) {
        snprintf(how, size, "%s", unit == KB_UNIT_MATRIX ? "no matrix unit" : "no fp16 loop");
        return 1;
    }
    *gflops = p == KB_FP64 ? 50.0 : 100.0;
    snprintf(how, size, "fake loop");
    return 0;
}

static int no_bf16(kb_prec p, kb_compute_unit unit, double *gflops, char *how, size_t size,
                   kb_err *err) {
    if (p == KB_BF16) {
        snprintf(how, size, "no bf16 loop");
        return 1;
    }
    return compute(p, unit, gflops, how, size, err);
}

static void *fake_alloc(size_t bytes, kb_err *err) {
    (void)err;
    return malloc(bytes);
}

static kb_backend backend(void) {
    return (kb_backend){.name = "fake",
                        .alloc = fake_alloc,
                        .release = free,
                        .upload = fake_upload,
                        .time_stream = fake_stream,
                        .time_copy = fake_copy,
                        .time_stream_nt = fake_stream_nt,
                        .time_pattern = fake_pattern,
                        .memory_levels = levels,
                        .peak_compute = no_bf16};
}

static kb_roofs roofs;

/* Whether one of the notes holds `text`. */
static int noted(const char *text) {
    for (int i = 0; i < roofs.n_notes; ++i)
        if (strstr(roofs.notes[i], text)) return 1;
    return 0;
}

static void test_each_level_from_its_window(void) {
    kb_backend b = backend();
    kb_err err = {{0}};
    n_written = read_unwritten = 0;
    ASSERT_INT_EQ(kb_roofs_measure(&b, 15.0, "cases", NULL, &roofs, &err), 0);
    ASSERT_INT_EQ(read_unwritten, 0); /* the source was written before any pass */
    ASSERT_INT_EQ(roofs.n_levels, 3);
    ASSERT_NEAR(roofs.levels[0].gbps, 400.0, 1e-6); /* the copy, inside L1 */
    ASSERT_NEAR(roofs.levels[1].gbps, 200.0, 1e-6); /* the copy, inside L2 */
    ASSERT_NEAR(roofs.levels[2].gbps, 30.0, 1e-6);  /* non-temporal stores past the caches */
    ASSERT_STR_CONTAINS(roofs.levels[1].how, "(64 KiB, 1 MiB]");
    ASSERT_STR_CONTAINS(roofs.levels[2].how, "above 3 MiB");
    /* 4 KiB to 64 MiB (8x the last cache is less), x1.5 between */
    ASSERT_NEAR(roofs.sweep[0].working_set_bytes, 4096.0, 0);
    ASSERT_NEAR(roofs.sweep[roofs.n_sweep - 1].working_set_bytes, 64.0 * 1048576.0, 0);
    ASSERT_INT_EQ(roofs.n_sweep, 29);
    ASSERT_NEAR(roofs.fma[KB_FP64].gflops, 50.0, 0);
    ASSERT_NEAR(roofs.fma[KB_FP32].gflops, 100.0, 0);
    ASSERT_NEAR(roofs.fma[KB_FP16].gflops, 0.0, 0);
    ASSERT_NEAR(roofs.matrix[KB_FP32].gflops, 0.0, 0);
    ASSERT(noted("compute fp16: no fp16 loop"));
    ASSERT(noted("matrix fp32: no matrix unit"));
}

/* The calibration cases' figure counts for memory where it is larger. */
static void test_memory_takes_the_cases_when_larger(void) {
    kb_backend b = backend();
    kb_err err = {{0}};
    ASSERT_INT_EQ(kb_roofs_measure(&b, 40.0, "copy 40 GB/s", NULL, &roofs, &err), 0);
    ASSERT_NEAR(roofs.levels[2].gbps, 40.0, 1e-9);
    ASSERT_STR_CONTAINS(roofs.levels[2].how, "copy 40 GB/s");
}

/* Without non-temporal stores, the scale pass past the caches; the
 * runtime's copy, twice as fast in this model, never counts there. */
static void test_without_nontemporal(void) {
    kb_backend b = backend();
    b.time_stream_nt = NULL;
    kb_err err = {{0}};
    ASSERT_INT_EQ(kb_roofs_measure(&b, 15.0, "cases", NULL, &roofs, &err), 0);
    ASSERT_NEAR(roofs.levels[2].gbps, 20.0, 1e-6);
    ASSERT_NEAR(roofs.levels[1].gbps, 200.0, 1e-6);
}

/* Without the runtime's copy, the scale pass alone. */
static void test_without_copy(void) {
    kb_backend b = backend();
    b.time_copy = NULL;
    kb_err err = {{0}};
    ASSERT_INT_EQ(kb_roofs_measure(&b, 15.0, "cases", NULL, &roofs, &err), 0);
    ASSERT_NEAR(roofs.levels[0].gbps, 200.0, 1e-6);
    ASSERT_NEAR(roofs.levels[1].gbps, 100.0, 1e-6);
}

static void test_missing_hooks_leave_notes(void) {
    kb_backend b = backend();
    b.memory_levels = NULL;
    b.peak_compute = NULL;
    kb_err err = {{0}};
    ASSERT_INT_EQ(kb_roofs_measure(&b, 15.0, "cases", NULL, &roofs, &err), 0);
    ASSERT_INT_EQ(roofs.n_levels, 0);
    ASSERT(noted("does not describe its memory hierarchy"));
    ASSERT(noted("no multiply-add throughput loop"));
    /* no streaming pass: memory alone, from the cases */
    b = backend();
    b.time_stream = NULL;
    ASSERT_INT_EQ(kb_roofs_measure(&b, 15.0, "cases", NULL, &roofs, &err), 0);
    ASSERT_INT_EQ(roofs.n_levels, 1);
    ASSERT_STR_CONTAINS(roofs.levels[0].level.name, "DRAM");
    ASSERT_NEAR(roofs.levels[0].gbps, 15.0, 0);
    ASSERT(noted("no streaming pass"));
}

static void test_backend_failures_are_errors(void) {
    kb_backend b = backend();
    b.peak_compute = compute;
    kb_err err = {{0}};
    ASSERT_INT_EQ(kb_roofs_measure(&b, 15.0, "cases", NULL, &roofs, &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "bf16 loop failed");
    b = backend();
    b.memory_levels = unordered;
    ASSERT_INT_EQ(kb_roofs_measure(&b, 15.0, "cases", NULL, &roofs, &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "backend 'fake': memory levels: levels not ordered");
}

/* fp64 measured twice: 40 then 55 GFLOP/s, or 45 then an error. */
static int fp64_calls, second_fails;

static int twice(kb_prec p, kb_compute_unit unit, double *gflops, char *how, size_t size,
                 kb_err *err) {
    if (p != KB_FP64 || unit != KB_UNIT_FMA) return no_bf16(p, unit, gflops, how, size, err);
    if (fp64_calls++ == 1 && second_fails) return kb_fail(err, "fp64 loop failed");
    *gflops = second_fails ? 45.0 : fp64_calls == 1 ? 40.0 : 55.0;
    snprintf(how, size, "call %d", fp64_calls);
    return 0;
}

/* Two passes, before and after the sweep: the higher figure and its `how`
 * are kept; a second pass that fails keeps the first with a note, not an
 * error; a roof declined in the first pass is not asked again, nor noted
 * twice. */
static void test_compute_measured_twice(void) {
    kb_backend b = backend();
    b.peak_compute = twice;
    kb_err err = {{0}};
    fp64_calls = second_fails = 0;
    ASSERT_INT_EQ(kb_roofs_measure(&b, 15.0, "cases", NULL, &roofs, &err), 0);
    ASSERT_INT_EQ(fp64_calls, 2);
    ASSERT_NEAR(roofs.fma[KB_FP64].gflops, 55.0, 0);
    ASSERT_STR_CONTAINS(roofs.fma[KB_FP64].how, "call 2");
    int fp16_notes = 0;
    for (int i = 0; i < roofs.n_notes; ++i)
        fp16_notes += strstr(roofs.notes[i], "compute fp16") != NULL;
    ASSERT_INT_EQ(fp16_notes, 1);
    fp64_calls = 0;
    second_fails = 1;
    ASSERT_INT_EQ(kb_roofs_measure(&b, 15.0, "cases", NULL, &roofs, &err), 0);
    ASSERT_NEAR(roofs.fma[KB_FP64].gflops, 45.0, 0);
    ASSERT(noted("compute fp64: the second measurement failed (fp64 loop failed)"));
}

/* Memory's ceiling per pattern: the better store kind of each, or a
 * calibration case of the pattern where it is faster; no hook, or a
 * declined pass, leaves one ceiling with a note. */
static void test_patterns(void) {
    kb_backend b = backend();
    kb_err err = {{0}};
    n_written = read_unwritten = no_nt = 0;
    kb_pattern_cases cases = {{0.0, 0.0, 28.0}, {"", "", "copy_n16M nt 28 GB/s"}};
    ASSERT_INT_EQ(kb_roofs_measure(&b, 15.0, "cases", &cases, &roofs, &err), 0);
    ASSERT_INT_EQ(read_unwritten, 0); /* the third array was written before any pass */
    ASSERT_INT_EQ(roofs.n_patterns, KB_PATTERN_COUNT);
    const kb_pattern_roof *p = roofs.patterns;
    ASSERT_NEAR(p[KB_PATTERN_READ].gbps, 40.0, 1e-6);
    ASSERT_NEAR(p[KB_PATTERN_READ].nt_gbps, 0.0, 0);
    ASSERT_NEAR(p[KB_PATTERN_TRIAD].cached_gbps, 20.0, 1e-6);
    ASSERT_NEAR(p[KB_PATTERN_TRIAD].nt_gbps, 30.0, 1e-6);
    ASSERT_NEAR(p[KB_PATTERN_TRIAD].gbps, 30.0, 1e-6);
    ASSERT_NEAR(p[KB_PATTERN_COPY].cached_gbps, 18.0, 1e-6);
    ASSERT_NEAR(p[KB_PATTERN_COPY].nt_gbps, 27.0, 1e-6);
    ASSERT_NEAR(p[KB_PATTERN_COPY].gbps, 28.0, 1e-9);
    ASSERT_STR_CONTAINS(p[KB_PATTERN_COPY].how, "copy_n16M nt 28 GB/s");
    ASSERT_STR_CONTAINS(p[KB_PATTERN_TRIAD].how, "non-temporal 30.00");
    /* the memory level keeps its own figure */
    ASSERT_NEAR(roofs.levels[2].gbps, 30.0, 1e-6);

    no_nt = 1;
    ASSERT_INT_EQ(kb_roofs_measure(&b, 15.0, "cases", NULL, &roofs, &err), 0);
    ASSERT_INT_EQ(roofs.n_patterns, KB_PATTERN_COUNT);
    ASSERT_NEAR(roofs.patterns[KB_PATTERN_COPY].gbps, 18.0, 1e-6);
    ASSERT_STR_CONTAINS(roofs.patterns[KB_PATTERN_COPY].how, "no non-temporal");
    no_nt = 0;

    b.time_pattern = NULL;
    ASSERT_INT_EQ(kb_roofs_measure(&b, 15.0, "cases", NULL, &roofs, &err), 0);
    ASSERT_INT_EQ(roofs.n_patterns, 0);
    ASSERT(noted("no pass per access pattern"));
}

static void test_pattern_fractions(void) {
    ASSERT_INT_EQ(kb_pattern_of_fraction(0.0), KB_PATTERN_READ);
    ASSERT_INT_EQ(kb_pattern_of_fraction(1.0 / 3.0), KB_PATTERN_TRIAD);
    ASSERT_INT_EQ(kb_pattern_of_fraction(0.5), KB_PATTERN_COPY);
    ASSERT_INT_EQ(kb_pattern_of_fraction(0.4), -1);
    ASSERT_INT_EQ(kb_pattern_of_fraction(1.0), -1);
    ASSERT(strcmp(kb_pattern_name(KB_PATTERN_TRIAD), "triad") == 0);
}

int main(void) {
    RUN_TEST(test_patterns);
    RUN_TEST(test_pattern_fractions);
    RUN_TEST(test_each_level_from_its_window);
    RUN_TEST(test_compute_measured_twice);
    RUN_TEST(test_memory_takes_the_cases_when_larger);
    RUN_TEST(test_without_copy);
    RUN_TEST(test_without_nontemporal);
    RUN_TEST(test_missing_hooks_leave_notes);
    RUN_TEST(test_backend_failures_are_errors);
    return kb_test_summary();
}
