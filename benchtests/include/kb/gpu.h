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
#include "kb/gpu/runtime.h"

#if defined(KB_GPU_HIP)
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#define kb_shfl_xor(v, mask) __shfl_xor((v), (mask))
#else
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#define kb_shfl_xor(v, mask) __shfl_xor_sync(0xffffffffu, (v), (mask))
#endif

#include "kb/gpu/launch.h"
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

/* ---- launching: every launch checked before and after ---- */

/* __launch_bounds__ for a kernel launched with at most `threads` threads per
 * block: every kernel declares its bound, so its registers always allow the
 * blocks it is launched with. With the bound alone ptxas may trade registers
 * for occupancy (down to 32, to fit 2048 threads per multiprocessor);
 * KB_LAUNCH_BOUNDS_MIN also asks for `blocks` blocks per multiprocessor,
 * which caps registers at 64 Ki / (threads x blocks): a minimum of 1 leaves
 * a heavy kernel all the registers its bound allows (no spills). On HIP the
 * second value is the minimum waves per execution unit. ptxas_report.sh
 * checks that no kernel spills. */
#define KB_LAUNCH_BOUNDS(threads)             __launch_bounds__((threads))
#define KB_LAUNCH_BOUNDS_MIN(threads, blocks) __launch_bounds__((threads), (blocks))

/* kb_gpu_limits of `kernel` on the current device, from the runtime: its
 * maxThreadsPerBlock and static shared memory, the device's grid and shared
 * memory limits. Queried once per kernel (the process uses one device).
 * 0, or 1 after printing the failed query. */
static inline int kb__gpu_query_limits(const void *kernel, kb_gpu_limits *lim) {
    kb_gpu(Error_t) e;
    kb_gpu_func_attrs fa;
    int dev = 0, gx = 0, gy = 0, gz = 0, smem = 0;
    if ((e = kb_gpu(FuncGetAttributes)(&fa, kernel)) != kb_gpu(Success) ||
        (e = kb_gpu(GetDevice)(&dev)) != kb_gpu(Success) ||
        (e = kb_gpu(DeviceGetAttribute)(&gx, KB_GPU_ATTR_GRID_X, dev)) != kb_gpu(Success) ||
        (e = kb_gpu(DeviceGetAttribute)(&gy, KB_GPU_ATTR_GRID_Y, dev)) != kb_gpu(Success) ||
        (e = kb_gpu(DeviceGetAttribute)(&gz, KB_GPU_ATTR_GRID_Z, dev)) != kb_gpu(Success) ||
        (e = kb_gpu(DeviceGetAttribute)(&smem, KB_GPU_ATTR_SMEM_BLOCK, dev)) != kb_gpu(Success)) {
        fprintf(stderr, "kb_gpu_launch: querying the kernel's limits: %s\n",
                kb_gpu(GetErrorString)(e));
        return 1;
    }
    *lim = kb_gpu_limits_default(fa.maxThreadsPerBlock, fa.sharedSizeBytes);
    lim->max_smem = (size_t)smem;
    lim->max_grid[0] = gx, lim->max_grid[1] = gy, lim->max_grid[2] = gz;
    lim->max_grid_dim = KB_GPU_GRID_DIM_THREADS;
    return 0;
}

static inline int kb__gpu_limits(const void *kernel, kb_gpu_limits *lim) {
    static struct {
        const void *kernel;
        kb_gpu_limits lim;
    } known[64];
    static int count;
    for (int i = 0; i < count; ++i)
        if (known[i].kernel == kernel) return *lim = known[i].lim, 0;
    if (kb__gpu_query_limits(kernel, lim)) return 1;
    if (count < 64) known[count].kernel = kernel, known[count++].lim = *lim;
    return 0;
}

/* 0 when the launch is legal for `kernel` here; kb_unsupported() naming the
 * broken limit when not (the case is declined, never launched); 1 when the
 * limits cannot be read. */
static inline int kb_gpu_launch_check(const char *what, const void *kernel, kb_gpu_dims grid,
                                      kb_gpu_dims block, size_t dyn_smem) {
    kb_gpu_limits lim = {};
    char why[192];
    if (kb__gpu_limits(kernel, &lim)) return 1;
    if (kb_gpu_launch_illegal(&lim, grid, block, dyn_smem, why, sizeof why))
        return kb_unsupported("%s on %s: %s", what, KB_GPU_BACKEND, why);
    return 0;
}

