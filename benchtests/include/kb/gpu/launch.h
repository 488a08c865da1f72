/* Launch configurations, decided and checked before anything launches. Plain
 * C with no runtime header, so a machine without a GPU unit-tests it
 * (benchtests/tests/test_gpu_launch.c); kb/gpu.h fills the limits from the
 * runtime, and its kb_gpu_launch(), the one way a kernel is launched, checks
 * every configuration with kb_gpu_launch_illegal() first.
 *
 * An illegal configuration is never launched: the implementation declines
 * the case (kb_unsupported) with the limit it would break. The limits:
 *   - threads per block: at most the kernel's maxThreadsPerBlock, which its
 *     __launch_bounds__ and its registers set (1024 at most on either vendor);
 *   - block dimensions: x, y at most 1024, z at most 64;
 *   - grid: x at most 2^31 - 1, y and z at most 65535 (what the device says);
 *   - HIP: blocks x threads in one dimension below 2^32;
 *   - shared memory: static plus dynamic at most the device's per block.
 * Row kernels (kb_row in kb/gpu.h) hold a row in registers: kb_row_plan_for()
 * picks their shape within their launch bound, or says the row is too long. */
#ifndef KB_GPU_LAUNCH_H
#define KB_GPU_LAUNCH_H

#include <stddef.h>
#include <stdio.h>

#define KB_GPU_MAX_THREADS 1024
#define KB_GPU_MAX_GRID_X  2147483647LL
#define KB_GPU_MAX_GRID_YZ 65535LL

/* Grid or block dimensions, wide enough to hold a count before it is
 * checked against a limit (no silent truncation to unsigned). */
typedef struct {
    long long x, y, z;
} kb_gpu_dims;

static inline kb_gpu_dims kb_gpu_dims_of(long long x, long long y, long long z) {
    kb_gpu_dims d = {x, y, z};
    return d;
}

/* What one kernel may be launched with on one device. */
typedef struct {
    long long max_threads;  /* the kernel's maxThreadsPerBlock */
    size_t static_smem;     /* the kernel's static shared memory */
    size_t max_smem;        /* shared memory a block may have on the device */
    long long max_grid[3];  /* the device's maximum grid dimensions */
    long long max_grid_dim; /* blocks x threads in one dimension below this; 0: no limit */
} kb_gpu_limits;

/* The portable limits (CUDA sm_80/sm_90 and AMD gfx9 agree on them) for a
 * kernel of max_threads threads and static_smem bytes of shared memory. */
static inline kb_gpu_limits kb_gpu_limits_default(long long max_threads, size_t static_smem) {
    kb_gpu_limits l = {max_threads,
                       static_smem,
                       48 * 1024,
                       {KB_GPU_MAX_GRID_X, KB_GPU_MAX_GRID_YZ, KB_GPU_MAX_GRID_YZ},
                       0};
    return l;
}

static inline int kb__gpu_bad_dims(const char *what, kb_gpu_dims d, const long long max[3],
                                   char *why, size_t size) {
    const long long v[3] = {d.x, d.y, d.z};
    static const char axis[3] = {'x', 'y', 'z'};
    for (int i = 0; i < 3; ++i) {
        if (v[i] < 1) {
            snprintf(why, size, "%s %c is %lld: a launch needs at least 1", what, axis[i], v[i]);
            return 1;
        }
        if (v[i] > max[i]) {
            snprintf(why, size, "%s %c of %lld exceeds the limit %lld", what, axis[i], v[i],
                     max[i]);
            return 1;
        }
    }
    return 0;
}

/* 0 when `grid` blocks of `block` threads with dyn_smem bytes of dynamic
 * shared memory may launch under `lim`; else 1, and `why` names the limit. */
