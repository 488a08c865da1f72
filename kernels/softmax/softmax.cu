/* Row-wise softmax on the GPU (CUDA and HIP from this one source): one block
 * per row, the row held in registers (kb_row), so x is read once and y
 * written once: max reduction, e^(x - max) in place with a sum reduction,
 * then y = e * (1 / sum).
 *
 * "vendor" (CUDA with cuDNN): cudnnSoftmaxForward, CUDNN_SOFTMAX_ACCURATE
 * (the max subtracted first, as here) over each row: rows x cols as an
 * N x C x 1 x 1 tensor, CUDNN_SOFTMAX_MODE_INSTANCE. A precision cuDNN has
 * no softmax for is declined with its status. */
#include "kb/gpu.h"

#if defined(KB_HAVE_CUDNN) && !defined(KB_GPU_HIP)
#include "kb/vendor/cudnn.h"
#endif

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

#if defined(KB_HAVE_CUDNN) && !defined(KB_GPU_HIP)
static int softmax_vendor(const kb_args *a) {
    int rows = 0, cols = 0;
    int rc = kb_gpu_dim_int(a, "rows", &rows);
    if (rc == 0) rc = kb_gpu_dim_int(a, "cols", &cols);
    if (rc != 0) return rc;
    const cudnnHandle_t h = kb_cudnn_handle(kb_gpu_stream_of(a));
    if (!h) return 1;
    static kb_cudnn_tensor t; /* x and y alike */
    return kb_gpu_dispatch(a->prec, [&](auto type) {
        typedef typename decltype(type)::type S;
        typedef typename kb_acc<S>::type T;
        const T alpha = T(1), beta = T(0);
        const int err = t.set_nchw<S>(rows, cols, 1, 1);
        if (err != 0) return err;
        KB_CUDNN(cudnnSoftmaxForward(h, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &alpha,
                                     t.d, a->in[0], &beta, t.d, a->out[0]),
                 "cudnnSoftmaxForward");
        return 0;
    });
}

KB_GPU_REGISTER_IMPL("vendor", softmax_vendor);
#endif