static inline dim3 kb__dim3(kb_gpu_dims d) {
    return dim3((unsigned)d.x, (unsigned)d.y, (unsigned)d.z);
}

/* Grid or block dimensions: x, or x by y (by z). */
static inline kb_gpu_dims kb_dims(long long x, long long y = 1, long long z = 1) {
    return kb_gpu_dims_of(x, y, z);
}

/* The one way a kernel is launched: checks the configuration against the
 * kernel's and the device's limits (kb_gpu_launch_check), launches
 * kernel<<<grid, block, smem, stream>>>(args...) and checks the launch.
 * Returns 0, kb_unsupported() for an illegal configuration, or 1 when the
 * launch failed (printed). */
template <typename... P, typename... A>
int kb_gpu_launch(const char *what, void (*kernel)(P...), kb_gpu_dims grid, kb_gpu_dims block,
                  size_t smem, kb_gpu_stream stream, A... args) {
    static_assert(sizeof...(P) == sizeof...(A), "kb_gpu_launch: one argument per parameter");
    const int rc = kb_gpu_launch_check(what, (const void *)kernel, grid, block, smem);
    if (rc != 0) return rc;
    kernel<<<kb__dim3(grid), kb__dim3(block), smem, stream>>>(static_cast<P>(args)...);
    KB_GPU_CHECK_LAUNCH(what);
    return 0;
}

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

/* Case dimension `name` for kernels that index it as int: 0 and *out, or
 * kb_unsupported() when it is outside 1 .. INT32_MAX. */
static inline int kb_gpu_dim_int(const kb_args *a, const char *name, int *out) {
    const long long v = kb_case_dim(a->c, name);
    if (v < 1 || v > INT32_MAX)
        return kb_unsupported("%s = %lld: the %s kernels take 1 .. %d", name, v, KB_GPU_BACKEND,
                              INT32_MAX);
    *out = (int)v;
    return 0;
}

/* Blocks for a grid-stride loop over n items: enough to fill the device
 * (a few waves of `threads`-thread blocks per multiprocessor), no more than
 * the items need. */
static inline unsigned kb_gpu_grid(size_t n, unsigned threads) {
    static int sms = 0;
    if (sms == 0) {
        int dev = 0;
        kb_gpu(Error_t) e = kb_gpu(GetDevice)(&dev);
        if (e == kb_gpu(Success)) e = kb_gpu(DeviceGetAttribute)(&sms, KB_GPU_ATTR_SMS, dev);
        if (e != kb_gpu(Success) || sms <= 0) {
            fprintf(stderr, "kb_gpu_grid: multiprocessor count unknown (%s); sizing for one\n",
                    kb_gpu(GetErrorString)(e));
            sms = 1;
        }
    }
    size_t need = (n + threads - 1) / threads, fill = (size_t)sms * (2048 / threads) * 2;
    size_t blocks = need < fill ? need : fill;
    return blocks ? (unsigned)blocks : 1u;
}

/* ---- elementwise maps ---- */

/* y[i] = op(x[i]): 16-byte loads and stores in a grid-stride loop, then the
 * tail element by element. x and y come from the backend's allocator
 * (aligned to at least 256 bytes). */
#define KB_MAP_THREADS 256

template <typename S, typename Op>
__global__ void KB_LAUNCH_BOUNDS(KB_MAP_THREADS)
    kb__map(const S *__restrict__ x, S *__restrict__ y, size_t n, Op op) {
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
        const size_t items = n / kb_vec<S>::n + 1;
        return kb_gpu_launch(what, kb__map<S, Op>, kb_dims(kb_gpu_grid(items, KB_MAP_THREADS)),
                             kb_dims(KB_MAP_THREADS), 0, kb_gpu_stream_of(a), (const S *)a->in[0],
                             (S *)a->out[0], n, op);
    });
}

/* ---- row-wise kernels: one block per row, the row held in registers ---- */

/* A row of n elements spread over the block: thread t holds the loads t,
 * t + blockDim.x, ... (VPT of them, V elements each), widened to the
 * arithmetic type T. Memory sees the row once, however many reductions run
 * over it. Every thread of the block must take part in reduce(). */
