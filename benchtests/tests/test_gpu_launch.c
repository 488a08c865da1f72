/* The GPU launch-configuration logic (kb/gpu/launch.h), on the CPU: which
 * launches are legal, the row kernels' shapes at and past their limits, and
 * the splitting of heads over launches. */
#include "kb/gpu/launch.h"
#include "kb_test.h"

#include <string.h>

static char why[256];

static int illegal(const kb_gpu_limits *l, kb_gpu_dims grid, kb_gpu_dims block, size_t smem) {
    why[0] = '\0';
    return kb_gpu_launch_illegal(l, grid, block, smem, why, sizeof why);
}

static void test_threads_per_block(void) {
    kb_gpu_limits l = kb_gpu_limits_default(1024, 0);
    ASSERT_INT_EQ(illegal(&l, kb_gpu_dims_of(1, 1, 1), kb_gpu_dims_of(1024, 1, 1), 0), 0);
    ASSERT_INT_EQ(illegal(&l, kb_gpu_dims_of(1, 1, 1), kb_gpu_dims_of(1025, 1, 1), 0), 1);
    ASSERT_STR_CONTAINS(why, "block x of 1025");
    ASSERT_INT_EQ(illegal(&l, kb_gpu_dims_of(1, 1, 1), kb_gpu_dims_of(32, 32, 1), 0), 0);
    ASSERT_INT_EQ(illegal(&l, kb_gpu_dims_of(1, 1, 1), kb_gpu_dims_of(32, 33, 1), 0), 1);
    ASSERT_STR_CONTAINS(why, "1056 threads per block, the kernel allows 1024");
    ASSERT_INT_EQ(illegal(&l, kb_gpu_dims_of(1, 1, 1), kb_gpu_dims_of(1, 1, 65), 0), 1);
    ASSERT_STR_CONTAINS(why, "block z of 65");
    /* A kernel whose registers allow fewer threads (maxThreadsPerBlock 640,
     * e.g. 96 registers on sm_90 without launch bounds): the case of the
     * softmax fp16 row of 45056 elements, 704 threads. */
    l.max_threads = 640;
    ASSERT_INT_EQ(illegal(&l, kb_gpu_dims_of(4, 1, 1), kb_gpu_dims_of(640, 1, 1), 0), 0);
    ASSERT_INT_EQ(illegal(&l, kb_gpu_dims_of(4, 1, 1), kb_gpu_dims_of(704, 1, 1), 0), 1);
    ASSERT_STR_CONTAINS(why, "704 threads per block, the kernel allows 640");
}

static void test_grid(void) {
    kb_gpu_limits l = kb_gpu_limits_default(256, 0);
    const kb_gpu_dims b = kb_gpu_dims_of(256, 1, 1);
    ASSERT_INT_EQ(illegal(&l, kb_gpu_dims_of(KB_GPU_MAX_GRID_X, 65535, 65535), b, 0), 0);
    ASSERT_INT_EQ(illegal(&l, kb_gpu_dims_of(KB_GPU_MAX_GRID_X + 1, 1, 1), b, 0), 1);
    ASSERT_STR_CONTAINS(why, "grid x of 2147483648 exceeds the limit 2147483647");
    ASSERT_INT_EQ(illegal(&l, kb_gpu_dims_of(1, 65536, 1), b, 0), 1);
    ASSERT_STR_CONTAINS(why, "grid y of 65536");
    /* unfused attention before the fix: batch x heads = 65536 in grid z */
    ASSERT_INT_EQ(illegal(&l, kb_gpu_dims_of(4, 4, 65536), b, 0), 1);
    ASSERT_STR_CONTAINS(why, "grid z of 65536 exceeds the limit 65535");
    ASSERT_INT_EQ(illegal(&l, kb_gpu_dims_of(0, 1, 1), b, 0), 1);
    ASSERT_STR_CONTAINS(why, "grid x is 0");
    ASSERT_INT_EQ(illegal(&l, kb_gpu_dims_of(1, 1, 1), kb_gpu_dims_of(0, 1, 1), 0), 1);
    ASSERT_STR_CONTAINS(why, "block x is 0");
    /* HIP: blocks x threads in one dimension below 2^32 */
    l.max_grid_dim = 4294967296LL;
    ASSERT_INT_EQ(illegal(&l, kb_gpu_dims_of(16777215, 1, 1), b, 0), 0);
    ASSERT_INT_EQ(illegal(&l, kb_gpu_dims_of(16777216, 1, 1), b, 0), 1);
    ASSERT_STR_CONTAINS(why, "reach 2^32 threads");
}

