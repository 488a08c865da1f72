/* GELU on the GPU (CUDA and HIP from this one source), erf form:
 * y = 0.5 x (1 + erf(x / sqrt(2))), an elementwise map at memory speed. The
 * device's erf/erff are accurate to a few ulp, unlike the CPU's fast
 * float path, so the manifest's tolerances hold with room. */
#include "kb/gpu.h"

struct gelu_op {
    template <typename T> __device__ T operator()(T x) const { return kb_gelu(x); }
};

static int gelu_gpu(const kb_args *a) {
    return kb_gpu_map(a, (size_t)kb_case_dim(a->c, "n"), gelu_op(), "gelu");
}

KB_GPU_REGISTER_IMPL("default", gelu_gpu);

#if !defined(KB_GPU_HIP)
/* "vendor" on CUDA: the library a user would call has no such operation. */
KB_GPU_REGISTER_DECLINED(
    "vendor", gelu_vendor,
    "cuDNN 9 has no erf-form GELU in its legacy API (cudnnActivationForward: sigmoid, ReLU, tanh, "
    "clipped ReLU, ELU, swish); the graph API is not wired in here");
#endif
