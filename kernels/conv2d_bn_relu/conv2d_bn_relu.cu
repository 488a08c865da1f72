/* 3x3 convolution (stride 1, zero padding 1, NCHW) + bias, inference batch
 * normalisation and ReLU on the GPU (CUDA and HIP from this one source).
 *
 * One direct-convolution kernel serves both variants: a block computes a
 * tile of 16 rows x 32 columns for 8 output channels of one image (each
 * thread 2 rows x 8 channels in registers), staging 4 input channels at a
 * time in shared memory as an 18 x 34 tile (halo of 1, zeros outside the
 * image) together with their 4 x 9 x 8 weights.
 * - "unfused": conv + bias writes z (arithmetic type, workspace), then a BN
 *   kernel rewrites z in place and a ReLU kernel writes y;
 * - "folded": a fold kernel writes w' = w s and b' = (b - mean) s + beta,
 *   s = gamma / sqrt(var + eps), into the workspace, then the conv applies
 *   b' and the ReLU in its epilogue and writes y.
 * 16-bit formats are widened to float and rounded once on store.
 * - "vendor" (CUDA with cuDNN): the same fold, stored in the run's precision
 *   (cuDNN takes weights and bias in the data's type), then
 *   cudnnConvolutionBiasActivationForward: cross-correlation, pad 1, NCHW,
 *   the folded bias and a ReLU, y = ReLU(conv(x, wf) + bf). */
#include "conv2d_bn_relu.h"

#include "kb/gpu.h"

#if defined(KB_HAVE_CUDNN) && !defined(KB_GPU_HIP)
#include "kb/vendor/cudnn.h"
#endif

#define CONV2D_BN_RELU_TX      32 /* output columns per block (threads in x) */
#define CONV2D_BN_RELU_TY      8  /* threads in y */
#define CONV2D_BN_RELU_RY      2  /* output rows per thread */
#define CONV2D_BN_RELU_TH      (CONV2D_BN_RELU_TY * CONV2D_BN_RELU_RY)
#define CONV2D_BN_RELU_COB     8   /* output channels per block */
#define CONV2D_BN_RELU_CIB     4   /* input channels per shared-memory stage */
#define CONV2D_BN_RELU_THREADS 256 /* the elementwise kernels' blocks */

struct conv2d_bn_relu_dims {
    int n, cin, cout, h, w;
};

/* Input channels [c0, c0 + CIB) of image xi into the shared tile (zeros
 * outside the image and past cin), and their weights for the block's output
 * channels into ws[c][tap][k]. */
template <typename S, typename WT, typename T>
__device__ void
conv2d_bn_relu_stage(const S *__restrict__ xi, const WT *__restrict__ w, conv2d_bn_relu_dims d,
                     int c0, int co0, int oy0, int ox0,
                     T (&tile)[CONV2D_BN_RELU_CIB][CONV2D_BN_RELU_TH + 2][CONV2D_BN_RELU_TX + 2],
                     T (&ws)[CONV2D_BN_RELU_CIB][9][CONV2D_BN_RELU_COB]) {
    constexpr int rows = CONV2D_BN_RELU_TH + 2, cols = CONV2D_BN_RELU_TX + 2;
    const int tid = threadIdx.y * CONV2D_BN_RELU_TX + threadIdx.x;
    const int threads = CONV2D_BN_RELU_TX * CONV2D_BN_RELU_TY;
    for (int i = tid; i < CONV2D_BN_RELU_CIB * rows * cols; i += threads) {
        const int c = i / (rows * cols), r = i / cols % rows, col = i % cols;
        const int iy = oy0 + r - 1, ix = ox0 + col - 1;
        T v = T(0);
        if (c0 + c < d.cin && iy >= 0 && iy < d.h && ix >= 0 && ix < d.w)
            v = kb_widen(xi[((size_t)(c0 + c) * d.h + iy) * d.w + ix]);
        tile[c][r][col] = v;
    }
    for (int i = tid; i < CONV2D_BN_RELU_CIB * 9 * CONV2D_BN_RELU_COB; i += threads) {
        const int k = i % CONV2D_BN_RELU_COB, t = i / CONV2D_BN_RELU_COB % 9;
        const int c = i / (9 * CONV2D_BN_RELU_COB);
        T v = T(0);
        if (c0 + c < d.cin && co0 + k < d.cout)
            v = kb_widen(w[((size_t)(co0 + k) * d.cin + c0 + c) * 9 + t]);
        ws[c][t][k] = v;
    }
}

