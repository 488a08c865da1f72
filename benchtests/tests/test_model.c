/* The machine model (machine/model.h): what bounds a case, which figures count
 * for it, and how much slower the machine is by them. */
#include "kb_test.h"
#include "machine/model.h"

#include <string.h>

static const kb_probe_reading here = {{30.0, 32.0, 120.0, 1.0}}; /* balance 4 flop/byte */

static void test_names_round_trip(void) {
    for (int b = KB_BOUND_UNKNOWN; b <= KB_BOUND_COMPUTE; ++b) {
        kb_bound parsed = KB_BOUND_UNKNOWN;
        ASSERT_INT_EQ(kb_bound_parse(kb_bound_name((kb_bound)b), &parsed), 0);
        ASSERT_INT_EQ(parsed, b);
    }
    kb_bound b;
    ASSERT_INT_EQ(kb_bound_parse("Memory", &b), -1);
    ASSERT_INT_EQ(kb_bound_parse("", &b), -1);
    ASSERT(strcmp(kb_probe_key(KB_PROBE_SCALE), "probe_gbps") == 0); /* older baselines' key */
    ASSERT(strcmp(kb_probe_name(KB_PROBE_N), "?") == 0);
}

/* Intensity against balance: an elementwise kernel (0.25 flop/byte) is
 * memory-bound, a blocked GEMM (85 flop/byte) compute-bound. */
static void test_bound_of(void) {
    double intensity, balance;
    ASSERT_INT_EQ(kb_bound_of(8e6, 2e6, &here, &intensity, &balance), KB_BOUND_MEMORY);
    ASSERT_NEAR(intensity, 0.25, 1e-15);
    ASSERT_NEAR(balance, 4.0, 1e-15);
    ASSERT_INT_EQ(kb_bound_of(3.1e6, 2.7e8, &here, &intensity, &balance), KB_BOUND_COMPUTE);
    ASSERT_INT_EQ(kb_bound_of(8e6, 0.0, &here, &intensity, &balance), KB_BOUND_MEMORY);
}

/* Without both figures of the balance, or without bytes, nothing is known. */
static void test_bound_unknown(void) {
    double intensity, balance;
    kb_probe_reading no_madd = here;
    no_madd.v[KB_PROBE_MADD] = 0.0;
    ASSERT_INT_EQ(kb_bound_of(8e6, 2e6, &no_madd, &intensity, &balance), KB_BOUND_UNKNOWN);
    ASSERT_NEAR(balance, 0.0, 0);
    ASSERT_INT_EQ(kb_bound_of(0.0, 2e6, &here, &intensity, &balance), KB_BOUND_UNKNOWN);
}

static void test_best_per_figure(void) {
    kb_probe_reading r[3] = {{{28.0, 33.0, 0.0, 0.9}}, {{30.0, 31.0, 0.0, 1.1}}, {{0}}};
    kb_probe_reading best;
    kb_probe_best(r, 3, &best);
    ASSERT_NEAR(best.v[KB_PROBE_SCALE], 30.0, 0);
    ASSERT_NEAR(best.v[KB_PROBE_COPY], 33.0, 0);
    ASSERT_NEAR(best.v[KB_PROBE_MADD], 0.0, 0);
    ASSERT_NEAR(best.v[KB_PROBE_CHAIN], 1.1, 0);
}

/* The largest slowdown among the bound's figures, only where both sides
 * measured it; an unknown bound uses the memory figures. */
static void test_drift(void) {
    kb_probe_kind which;
    kb_probe_reading now = {{27.0, 16.0, 60.0, 0.5}};
    ASSERT_NEAR(kb_machine_drift(KB_BOUND_MEMORY, 0, &here, &now, &which), 2.0, 1e-15);
    ASSERT_INT_EQ(which, KB_PROBE_COPY);
    ASSERT_NEAR(kb_machine_drift(KB_BOUND_COMPUTE, 0, &here, &now, &which), 2.0, 1e-15);
    ASSERT_INT_EQ(which, KB_PROBE_MADD);
    kb_probe_reading old = {{30.0, 0.0, 0.0, 0.0}}; /* a baseline from before the model */
    ASSERT_NEAR(kb_machine_drift(KB_BOUND_UNKNOWN, 0, &old, &now, &which), 30.0 / 27.0, 1e-15);
    ASSERT_INT_EQ(which, KB_PROBE_SCALE);
    ASSERT_NEAR(kb_machine_drift(KB_BOUND_COMPUTE, 0, &old, &now, &which), 1.0, 0);
    ASSERT_INT_EQ(which, KB_PROBE_N);
    kb_probe_reading faster = {{33.0, 35.2, 130.0, 1.2}};
    ASSERT(kb_machine_drift(KB_BOUND_MEMORY, 0, &here, &faster, &which) < 1.0);
}

/* Near the ridge every figure counts: a compute-bound case whose memory
 * figures halved is explained by them (the kbench.e2e.gate failure of
 * 2026-11-25: scale 93 -> 47 GB/s, madd and chain unchanged, swish fp32
 * x1.36). Away from it, and with an unknown bound, the bound's own. */
static void test_drift_near_ridge(void) {
    kb_probe_kind which;
    kb_probe_reading base = {{93.2, 96.9, 33.6, 0.53}}, now = {{46.6, 87.4, 33.2, 0.53}};
    ASSERT(kb_near_ridge(0.5, 33.6 / 93.2));
    ASSERT_NEAR(kb_machine_drift(KB_BOUND_COMPUTE, 1, &base, &now, &which), 93.2 / 46.6, 1e-12);
    ASSERT_INT_EQ(which, KB_PROBE_SCALE);
    ASSERT(kb_machine_drift(KB_BOUND_COMPUTE, 0, &base, &now, &which) < 1.02);
    ASSERT_INT_EQ(which, KB_PROBE_MADD);
    ASSERT(!kb_near_ridge(16.0, 0.36)); /* GEMM m256: far above */
    ASSERT(!kb_near_ridge(0.05, 0.44)); /* a copy: far below */
    ASSERT(!kb_near_ridge(0.5, 0.0));   /* no balance recorded */
    ASSERT(kb_near_ridge(0.5, 1.99) && !kb_near_ridge(0.5, 2.01));
    kb_probe_kind figs[KB_PROBE_N];
    ASSERT_INT_EQ(kb_drift_figures(KB_BOUND_UNKNOWN, 1, figs), 2); /* pre-model baseline */
    ASSERT_INT_EQ(figs[0], KB_PROBE_SCALE);
}

int main(void) {
    RUN_TEST(test_names_round_trip);
    RUN_TEST(test_bound_of);
    RUN_TEST(test_bound_unknown);
    RUN_TEST(test_drift_near_ridge);
    RUN_TEST(test_best_per_figure);
    RUN_TEST(test_drift);
    return kb_test_summary();
}
