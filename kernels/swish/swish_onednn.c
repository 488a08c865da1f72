/* swish's "vendor" variant: oneDNN's eltwise swish with alpha 1, y = x
 * sigmoid(x), the formula of the kernel (kb/vendor/onednn.h, docs/vendor.md). */
#ifdef KB_HAVE_ONEDNN
#include "kb/kernel.h"
#include "kb/vendor/onednn.h"

static int swish_onednn(const kb_args *a) {
    static kb_dnnl_plan plan;
    const kb_dnnl_map m = {dnnl_eltwise_swish, 1.f, (size_t)kb_case_dim(a->c, "n"),
                           "eltwise swish"};
    return kb_dnnl_eltwise(a, &plan, &m);
}

KB_REGISTER_IMPL("cpu", "vendor", swish_onednn)
#endif
