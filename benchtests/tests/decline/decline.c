/* A kernel for the harness's own tests of kb_unsupported(): y = x, but the
 * implementation declines fp16 altogether and any case with n above 1000,
 * as a GPU implementation declines what its device cannot run. */
#include "kb/kernel.h"

#include <string.h>

static void decline_layout(const kb_case *c, kb_layout *l) {
    size_t n = (size_t)kb_case_dim(c, "n");
    kb_layout_input(l, "x", n, KB_DIST_NORMAL, 0.0, 1.0);
    kb_layout_output(l, "y", n);
}

static void decline_reference(const kb_case *c, const double *const *in, double *const *out) {
    memcpy(out[0], in[0], (size_t)kb_case_dim(c, "n") * sizeof(double));
}

static int decline_cpu(const kb_args *a) {
    int64_t n = kb_case_dim(a->c, "n");
    if (a->prec == KB_FP16) return kb_unsupported("the test kernel declines fp16");
    if (n > 1000) return kb_unsupported("the test kernel declines n = %lld", (long long)n);
    memcpy(a->out[0], a->in[0], (size_t)n * kb_prec_size(a->prec));
    return 0;
}

static const kb_kernel decline_kernel = {
    .layout = decline_layout,
    .impls = {{"cpu", "default", decline_cpu}},
};

KB_REGISTER_KERNEL(decline_kernel)
KB_REGISTER_REFERENCE(decline_reference)