/* out = epilogue(conv(x, w) + b): the ReLU when RELU, O the stored type
 * (S for y, the arithmetic type T for z). Grid: (row tiles x column tiles,
 * output channel groups, images). */
template <typename S, typename WT, typename O, bool RELU>
__global__ void KB_LAUNCH_BOUNDS(CONV2D_BN_RELU_TX *CONV2D_BN_RELU_TY)
    conv2d_bn_relu_conv(const S *__restrict__ x, const WT *__restrict__ w, const WT *__restrict__ b,
                        O *__restrict__ out, conv2d_bn_relu_dims d) {
    typedef typename kb_acc<S>::type T;
    __shared__ T tile[CONV2D_BN_RELU_CIB][CONV2D_BN_RELU_TH + 2][CONV2D_BN_RELU_TX + 2];
    __shared__ T ws[CONV2D_BN_RELU_CIB][9][CONV2D_BN_RELU_COB];
    const int tiles_x = (d.w + CONV2D_BN_RELU_TX - 1) / CONV2D_BN_RELU_TX;
    const int ox0 = (int)(blockIdx.x % tiles_x) * CONV2D_BN_RELU_TX;
    const int oy0 = (int)(blockIdx.x / tiles_x) * CONV2D_BN_RELU_TH;
    const int co0 = (int)blockIdx.y * CONV2D_BN_RELU_COB;
    const size_t img = blockIdx.z;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const S *xi = x + img * d.cin * d.h * d.w;
    T acc[CONV2D_BN_RELU_RY][CONV2D_BN_RELU_COB];
#pragma unroll
    for (int r = 0; r < CONV2D_BN_RELU_RY; ++r)
#pragma unroll
        for (int k = 0; k < CONV2D_BN_RELU_COB; ++k) acc[r][k] = T(0);
    for (int c0 = 0; c0 < d.cin; c0 += CONV2D_BN_RELU_CIB) {
        conv2d_bn_relu_stage(xi, w, d, c0, co0, oy0, ox0, tile, ws);
        __syncthreads();
#pragma unroll
        for (int c = 0; c < CONV2D_BN_RELU_CIB; ++c)
#pragma unroll
            for (int t = 0; t < 9; ++t) {
                T in[CONV2D_BN_RELU_RY];
#pragma unroll
                for (int r = 0; r < CONV2D_BN_RELU_RY; ++r)
                    in[r] = tile[c][ty + r * CONV2D_BN_RELU_TY + t / 3][tx + t % 3];
#pragma unroll
                for (int k = 0; k < CONV2D_BN_RELU_COB; ++k) {
                    const T wv = ws[c][t][k];
#pragma unroll
                    for (int r = 0; r < CONV2D_BN_RELU_RY; ++r) acc[r][k] += wv * in[r];
                }
            }
        __syncthreads();
    }
    const int ox = ox0 + tx;
    if (ox >= d.w) return;
#pragma unroll
    for (int r = 0; r < CONV2D_BN_RELU_RY; ++r) {
        const int oy = oy0 + ty + r * CONV2D_BN_RELU_TY;
        if (oy >= d.h) continue;
#pragma unroll
        for (int k = 0; k < CONV2D_BN_RELU_COB; ++k) {
            const int co = co0 + k;
            if (co >= d.cout) continue;
            T v = acc[r][k] + kb_widen(b[co]);
            if (RELU) v = v > T(0) ? v : T(0);
            out[((img * d.cout + co) * d.h + oy) * d.w + ox] = kb_store<O>::from(v);
        }
    }
}

