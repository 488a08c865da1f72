/* Swish on the GPU (CUDA and HIP from this one source): y = x / (1 + e^-x),
 * an elementwise map at memory speed. */
#include "kb/gpu.h"

struct swish_op {
    template <typename T> __device__ T operator()(T x) const { return x / (T(1) + kb_exp(-x)); }
};

static int swish_gpu(const kb_args *a) {
    return kb_gpu_map(a, (size_t)kb_case_dim(a->c, "n"), swish_op(), "swish");
}

KB_GPU_REGISTER_IMPL("default", swish_gpu);