template <typename S, int V, int VPT> struct kb_row {
    typedef typename kb_acc<S>::type T;
    /* The most threads a block of this shape may have (KB_ROW_BOUND). */
    static constexpr int bound = KB_ROW_BOUND(sizeof(T), V, VPT);
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

/* The launch bounds of a row kernel for storage S and shape V x VPT: every
 * kernel holding a kb_row<S, V, VPT> declares them, so its registers fit the
 * block sizes kb_row_plan_for() picks. */
#define KB_ROW_LAUNCH_BOUNDS(S, V, VPT) KB_LAUNCH_BOUNDS_MIN((kb_row<S, V, VPT>::bound), 1)

/* The shape of a row kernel: V elements per load, VPT loads per thread. */
template <int V_, int VPT_> struct kb_row_shape { static constexpr int v = V_, vpt = VPT_; };

/* Rows of n elements, V per load, in arithmetic type T: calls
 * launch(kb_row_shape<V, VPT>(), threads) with the plan of kb_row_plan_for()
 * and returns its result, or declines rows no shape holds. */
template <typename T, int V, typename Launch> int kb__row_launch(long long n, Launch launch) {
    kb_row_plan plan = {};
    char why[160];
    if (kb_row_plan_for(n, V, (int)sizeof(T), &plan, why, sizeof why))
        return kb_unsupported("%s (%s)", why, KB_GPU_BACKEND);
    static_assert(KB_ROW_MAX_VPT == 8, "a shape per loads-per-thread count");
    switch (plan.vpt) {
    case 1: return launch(kb_row_shape<V, 1>(), plan.threads);
    case 2: return launch(kb_row_shape<V, 2>(), plan.threads);
    case 4: return launch(kb_row_shape<V, 4>(), plan.threads);
    default: return launch(kb_row_shape<V, 8>(), plan.threads);
    }
}

/* 16-byte loads when n is a multiple of 16 bytes' worth of S (rows then
 * stay 16-byte aligned), else one element: kb__row_launch for that V. */
template <typename S, typename T, typename Launch> int kb_row_launch(long long n, Launch launch) {
    constexpr int W = kb_vec<S>::n;
    return n % W == 0 ? kb__row_launch<T, W>(n, launch) : kb__row_launch<T, 1>(n, launch);
}

/* Runs a row kernel over rows of n elements in the run's precision.
 * launch(kb_type<S>(), kb_row_shape<V, VPT>(), threads) launches the kernel
 * template for that storage type and shape with kb_gpu_launch() on
 * kb_gpu_stream_of(a) and returns its result. */
template <typename Launch> int kb_gpu_rows(const kb_args *a, long long n, Launch launch) {
    return kb_gpu_dispatch(a->prec, [&](auto t) {
        typedef typename decltype(t)::type S;
        return kb_row_launch<S, typename kb_acc<S>::type>(
            n, [&](auto shape, int threads) { return launch(t, shape, threads); });
    });
}

/* A device buffer that grows to the largest size asked for (the libraries'
 * workspaces). Held in a function's static, it is built by the first call,
 * after the runtime started, so it is freed at exit before the runtime's own
 * teardown. Allocated in a warm-up call: the harness calls each case untimed
 * first. */
struct kb_gpu_scratch {
    void *p = nullptr;
    size_t bytes = 0;
    ~kb_gpu_scratch() {
        if (p && kb_gpu(Free)(p) != kb_gpu(Success))
            fprintf(stderr, "freeing a workspace failed\n");
    }
    /* 0, or 1 after printing the failure. */
    int reserve(size_t need, const char *what) {
        if (need <= bytes) return 0;
        kb_gpu(Error_t) e = p ? kb_gpu(Free)(p) : kb_gpu(Success);
        p = nullptr, bytes = 0;
        if (e == kb_gpu(Success)) e = kb_gpu(Malloc)(&p, need);
        if (e != kb_gpu(Success)) {
            p = nullptr;
            fprintf(stderr, "%s: allocating a workspace of %zu bytes: %s\n", what, need,
                    kb_gpu(GetErrorString)(e));
            return 1;
        }
        bytes = need;
        return 0;
    }
};

/* Registers an implementation of this kernel for the backend this file is
 * compiled for (the driver finds it next to the CPU ones). */
#define KB_GPU_REGISTER_IMPL(variant, fn)                                                          \
    static const int kb__gpu_impl_##fn = kb_register_impl(KB_GPU_BACKEND, (variant), (fn))

/* Registers `variant` as an implementation that declines every case with
 * `why` (a string literal): for a library variant whose library lacks the
 * operation, so each case is reported skipped with the reason. */
#define KB_GPU_REGISTER_DECLINED(variant, fn, why)                                                 \
    static int fn(const kb_args *) {                                                               \
        return kb_unsupported("%s", (why));                                                        \
    }                                                                                              \
    KB_GPU_REGISTER_IMPL(variant, fn)

#endif
