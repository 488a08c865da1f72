/* Layer normalisation on the GPU (CUDA and HIP from this one source): one
 * block per row, the row held in registers (kb_row), so x is read once and y
 * written once. Mean and variance are two block reductions over the
 * registers; the variance sums (x - mean)^2, which does not cancel. */
#include "layernorm.h"

#include "kb/gpu.h"

template <typename S, int V, int VPT>
__global__ void KB_ROW_LAUNCH_BOUNDS(S, V, VPT)
    layernorm_rows(const S *__restrict__ x, const S *__restrict__ gamma, const S *__restrict__ beta,
                   S *__restrict__ y, int n) {
    typedef kb_row<S, V, VPT> row_t;
    typedef typename row_t::T T;
    __shared__ T scratch[32];
    const size_t offset = (size_t)blockIdx.x * (size_t)n;
    row_t row;
    row.load(x + offset, n);
    const T mean = row.reduce([](T v) { return v; }, kb_op_sum(), T(0), scratch) / T(n);
    const T var =
        row.reduce([=](T v) { return (v - mean) * (v - mean); }, kb_op_sum(), T(0), scratch) / T(n);
    const T rstd = T(1) / kb_sqrt(var + T(LAYERNORM_EPS));
    row.store(y + offset, [=](const T(&v)[V], int c, T(&out)[V]) {
        kb_vec<S, V> g = kb_load_vec<S, V>(gamma + c), b = kb_load_vec<S, V>(beta + c);
#pragma unroll
        for (int j = 0; j < V; ++j)
            out[j] = (v[j] - mean) * rstd * kb_widen(g.v[j]) + kb_widen(b.v[j]);
    });
}

static int layernorm_gpu(const kb_args *a) {
    const long long rows = kb_case_dim(a->c, "batch") * kb_case_dim(a->c, "seq");
    const long long n = kb_case_dim(a->c, "hidden");
    auto launch = [&](auto t, auto shape, int threads) {
        typedef typename decltype(t)::type S;
        typedef decltype(shape) sh;
        return kb_gpu_launch("layernorm", layernorm_rows<S, sh::v, sh::vpt>, kb_dims(rows),
                             kb_dims(threads), 0, kb_gpu_stream_of(a), (const S *)a->in[0],
                             (const S *)a->in[1], (const S *)a->in[2], (S *)a->out[0], (int)n);
    };
    return kb_gpu_rows(a, n, launch);
}

KB_GPU_REGISTER_IMPL("default", layernorm_gpu);

#if !defined(KB_GPU_HIP)
/* "vendor" on CUDA: the library a user would call has no such operation. */
KB_GPU_REGISTER_DECLINED("vendor", layernorm_vendor,
                         "cuDNN 9 has no layer normalization in its legacy API "
                         "(cudnnNormalizationForwardInference normalizes with given statistics, "
                         "not each row by its own); the graph API is not wired in here");
#endif
