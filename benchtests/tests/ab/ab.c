/* A kernel for the A/B self-test (e2e_ab.cmake): y = 2x after AB_WORK
 * dependent multiply-adds per element that change nothing (x * one + zero,
 * with one and zero read from volatile globals so the compiler cannot fold
 * them). The test builds it several times with different AB_WORK, so heads
 * of known relative cost can be compared with one base; AB_OFFSET shifts
 * the output for the accuracy-drift step; AB_DECLINE_N declines the case of
 * that size (a head that cannot run a case its base prepares). */
#include "kb/kernel.h"

#ifndef AB_WORK
#define AB_WORK 8
#endif
#ifndef AB_OFFSET
#define AB_OFFSET 0.0f
#endif
#ifndef AB_DECLINE_N
#define AB_DECLINE_N 0
#endif

static volatile float one = 1.0f, zero = 0.0f;

static void ab_layout(const kb_case *c, kb_layout *l) {
    size_t n = (size_t)kb_case_dim(c, "n");
    kb_layout_input(l, "x", n, KB_DIST_NORMAL, 0.0, 1.0);
    kb_layout_output(l, "y", n);
}

static void ab_reference(const kb_case *c, const double *const *in, double *const *out) {
    for (int64_t i = 0; i < kb_case_dim(c, "n"); ++i) out[0][i] = 2.0 * in[0][i];
}

/* The timed loop, in a function of its own so that it compiles the same in
 * every build of a given AB_WORK: in ab_run, the decline's variadic call made
 * a sanitizer build guard the loop's locals in the "declines" build only,
 * which ran 1.5x slower than its base under -fsanitize=address. */
__attribute__((noinline)) static void ab_loop(const float *x, float *y, size_t n) {
    const float m = one, z = zero;
    for (size_t i = 0; i < n; ++i) {
        float t = x[i];
        for (int w = 0; w < AB_WORK; ++w) t = t * m + z;
        y[i] = 2.0f * t + AB_OFFSET;
    }
}

static int ab_run(const kb_args *a) {
    size_t n = (size_t)kb_case_dim(a->c, "n");
    if (n == AB_DECLINE_N) return kb_unsupported("this build declines n = %zu", n);
    ab_loop(a->in[0], a->out[0], n);
    return 0;
}

static const kb_kernel ab_kernel = {
    .layout = ab_layout,
    .impls = {{"cpu", "default", ab_run}},
};

KB_REGISTER_KERNEL(ab_kernel)
KB_REGISTER_REFERENCE(ab_reference)
