/* kb_roofline_of: which level a case's footprint lives in, what bounds it,
 * and its figure against the attainable rate, on made-up roofs; and a
 * manifest's transcendentals, counted at their cost, moving a case's bound. */
#include "formats/manifest.h"
#include "kb_test.h"
#include "machine/model.h"
#include "measure/roofline.h"

#include <stdio.h>
#include <string.h>

/* L1 32 KiB at 200 GB/s, L2 1 MiB at 100, DRAM at 20; fp32 100 GFLOP/s,
 * fp64 50, no fp16 figure. */
static kb_roofs roofs(void) {
    kb_roofs r = {.n_levels = 3};
    r.levels[0] = (kb_level_roof){{"L1", 32768.0}, 200.0, ""};
    r.levels[1] = (kb_level_roof){{"L2", 1048576.0}, 100.0, ""};
    r.levels[2] = (kb_level_roof){{"DRAM", 0.0}, 20.0, ""};
    r.fma[KB_FP32].gflops = 100.0;
    r.fma[KB_FP64].gflops = 50.0;
    return r;
}

static void test_level_is_the_smallest_that_holds_the_footprint(void) {
    kb_roofs r = roofs();
    kb_roofline rl;
    ASSERT_INT_EQ(kb_roofline_of(&r, KB_FP32, 0.0, 1e4, 16384.0, 0.0, 0, 1.0, &rl), 1);
    ASSERT(strcmp(rl.level, "L1") == 0);
    /* exactly at a capacity: fits */
    kb_roofline_of(&r, KB_FP32, 0.0, 1e4, 32768.0, 0.0, 0, 1.0, &rl);
    ASSERT(strcmp(rl.level, "L1") == 0);
    kb_roofline_of(&r, KB_FP32, 0.0, 1e4, 32769.0, 0.0, 0, 1.0, &rl);
    ASSERT(strcmp(rl.level, "L2") == 0);
    ASSERT_NEAR(rl.roof_gbps, 100.0, 0);
    kb_roofline_of(&r, KB_FP32, 0.0, 1e4, 1048577.0, 0.0, 0, 1.0, &rl);
    ASSERT(strcmp(rl.level, "DRAM") == 0);
    ASSERT(strcmp(rl.bound, "DRAM") == 0);
    /* cold caches: memory, whatever the footprint */
    kb_roofline_of(&r, KB_FP32, 0.0, 1e4, 1024.0, 0.0, 1, 1.0, &rl);
    ASSERT(strcmp(rl.level, "DRAM") == 0);
}

/* flops 0: the minimal time is bytes / bandwidth. 2e6 bytes from L2 at
 * 100 GB/s take 20 us: a 40 us median is 50 %. */
static void test_zero_flops_uses_time(void) {
    kb_roofs r = roofs();
    kb_roofline rl;
    ASSERT_INT_EQ(kb_roofline_of(&r, KB_FP16, 0.0, 2e6, 65536.0, 0.0, 0, 0.040, &rl), 1);
    ASSERT_NEAR(rl.pct, 50.0, 1e-9);
    ASSERT_NEAR(rl.intensity, 0.0, 0);
    ASSERT_NEAR(rl.attainable_gflops, 0.0, 0);
    ASSERT(strcmp(rl.bound, "L2") == 0);
}

/* Intensity 10 flop/byte from DRAM (20 GB/s -> 200 GFLOP/s) is above the
 * fp32 roof of 100: compute-bound, attainable 100. 1e9 flops at 100
 * GFLOP/s take 10 ms: a 20 ms median is 50 %. */
static void test_compute_bound(void) {
    kb_roofs r = roofs();
    kb_roofline rl;
    ASSERT_INT_EQ(kb_roofline_of(&r, KB_FP32, 1e9, 1e8, 1e9, 0.0, 0, 20.0, &rl), 1);
    ASSERT(strcmp(rl.bound, "compute") == 0);
    ASSERT(strcmp(rl.level, "DRAM") == 0);
    ASSERT_NEAR(rl.intensity, 10.0, 1e-12);
    ASSERT_NEAR(rl.attainable_gflops, 100.0, 1e-9);
    ASSERT_NEAR(rl.pct, 50.0, 1e-9);
    ASSERT(strcmp(rl.compute_unit, "fma") == 0);
    /* the same in fp64 (roof 50): 20 ms of 20 ms */
    kb_roofline_of(&r, KB_FP64, 1e9, 1e8, 1e9, 0.0, 0, 20.0, &rl);
    ASSERT_NEAR(rl.pct, 100.0, 1e-9);
}

