/* STREAM-style memory bandwidth: the case's dim op picks the operation,
 * 1 = copy (y = a; the copy cases have no input b) and 2 = triad
 * (y = a + 3 b, one fused multiply-add, so the result is rounded once).
 * fp64 and fp32 only: what is measured is bytes moved, which 16-bit formats
 * would only halve. Inputs are uniform in (-1, 1): their values do not
 * matter here, and uniform ones are quicker for the harness to generate.
 *
 * CPU: plain vectorised loops with ordinary stores (no non-temporal stores,
 * no library memcpy: the copy loop is kept a loop, see BANDWIDTH_PLAIN_LOOP),
 * so the write of y also reads its lines into the cache first
 * (write-allocate), as in STREAM; the manifest's bytes count, like STREAM,
 * 2 n (copy) and 3 n (triad) elements. */
#include "bandwidth.h"

#include "kb/cpu.h"
#include "kb/kernel.h"

#include <math.h>
#include <stdio.h>

/* GCC and Clang turn a copy loop into a call to memcpy, whose large-size
 * path uses non-temporal stores: this keeps the loop as written. */
#if defined(__clang__)
#define BANDWIDTH_PLAIN_LOOP __attribute__((no_builtin("memcpy")))
#elif defined(__GNUC__)
#define BANDWIDTH_PLAIN_LOOP __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define BANDWIDTH_PLAIN_LOOP
#endif

static void bandwidth_layout(const kb_case *c, kb_layout *l) {
    const size_t n = (size_t)kb_case_dim(c, "n");
    kb_layout_input(l, "a", n, KB_DIST_UNIFORM, -1.0, 1.0);
    if (kb_case_dim(c, "op") == BANDWIDTH_TRIAD)
        kb_layout_input(l, "b", n, KB_DIST_UNIFORM, -1.0, 1.0);
    kb_layout_output(l, "y", n);
}

/* What both precisions' paths get. */
typedef struct bandwidth_params {
    int op;
    size_t n;
} bandwidth_params;

/* fma() is one instruction (and vectorises) where the target has FMA; kbench
 * builds C11 without contraction, so a + 3 * b would round twice. */
#define BANDWIDTH_CPU(T, SUFFIX, FMA)                                                              \
    BANDWIDTH_PLAIN_LOOP static void bandwidth_copy_##SUFFIX(const T *restrict a, T *restrict y,   \
                                                             size_t n) {                           \
        for (size_t i = 0; i < n; i++) y[i] = a[i];                                                \
    }                                                                                              \
                                                                                                   \
    static void bandwidth_triad_##SUFFIX(const T *restrict a, const T *restrict b, T *restrict y,  \
                                         size_t n) {                                               \
        for (size_t i = 0; i < n; i++) y[i] = FMA((T)3, b[i], a[i]);                               \
    }                                                                                              \
                                                                                                   \
    static int bandwidth_run_##SUFFIX(const kb_args *a, const void *params) {                      \
        const bandwidth_params *p = params;                                                        \
        if (p->op == BANDWIDTH_COPY)                                                               \
            bandwidth_copy_##SUFFIX(a->in[0], a->out[0], p->n);                                    \
        else                                                                                       \
            bandwidth_triad_##SUFFIX(a->in[0], a->in[1], a->out[0], p->n);                         \
        return 0;                                                                                  \
    }

BANDWIDTH_CPU(double, f64, fma)
BANDWIDTH_CPU(float, f32, fmaf)

static int bandwidth_cpu(const kb_args *a) {
    static const kb_cpu_paths paths = {bandwidth_run_f64, bandwidth_run_f32, NULL};
    const bandwidth_params p = {bandwidth_op(a->c), (size_t)kb_case_dim(a->c, "n")};
    if (!p.op) return 1;
    return kb_cpu_dispatch(a, &paths, &p);
}

static const kb_kernel bandwidth_kernel = {
    .layout = bandwidth_layout,
    .impls = {{"cpu", "default", bandwidth_cpu}},
};

KB_REGISTER_KERNEL(bandwidth_kernel)
