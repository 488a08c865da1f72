/* gelu's "vendor" variant: oneDNN's eltwise gelu_erf, y = 0.5 x (1 + erf(x /
 * sqrt(2))), the formula of the kernel (kb/vendor/onednn.h, docs/vendor.md). */
#ifdef KB_HAVE_ONEDNN
#include "kb/kernel.h"
#include "kb/vendor/onednn.h"

static int gelu_onednn(const kb_args *a) {
    static kb_dnnl_plan plan;
    const kb_dnnl_map m = {dnnl_eltwise_gelu_erf, 0.f, (size_t)kb_case_dim(a->c, "n"),
                           "eltwise gelu_erf"};
    return kb_dnnl_eltwise(a, &plan, &m);
}

KB_REGISTER_IMPL("cpu", "vendor", gelu_onednn)
#endif