/* Intensity 1 from DRAM: attainable 20 GFLOP/s, memory-bound; achieved 10
 * GFLOP/s (1e8 flops in 10 ms) is 50 %, the same as bytes / bandwidth
 * over the median. */
static void test_memory_bound(void) {
    kb_roofs r = roofs();
    kb_roofline rl;
    ASSERT_INT_EQ(kb_roofline_of(&r, KB_FP32, 1e8, 1e8, 1e9, 0.0, 0, 10.0, &rl), 1);
    ASSERT(strcmp(rl.bound, "DRAM") == 0);
    ASSERT_NEAR(rl.attainable_gflops, 20.0, 1e-9);
    ASSERT_NEAR(rl.pct, 50.0, 1e-9);
}

/* A matrix-unit figure larger than the FMA's is the compute roof. */
static void test_matrix_roof_when_larger(void) {
    kb_roofs r = roofs();
    r.matrix[KB_FP32].gflops = 400.0;
    kb_roofline rl;
    kb_roofline_of(&r, KB_FP32, 1e9, 1e6, 1e9, 0.0, 0, 20.0, &rl);
    ASSERT_NEAR(rl.compute_gflops, 400.0, 0);
    ASSERT(strcmp(rl.compute_unit, "matrix") == 0);
    r.matrix[KB_FP32].gflops = 10.0;
    kb_roofline_of(&r, KB_FP32, 1e9, 1e6, 1e9, 0.0, 0, 20.0, &rl);
    ASSERT_NEAR(rl.compute_gflops, 100.0, 0);
    ASSERT(strcmp(rl.compute_unit, "fma") == 0);
}

static void test_no_roofline(void) {
    kb_roofs r = roofs();
    kb_roofline rl;
    /* a precision without a compute figure, for a case with flops */
    ASSERT_INT_EQ(kb_roofline_of(&r, KB_FP16, 1e6, 1e6, 1e3, 0.0, 0, 1.0, &rl), 0);
    ASSERT_STR_CONTAINS(rl.why, "no compute roof");
    /* no levels */
    kb_roofs empty = {0};
    ASSERT_INT_EQ(kb_roofline_of(&empty, KB_FP32, 0.0, 1e6, 1e3, 0.0, 0, 1.0, &rl), 0);
    ASSERT_STR_CONTAINS(rl.why, "no bandwidth roofs");
    ASSERT_INT_EQ(kb_roofline_of(NULL, KB_FP32, 0.0, 1e6, 1e3, 0.0, 0, 1.0, &rl), 0);
    /* nothing to place */
    ASSERT_INT_EQ(kb_roofline_of(&r, KB_FP32, 0.0, 0.0, 1e3, 0.0, 0, 1.0, &rl), 0);
    ASSERT_INT_EQ(kb_roofline_of(&r, KB_FP32, 0.0, 1e6, 1e3, 0.0, 0, 0.0, &rl), 0);
}

/* An elementwise exp over n = 16384 floats: 128 KiB in and out, in L2.
 * `counts` is the manifest's flops and, where given, its transcendentals. */
static kb_counts exp_counts(const char *name, const char *counts) {
    static kb_manifest m; /* large: keep it off the stack */
    char path[1024], text[1024];
    kb_test_join(path, sizeof path, kb_test_tmpdir(name), "kernel.json");
    snprintf(text, sizeof text,
             "{\"name\": \"vexp\", \"backends\": [\"cpu\"], \"precisions\": [\"fp32\"],"
             " \"tolerance\": {\"fp32\": {\"rmse\": 1e-6}}, \"bytes\": \"2*n*elem\", %s,"
             " \"cases\": [{\"name\": \"n16k\", \"dims\": {\"n\": 16384}}]}",
             counts);
    kb_test_write(path, text);
    kb_counts k = {0};
    kb_err err = {{0}};
    if (kb_manifest_load(&m, path, &err) != 0 ||
        kb_manifest_case_counts(&m, &m.cases[0], KB_FP32, NULL, &k, &err) != 0)
        KB_TEST_FAIL("%s", err.msg);
    return k;
}

/* One flop per exp puts the case at 0.125 flop/byte, under the L2 roof
 * (balance 1 here); counting each exp at the 20 flops its evaluation takes
 * puts it at 2.5, under the compute roof: a median of 5.24 us is 25 % of
 * the first and 62.5 % of the second. The gate's probe follows: at a
 * balance of 0.5 the first is memory-bound (normalised by the streaming
 * figures), the second compute-bound (by the multiply-add figures). */