static inline int kb_gpu_launch_illegal(const kb_gpu_limits *lim, kb_gpu_dims grid,
                                        kb_gpu_dims block, size_t dyn_smem, char *why,
                                        size_t size) {
    static const long long block_max[3] = {KB_GPU_MAX_THREADS, KB_GPU_MAX_THREADS, 64};
    if (kb__gpu_bad_dims("grid", grid, lim->max_grid, why, size) ||
        kb__gpu_bad_dims("block", block, block_max, why, size))
        return 1;
    const long long threads = block.x * block.y * block.z;
    if (threads > lim->max_threads) {
        snprintf(why, size,
                 "%lld threads per block, the kernel allows %lld (its launch bounds "
                 "and registers)",
                 threads, lim->max_threads);
        return 1;
    }
    const long long g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
    for (int i = 0; lim->max_grid_dim > 0 && i < 3; ++i)
        if (g[i] > (lim->max_grid_dim - 1) / b[i]) {
            snprintf(why, size, "%lld blocks of %lld threads in one dimension reach 2^32 threads",
                     g[i], b[i]);
            return 1;
        }
    if (lim->static_smem + dyn_smem > lim->max_smem) {
        snprintf(why, size, "%zu bytes of shared memory per block, the device has %zu",
                 lim->static_smem + dyn_smem, lim->max_smem);
        return 1;
    }
    return 0;
}

/* Items (heads, images, ...) one launch takes when a grid dimension holds
 * at most `limit` and memory (a workspace) at most `fits`: the least of the
 * three, 0 when none fits. Launches of that many, and one of the rest, cover
 * `items`. */
static inline long long kb_gpu_per_launch(long long items, long long fits, long long limit) {
    long long n = items < fits ? items : fits;
    n = n < limit ? n : limit;
    return n > 0 ? n : 0;
}

/* ---- row kernels: a row of n elements held in one block's registers ---- */

/* The launch bound of a row kernel whose threads hold vpt loads of v
 * elements in an arithmetic type of acc_bytes. 1024 threads leave each 64
 * registers (sm_80/sm_90: 64 Ki per block), enough for 32 registers of row
 * in float; double arithmetic needs about as many again for its temporaries
 * (exp, division), so a double counts twice. A heavier thread gets 128
 * registers (512 threads). A constant expression, for __launch_bounds__;
 * ptxas -v shows these budgets hold without spills (docs/gpu.md). */
#define KB_ROW_DATA_REGS(acc_bytes, v, vpt) ((int)(acc_bytes) * (v) * (vpt) / 4)
#define KB_ROW_BOUND(acc_bytes, v, vpt)                                                            \
    (KB_ROW_DATA_REGS(acc_bytes, v, vpt) * ((acc_bytes) == 8 ? 2 : 1) > 32 ? 512 : 1024)

/* Loads per thread a row kernel may take: kb_row_shape instantiates these. */
#define KB_ROW_MAX_VPT 8

typedef struct {
    int vpt;     /* loads per thread: 1, 2, 4 or 8 */
    int threads; /* whole 64-lane groups (a whole number of warps on either vendor) */
} kb_row_plan;

/* The longest row (elements) any shape holds, v elements per load. */
static inline long long kb_row_max(int v, int acc_bytes) {
    long long best = 0;
    for (int vpt = 1; vpt <= KB_ROW_MAX_VPT; vpt *= 2) {
        const long long fits = (long long)vpt * KB_ROW_BOUND(acc_bytes, v, vpt) * v;
        best = fits > best ? fits : best;
    }
    return best;
}

/* The shape for rows of n elements, v per load: the fewest loads per thread
 * whose block, within that shape's launch bound, holds the row. 0 and the
 * plan, or 1 and why no shape holds it. */
static inline int kb_row_plan_for(long long n, int v, int acc_bytes, kb_row_plan *plan, char *why,
                                  size_t size) {
    if (n < 1) {
        snprintf(why, size, "rows of %lld elements", n);
        return 1;
    }
    const long long loads = (n + v - 1) / v;
    for (int vpt = 1; vpt <= KB_ROW_MAX_VPT; vpt *= 2) {
        const long long per = (loads + vpt - 1) / vpt;
        if (per > KB_ROW_BOUND(acc_bytes, v, vpt)) continue;
        plan->vpt = vpt;
        plan->threads = (int)((per + 63) / 64 * 64);
        return 0;
    }
    snprintf(why, size, "rows of %lld elements: one block holds at most %lld in registers", n,
             kb_row_max(v, acc_bytes));
    return 1;
}

#endif
