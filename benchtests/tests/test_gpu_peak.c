/* The GPU multiply-add probe's plan (kb/gpu/peak.h), on the CPU: one full
 * wave of legal blocks for the devices kbench targets, the flops it counts,
 * and how the launch is sized. */
#include "kb/gpu/launch.h"
#include "kb/gpu/peak.h"
#include "kb_test.h"

/* A plan is legal for the probe kernel (launch bound KB_PEAK_THREADS) and
 * fills `sms` multiprocessors of `per_sm` threads exactly. */
static void check_full_wave(int sms, int per_sm) {
    const kb_gpu_fma_plan p = kb_gpu_fma_plan_for(sms, per_sm, 1, 64);
    const kb_gpu_limits l = kb_gpu_limits_default(KB_PEAK_THREADS, 0);
    char why[160] = "";
    ASSERT_INT_EQ(kb_gpu_launch_illegal(&l, kb_gpu_dims_of(p.blocks, 1, 1),
                                        kb_gpu_dims_of(p.threads, 1, 1), 0, why, sizeof why),
                  0);
    ASSERT_INT_EQ(p.blocks * p.threads, (long long)sms * per_sm);
    ASSERT_INT_EQ(p.threads % 64, 0); /* whole warps of 32 and of 64 */
}

static void test_full_wave(void) {
    check_full_wave(108, 2048); /* A100 */
    check_full_wave(132, 2048); /* H100 SXM */
    check_full_wave(114, 2048); /* H100 PCIe */
    check_full_wave(110, 2048); /* MI250X, one die (gfx90a) */
    check_full_wave(120, 2048); /* MI100 (gfx908) */
    check_full_wave(84, 1536);  /* sm_86/sm_89: 1536 threads per SM */
}

static void test_unknown_device(void) {
    /* Threads per SM unknown: the default. */
    kb_gpu_fma_plan p = kb_gpu_fma_plan_for(10, -1, 1, 64);
    ASSERT_INT_EQ(p.blocks, 10LL * KB_PEAK_DEFAULT_THREADS_PER_SM / KB_PEAK_THREADS);
    /* SM count unknown: one. */
    p = kb_gpu_fma_plan_for(0, 2048, 1, 64);
    ASSERT_INT_EQ(p.blocks, 2048 / KB_PEAK_THREADS);
    /* Fewer threads per SM than a block holds: still one block each. */
    p = kb_gpu_fma_plan_for(4, 128, 1, 64);
    ASSERT_INT_EQ(p.blocks, 4);
    /* No trips asked for: one. */
    p = kb_gpu_fma_plan_for(4, 2048, 1, 0);
    ASSERT_INT_EQ(p.iters, 1);
}

static void test_flops(void) {
    kb_gpu_fma_plan p = kb_gpu_fma_plan_for(1, KB_PEAK_THREADS, 1, 10);
    ASSERT_INT_EQ(p.blocks, 1);
    /* 256 threads x 10 trips x 16 steps x 8 chains multiply-adds, 2 flops. */
    ASSERT_NEAR(kb_gpu_fma_flops(&p), 2.0 * 256 * 10 * 16 * 8, 0);
    p.lanes = 2; /* half2 / bfloat162: two per instruction */
    ASSERT_NEAR(kb_gpu_fma_flops(&p), 4.0 * 256 * 10 * 16 * 8, 0);
    /* Exact at the sizes a real launch reaches (132 SMs, 2^20 trips). */
    p = kb_gpu_fma_plan_for(132, 2048, 2, 1LL << 20);
    ASSERT_NEAR(kb_gpu_fma_flops(&p), 2.0 * 1056 * 256 * 1048576.0 * 16 * 8 * 2, 0);
}

static void test_sizing(void) {
    /* Scaled toward the target, at most 64x a step, never down. */
    ASSERT_INT_EQ(kb_gpu_fma_next_iters(100, 2.0, 20.0), 1000);
    ASSERT_INT_EQ(kb_gpu_fma_next_iters(100, 0.001, 20.0), 6400);
    ASSERT_INT_EQ(kb_gpu_fma_next_iters(100, 0.0, 20.0), 6400);
    ASSERT_INT_EQ(kb_gpu_fma_next_iters(100, 40.0, 20.0), 100);
    ASSERT_INT_EQ(kb_gpu_fma_next_iters(1LL << 39, 0.001, 20.0), 1LL << 40);
}

int main(void) {
    RUN_TEST(test_full_wave);
    RUN_TEST(test_unknown_device);
    RUN_TEST(test_flops);
    RUN_TEST(test_sizing);
    return kb_test_summary();
}