/* BN folded into the conv: wf = w s, bf = (b - mean) s + beta, s = gamma /
 * sqrt(var + eps), computed in T and stored as O (T for the folded variant,
 * the storage type for cuDNN); k = cin * 9 weights per output channel. */
template <typename S, typename T, typename O>
__global__ void KB_LAUNCH_BOUNDS(CONV2D_BN_RELU_THREADS)
    conv2d_bn_relu_fold(const S *__restrict__ w, const S *__restrict__ b,
                        const S *__restrict__ gamma, const S *__restrict__ beta,
                        const S *__restrict__ mean, const S *__restrict__ var, O *__restrict__ wf,
                        O *__restrict__ bf, int cout, int k) {
    const size_t n = (size_t)cout * k, stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const int co = (int)(i / k);
        const T s = kb_widen(gamma[co]) / kb_sqrt(kb_widen(var[co]) + T(CONV2D_BN_RELU_EPS));
        wf[i] = kb_store<O>::from(kb_widen(w[i]) * s);
        if (i % k == 0)
            bf[co] =
                kb_store<O>::from((kb_widen(b[co]) - kb_widen(mean[co])) * s + kb_widen(beta[co]));
    }
}

/* Launches the fold of the case's BN into wf and bf (cout x k and cout
 * values of O) on the run's stream. */
template <typename S, typename O>
static int conv2d_bn_relu_launch_fold(const kb_args *a, O *wf, O *bf, int cout, size_t k) {
    typedef typename kb_acc<S>::type T;
    const S *const *in = (const S *const *)a->in;
    return kb_gpu_launch("conv2d_bn_relu fold", conv2d_bn_relu_fold<S, T, O>,
                         kb_dims(kb_gpu_grid((size_t)cout * k, CONV2D_BN_RELU_THREADS)),
                         kb_dims(CONV2D_BN_RELU_THREADS), 0, kb_gpu_stream_of(a), in[1], in[2],
                         in[3], in[4], in[5], in[6], wf, bf, cout, (int)k);
}

/* The unfused BN pass over z in place: plane p (image, channel) at
 * blockIdx.y + multiples of gridDim.y, its hw elements grid-strided in x. */
template <typename S, typename T>
__global__ void KB_LAUNCH_BOUNDS(CONV2D_BN_RELU_THREADS)
    conv2d_bn_relu_bn(T *__restrict__ z, const S *__restrict__ gamma, const S *__restrict__ beta,
                      const S *__restrict__ mean, const S *__restrict__ var, int cout,
                      size_t planes, size_t hw) {
    for (size_t p = blockIdx.y; p < planes; p += gridDim.y) {
        const int co = (int)(p % cout);
        const T s = kb_widen(gamma[co]) / kb_sqrt(kb_widen(var[co]) + T(CONV2D_BN_RELU_EPS));
        const T m = kb_widen(mean[co]), bt = kb_widen(beta[co]);
        T *zp = z + p * hw;
        for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < hw;
             i += (size_t)gridDim.x * blockDim.x)
            zp[i] = (zp[i] - m) * s + bt;
    }
}

/* The unfused ReLU pass: y = max(z, 0), rounded to S. */
template <typename S, typename T>
__global__ void KB_LAUNCH_BOUNDS(CONV2D_BN_RELU_THREADS)
    conv2d_bn_relu_relu(const T *__restrict__ z, S *__restrict__ y, size_t n) {
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const T v = z[i];
        y[i] = kb_store<S>::from(v > T(0) ? v : T(0));
    }
}

/* 0 and the case's dims, or kb_unsupported() for one the kernels cannot
 * index (they take int dims and cin * 9 weights per output channel). */
static int conv2d_bn_relu_dims_of(const kb_args *a, conv2d_bn_relu_dims *d) {
    int rc = kb_gpu_dim_int(a, "n", &d->n);
    if (rc == 0) rc = kb_gpu_dim_int(a, "cin", &d->cin);
    if (rc == 0) rc = kb_gpu_dim_int(a, "cout", &d->cout);
    if (rc == 0) rc = kb_gpu_dim_int(a, "h", &d->h);
    if (rc == 0) rc = kb_gpu_dim_int(a, "w", &d->w);
    if (rc == 0 && d->cin > INT32_MAX / 9)
        return kb_unsupported("conv2d_bn_relu: cin = %d, the kernels take at most %d", d->cin,
                              INT32_MAX / 9);
    return rc;
}

