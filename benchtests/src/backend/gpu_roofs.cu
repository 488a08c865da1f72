/* The compute roofs of the GPU backends (gpu_roofs.h): a multiply-add
 * throughput kernel per precision, and on CUDA the matrix units through
 * cublasGemmEx. One source for nvcc and hipcc, like the kernels. */
#include "backend/gpu_roofs.h"

#include "kb/gpu.h"
#include "kb/gpu/peak.h"

#if !defined(KB_GPU_HIP)
#include <cublas_v2.h>
#include <cuda_bf16.h>
#endif

#include <stdarg.h>

typedef kb_gpu(Error_t) roof_error;
typedef kb_gpu(Event_t) roof_event;

/* Formats a failure into `why`; returns -1. */
static int roof_fail(char *why, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int roof_fail(char *why, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, size, fmt, ap);
    va_end(ap);
    return -1;
}

#define ROOF_CHECK(call, what)                                                                     \
    do {                                                                                           \
        const roof_error e_ = (call);                                                              \
        if (e_ != kb_gpu(Success))                                                                 \
            return roof_fail(why, why_size, "%s: %s", (what), kb_gpu(GetErrorString)(e_));         \
    } while (0)

/* Device memory and a pair of events, released however the measurement
 * ends. */
struct roof_resources {
    void *buffers[3] = {nullptr, nullptr, nullptr};
    roof_event start = nullptr, stop = nullptr;
    ~roof_resources() {
        for (void *b : buffers)
            if (b) report(kb_gpu(Free)(b), "freeing a buffer");
        if (start) report(kb_gpu(EventDestroy)(start), "destroying an event");
        if (stop) report(kb_gpu(EventDestroy)(stop), "destroying an event");
    }
    /* A destructor cannot return the failure: it is printed. */
    static void report(roof_error e, const char *what) {
        if (e != kb_gpu(Success))
            fprintf(stderr, "GPU roofs: %s: %s\n", what, kb_gpu(GetErrorString)(e));
    }
};

/* ---- multiply-add throughput ---- */

/* The register type of a precision: its multiply-add, lanes per
 * instruction, conversion from float (make: every lane; pair: the first
 * lane lo and the second hi, one value for one lane) and addition. */
template <typename V> struct roof_ops;
template <> struct roof_ops<double> {
    static constexpr int lanes = 1;
    static constexpr const char *insn = "fp64 fma";
    __device__ static double fma_(double x, double a, double b) { return fma(x, a, b); }
    __device__ static double make(float f) { return f; }
    __device__ static double pair(float lo, float) { return lo; }
    __device__ static double add(double x, double y) { return x + y; }
};
template <> struct roof_ops<float> {
    static constexpr int lanes = 1;
    static constexpr const char *insn = "fp32 fmaf";
    __device__ static float fma_(float x, float a, float b) { return fmaf(x, a, b); }
    __device__ static float make(float f) { return f; }
    __device__ static float pair(float lo, float) { return lo; }
    __device__ static float add(float x, float y) { return x + y; }
};
template <> struct roof_ops<__half2> {
    static constexpr int lanes = 2;
    static constexpr const char *insn = "fp16 __hfma2 on half2";
    __device__ static __half2 fma_(__half2 x, __half2 a, __half2 b) { return __hfma2(x, a, b); }
    __device__ static __half2 make(float f) { return __float2half2_rn(f); }
    __device__ static __half2 pair(float lo, float hi) { return __floats2half2_rn(lo, hi); }
    __device__ static __half2 add(__half2 x, __half2 y) { return __hadd2(x, y); }
};
#if !defined(KB_GPU_HIP)
template <> struct roof_ops<__nv_bfloat162> {
    static constexpr int lanes = 2;
    static constexpr const char *insn = "bf16 __hfma2 on __nv_bfloat162";
    __device__ static __nv_bfloat162 fma_(__nv_bfloat162 x, __nv_bfloat162 a, __nv_bfloat162 b) {
        return __hfma2(x, a, b);
    }
    __device__ static __nv_bfloat162 make(float f) { return __float2bfloat162_rn(f); }
    __device__ static __nv_bfloat162 pair(float lo, float hi) {
        return __floats2bfloat162_rn(lo, hi);
    }
    __device__ static __nv_bfloat162 add(__nv_bfloat162 x, __nv_bfloat162 y) {
        return __hadd2(x, y);
    }
};
#endif

