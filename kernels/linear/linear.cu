/* Linear layer on the GPU (CUDA and HIP from this one source):
 * y = act(x w + b), act 1 = ReLU, 2 = GELU (erf form), row-major.
 *
 * Both variants use the tiled GEMM of kb/gpu/gemm.h (float accumulation for
 * fp32/fp16/bf16, double for fp64).
 * "unfused": three kernels: the GEMM writes x w to y, a bias kernel rewrites
 *   y + b, an activation kernel rewrites act(y) (y rounded to the storage
 *   type after each).
 * "fused": one kernel: the GEMM's epilogue adds b and applies act in
 *   registers before the one store.
 * "vendor" (CUDA with cuBLASLt): cublasLtMatmul with the bias and the
 *   activation in the library's epilogue (RELU_BIAS; GELU_BIAS for fp16 and
 *   bf16 only: cuBLASLt's GELU is the tanh approximation, within 4.7e-4 of
 *   the erf form, inside the fp16/bf16 tolerances but not fp32's or fp64's,
 *   so those GELU cases are declined). fp32 computes in fp32 (COMPUTE_32F,
 *   no TF32), fp16/bf16 on tensor cores with float accumulation. */
#include "kb/gpu.h"
#include "kb/gpu/gemm.h"

#if defined(KB_HAVE_CUBLASLT) && !defined(KB_GPU_HIP)
#include <cublasLt.h>
#endif

struct linear_relu {
    template <typename T> __device__ T operator()(T v) const { return v > T(0) ? v : T(0); }
};

struct linear_gelu {
    template <typename T> __device__ T operator()(T v) const { return kb_gelu(v); }
};

/* The fused epilogue: act(v + b[col]). */
template <typename S, typename Act> struct linear_ep {
    const S *b;
    Act act;
    template <typename T> __device__ T operator()(T v, int, int col) const {
        return act(v + kb_widen(b[col]));
    }
};

#define LINEAR_THREADS 256

/* y[r][j] += b[j] over rows x n elements, grid-stride. */
template <typename S>
__global__ void KB_LAUNCH_BOUNDS(LINEAR_THREADS)
    linear_bias(S *__restrict__ y, const S *__restrict__ b, size_t total, int n) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride)
        y[i] = kb_store<S>::from(kb_widen(y[i]) + kb_widen(b[i % (size_t)n]));
}

/* y[i] = act(y[i]), grid-stride. */
template <typename S, typename Act>
__global__ void KB_LAUNCH_BOUNDS(LINEAR_THREADS)
    linear_act(S *__restrict__ y, size_t total, Act act) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride)
        y[i] = kb_store<S>::from(act(kb_widen(y[i])));
}

struct linear_dims {
    int tokens, in, out, act;
};

/* 0 and the case's dims, or kb_unsupported() for one the kernels cannot index. */
static int linear_dims_of(const kb_args *a, linear_dims *d) {
    int rc = kb_gpu_dim_int(a, "tokens", &d->tokens);
    if (rc == 0) rc = kb_gpu_dim_int(a, "in", &d->in);
    if (rc == 0) rc = kb_gpu_dim_int(a, "out", &d->out);
    d->act = (int)kb_case_dim(a->c, "act");
    return rc;
}

/* Calls f(activation functor) for the case's act, or declines it. */
template <typename F> static int linear_with_act(int act, F f) {
    if (act == 1) return f(linear_relu());
    if (act == 2) return f(linear_gelu());
    fprintf(stderr, "linear: act must be 1 (ReLU) or 2 (GELU), not %d\n", act);
    return 1;
}

static int linear_fused(const kb_args *a) {
    linear_dims d = {};
    const int rc = linear_dims_of(a, &d);
    if (rc != 0) return rc;
    return kb_gpu_dispatch(a->prec, [&](auto t) {
        typedef typename decltype(t)::type S;
        return linear_with_act(d.act, [&](auto act) {
            linear_ep<S, decltype(act)> ep{(const S *)a->in[2], act};
            return kb_gpu_gemm_run<S>(d.tokens, d.out, d.in, (const S *)a->in[0],
                                      (const S *)a->in[1], (S *)a->out[0], ep, kb_gpu_stream_of(a));
        });
    });
}