/* Launches the conv for S with weights and bias of type WT, output O. Grid:
 * (row tiles x column tiles, output channel groups, images). */
template <typename S, typename WT, typename O, bool RELU>
static int conv2d_bn_relu_launch_conv(const kb_args *a, const WT *w, const WT *b, O *out,
                                      conv2d_bn_relu_dims d) {
    const long long tiles = ((long long)(d.w + CONV2D_BN_RELU_TX - 1) / CONV2D_BN_RELU_TX) *
                            ((d.h + CONV2D_BN_RELU_TH - 1) / CONV2D_BN_RELU_TH);
    const long long groups = ((long long)d.cout + CONV2D_BN_RELU_COB - 1) / CONV2D_BN_RELU_COB;
    return kb_gpu_launch("conv2d_bn_relu conv", conv2d_bn_relu_conv<S, WT, O, RELU>,
                         kb_dims(tiles, groups, d.n), kb_dims(CONV2D_BN_RELU_TX, CONV2D_BN_RELU_TY),
                         0, kb_gpu_stream_of(a), (const S *)a->in[0], w, b, out, d);
}

/* z = conv + bias into the workspace, BN in place, y = ReLU(z). */
static int conv2d_bn_relu_unfused_gpu(const kb_args *a) {
    conv2d_bn_relu_dims d = {};
    const int rc = conv2d_bn_relu_dims_of(a, &d);
    if (rc != 0) return rc;
    return kb_gpu_dispatch(a->prec, [&](auto t) {
        typedef typename decltype(t)::type S;
        typedef typename kb_acc<S>::type T;
        const size_t hw = (size_t)d.h * d.w, planes = (size_t)d.n * d.cout, n = planes * hw;
        if (a->workspace_bytes < n * sizeof(T)) {
            fprintf(stderr, "conv2d_bn_relu: workspace of %zu bytes, z needs %zu\n",
                    a->workspace_bytes, n * sizeof(T));
            return 1;
        }
        T *z = (T *)a->workspace;
        const S *const *in = (const S *const *)a->in;
        const kb_gpu_stream st = kb_gpu_stream_of(a);
        const kb_gpu_dims threads = kb_dims(CONV2D_BN_RELU_THREADS);
        const size_t xblocks = (hw + CONV2D_BN_RELU_THREADS - 1) / CONV2D_BN_RELU_THREADS;
        const long long py = (long long)(planes < 65535 ? planes : 65535);
        int err = conv2d_bn_relu_launch_conv<S, S, T, false>(a, in[1], in[2], z, d);
        if (err == 0)
            err = kb_gpu_launch("conv2d_bn_relu bn", conv2d_bn_relu_bn<S, T>,
                                kb_dims(xblocks < 64 ? (long long)xblocks : 64, py), threads, 0, st,
                                z, in[3], in[4], in[5], in[6], d.cout, planes, hw);
        if (err == 0)
            err = kb_gpu_launch("conv2d_bn_relu relu", conv2d_bn_relu_relu<S, T>,
                                kb_dims(kb_gpu_grid(n, CONV2D_BN_RELU_THREADS)), threads, 0, st, z,
                                (S *)a->out[0], n);
        return err;
    });
}

/* BN folded into the weights and bias (workspace), then the conv with the
 * ReLU in its epilogue. */