/* KB_PEAK_CHAINS chains of acc = acc * a + b per thread. a and b are
 * arguments and each thread's sum is stored, so the compiler can neither
 * fold the chains nor drop them. With a = 0.999, b = 0.001 no chain
 * overflows or goes subnormal: in float and double each converges on 1,
 * and in fp16 and bf16 a x + b soon rounds back to x, so each stays
 * between its start and 1 (0.5 to 0.9375; the multiply-adds are issued
 * all the same). The packed forms' second lane takes a - 0.001 and b +
 * 0.001, which does the same: with one value in both lanes of a and of b,
 * nvcc keeps a and b in the halves of one register and selects a half per
 * operand, and the H100 then issues HFMA2 at half its rate (66.9 against
 * 130 TFLOP/s, measured 2026-11-27; docs/gpu-timing.md, "GPU roofs"). */
template <typename V>
__global__ void KB_LAUNCH_BOUNDS(KB_PEAK_THREADS)
    kb__peak_fma(V *__restrict__ out, long long iters, float a_, float b_) {
    typedef roof_ops<V> ops;
    const V a = ops::pair(a_, a_ - 0.001f), b = ops::pair(b_, b_ + 0.001f);
    V acc[KB_PEAK_CHAINS];
#pragma unroll
    for (int j = 0; j < KB_PEAK_CHAINS; ++j) acc[j] = ops::make(0.5f + 0.0625f * j);
    for (long long i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < KB_PEAK_UNROLL; ++u)
#pragma unroll
            for (int j = 0; j < KB_PEAK_CHAINS; ++j) acc[j] = ops::fma_(acc[j], a, b);
    }
    V sum = acc[0];
#pragma unroll
    for (int j = 1; j < KB_PEAK_CHAINS; ++j) sum = ops::add(sum, acc[j]);
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

/* Milliseconds of one launch of `plan` on `stream`. */
template <typename V>
static int roof_time_fma(const kb_gpu_fma_plan &plan, V *out, kb_gpu_stream stream,
                         roof_resources &r, double *ms, char *why, size_t why_size) {
    ROOF_CHECK(kb_gpu(EventRecord)(r.start, stream), "recording the start event");
    const int rc = kb_gpu_launch("multiply-add peak", kb__peak_fma<V>, kb_dims(plan.blocks),
                                 kb_dims(plan.threads), 0, stream, out, plan.iters, 0.999f, 0.001f);
    if (rc == KB_UNSUPPORTED)
        return roof_fail(why, why_size, "multiply-add peak: %s", kb_unsupported_reason());
    if (rc != 0) return roof_fail(why, why_size, "multiply-add peak: the launch failed");
    ROOF_CHECK(kb_gpu(EventRecord)(r.stop, stream), "recording the stop event");
    ROOF_CHECK(kb_gpu(EventSynchronize)(r.stop), "running the multiply-add peak kernel");
    float elapsed = 0.0f;
    ROOF_CHECK(kb_gpu(EventElapsedTime)(&elapsed, r.start, r.stop), "reading the events");
    *ms = elapsed;
    return 0;
}

#define ROOF_TARGET_MS 20.0 /* per launch: far above launch overhead and event resolution */
#define ROOF_RUNS      5    /* timed launches; the fastest is the figure */

/* The fastest of ROOF_RUNS launches, sized to about ROOF_TARGET_MS each. */
template <typename V>
static int roof_fma(kb_gpu_stream stream, double *gflops, char *how, size_t how_size, char *why,
                    size_t why_size) {
    int dev = 0, sms = 0, per_sm = 0;
    ROOF_CHECK(kb_gpu(GetDevice)(&dev), "finding the current device");
    ROOF_CHECK(kb_gpu(DeviceGetAttribute)(&sms, KB_GPU_ATTR_SMS, dev),
               "reading the multiprocessor count");
    ROOF_CHECK(kb_gpu(DeviceGetAttribute)(&per_sm, KB_GPU_ATTR_SM_THREADS, dev),
               "reading the threads per multiprocessor");
    kb_gpu_fma_plan plan = kb_gpu_fma_plan_for(sms, per_sm, roof_ops<V>::lanes, 64);
    roof_resources r;
    const size_t bytes = (size_t)plan.blocks * plan.threads * sizeof(V);
    ROOF_CHECK(kb_gpu(Malloc)(&r.buffers[0], bytes), "allocating the multiply-add results");
    ROOF_CHECK(kb_gpu(EventCreate)(&r.start), "creating an event");
    ROOF_CHECK(kb_gpu(EventCreate)(&r.stop), "creating an event");
    V *out = (V *)r.buffers[0];
    double ms = 0.0;
    /* Size the launch: the first ones also warm the device up. */
    for (int step = 0; step < 16; ++step) {
        if (roof_time_fma(plan, out, stream, r, &ms, why, why_size) != 0) return -1;
        if (ms >= ROOF_TARGET_MS / 2) break;
        plan.iters = kb_gpu_fma_next_iters(plan.iters, ms, ROOF_TARGET_MS);
    }
    double best = 0.0;
    for (int run = 0; run < ROOF_RUNS; ++run) {
        if (roof_time_fma(plan, out, stream, r, &ms, why, why_size) != 0) return -1;
        if (run == 0 || ms < best) best = ms;
    }
    if (!(best > 0.0)) return roof_fail(why, why_size, "multiply-add peak: a launch took 0 ms");
    *gflops = kb_gpu_fma_flops(&plan) / (best * 1e-3) / 1e9;
    snprintf(how, how_size,
             "%s: %lld blocks x %d threads (one full wave on %d multiprocessors), %d independent "
             "chains x %lld multiply-adds per thread, %d lane(s) each; fastest of %d launches "
             "(%.2f ms), timed with events",
             roof_ops<V>::insn, plan.blocks, plan.threads, sms, KB_PEAK_CHAINS,
             plan.iters * KB_PEAK_UNROLL, plan.lanes, ROOF_RUNS, best);
    return 0;
}

