/* STREAM-style bandwidth on the GPU (CUDA and HIP from this one source):
 * op 1 copies (y = a), op 2 is the triad y = a + 3 b as one fma, rounded
 * once like the CPU's. A grid-stride loop of 16-byte loads and stores (the
 * arrays come from the backend's allocator, aligned to at least 256 bytes),
 * then the tail element by element. fp64 and fp32 only. */
#include "kb/gpu.h"

#include "bandwidth.h" /* after the runtime, as kb/gpu.h says */

__device__ __forceinline__ float bandwidth_fma(float x, float y, float z) {
    return fmaf(x, y, z);
}
__device__ __forceinline__ double bandwidth_fma(double x, double y, double z) {
    return fma(x, y, z);
}

#define BANDWIDTH_THREADS 256

template <typename S, bool TRIAD>
__global__ void KB_LAUNCH_BOUNDS(BANDWIDTH_THREADS)
    bandwidth_stream(const S *__restrict__ a, const S *__restrict__ b, S *__restrict__ y,
                     size_t n) {
    constexpr int V = kb_vec<S>::n;
    const size_t nv = n / V, stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t i = first; i < nv; i += stride) {
        kb_vec<S> v = kb_load_vec<S, V>(a + i * V);
        if (TRIAD) {
            const kb_vec<S> w = kb_load_vec<S, V>(b + i * V);
#pragma unroll
            for (int j = 0; j < V; ++j) v.v[j] = bandwidth_fma(S(3), w.v[j], v.v[j]);
        }
        kb_store_vec<S, V>(y + i * V, v);
    }
    for (size_t i = nv * V + first; i < n; i += stride)
        y[i] = TRIAD ? bandwidth_fma(S(3), b[i], a[i]) : a[i];
}

template <typename S> static int bandwidth_launch(const kb_args *a, size_t n, bool triad) {
    const kb_gpu_dims grid = kb_dims(kb_gpu_grid(n / kb_vec<S>::n + 1, BANDWIDTH_THREADS));
    const S *x = (const S *)a->in[0];
    S *y = (S *)a->out[0];
    if (triad)
        return kb_gpu_launch("bandwidth triad", bandwidth_stream<S, true>, grid,
                             kb_dims(BANDWIDTH_THREADS), 0, kb_gpu_stream_of(a), x,
                             (const S *)a->in[1], y, n);
    return kb_gpu_launch("bandwidth copy", bandwidth_stream<S, false>, grid,
                         kb_dims(BANDWIDTH_THREADS), 0, kb_gpu_stream_of(a), x, nullptr, y, n);
}

static int bandwidth_gpu(const kb_args *a) {
    const size_t n = (size_t)kb_case_dim(a->c, "n");
    const int op = bandwidth_op(a->c);
    if (!op) return 1;
    switch (a->prec) {
    case KB_FP64: return bandwidth_launch<double>(a, n, op == BANDWIDTH_TRIAD);
    case KB_FP32: return bandwidth_launch<float>(a, n, op == BANDWIDTH_TRIAD);
    default: break;
    }
    return kb_unsupported("bandwidth runs fp64 and fp32 only, not precision %d", (int)a->prec);
}

KB_GPU_REGISTER_IMPL("default", bandwidth_gpu);