/* The GEMM, then y + b, then act(y): three launches on the run's stream. */
static int linear_unfused(const kb_args *a) {
    linear_dims d = {};
    const int rc = linear_dims_of(a, &d);
    if (rc != 0) return rc;
    const size_t total = (size_t)d.tokens * (size_t)d.out;
    const kb_gpu_dims grid = kb_dims(kb_gpu_grid(total, LINEAR_THREADS));
    const kb_gpu_stream st = kb_gpu_stream_of(a);
    return kb_gpu_dispatch(a->prec, [&](auto t) {
        typedef typename decltype(t)::type S;
        S *y = (S *)a->out[0];
        return linear_with_act(d.act, [&](auto act) {
            int err = kb_gpu_gemm_run<S>(d.tokens, d.out, d.in, (const S *)a->in[0],
                                         (const S *)a->in[1], y, kb_gpu_gemm_ep_none(), st);
            if (err == 0)
                err = kb_gpu_launch("linear_bias", linear_bias<S>, grid, kb_dims(LINEAR_THREADS), 0,
                                    st, y, (const S *)a->in[2], total, d.out);
            if (err == 0)
                err = kb_gpu_launch("linear_act", linear_act<S, decltype(act)>, grid,
                                    kb_dims(LINEAR_THREADS), 0, st, y, total, act);
            return err;
        });
    });
}

KB_GPU_REGISTER_IMPL("unfused", linear_unfused);
KB_GPU_REGISTER_IMPL("fused", linear_fused);

#if defined(KB_HAVE_CUBLASLT) && !defined(KB_GPU_HIP)
/* cuBLASLt's types for storage type S: data, compute, alpha/beta. */
template <typename S> struct linear_lt_type;
template <> struct linear_lt_type<double> {
    static constexpr cudaDataType_t data = CUDA_R_64F, scale = CUDA_R_64F;
    static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_64F;
};
template <> struct linear_lt_type<float> {
    static constexpr cudaDataType_t data = CUDA_R_32F, scale = CUDA_R_32F;
    static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
};
template <> struct linear_lt_type<kb_f16> {
    static constexpr cudaDataType_t data = CUDA_R_16F, scale = CUDA_R_32F;
    static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
};
template <> struct linear_lt_type<kb_bf16> {
    static constexpr cudaDataType_t data = CUDA_R_16BF, scale = CUDA_R_32F;
    static constexpr cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
};

/* After a failed cuBLASLt call: NOT_SUPPORTED declines the case, anything
 * else is printed and fails it. */
static int linear_lt_failed(cublasStatus_t st, const char *what) {
    if (st == CUBLAS_STATUS_NOT_SUPPORTED)
        return kb_unsupported("cuBLASLt: %s: %s", what, cublasGetStatusString(st));
    fprintf(stderr, "linear vendor: %s: %s\n", what, cublasGetStatusString(st));
    return 1;
}

#define LINEAR_LT(call, what)                                                                      \
    do {                                                                                           \
        const cublasStatus_t st_ = (call);                                                         \
        if (st_ != CUBLAS_STATUS_SUCCESS) return linear_lt_failed(st_, (what));                    \
    } while (0)

#define LINEAR_LT_WORKSPACE (32u << 20) /* what the library may use; cuBLAS's own default */

/* The driver's cuBLASLt handle, workspace and the description of the last
 * case: created by the first call (an untimed warm-up), set again (and the
 * algorithm chosen again) only when the case or precision changes,
 * released at exit. */
struct linear_lt {
    cublasLtHandle_t h = nullptr;
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
    cublasLtMatmulAlgo_t algo = {};
    kb_gpu_scratch ws;
    linear_dims key = {};
    int key_prec = -1; /* -1: nothing set */
    ~linear_lt() {
        if (la) cublasLtMatrixLayoutDestroy(la);
        if (lb) cublasLtMatrixLayoutDestroy(lb);
        if (lc) cublasLtMatrixLayoutDestroy(lc);
        if (op) cublasLtMatmulDescDestroy(op);
        if (h) cublasLtDestroy(h);
    }
    void drop_layouts() {
        cublasLtMatrixLayout_t *ls[3] = {&la, &lb, &lc};
        for (cublasLtMatrixLayout_t *l : ls)
            if (*l) cublasLtMatrixLayoutDestroy(*l), *l = nullptr;
        if (op) cublasLtMatmulDescDestroy(op), op = nullptr;
    }
};

/* The matmul of this case: D = y^T [out x tokens] = w^T [out x in] x^T [in
 * x tokens] in the library's column-major view of the row-major arrays,
 * the bias added per row of D (per output feature), then `epilogue`; and
 * the best algorithm by cuBLASLt's heuristics within the workspace. */
