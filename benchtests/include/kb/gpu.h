/* One GPU source, two vendors: the thin layer kernels/<name>/<name>.cu is
 * written against. The same file is compiled by nvcc as CUDA and by hipcc
 * (AMD clang) as HIP; this header maps the runtime, the launch checks, the
 * warp primitives and the 16-bit storage formats onto each.
 *
 * Warps: the physical warp is 32 lanes on NVIDIA and 64 on AMD gfx9 (CDNA);
 * everything here reads the width from warpSize at run time, so reductions
 * are correct on both. Blocks must be a multiple of warpSize and at most
 * 1024 threads. */
#ifndef KB_GPU_H
#define KB_GPU_H

/* The runtime first: it defines __host__/__device__, which kb/prec.h uses. */
#include "kb/gpu_runtime.h"

#if defined(KB_GPU_HIP)
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#define kb_shfl_xor(v, mask) __shfl_xor((v), (mask))
#else
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#define kb_shfl_xor(v, mask) __shfl_xor_sync(0xffffffffu, (v), (mask))
#endif

#include "kb/kernel.h"

#include <stdint.h>
#include <stdio.h>

typedef kb_gpu(Stream_t) kb_gpu_stream;

/* The stream an implementation launches on (the harness times it). */
static inline kb_gpu_stream kb_gpu_stream_of(const kb_args *a) {
    return (kb_gpu_stream)a->stream;
}

/* After a launch: prints the kernel and the runtime's message and makes the
 * implementation return 1 when the launch failed. */
