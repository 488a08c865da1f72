/* Mean squared error: loss = sum((pred - target)^2) / n over all
 * n = batch * features elements; one scalar output.
 *
 * The sum is cascaded so that its rounding error stays near sqrt(log n) eps
 * (log n eps at worst) rather than growing with n: blocks of MSE_BLOCK
 * elements are summed with KB_CPU_LANES lane-wise partial sums (64 terms per
 * lane), and the block sums are added pairwise, a binary tree over the
 * blocks. fp64 sums in double; fp32, fp16 and bf16 sum in float, the 16-bit
 * formats through float scratch blocks in the workspace. The mean is rounded
 * once on store. */
#include "kb/cpu.h"
#include "kb/kernel.h"

#include <stdio.h>

#define MSE_BLOCK KB_CPU_BLOCK

/* The GPU source keeps one partial sum per block in the workspace; this many
 * doubles bound its grid. */
#define MSE_GPU_PARTIALS 4096

static void mse_layout(const kb_case *c, kb_layout *l) {
    size_t n = (size_t)(kb_case_dim(c, "batch") * kb_case_dim(c, "features"));
    kb_layout_input(l, "pred", n, KB_DIST_NORMAL, 0.0, 1.0);
    kb_layout_input(l, "target", n, KB_DIST_NORMAL, 0.0, 1.0);
    kb_layout_output(l, "loss", 1);
    /* CPU fp16/bf16: one block of pred and of target in float (16 KiB);
     * GPU: the per-block partial sums (32 KiB). */
    size_t cpu = 2 * MSE_BLOCK * sizeof(float), gpu = MSE_GPU_PARTIALS * sizeof(double);
    kb_layout_workspace(l, cpu > gpu ? cpu : gpu);
}

/* sum((p - t)^2) over one block of n elements, in KB_CPU_LANES partial sums. */
#define MSE_BLOCK_SUM(T, SUFFIX)                                                                   \
    static T mse_block_##SUFFIX(const T *restrict p, const T *restrict t, size_t n) {              \
        const size_t nv = n - n % KB_CPU_LANES;                                                    \
        T acc[KB_CPU_LANES] = {0};                                                                 \
        for (size_t i = 0; i < nv; i += KB_CPU_LANES)                                              \
            for (size_t j = 0; j < KB_CPU_LANES; j++) {                                            \
                T d = p[i + j] - t[i + j];                                                         \
                acc[j] += d * d;                                                                   \
            }                                                                                      \
        T sum = kb_cpu_lanes_sum_##SUFFIX(acc);                                                    \
        for (size_t i = nv; i < n; i++) sum += (p[i] - t[i]) * (p[i] - t[i]);                      \
        return sum;                                                                                \
    }

MSE_BLOCK_SUM(double, f64)
MSE_BLOCK_SUM(float, f32)

/* The inputs of one call, as the tree's leaves read them. */
typedef struct mse_src {
    const void *pred, *target;
    kb_prec prec;
    float *scratch; /* 2 * MSE_BLOCK floats, for fp16/bf16 */
    size_t n;       /* elements in all */
} mse_src;

static double mse_leaf_f64(const mse_src *s, size_t off, size_t n) {
    return mse_block_f64((const double *)s->pred + off, (const double *)s->target + off, n);
}

static float mse_leaf_f32(const mse_src *s, size_t off, size_t n) {
    if (s->prec == KB_FP32)
        return mse_block_f32((const float *)s->pred + off, (const float *)s->target + off, n);
    float *pf = s->scratch, *tf = s->scratch + MSE_BLOCK;
    kb_cpu_to_f32(pf, s->pred, s->prec, off, n);
    kb_cpu_to_f32(tf, s->target, s->prec, off, n);
    return mse_block_f32(pf, tf, n);
}

/* Elements [off, off + n): one leaf block, or the left half of the blocks
 * plus the rest (both non-empty when n > MSE_BLOCK). Depth log2(n / MSE_BLOCK). */
#define MSE_TREE(T, SUFFIX)                                                                        \
    static T mse_tree_##SUFFIX(const mse_src *s, size_t off, size_t n) {                           \
        if (n <= MSE_BLOCK) return mse_leaf_##SUFFIX(s, off, n);                                   \
        const size_t left = (n + MSE_BLOCK - 1) / MSE_BLOCK / 2 * MSE_BLOCK;                       \
        return mse_tree_##SUFFIX(s, off, left) + mse_tree_##SUFFIX(s, off + left, n - left);       \
    }                                                                                              \
                                                                                                   \
    /* The mean, stored (from a float, fp16/bf16 round once, fp32 exactly). */                     \
    static int mse_path_##SUFFIX(const kb_args *a, const void *params) {                           \
        const mse_src *s = params;                                                                 \
        kb_store_f64(a->out[0], a->prec, 0, mse_tree_##SUFFIX(s, 0, s->n) / (T)s->n);              \
        return 0;                                                                                  \
    }

MSE_TREE(double, f64)
MSE_TREE(float, f32)

static int mse_cpu(const kb_args *a) {
    const size_t n = (size_t)(kb_case_dim(a->c, "batch") * kb_case_dim(a->c, "features"));
    static const kb_cpu_paths paths = {mse_path_f64, mse_path_f32, mse_path_f32};
    const mse_src s = {a->in[0], a->in[1], a->prec, a->workspace, n};
    return kb_cpu_dispatch(a, &paths, &s);
}

static const kb_kernel mse_kernel = {
    .layout = mse_layout,
    .impls = {{"cpu", "default", mse_cpu}},
};

KB_REGISTER_KERNEL(mse_kernel)