static void test_transcendentals_move_the_bound(void) {
    kb_roofs r = roofs();
    kb_roofline rl;
    const double median_ms = 0.00524288;
    kb_counts one = exp_counts("roofline_exp_one", "\"flops\": \"n\"");
    ASSERT_NEAR(one.flops, 16384.0, 0);
    ASSERT_INT_EQ(
        kb_roofline_of(&r, KB_FP32, one.flops, one.bytes, one.bytes, 0.0, 0, median_ms, &rl), 1);
    ASSERT(strcmp(rl.bound, "L2") == 0);
    ASSERT_NEAR(rl.intensity, 0.125, 1e-12);
    ASSERT_NEAR(rl.attainable_gflops, 12.5, 1e-9);
    ASSERT_NEAR(rl.pct, 25.0, 1e-9);

    kb_counts costed =
        exp_counts("roofline_exp_costed",
                   "\"flops\": \"0\", \"transcendentals\": {\"count\": \"n\", \"flops_each\": 20}");
    ASSERT(costed.has_transcendentals);
    ASSERT_NEAR(costed.flops_arith, 0.0, 0);
    ASSERT_NEAR(costed.transcendentals, 16384.0, 0);
    ASSERT_NEAR(costed.flops_each, 20.0, 0);
    ASSERT_NEAR(costed.flops, 327680.0, 0);
    ASSERT_NEAR(costed.bytes, one.bytes, 0);
    ASSERT_INT_EQ(kb_roofline_of(&r, KB_FP32, costed.flops, costed.bytes, costed.bytes, 0.0, 0,
                                 median_ms, &rl),
                  1);
    ASSERT(strcmp(rl.bound, "compute") == 0);
    ASSERT(strcmp(rl.level, "L2") == 0);
    ASSERT_NEAR(rl.intensity, 2.5, 1e-12);
    ASSERT_NEAR(rl.attainable_gflops, 100.0, 1e-9);
    ASSERT_NEAR(rl.pct, 62.5, 1e-9);

    kb_probe_reading probe = {{0}};
    probe.v[KB_PROBE_SCALE] = 40.0;
    probe.v[KB_PROBE_MADD] = 20.0;
    double intensity, balance;
    kb_probe_kind figs[KB_PROBE_N];
    ASSERT_INT_EQ(kb_bound_of(one.bytes, one.flops, &probe, &intensity, &balance), KB_BOUND_MEMORY);
    ASSERT_INT_EQ(kb_drift_figures(KB_BOUND_MEMORY, kb_near_ridge(intensity, balance), figs), 2);
    ASSERT_INT_EQ(figs[0], KB_PROBE_SCALE);
    ASSERT_INT_EQ(kb_bound_of(costed.bytes, costed.flops, &probe, &intensity, &balance),
                  KB_BOUND_COMPUTE);
    ASSERT_INT_EQ(kb_drift_figures(KB_BOUND_COMPUTE, kb_near_ridge(intensity, balance), figs), 2);
    ASSERT_INT_EQ(figs[0], KB_PROBE_MADD);
}

/* The roofs above with memory's ceiling per pattern: read 40, triad 30,
 * copy 24 GB/s (the DRAM level's 20 is then not used from memory). */
static kb_roofs pattern_roofs(void) {
    kb_roofs r = roofs();
    r.n_patterns = KB_PATTERN_COUNT;
    r.patterns[KB_PATTERN_READ].gbps = 40.0;
    r.patterns[KB_PATTERN_TRIAD].gbps = 30.0;
    r.patterns[KB_PATTERN_COPY].gbps = 24.0;
    return r;
}

/* At a pattern's own write fraction its ceiling; between two, seconds per
 * byte linear in the fraction; above the copy's 1/2, the copy's. */