static void test_shared_memory(void) {
    kb_gpu_limits l = kb_gpu_limits_default(256, 40 * 1024);
    const kb_gpu_dims g = kb_gpu_dims_of(1, 1, 1), b = kb_gpu_dims_of(256, 1, 1);
    ASSERT_INT_EQ(illegal(&l, g, b, 8 * 1024), 0);
    ASSERT_INT_EQ(illegal(&l, g, b, 8 * 1024 + 1), 1);
    ASSERT_STR_CONTAINS(why, "49153 bytes of shared memory per block, the device has 49152");
}

/* The plan's invariants for rows of n, v per load: whole 64-lane groups
 * within the shape's launch bound, enough loads for the row, and the fewest
 * loads per thread that hold it. */
static void check_plan(long long n, int v, int acc) {
    kb_row_plan p;
    if (kb_row_plan_for(n, v, acc, &p, why, sizeof why)) {
        ASSERT(n > kb_row_max(v, acc));
        return;
    }
    const long long loads = (n + v - 1) / v;
    ASSERT(p.threads % 64 == 0 && p.threads >= 64);
    ASSERT(p.threads <= KB_ROW_BOUND(acc, v, p.vpt));
    ASSERT((long long)p.threads * p.vpt >= loads);
    if (p.vpt > 1) ASSERT(loads > (long long)(p.vpt / 2) * KB_ROW_BOUND(acc, v, p.vpt / 2));
}

static void test_row_plans(void) {
    static const int shapes[][2] = {{1, 4}, {4, 4}, {8, 4}, {1, 8}, {2, 8}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        const int v = shapes[s][0], acc = shapes[s][1];
        const long long max = kb_row_max(v, acc);
        for (long long n = 1; n <= max + 4 * v; n += 1 + n / 97) check_plan(n, v, acc);
        check_plan(max, v, acc);
        check_plan(max + 1, v, acc);
    }
}

static void test_row_limits(void) {
    kb_row_plan p;
    /* fp32, 16-byte loads: 1024 threads x 8 loads x 4 */
    ASSERT_INT_EQ(kb_row_max(4, 4), 32768);
    ASSERT_INT_EQ(kb_row_plan_for(4096, 4, 4, &p, why, sizeof why), 0);
    ASSERT_INT_EQ(p.vpt, 1);
    ASSERT_INT_EQ(p.threads, 1024);
    ASSERT_INT_EQ(kb_row_plan_for(4100, 4, 4, &p, why, sizeof why), 0);
    ASSERT_INT_EQ(p.vpt, 2);
    ASSERT_INT_EQ(p.threads, 576);
    ASSERT_INT_EQ(kb_row_plan_for(32768, 4, 4, &p, why, sizeof why), 0);
    ASSERT_INT_EQ(p.vpt, 8);
    ASSERT_INT_EQ(p.threads, 1024);
    ASSERT_INT_EQ(kb_row_plan_for(32772, 4, 4, &p, why, sizeof why), 1);
    ASSERT_STR_CONTAINS(why, "rows of 32772 elements: one block holds at most 32768");
    /* fp16/bf16 (float arithmetic, 8 per load): 8 loads of 8 floats need
     * 128 registers, so 512 threads; the longest row is 32768 either way.
     * 45056, which failed to launch on sm_90, is declined. */
    ASSERT_INT_EQ(KB_ROW_BOUND(4, 8, 8), 512);
    ASSERT_INT_EQ(KB_ROW_BOUND(4, 8, 4), 1024);
    ASSERT_INT_EQ(kb_row_max(8, 4), 32768);
    ASSERT_INT_EQ(kb_row_plan_for(32768, 8, 4, &p, why, sizeof why), 0);
    ASSERT_INT_EQ(p.vpt, 4);
    ASSERT_INT_EQ(p.threads, 1024);
    ASSERT_INT_EQ(kb_row_plan_for(45056, 8, 4, &p, why, sizeof why), 1);
    ASSERT_INT_EQ(kb_row_plan_for(65536, 8, 4, &p, why, sizeof why), 1);
    /* fp64, 2 per load: a double counts twice, 8 loads get 512 threads;
     * 14336, which failed to launch on sm_90, is declined. */
    ASSERT_INT_EQ(KB_ROW_BOUND(8, 2, 4), 1024);
    ASSERT_INT_EQ(KB_ROW_BOUND(8, 2, 8), 512);
    ASSERT_INT_EQ(kb_row_max(2, 8), 8192);
    ASSERT_INT_EQ(kb_row_plan_for(8192, 2, 8, &p, why, sizeof why), 0);
    ASSERT_INT_EQ(p.vpt, 4);
    ASSERT_INT_EQ(kb_row_plan_for(14336, 2, 8, &p, why, sizeof why), 1);
    /* one element per load (rows not a multiple of 16 bytes) */
    ASSERT_INT_EQ(kb_row_max(1, 4), 8192);
    ASSERT_INT_EQ(kb_row_plan_for(1, 1, 4, &p, why, sizeof why), 0);
    ASSERT_INT_EQ(p.vpt, 1);
    ASSERT_INT_EQ(p.threads, 64);
    ASSERT_INT_EQ(kb_row_plan_for(8193, 1, 4, &p, why, sizeof why), 1);
    ASSERT_INT_EQ(kb_row_plan_for(0, 4, 4, &p, why, sizeof why), 1);
    ASSERT_STR_CONTAINS(why, "rows of 0 elements");
    /* rows longer than an int never get a plan */
    ASSERT_INT_EQ(kb_row_plan_for(3000000000LL, 8, 4, &p, why, sizeof why), 1);
}