static int conv2d_bn_relu_folded_gpu(const kb_args *a) {
    conv2d_bn_relu_dims d = {};
    const int rc = conv2d_bn_relu_dims_of(a, &d);
    if (rc != 0) return rc;
    return kb_gpu_dispatch(a->prec, [&](auto t) {
        typedef typename decltype(t)::type S;
        typedef typename kb_acc<S>::type T;
        const size_t k = (size_t)d.cin * 9, nw = (size_t)d.cout * k;
        const size_t wbytes = kb_workspace_align(nw * sizeof(T));
        if (a->workspace_bytes < wbytes + d.cout * sizeof(T)) {
            fprintf(stderr, "conv2d_bn_relu: workspace of %zu bytes, the folded weights need %zu\n",
                    a->workspace_bytes, wbytes + d.cout * sizeof(T));
            return 1;
        }
        T *wf = (T *)a->workspace, *bf = (T *)((char *)a->workspace + wbytes);
        const int err = conv2d_bn_relu_launch_fold<S, T>(a, wf, bf, d.cout, k);
        if (err != 0) return err;
        return conv2d_bn_relu_launch_conv<S, T, S, true>(a, wf, bf, (S *)a->out[0], d);
    });
}

KB_GPU_REGISTER_IMPL("unfused", conv2d_bn_relu_unfused_gpu);
KB_GPU_REGISTER_IMPL("folded", conv2d_bn_relu_folded_gpu);

#if defined(KB_HAVE_CUDNN) && !defined(KB_GPU_HIP)
/* cuDNN's description of one case, kept for the driver's lifetime and set
 * again (algorithm chosen again) only when the case or precision changes,
 * so a timed call does no host work beyond the library calls. */
struct conv2d_bn_relu_cudnn {
    kb_cudnn_tensor x, y, bias;
    cudnnFilterDescriptor_t w = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    cudnnActivationDescriptor_t act = nullptr;
    cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    size_t ws_bytes = 0;
    kb_gpu_scratch ws;
    conv2d_bn_relu_dims key = {};
    int key_prec = -1; /* -1: nothing set */
    ~conv2d_bn_relu_cudnn() {
        if (w) cudnnDestroyFilterDescriptor(w);
        if (conv) cudnnDestroyConvolutionDescriptor(conv);
        if (act) cudnnDestroyActivationDescriptor(act);
    }
};

/* The math cuDNN may use: fp32 stays fp32 (CUDNN_FMA_MATH: no TF32, which
 * would not meet the fp32 tolerance); fp16/bf16 run on tensor cores with
 * float accumulation; fp64 as the library likes. */
template <typename S> static cudnnMathType_t conv2d_bn_relu_math() {
    if (sizeof(S) == 4) return CUDNN_FMA_MATH;
    return sizeof(S) == 2 ? CUDNN_TENSOR_OP_MATH : CUDNN_DEFAULT_MATH;
}

/* The fastest algorithm by cuDNN's heuristics whose math is allowed, and
 * its workspace. */
template <typename S>
static int conv2d_bn_relu_cudnn_algo(conv2d_bn_relu_cudnn &c, cudnnHandle_t h, kb_prec p) {
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int found = 0;
    KB_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(h, c.x.d, c.w, c.conv, c.y.d,
                                                    CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf),
             "cudnnGetConvolutionForwardAlgorithm_v7");
    const cudnnMathType_t math = conv2d_bn_relu_math<S>();
    for (int i = 0; i < found; ++i) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
        if (math == CUDNN_FMA_MATH && perf[i].mathType != CUDNN_FMA_MATH) continue;
        KB_CUDNN(cudnnSetConvolutionMathType(c.conv, perf[i].mathType),
                 "cudnnSetConvolutionMathType");
        c.algo = perf[i].algo;
        KB_CUDNN(cudnnGetConvolutionForwardWorkspaceSize(h, c.x.d, c.w, c.conv, c.y.d, c.algo,
                                                         &c.ws_bytes),
                 "cudnnGetConvolutionForwardWorkspaceSize");
        return c.ws.reserve(c.ws_bytes, "conv2d_bn_relu vendor");
    }
    return kb_unsupported("cuDNN %zu has no forward convolution algorithm for %s here",
                          cudnnGetVersion(), kb_prec_name(p));
}