#define KB_GPU_CHECK_LAUNCH(what)                                                                  \
    do {                                                                                           \
        kb_gpu(Error_t) e_ = kb_gpu(GetLastError)();                                               \
        if (e_ != kb_gpu(Success)) {                                                               \
            fprintf(stderr, "%s:%d: %s: launch failed: %s\n", __FILE__, __LINE__, (what),          \
                    kb_gpu(GetErrorString)(e_));                                                   \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* ---- 16-bit storage formats: bits in memory, float in registers ---- */

struct kb_f16 {
    uint16_t bits;
};
struct kb_bf16 {
    uint16_t bits;
};

/* A stored value in its arithmetic type: float, or double for double. */
__device__ __forceinline__ float kb_widen(float x) {
    return x;
}
__device__ __forceinline__ double kb_widen(double x) {
    return x;
}
__device__ __forceinline__ float kb_widen(kb_f16 x) {
    return __half2float(__ushort_as_half(x.bits));
}
__device__ __forceinline__ float kb_widen(kb_bf16 x) {
    return kb_bf16_to_f32(x.bits);
}

/* S from float or double: the identity, or rounding to a 16-bit format
 * (round to nearest even, as on the CPU). */
template <typename S> struct kb_store {
    __device__ static S from(S x) { return x; }
};
template <> struct kb_store<kb_f16> {
    __device__ static kb_f16 from(float x) { return kb_f16{__half_as_ushort(__float2half_rn(x))}; }
};
template <> struct kb_store<kb_bf16> {
    __device__ static kb_bf16 from(float x) { return kb_bf16{kb_f32_to_bf16(x)}; }
};

/* ---- vectors: N elements moved as one load (16 bytes when N = 16 / sizeof(S)) ---- */

template <typename S, int N = 16 / (int)sizeof(S)> struct kb_vec {
    static constexpr int n = N;
    S v[N];
};

/* The arithmetic type of a storage type: float, or double for double. */
template <typename S> struct kb_acc { typedef decltype(kb_widen(S())) type; };

template <typename S, int N> __device__ __forceinline__ kb_vec<S, N> kb_load_vec(const S *p) {
    kb_vec<S, N> out;
    if constexpr (sizeof(out) == 16) {
        union {
            uint4 raw;
            kb_vec<S, N> vec;
        } u;
        u.raw = *reinterpret_cast<const uint4 *>(p);
        out = u.vec;
    } else {
#pragma unroll
        for (int j = 0; j < N; ++j) out.v[j] = p[j];
    }
    return out;
}

template <typename S, int N>
__device__ __forceinline__ void kb_store_vec(S *p, const kb_vec<S, N> &v) {
    if constexpr (sizeof(v) == 16) {
        union {
            uint4 raw;
            kb_vec<S, N> vec;
        } u;
        u.vec = v;
        *reinterpret_cast<uint4 *>(p) = u.raw;
    } else {
#pragma unroll
        for (int j = 0; j < N; ++j) p[j] = v.v[j];
    }
}

/* ---- reductions (warp 32 or 64) ---- */

struct kb_op_sum {
    template <typename T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct kb_op_max {
    template <typename T> __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};

/* Every lane of the warp gets op over the warp's values. */
template <typename T, typename Op> __device__ __forceinline__ T kb_warp_reduce(T v, Op op) {
    for (int mask = warpSize / 2; mask > 0; mask /= 2) v = op(v, kb_shfl_xor(v, mask));
    return v;
}

/* Every thread of the block gets op over the block's values. `scratch` is
 * __shared__ T[32] (1024 threads / warp 32; warp 64 needs 16); `identity`
 * is op's neutral element. Safe to call repeatedly with the same scratch. */
template <typename T, typename Op>
__device__ __forceinline__ T kb_block_reduce(T v, T *scratch, Op op, T identity) {
    const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    const int warps = (blockDim.x + warpSize - 1) / warpSize;
    v = kb_warp_reduce(v, op);
    __syncthreads(); /* the previous call's readers are done with scratch */
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    return kb_warp_reduce(lane < warps ? scratch[lane] : identity, op);
}

/* ---- math in either arithmetic type ---- */

__device__ __forceinline__ float kb_exp(float x) {
    return expf(x);
}
__device__ __forceinline__ double kb_exp(double x) {
    return exp(x);
}
__device__ __forceinline__ float kb_erf(float x) {
    return erff(x);
}
__device__ __forceinline__ double kb_erf(double x) {
    return erf(x);
}
/* GELU, erf form: 0.5 x (1 + erf(x / sqrt(2))). */
template <typename T> __device__ __forceinline__ T kb_gelu(T x) {
    return T(0.5) * x * (T(1) + kb_erf(x * T(0.70710678118654752440)));
}
__device__ __forceinline__ float kb_sqrt(float x) {
    return sqrtf(x);
}
__device__ __forceinline__ double kb_sqrt(double x) {
    return sqrt(x);
}

/* ---- launching by precision ---- */

template <typename S> struct kb_type { typedef S type; };

/* Calls f(kb_type<S>()) with the storage type S of `prec`; f is typically a
 * generic lambda that launches the kernel template for S. */
template <typename F> int kb_gpu_dispatch(kb_prec prec, F f) {
    switch (prec) {
    case KB_FP64: return f(kb_type<double>());
    case KB_FP32: return f(kb_type<float>());
    case KB_FP16: return f(kb_type<kb_f16>());
    case KB_BF16: return f(kb_type<kb_bf16>());
    default: break;
    }
    return kb_unsupported("no %s implementation for precision %d", KB_GPU_BACKEND, (int)prec);
}

/* Blocks for a grid-stride loop over n items: enough to fill the device
 * (a few waves of `threads`-thread blocks per multiprocessor), no more than
 * the items need. */
static inline unsigned kb_gpu_grid(size_t n, unsigned threads) {
    static int sms = 0;
    if (sms == 0) {
        int dev = 0;
        if (kb_gpu(GetDevice)(&dev) != kb_gpu(Success) ||
            kb_gpu(DeviceGetAttribute)(&sms, KB_GPU_ATTR_SMS, dev) != kb_gpu(Success) || sms <= 0)
            sms = 1;
    }
    size_t need = (n + threads - 1) / threads, fill = (size_t)sms * (2048 / threads) * 2;
    size_t blocks = need < fill ? need : fill;
    return blocks ? (unsigned)blocks : 1u;
}

/* ---- elementwise maps ---- */

/* y[i] = op(x[i]): 16-byte loads and stores in a grid-stride loop, then the
 * tail element by element. x and y come from the backend's allocator
 * (aligned to at least 256 bytes). */
template <typename S, typename Op>
__global__ void kb__map(const S *__restrict__ x, S *__restrict__ y, size_t n, Op op) {
    constexpr int V = kb_vec<S>::n;
    const size_t nv = n / V, stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (size_t i = first; i < nv; i += stride) {
        kb_vec<S> v = kb_load_vec<S, V>(x + i * V);
#pragma unroll
        for (int j = 0; j < V; ++j) v.v[j] = kb_store<S>::from(op(kb_widen(v.v[j])));
        kb_store_vec<S, V>(y + i * V, v);
    }
    for (size_t i = nv * V + first; i < n; i += stride)
        y[i] = kb_store<S>::from(op(kb_widen(x[i])));
}

/* Runs y = op(x) over in[0] -> out[0] (n elements) in the run's precision.
 * op is a functor with a template operator()(T) for T = float and double. */
template <typename Op> int kb_gpu_map(const kb_args *a, size_t n, Op op, const char *what) {
    return kb_gpu_dispatch(a->prec, [&](auto t) {
        typedef typename decltype(t)::type S;
        const unsigned threads = 256;
        const size_t items = n / kb_vec<S>::n + 1;
        kb__map<S><<<kb_gpu_grid(items, threads), threads, 0, kb_gpu_stream_of(a)>>>(
            (const S *)a->in[0], (S *)a->out[0], n, op);
        KB_GPU_CHECK_LAUNCH(what);
        return 0;
    });
}

/* ---- row-wise kernels: one block per row, the row held in registers ---- */

/* A row of n elements spread over the block: thread t holds the loads t,
 * t + blockDim.x, ... (VPT of them, V elements each), widened to the
 * arithmetic type T. Memory sees the row once, however many reductions run
 * over it. Every thread of the block must take part in reduce(). */
template <typename S, int V, int VPT> struct kb_row {
    typedef typename kb_acc<S>::type T;
    T v[VPT][V];
    int n;

    __device__ int col(int k) const { return (k * (int)blockDim.x + (int)threadIdx.x) * V; }

    __device__ void load(const S *__restrict__ x, int len) {
        n = len;
#pragma unroll
        for (int k = 0; k < VPT; ++k) {
            if (col(k) >= n) continue;
            kb_vec<S, V> in = kb_load_vec<S, V>(x + col(k));
#pragma unroll
            for (int j = 0; j < V; ++j) v[k][j] = kb_widen(in.v[j]);
        }
    }

    /* Every element x of the row becomes f(x). */
    template <typename F> __device__ void apply(F f) {
#pragma unroll
        for (int k = 0; k < VPT; ++k) {
            if (col(k) >= n) continue;
#pragma unroll
            for (int j = 0; j < V; ++j) v[k][j] = f(v[k][j]);
        }
    }

    /* op over f(x) for the row's elements, returned to every thread. */
    template <typename F, typename Op>
    __device__ T reduce(F f, Op op, T identity, T *scratch) const {
        T acc = identity;
#pragma unroll
        for (int k = 0; k < VPT; ++k) {
            if (col(k) >= n) continue;
#pragma unroll
            for (int j = 0; j < V; ++j) acc = op(acc, f(v[k][j]));
        }
        return kb_block_reduce(acc, scratch, op, identity);
    }

    /* Writes the row: f(x, c, out) turns the V values starting at column c
     * into the V values stored there. */
    template <typename F> __device__ void store(S *__restrict__ y, F f) const {
#pragma unroll
        for (int k = 0; k < VPT; ++k) {
            if (col(k) >= n) continue;
            T out[V];
            f(v[k], col(k), out);
            kb_vec<S, V> st;
#pragma unroll
            for (int j = 0; j < V; ++j) st.v[j] = kb_store<S>::from(out[j]);
            kb_store_vec<S, V>(y + col(k), st);
        }
    }
};

/* The shape of a row kernel: V elements per load, VPT loads per thread. */
template <int V_, int VPT_> struct kb_row_shape { static constexpr int v = V_, vpt = VPT_; };

/* Threads for `per` loads each: whole 64-lane groups (whole warps on either
 * vendor, as kb_block_reduce needs). */
static inline unsigned kb__row_threads(int per) {
    return (unsigned)((per + 63) / 64 * 64);
}

/* Whether a row of n elements, V per load, fits one block's registers:
 * 1024 threads x 8 loads. */
template <int V> constexpr bool kb__row_fits(int n) {
    return (n + V - 1) / V <= 8192;
}

template <int V, typename Launch> int kb__row_launch(int n, Launch launch) {
    if (!kb__row_fits<V>(n))
        return kb_unsupported("rows of %d elements: one %s block holds at most %d in registers", n,
                              KB_GPU_BACKEND, 8192 * V);
    const int loads = (n + V - 1) / V;
    if (loads <= 1024) return launch(kb_row_shape<V, 1>(), kb__row_threads(loads));
    if (loads <= 2048) return launch(kb_row_shape<V, 2>(), kb__row_threads((loads + 1) / 2));
    if (loads <= 4096) return launch(kb_row_shape<V, 4>(), kb__row_threads((loads + 3) / 4));
    return launch(kb_row_shape<V, 8>(), kb__row_threads((loads + 7) / 8));
}

/* Runs a row kernel over rows of n elements in the run's precision. The
 * load is 16 bytes when n is a multiple of 16 bytes' worth (rows then stay
 * 16-byte aligned), else one element; loads per thread are the fewest of 1,
 * 2, 4, 8 that fit the row in 1024 threads. launch(kb_type<S>(),
 * kb_row_shape<V, VPT>(), threads) launches the kernel template for that
 * storage type and shape on kb_gpu_stream_of(a); the launch is checked here. */
template <typename Launch>
int kb_gpu_rows(const kb_args *a, int n, Launch launch, const char *what) {
    return kb_gpu_dispatch(a->prec, [&](auto t) {
        typedef typename decltype(t)::type S;
        constexpr int W = kb_vec<S>::n;
        auto checked = [&](auto shape, unsigned threads) {
            launch(t, shape, threads);
            KB_GPU_CHECK_LAUNCH(what);
            return 0;
        };
        return n % W == 0 ? kb__row_launch<W>(n, checked) : kb__row_launch<1>(n, checked);
    });
}

/* Registers an implementation of this kernel for the backend this file is
 * compiled for (the driver finds it next to the CPU ones). */
#define KB_GPU_REGISTER_IMPL(variant, fn)                                                          \
    static const int kb__gpu_impl_##fn = kb_register_impl(KB_GPU_BACKEND, (variant), (fn))

#endif