template <typename S>
static int linear_lt_set(linear_lt &lt, const linear_dims &d, kb_prec p,
                         cublasLtEpilogue_t epilogue, const void *bias) {
    if (lt.key_prec == (int)p && lt.key.tokens == d.tokens && lt.key.in == d.in &&
        lt.key.out == d.out && lt.key.act == d.act)
        return 0;
    typedef linear_lt_type<S> lt_t;
    lt.key_prec = -1;
    lt.drop_layouts();
    LINEAR_LT(cublasLtMatmulDescCreate(&lt.op, lt_t::compute, lt_t::scale),
              "cublasLtMatmulDescCreate");
    LINEAR_LT(cublasLtMatmulDescSetAttribute(lt.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                             sizeof epilogue),
              "setting the epilogue");
    /* The heuristics read the bias pointer's alignment. */
    LINEAR_LT(cublasLtMatmulDescSetAttribute(lt.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                             sizeof bias),
              "setting the bias");
    LINEAR_LT(cublasLtMatrixLayoutCreate(&lt.la, lt_t::data, d.out, d.in, d.out), "layout of w");
    LINEAR_LT(cublasLtMatrixLayoutCreate(&lt.lb, lt_t::data, d.in, d.tokens, d.in), "layout of x");
    LINEAR_LT(cublasLtMatrixLayoutCreate(&lt.lc, lt_t::data, d.out, d.tokens, d.out),
              "layout of y");
    cublasLtMatmulPreference_t pref = nullptr;
    LINEAR_LT(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    const size_t ws = LINEAR_LT_WORKSPACE;
    cublasLtMatmulHeuristicResult_t best = {};
    int found = 0;
    cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasLtMatmulAlgoGetHeuristic(lt.h, lt.op, lt.la, lt.lb, lt.lc, lt.lc, pref, 1, &best,
                                            &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (st != CUBLAS_STATUS_SUCCESS) return linear_lt_failed(st, "cublasLtMatmulAlgoGetHeuristic");
    if (found == 0)
        return kb_unsupported("cuBLASLt has no matmul with this bias epilogue for %s",
                              kb_prec_name(p));
    lt.algo = best.algo;
    lt.key = d, lt.key_prec = (int)p;
    return 0;
}

/* The epilogue for the case's activation, or a decline. */
static int linear_lt_epilogue(const linear_dims &d, kb_prec p, cublasLtEpilogue_t *out) {
    if (d.act == 1) return *out = CUBLASLT_EPILOGUE_RELU_BIAS, 0;
    if (d.act != 2) {
        fprintf(stderr, "linear: act must be 1 (ReLU) or 2 (GELU), not %d\n", d.act);
        return 1;
    }
    if (p == KB_FP16 || p == KB_BF16) return *out = CUBLASLT_EPILOGUE_GELU_BIAS, 0;
    return kb_unsupported("cuBLASLt's GELU epilogue is the tanh approximation, up to 4.7e-4 from "
                          "the erf form: outside the %s tolerance",
                          kb_prec_name(p));
}

static int linear_vendor(const kb_args *a) {
    linear_dims d = {};
    int rc = linear_dims_of(a, &d);
    cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    if (rc == 0) rc = linear_lt_epilogue(d, a->prec, &epilogue);
    if (rc != 0) return rc;
    static linear_lt lt;
    if (!lt.h) LINEAR_LT(cublasLtCreate(&lt.h), "cublasLtCreate");
    if (lt.ws.reserve(LINEAR_LT_WORKSPACE, "linear vendor") != 0) return 1;
    return kb_gpu_dispatch(a->prec, [&](auto t) {
        typedef typename decltype(t)::type S;
        typedef typename kb_acc<S>::type T;
        const void *bias = a->in[2];
        const int err = linear_lt_set<S>(lt, d, a->prec, epilogue, bias);
        if (err != 0) return err;
        LINEAR_LT(cublasLtMatmulDescSetAttribute(lt.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                                 sizeof bias),
                  "setting the bias");
        const T alpha = T(1), beta = T(0);
        LINEAR_LT(cublasLtMatmul(lt.h, lt.op, &alpha, a->in[1], lt.la, a->in[0], lt.lb, &beta,
                                 a->out[0], lt.lc, a->out[0], lt.lc, &lt.algo, lt.ws.p, lt.ws.bytes,
                                 kb_gpu_stream_of(a)),
                  "cublasLtMatmul");
        return 0;
    });
}

KB_GPU_REGISTER_IMPL("vendor", linear_vendor);
#endif