template <typename S>
static int conv2d_bn_relu_cudnn_set(conv2d_bn_relu_cudnn &c, cudnnHandle_t h, conv2d_bn_relu_dims d,
                                    kb_prec p) {
    if (c.key_prec == (int)p && c.key.n == d.n && c.key.cin == d.cin && c.key.cout == d.cout &&
        c.key.h == d.h && c.key.w == d.w)
        return 0;
    c.key_prec = -1;
    const cudnnDataType_t type = kb_cudnn_type<S>::data;
    const cudnnDataType_t compute = sizeof(S) == 8 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    int err = c.x.set_nchw<S>(d.n, d.cin, d.h, d.w);
    if (err == 0) err = c.y.set_nchw<S>(d.n, d.cout, d.h, d.w);
    if (err == 0) err = c.bias.set_nchw<S>(1, d.cout, 1, 1);
    if (err != 0) return err;
    if (!c.w) KB_CUDNN(cudnnCreateFilterDescriptor(&c.w), "cudnnCreateFilterDescriptor");
    if (!c.conv)
        KB_CUDNN(cudnnCreateConvolutionDescriptor(&c.conv), "cudnnCreateConvolutionDescriptor");
    if (!c.act)
        KB_CUDNN(cudnnCreateActivationDescriptor(&c.act), "cudnnCreateActivationDescriptor");
    KB_CUDNN(cudnnSetFilter4dDescriptor(c.w, type, CUDNN_TENSOR_NCHW, d.cout, d.cin, 3, 3),
             "cudnnSetFilter4dDescriptor");
    KB_CUDNN(
        cudnnSetConvolution2dDescriptor(c.conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, compute),
        "cudnnSetConvolution2dDescriptor");
    KB_CUDNN(cudnnSetConvolutionMathType(c.conv, conv2d_bn_relu_math<S>()),
             "cudnnSetConvolutionMathType");
    KB_CUDNN(cudnnSetActivationDescriptor(c.act, CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0),
             "cudnnSetActivationDescriptor(RELU)");
    if ((err = conv2d_bn_relu_cudnn_algo<S>(c, h, p)) != 0) return err;
    c.key = d, c.key_prec = (int)p;
    return 0;
}

/* The fold into the workspace (weights and bias in the run's precision),
 * then one cuDNN call: y = ReLU(conv(x, wf) + bf). z, which the call adds
 * scaled by alpha2 = 0, is y itself (not read for a zero scale, as for
 * BLAS's beta). */
static int conv2d_bn_relu_vendor(const kb_args *a) {
    conv2d_bn_relu_dims d = {};
    const int rc = conv2d_bn_relu_dims_of(a, &d);
    if (rc != 0) return rc;
    const cudnnHandle_t h = kb_cudnn_handle(kb_gpu_stream_of(a));
    if (!h) return 1;
    static conv2d_bn_relu_cudnn c;
    return kb_gpu_dispatch(a->prec, [&](auto t) {
        typedef typename decltype(t)::type S;
        typedef typename kb_acc<S>::type T;
        const size_t k = (size_t)d.cin * 9, wbytes = kb_workspace_align(d.cout * k * sizeof(S));
        if (a->workspace_bytes < wbytes + d.cout * sizeof(S)) {
            fprintf(stderr, "conv2d_bn_relu: workspace of %zu bytes, the folded weights need %zu\n",
                    a->workspace_bytes, wbytes + d.cout * sizeof(S));
            return 1;
        }
        S *wf = (S *)a->workspace, *bf = (S *)((char *)a->workspace + wbytes);
        int err = conv2d_bn_relu_cudnn_set<S>(c, h, d, a->prec);
        if (err == 0) err = conv2d_bn_relu_launch_fold<S, S>(a, wf, bf, d.cout, k);
        if (err != 0) return err;
        const T one = T(1), zero = T(0);
        KB_CUDNN(cudnnConvolutionBiasActivationForward(
                     h, &one, c.x.d, a->in[0], c.w, wf, c.conv, c.algo, c.ws.p, c.ws_bytes, &zero,
                     c.y.d, a->out[0], c.bias.d, bf, c.act, c.y.d, a->out[0]),
                 "cudnnConvolutionBiasActivationForward");
        return 0;
    });
}

KB_GPU_REGISTER_IMPL("vendor", conv2d_bn_relu_vendor);
#endif
