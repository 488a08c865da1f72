/* Mean squared error on the GPU (CUDA and HIP from this one source), in two
 * deterministic steps, no atomics:
 *   1. mse_partials: a grid-stride loop of 16-byte loads of pred and target,
 *      each thread summing (p - t)^2 in the arithmetic type (float, or double
 *      for fp64), a block reduction, one partial sum per block written to the
 *      workspace;
 *   2. mse_finish: one block adds the partial sums (block reduction) and
 *      writes loss = sum / n, rounded once to the storage type.
 * The grid depends only on the device and n, so the summation order, and the
 * result, is the same on every call. */
#include "kb/gpu.h"

#define MSE_THREADS        256
#define MSE_FINISH_THREADS 1024

template <typename S>
__global__ void KB_LAUNCH_BOUNDS(MSE_THREADS)
    mse_partials(const S *__restrict__ pred, const S *__restrict__ target, size_t n,
                 typename kb_acc<S>::type *__restrict__ partial) {
    typedef typename kb_acc<S>::type T;
    constexpr int V = kb_vec<S>::n;
    __shared__ T scratch[32];
    const size_t nv = n / V, stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    T acc = T(0);
    for (size_t i = first; i < nv; i += stride) {
        kb_vec<S> p = kb_load_vec<S, V>(pred + i * V), t = kb_load_vec<S, V>(target + i * V);
#pragma unroll
        for (int j = 0; j < V; ++j) {
            T d = kb_widen(p.v[j]) - kb_widen(t.v[j]);
            acc += d * d;
        }
    }
    for (size_t i = nv * V + first; i < n; i += stride) {
        T d = kb_widen(pred[i]) - kb_widen(target[i]);
        acc += d * d;
    }
    acc = kb_block_reduce(acc, scratch, kb_op_sum(), T(0));
    if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

template <typename S>
__global__ void KB_LAUNCH_BOUNDS(MSE_FINISH_THREADS)
    mse_finish(const typename kb_acc<S>::type *__restrict__ partial, unsigned count, size_t n,
               S *__restrict__ loss) {
    typedef typename kb_acc<S>::type T;
    __shared__ T scratch[32];
    T acc = T(0);
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) acc += partial[i];
    acc = kb_block_reduce(acc, scratch, kb_op_sum(), T(0));
    if (threadIdx.x == 0) loss[0] = kb_store<S>::from(acc / T(n));
}

static int mse_gpu(const kb_args *a) {
    const size_t n = (size_t)(kb_case_dim(a->c, "batch") * kb_case_dim(a->c, "features"));
    return kb_gpu_dispatch(a->prec, [&](auto t) {
        typedef typename decltype(t)::type S;
        typedef typename kb_acc<S>::type T;
        const size_t room = a->workspace_bytes / sizeof(T);
        unsigned blocks = kb_gpu_grid(n / kb_vec<S>::n + 1, MSE_THREADS);
        if (room == 0) return kb_unsupported("mse: no workspace for the partial sums");
        if (blocks > room) blocks = (unsigned)room;
        T *partial = (T *)a->workspace;
        kb_gpu_stream stream = kb_gpu_stream_of(a);
        const int rc =
            kb_gpu_launch("mse_partials", mse_partials<S>, kb_dims(blocks), kb_dims(MSE_THREADS), 0,
                          stream, (const S *)a->in[0], (const S *)a->in[1], n, partial);
        if (rc != 0) return rc;
        return kb_gpu_launch("mse_finish", mse_finish<S>, kb_dims(1), kb_dims(MSE_FINISH_THREADS),
                             0, stream, partial, blocks, n, (S *)a->out[0]);
    });
}

KB_GPU_REGISTER_IMPL("default", mse_gpu);

#if !defined(KB_GPU_HIP)
/* "vendor" on CUDA: the library a user would call has no such operation. */
KB_GPU_REGISTER_DECLINED("vendor", mse_vendor,
                         "cuDNN has no loss operations: an MSE would be cudnnOpTensor and "
                         "cudnnReduceTensor passes of our own composing, not a library op");
#endif