static void test_memory_roof_by_write_fraction(void) {
    kb_roofs r = pattern_roofs();
    const char *name = NULL;
    ASSERT_NEAR(kb_memory_roof(&r, 0.0, &name), 40.0, 0);
    ASSERT(strcmp(name, "read") == 0);
    ASSERT_NEAR(kb_memory_roof(&r, 1.0 / 3.0, &name), 30.0, 0);
    ASSERT(strcmp(name, "triad") == 0);
    ASSERT_NEAR(kb_memory_roof(&r, 0.5, &name), 24.0, 0);
    ASSERT(strcmp(name, "copy") == 0);
    ASSERT_NEAR(kb_memory_roof(&r, 0.9, &name), 24.0, 0);
    ASSERT(strcmp(name, "copy") == 0);
    ASSERT_NEAR(kb_memory_roof(&r, 1.0, &name), 24.0, 0);
    /* half-way from read to triad: 1 / (0.5 / 40 + 0.5 / 30) */
    ASSERT_NEAR(kb_memory_roof(&r, 1.0 / 6.0, &name), 1.0 / (0.5 / 40.0 + 0.5 / 30.0), 1e-9);
    ASSERT(strcmp(name, "read+triad") == 0);
    /* a quarter of the way from triad to copy */
    ASSERT_NEAR(kb_memory_roof(&r, 1.0 / 3.0 + 0.25 / 6.0, &name),
                1.0 / (0.75 / 30.0 + 0.25 / 24.0), 1e-9);
    ASSERT(strcmp(name, "triad+copy") == 0);
    /* monotone between the points: never outside the two ceilings */
    for (double f = 0.0; f <= 0.5; f += 0.01) {
        double g = kb_memory_roof(&r, f, &name);
        ASSERT(g <= 40.0 && g >= 24.0);
    }
}

/* From memory a case takes the ceiling of its read/write mix, from its
 * layout's outputs over its footprint; in a cache, the level's figure;
 * without pattern ceilings (an older calibration, a backend without the
 * passes), memory's level figure. */
static void test_roofline_uses_the_pattern_from_memory(void) {
    kb_roofs r = pattern_roofs();
    kb_roofline rl;
    /* a triad over three arrays of 64 MiB, a third of them written: 192
     * MiB at 30 GB/s; a median of twice that minimal time is 50 % */
    const double mib = 1048576.0, fp = 192.0 * mib, bytes = 192.0 * mib;
    const double t_ms = bytes / 30e9 * 1e3;
    ASSERT_INT_EQ(kb_roofline_of(&r, KB_FP64, 0.0, bytes, fp, fp / 3.0, 0, 2.0 * t_ms, &rl), 1);
    ASSERT(strcmp(rl.level, "DRAM") == 0);
    ASSERT(strcmp(rl.pattern, "triad") == 0);
    ASSERT_NEAR(rl.write_fraction, 1.0 / 3.0, 1e-12);
    ASSERT_NEAR(rl.roof_gbps, 30.0, 0);
    ASSERT_NEAR(rl.pct, 50.0, 1e-9);
    /* a copy: the copy's ceiling, and the attainable rate of a case with
     * flops follows it */
    ASSERT_INT_EQ(kb_roofline_of(&r, KB_FP64, 1e6, bytes, fp, fp / 2.0, 0, t_ms, &rl), 1);
    ASSERT(strcmp(rl.pattern, "copy") == 0);
    ASSERT_NEAR(rl.roof_gbps, 24.0, 0);
    ASSERT_NEAR(rl.attainable_gflops, 1e6 / bytes * 24.0, 1e-12);
    /* in L2: the level's figure, no pattern */
    ASSERT_INT_EQ(kb_roofline_of(&r, KB_FP64, 0.0, 1e5, 65536.0, 32768.0, 0, 1.0, &rl), 1);
    ASSERT(strcmp(rl.level, "L2") == 0);
    ASSERT(rl.pattern == NULL);
    ASSERT_NEAR(rl.roof_gbps, 100.0, 0);
    /* cold caches: from memory, with the pattern */
    ASSERT_INT_EQ(kb_roofline_of(&r, KB_FP64, 0.0, 1e5, 65536.0, 0.0, 1, 1.0, &rl), 1);
    ASSERT(strcmp(rl.pattern, "read") == 0);
    ASSERT_NEAR(rl.roof_gbps, 40.0, 0);
    /* no pattern ceilings: memory's level figure */
    r.n_patterns = 0;
    ASSERT_INT_EQ(kb_roofline_of(&r, KB_FP64, 0.0, bytes, fp, fp / 3.0, 0, t_ms, &rl), 1);
    ASSERT(rl.pattern == NULL);
    ASSERT_NEAR(rl.roof_gbps, 20.0, 0);
}

int main(void) {
    RUN_TEST(test_memory_roof_by_write_fraction);
    RUN_TEST(test_roofline_uses_the_pattern_from_memory);
    RUN_TEST(test_level_is_the_smallest_that_holds_the_footprint);
    RUN_TEST(test_zero_flops_uses_time);
    RUN_TEST(test_compute_bound);
    RUN_TEST(test_memory_bound);
    RUN_TEST(test_matrix_roof_when_larger);
    RUN_TEST(test_no_roofline);
    RUN_TEST(test_transcendentals_move_the_bound);
    return kb_test_summary();
}