extern "C" int kb_gpu_peak_fma(kb_prec p, void *stream, double *gflops, char *how, size_t how_size,
                               char *why, size_t why_size) {
    const kb_gpu_stream s = (kb_gpu_stream)stream;
    switch (p) {
    case KB_FP64: return roof_fma<double>(s, gflops, how, how_size, why, why_size);
    case KB_FP32: return roof_fma<float>(s, gflops, how, how_size, why, why_size);
    case KB_FP16: return roof_fma<__half2>(s, gflops, how, how_size, why, why_size);
#if !defined(KB_GPU_HIP)
    case KB_BF16: return roof_fma<__nv_bfloat162>(s, gflops, how, how_size, why, why_size);
#else
    case KB_BF16:
        snprintf(how, how_size,
                 "no packed bf16 multiply-add in this HIP (ROCm 5.2's hip_bfloat16 computes in "
                 "float): the fp32 figure is bf16's roof");
        return 1;
#endif
    default: break;
    }
    snprintf(how, how_size, "no multiply-add probe for precision %d", (int)p);
    return 1;
}

/* ---- matrix units (CUDA: cuBLAS) ---- */

#if !defined(KB_GPU_HIP)

#define ROOF_GEMM_N 8192 /* square: large enough to run at the library's best */

/* Values in [-1, 1) from the index: data like a layer's, not zeros (the
 * power, and so the clocks, of a tensor core depend on its operands). */
template <typename S>
__global__ void KB_LAUNCH_BOUNDS(KB_MAP_THREADS) kb__peak_fill(S *__restrict__ p, size_t n) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const unsigned h = (unsigned)(i * 2654435761u) >> 8; /* 24 bits */
        p[i] = kb_store<S>::from((typename kb_acc<S>::type)(h * (2.0f / 16777216.0f) - 1.0f));
    }
}

/* One handle for a measurement, released however it ends. */
struct roof_cublas {
    cublasHandle_t h = nullptr;
    ~roof_cublas() {
        if (h && cublasDestroy(h) != CUBLAS_STATUS_SUCCESS)
            fprintf(stderr, "GPU roofs: cublasDestroy failed\n");
    }
};

#define ROOF_CUBLAS(call, what)                                                                    \
    do {                                                                                           \
        const cublasStatus_t st_ = (call);                                                         \
        if (st_ != CUBLAS_STATUS_SUCCESS)                                                          \
            return roof_fail(why, why_size, "%s: %s", (what), cublasGetStatusString(st_));         \
    } while (0)

/* Milliseconds of `reps` GEMMs c = a b of n x n matrices. */
template <typename S, typename A>
static int roof_time_gemm(cublasHandle_t h, cudaDataType_t type, cublasComputeType_t compute,
                          roof_resources &r, cudaStream_t stream, int reps, double *ms, char *why,
                          size_t why_size) {
    const A alpha = A(1), beta = A(0);
    const int n = ROOF_GEMM_N;
    ROOF_CHECK(cudaEventRecord(r.start, stream), "recording the start event");
    for (int i = 0; i < reps; ++i)
        ROOF_CUBLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, r.buffers[0], type,
                                 n, r.buffers[1], type, n, &beta, r.buffers[2], type, n, compute,
                                 CUBLAS_GEMM_DEFAULT),
                    "cublasGemmEx");
    ROOF_CHECK(cudaEventRecord(r.stop, stream), "recording the stop event");
    ROOF_CHECK(cudaEventSynchronize(r.stop), "running cublasGemmEx");
    float elapsed = 0.0f;
    ROOF_CHECK(cudaEventElapsedTime(&elapsed, r.start, r.stop), "reading the events");
    *ms = elapsed;
    return 0;
}

