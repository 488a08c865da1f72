/* Linear layer on the GPU (CUDA and HIP from this one source):
 * y = act(x w + b), act 1 = ReLU, 2 = GELU (erf form), row-major.
 *
 * Both variants use the tiled GEMM of kb/gpu_gemm.h (float accumulation for
 * fp32/fp16/bf16, double for fp64).
 * "unfused": three kernels: the GEMM writes x w to y, a bias kernel rewrites
 *   y + b, an activation kernel rewrites act(y) (y rounded to the storage
 *   type after each).
 * "fused": one kernel: the GEMM's epilogue adds b and applies act in
 *   registers before the one store. */
#include "kb/gpu.h"
#include "kb/gpu_gemm.h"

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
