/* Row-wise softmax on the GPU (CUDA and HIP from this one source): one block
 * per row, the row held in registers (kb_row), so x is read once and y
 * written once: max reduction, e^(x - max) in place with a sum reduction,
 * then y = e * (1 / sum). */
#include "kb/gpu.h"

template <typename S, int V, int VPT>
__global__ void KB_ROW_LAUNCH_BOUNDS(S, V, VPT)
    softmax_rows(const S *__restrict__ x, S *__restrict__ y, int n) {
    typedef kb_row<S, V, VPT> row_t;
    typedef typename row_t::T T;
    __shared__ T scratch[32];
    const size_t offset = (size_t)blockIdx.x * (size_t)n;
    row_t row;
    row.load(x + offset, n);
    const T m = row.reduce([](T v) { return v; }, kb_op_max(), T(-INFINITY), scratch);
    row.apply([=](T v) { return kb_exp(v - m); });
    const T inv = T(1) / row.reduce([](T v) { return v; }, kb_op_sum(), T(0), scratch);
    row.store(y + offset, [=](const T(&e)[V], int, T(&out)[V]) {
#pragma unroll
        for (int j = 0; j < V; ++j) out[j] = e[j] * inv;
    });
}

static int softmax_gpu(const kb_args *a) {
    const long long rows = kb_case_dim(a->c, "rows"), n = kb_case_dim(a->c, "cols");
    auto launch = [&](auto t, auto shape, int threads) {
        typedef typename decltype(t)::type S;
        typedef decltype(shape) sh;
        return kb_gpu_launch("softmax", softmax_rows<S, sh::v, sh::vpt>, kb_dims(rows),
                             kb_dims(threads), 0, kb_gpu_stream_of(a), (const S *)a->in[0],
                             (S *)a->out[0], (int)n);
    };
    return kb_gpu_rows(a, n, launch);
}

KB_GPU_REGISTER_IMPL("default", softmax_gpu);