/* The fastest of ROOF_RUNS batches of GEMMs, a batch lasting about
 * ROOF_TARGET_MS. S: the storage type; A: the type of alpha and beta. */
template <typename S, typename A>
static int roof_gemm(cudaDataType_t type, cublasComputeType_t compute, const char *name,
                     cudaStream_t stream, double *gflops, char *how, size_t how_size, char *why,
                     size_t why_size) {
    const size_t n = ROOF_GEMM_N, elems = n * n;
    roof_resources r;
    roof_cublas blas;
    for (int i = 0; i < 3; ++i)
        ROOF_CHECK(cudaMalloc(&r.buffers[i], elems * sizeof(S)),
                   "allocating the matrix peak's 8192 x 8192 operands");
    for (int i = 0; i < 2; ++i)
        if (kb_gpu_launch("matrix peak fill", kb__peak_fill<S>,
                          kb_dims(kb_gpu_grid(elems, KB_MAP_THREADS)), kb_dims(KB_MAP_THREADS), 0,
                          stream, (S *)r.buffers[i], elems) != 0)
            return roof_fail(why, why_size, "matrix peak: filling the operands failed");
    ROOF_CHECK(cudaEventCreate(&r.start), "creating an event");
    ROOF_CHECK(cudaEventCreate(&r.stop), "creating an event");
    ROOF_CUBLAS(cublasCreate(&blas.h), "cublasCreate");
    ROOF_CUBLAS(cublasSetStream(blas.h, stream), "cublasSetStream");
    double ms = 0.0;
    /* Warm-up (the library picks and loads its kernel), then the batch size. */
    if (roof_time_gemm<S, A>(blas.h, type, compute, r, stream, 1, &ms, why, why_size) != 0 ||
        roof_time_gemm<S, A>(blas.h, type, compute, r, stream, 1, &ms, why, why_size) != 0)
        return -1;
    const int reps = ms >= ROOF_TARGET_MS ? 1 : ms > 0 ? (int)(ROOF_TARGET_MS / ms) + 1 : 100;
    double best = 0.0;
    for (int run = 0; run < ROOF_RUNS; ++run) {
        if (roof_time_gemm<S, A>(blas.h, type, compute, r, stream, reps, &ms, why, why_size) != 0)
            return -1;
        if (run == 0 || ms < best) best = ms;
    }
    if (!(best > 0.0)) return roof_fail(why, why_size, "matrix peak: a batch took 0 ms");
    *gflops = 2.0 * (double)n * n * n * reps / (best * 1e-3) / 1e9;
    snprintf(how, how_size,
             "cublasGemmEx %s, %zu x %zu x %zu, operands in [-1, 1); fastest of %d batches of %d "
             "(%.2f ms), timed with events",
             name, n, n, n, ROOF_RUNS, reps, best);
    return 0;
}

extern "C" int kb_gpu_peak_matrix(kb_prec p, void *stream, double *gflops, char *how,
                                  size_t how_size, char *why, size_t why_size) {
    const cudaStream_t s = (cudaStream_t)stream;
    switch (p) {
    case KB_FP16:
        return roof_gemm<kb_f16, float>(CUDA_R_16F, CUBLAS_COMPUTE_32F,
                                        "fp16 in and out, CUBLAS_COMPUTE_32F (tensor cores)", s,
                                        gflops, how, how_size, why, why_size);
    case KB_BF16:
        return roof_gemm<kb_bf16, float>(CUDA_R_16BF, CUBLAS_COMPUTE_32F,
                                         "bf16 in and out, CUBLAS_COMPUTE_32F (tensor cores)", s,
                                         gflops, how, how_size, why, why_size);
    case KB_FP32:
        snprintf(how, how_size,
                 "no fp32 matrix figure: fp32 GEMM with CUBLAS_COMPUTE_32F (no TF32, as the "
                 "gemm vendor variant) runs on the FMA pipes, whose figure is its roof");
        return 1;
    case KB_FP64:
        snprintf(how, how_size,
                 "no fp64 matrix figure: not measured (DGEMM's tensor-core path is not "
                 "separated from the FMA pipes here)");
        return 1;
    default: break;
    }
    snprintf(how, how_size, "no matrix probe for precision %d", (int)p);
    return 1;
}

#else

extern "C" int kb_gpu_peak_matrix(kb_prec p, void *stream, double *gflops, char *how,
                                  size_t how_size, char *why, size_t why_size) {
    (void)p, (void)stream, (void)gflops, (void)why, (void)why_size;
    snprintf(how, how_size, "no matrix-unit figure on hip: no hipBLAS in this build");
    return 1;
}

#endif
