/* Linear layer, y = act(x w + b): x [tokens, in], w [in, out], b [out],
 * y [tokens, out], row-major; act (case dim) 1 = ReLU, 2 = GELU (erf form).
 *
 * Both variants run the hand-written blocked GEMM core of kb/cpu/gemm.h
 * (float arithmetic for fp32/fp16/bf16, double for fp64):
 * "unfused": the core writes x w to y, then one pass adds b to y and another
 *   applies act to y: the output is written three times and read twice more.
 * "fused": the core applies b and act in its epilogue, to each block of the
 *   output while it is still in cache: y is written once. */
#include "kb/cpu.h"
#include "kb/cpu/gemm.h"
#include "kb/kernel.h"
#include "kb/vmath/vmath.h"

#include <math.h>
#include <stdio.h>

static void linear_layout(const kb_case *c, kb_layout *l) {
    const size_t tokens = (size_t)kb_case_dim(c, "tokens"), nin = (size_t)kb_case_dim(c, "in");
    const size_t nout = (size_t)kb_case_dim(c, "out");
    const double r = 1.0 / sqrt((double)nin); /* the usual init: U(-1/sqrt(in), 1/sqrt(in)) */
    kb_layout_input(l, "x", tokens * nin, KB_DIST_NORMAL, 0.0, 1.0);
    kb_layout_input(l, "w", nin * nout, KB_DIST_UNIFORM, -r, r);
    kb_layout_input(l, "b", nout, KB_DIST_UNIFORM, -r, r);
    kb_layout_output(l, "y", tokens * nout);
    /* The core's panels; the unfused passes reuse the front for float blocks. */
    size_t ws = kb_cpu_gemm_workspace(tokens, nout, nin, KB_FP64);
    if (ws < (KB_CPU_BLOCK + nout) * sizeof(float)) ws = (KB_CPU_BLOCK + nout) * sizeof(float);
    kb_layout_workspace(l, ws);
}

/* 1 (ReLU) or 2 (GELU); anything else is a manifest error reported here. */
static int linear_act(const kb_args *a) {
    const int64_t act = kb_case_dim(a->c, "act");
    if (act == 1 || act == 2) return (int)act;
    fprintf(stderr, "linear: case '%s': act must be 1 (ReLU) or 2 (GELU), not %lld\n",
            kb_case_name(a->c), (long long)act);
    return 0;
}

static void linear_gemm_args(const kb_args *a, kb_cpu_gemm *g) {
    *g = (kb_cpu_gemm){.prec = a->prec,
                       .a = a->in[0],
                       .b = a->in[1],
                       .c = a->out[0],
                       .alpha = 1.0,
                       .bias = a->in[2]};
    g->m = (size_t)kb_case_dim(a->c, "tokens");
    g->k = (size_t)kb_case_dim(a->c, "in");
    g->n = (size_t)kb_case_dim(a->c, "out");
}

static int linear_fused(const kb_args *a) {
    const int act = linear_act(a);
    if (!act) return 1;
    kb_cpu_gemm g;
    linear_gemm_args(a, &g);
    g.ep = act == 1 ? KB_CPU_GEMM_EP_BIAS_RELU : KB_CPU_GEMM_EP_BIAS_GELU;
    return kb_cpu_gemm_run(a, &g);
}

/* What the separate passes get: y's shape and the activation. */
typedef struct linear_pass {
    size_t rows, n;
    int act;
} linear_pass;

/* The separate passes over y (rows x n, in place), in double or float. */
#define LINEAR_PASSES(T, SUFFIX, GELU)                                                             \
    static void linear_bias_##SUFFIX(T *restrict y, const T *restrict b, size_t rows, size_t n) {  \
        for (size_t r = 0; r < rows; r++)                                                          \
            for (size_t j = 0; j < n; j++) y[r * n + j] += b[j];                                   \
    }                                                                                              \
                                                                                                   \
    static void linear_act_##SUFFIX(T *restrict y, size_t n, int act) {                            \
        if (act == 1)                                                                              \
            for (size_t i = 0; i < n; i++) y[i] = y[i] > (T)0 ? y[i] : (T)0;                       \
        else                                                                                       \
            for (size_t i = 0; i < n; i++) y[i] = GELU(y[i]);                                      \
    }                                                                                              \
                                                                                                   \
    static int linear_passes_##SUFFIX(const kb_args *a, const void *params) {                      \
        const linear_pass *p = params;                                                             \
        linear_bias_##SUFFIX(a->out[0], a->in[2], p->rows, p->n);                                  \
        linear_act_##SUFFIX(a->out[0], p->rows * p->n, p->act);                                    \
        return 0;                                                                                  \
    }

LINEAR_PASSES(double, f64, kb_gelu_f64)
LINEAR_PASSES(float, f32, kb_gelu_f32)

/* fp16/bf16: each pass streams y through float blocks of KB_CPU_BLOCK (the
 * bias pass row by row, the activation pass over the flat array); b is
 * widened once. */
static int linear_passes_half(const kb_args *a, const void *params) {
    const size_t rows = ((const linear_pass *)params)->rows, n = ((const linear_pass *)params)->n;
    const int act = ((const linear_pass *)params)->act;
    float *yf = a->workspace, *bf = yf + KB_CPU_BLOCK;
    void *y = a->out[0];
    kb_cpu_to_f32(bf, a->in[2], a->prec, 0, n);
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < n; j += KB_CPU_BLOCK) {
            const size_t len = n - j < KB_CPU_BLOCK ? n - j : KB_CPU_BLOCK;
            kb_cpu_to_f32(yf, y, a->prec, r * n + j, len);
            linear_bias_f32(yf, bf + j, 1, len);
            kb_cpu_from_f32(y, a->prec, r * n + j, yf, len);
        }
    for (size_t i = 0; i < rows * n; i += KB_CPU_BLOCK) {
        const size_t len = rows * n - i < KB_CPU_BLOCK ? rows * n - i : KB_CPU_BLOCK;
        kb_cpu_to_f32(yf, y, a->prec, i, len);
        linear_act_f32(yf, len, act);
        kb_cpu_from_f32(y, a->prec, i, yf, len);
    }
    return 0;
}

static int linear_unfused(const kb_args *a) {
    const int act = linear_act(a);
    if (!act) return 1;
    kb_cpu_gemm g;
    linear_gemm_args(a, &g);
    g.ep = KB_CPU_GEMM_EP_NONE;
    const int rc = kb_cpu_gemm_run(a, &g);
    if (rc != 0) return rc;
    static const kb_cpu_paths paths = {linear_passes_f64, linear_passes_f32, linear_passes_half};
    const linear_pass p = {g.m, g.n, act};
    return kb_cpu_dispatch(a, &paths, &p);
}

static const kb_kernel linear_kernel = {
    .layout = linear_layout,
    .impls = {{"cpu", "unfused", linear_unfused}, {"cpu", "fused", linear_fused}},
};

KB_REGISTER_KERNEL(linear_kernel)