/* Heads split over launches: each launch legal (grid z), all covered. */
static void check_split(long long heads, long long fits, long long limit) {
    const kb_gpu_limits l = kb_gpu_limits_default(256, 0);
    const long long group = kb_gpu_per_launch(heads, fits, limit);
    ASSERT(group >= 1);
    long long covered = 0, launches = 0;
    for (long long h0 = 0; group >= 1 && h0 < heads; h0 += group, ++launches) {
        const long long nb = heads - h0 < group ? heads - h0 : group;
        ASSERT_INT_EQ(illegal(&l, kb_gpu_dims_of(4, 4, nb), kb_gpu_dims_of(256, 1, 1), 0), 0);
        covered += nb;
    }
    ASSERT_INT_EQ(covered, heads);
    ASSERT_INT_EQ(launches, (heads + group - 1) / group);
}

static void test_heads_over_launches(void) {
    ASSERT_INT_EQ(kb_gpu_per_launch(70000, 1LL << 40, KB_GPU_MAX_GRID_YZ), 65535);
    ASSERT_INT_EQ(kb_gpu_per_launch(100, 1LL << 40, KB_GPU_MAX_GRID_YZ), 100);
    ASSERT_INT_EQ(kb_gpu_per_launch(100, 7, KB_GPU_MAX_GRID_YZ), 7);
    ASSERT_INT_EQ(kb_gpu_per_launch(100, 0, KB_GPU_MAX_GRID_YZ), 0);
    check_split(65535, 1LL << 40, KB_GPU_MAX_GRID_YZ);
    check_split(65536, 1LL << 40, KB_GPU_MAX_GRID_YZ);
    check_split(200000, 1LL << 40, KB_GPU_MAX_GRID_YZ);
    check_split(200000, 3, KB_GPU_MAX_GRID_YZ);
    /* softmax rows of the unfused round: heads x seq within grid x */
    const long long seq = 32768, per = kb_gpu_per_launch(65535, 1LL << 40, KB_GPU_MAX_GRID_X / seq);
    ASSERT(per * seq <= KB_GPU_MAX_GRID_X);
}

int main(void) {
    RUN_TEST(test_threads_per_block);
    RUN_TEST(test_grid);
    RUN_TEST(test_shared_memory);
    RUN_TEST(test_row_plans);
    RUN_TEST(test_row_limits);
    RUN_TEST(test_heads_over_launches);
    return kb_test_summary();
}
