/* Cross-entropy loss on the GPU (CUDA and HIP from this one source), the
 * same two variants as the CPU, deterministic (no atomics):
 *   unfused: cross_entropy_softmax, one block per row: row max and sum of
 *            e^(x - max) (below), then the row read again (from cache) and
 *            p = e^(x - max) / sum written to the [batch, classes]
 *            probability matrix in the workspace; then cross_entropy_mean,
 *            one block: -log p[label] per row and the mean;
 *   fused:   cross_entropy_fused_rows, one block per row: max and sum of
 *            exps, loss_r = max + log sum - x[label] into a [batch] workspace
 *            array; then cross_entropy_mean adds those.
 * Max and sum come from one read of the row: each thread keeps a running
 * max m and sum s of e^(x - m), rescaling s when m grows (online
 * logsumexp); a block max reduction gives M and a sum reduction of
 * s e^(m - M) the row's sum. Arithmetic in float (double for fp64); 16-byte
 * loads when a row is a whole number of them. The label of row r is
 * floor(labels[r]) clamped to [0, classes - 1], as on the CPU. */
#include "kb/gpu.h"

__device__ __forceinline__ float cross_entropy_log(float x) {
    return logf(x);
}
__device__ __forceinline__ double cross_entropy_log(double x) {
    return log(x);
}

template <typename S>
__device__ __forceinline__ int cross_entropy_label(const S *__restrict__ labels, int r, int n) {
    const auto v = floor(kb_widen(labels[r]));
    return v < 0 ? 0 : (v > n - 1 ? n - 1 : (int)v);
}

/* Max M and sum of e^(x - M) of the row x (n elements, V per load), returned
 * to every thread of the block. */
template <typename S, int V, typename T>
__device__ void cross_entropy_row_stats(const S *__restrict__ x, int n, T *scratch, T &max,
                                        T &sum) {
    T m = T(-INFINITY), s = T(0);
    for (int c = (int)threadIdx.x * V; c < n; c += (int)blockDim.x * V) {
        kb_vec<S, V> in = kb_load_vec<S, V>(x + c);
        T w[V], vm = m;
#pragma unroll
        for (int j = 0; j < V; ++j) {
            w[j] = kb_widen(in.v[j]);
            vm = w[j] > vm ? w[j] : vm;
        }
        s *= kb_exp(m - vm); /* 0 on the first load (m = -inf) */
#pragma unroll
        for (int j = 0; j < V; ++j) s += kb_exp(w[j] - vm);
        m = vm;
    }
    max = kb_block_reduce(m, scratch, kb_op_max(), T(-INFINITY));
    /* a thread without elements has s = 0 and m = -inf: adds 0 */
    sum = kb_block_reduce(s * kb_exp(m - max), scratch, kb_op_sum(), T(0));
}

/* Blocks of up to 1024 threads, one per multiprocessor at least: fp64 would
 * spill in the 32 registers of two (KB_LAUNCH_BOUNDS_MIN). */
#define CROSS_ENTROPY_ROW_THREADS  1024 /* at most, per row block */
#define CROSS_ENTROPY_MEAN_THREADS 1024

template <typename S, int V>
__global__ void KB_LAUNCH_BOUNDS_MIN(CROSS_ENTROPY_ROW_THREADS, 1)
    cross_entropy_fused_rows(const S *__restrict__ logits, const S *__restrict__ labels, int n,
                             typename kb_acc<S>::type *__restrict__ row_loss) {
    typedef typename kb_acc<S>::type T;
    __shared__ T scratch[32];
    const S *x = logits + (size_t)blockIdx.x * (size_t)n;
    T m, s;
    cross_entropy_row_stats<S, V>(x, n, scratch, m, s);
    if (threadIdx.x == 0) {
        const int label = cross_entropy_label(labels, (int)blockIdx.x, n);
        row_loss[blockIdx.x] = (m - kb_widen(x[label])) + cross_entropy_log(s);
    }
}

template <typename S, int V>
__global__ void KB_LAUNCH_BOUNDS_MIN(CROSS_ENTROPY_ROW_THREADS, 1)
    cross_entropy_softmax(const S *__restrict__ logits, int n,
                          typename kb_acc<S>::type *__restrict__ probs) {
    typedef typename kb_acc<S>::type T;
    __shared__ T scratch[32];
    const S *x = logits + (size_t)blockIdx.x * (size_t)n;
    T *p = probs + (size_t)blockIdx.x * (size_t)n;
    T m, s;
    cross_entropy_row_stats<S, V>(x, n, scratch, m, s);
    const T inv = T(1) / s;
    for (int c = (int)threadIdx.x * V; c < n; c += (int)blockDim.x * V) {
        kb_vec<S, V> in = kb_load_vec<S, V>(x + c);
#pragma unroll
        for (int j = 0; j < V; ++j) p[c + j] = kb_exp(kb_widen(in.v[j]) - m) * inv;
    }
}

/* Per-row values for cross_entropy_mean: the fused rows' losses, or the
 * unfused NLL -log p[label] gathered from the probability matrix. */
template <typename T> struct cross_entropy_stored {
    const T *v;
    __device__ T operator()(int r) const { return v[r]; }
};

template <typename S, typename T> struct cross_entropy_nll {
    const T *probs;
    const S *labels;
    int n;
    __device__ T operator()(int r) const {
        return -cross_entropy_log(probs[(size_t)r * (size_t)n + cross_entropy_label(labels, r, n)]);
    }
};

template <typename S, typename Row>
__global__ void KB_LAUNCH_BOUNDS_MIN(CROSS_ENTROPY_MEAN_THREADS, 1)
    cross_entropy_mean(int batch, Row row, S *__restrict__ loss) {
    typedef typename kb_acc<S>::type T;
    __shared__ T scratch[32];
    T acc = T(0);
    for (int r = (int)threadIdx.x; r < batch; r += (int)blockDim.x) acc += row(r);
    acc = kb_block_reduce(acc, scratch, kb_op_sum(), T(0));
    if (threadIdx.x == 0) loss[0] = kb_store<S>::from(acc / T(batch));
}

#define CROSS_ENTROPY_MAX_DIM (INT32_MAX - 16 * CROSS_ENTROPY_ROW_THREADS)

/* Threads per row block: whole 64-lane groups, about two loads each. */
static unsigned cross_entropy_threads(int loads) {
    unsigned t = (unsigned)((loads + 1) / 2 + 63) / 64 * 64;
    return t < 64 ? 64 : (t > CROSS_ENTROPY_ROW_THREADS ? CROSS_ENTROPY_ROW_THREADS : t);
}

template <typename S, int V>
static int cross_entropy_launch(const kb_args *a, int batch, int n, int fused) {
    typedef typename kb_acc<S>::type T;
    /* [batch] row losses (room for doubles), then the unfused probabilities */
    const size_t need =
        (size_t)batch * sizeof(double) + (fused ? 0 : (size_t)batch * n * sizeof(T));
    if (a->workspace_bytes < need)
        return kb_unsupported("cross_entropy: workspace of %zu bytes, %zu needed",
                              a->workspace_bytes, need);
    const kb_gpu_dims rows = kb_dims(batch),
                      threads = kb_dims(cross_entropy_threads((n + V - 1) / V));
    const kb_gpu_dims one = kb_dims(1), mean_threads = kb_dims(CROSS_ENTROPY_MEAN_THREADS);
    const S *logits = (const S *)a->in[0], *labels = (const S *)a->in[1];
    T *row_loss = (T *)a->workspace;
    T *probs = (T *)((char *)a->workspace + (size_t)batch * sizeof(double));
    S *loss = (S *)a->out[0];
    kb_gpu_stream st = kb_gpu_stream_of(a);
    int rc;
    if (fused) {
        rc = kb_gpu_launch("cross_entropy_fused_rows", cross_entropy_fused_rows<S, V>, rows,
                           threads, 0, st, logits, labels, n, row_loss);
        if (rc == 0)
            rc = kb_gpu_launch("cross_entropy_mean", cross_entropy_mean<S, cross_entropy_stored<T>>,
                               one, mean_threads, 0, st, batch, cross_entropy_stored<T>{row_loss},
                               loss);
    } else {
        rc = kb_gpu_launch("cross_entropy_softmax", cross_entropy_softmax<S, V>, rows, threads, 0,
                           st, logits, n, probs);
        if (rc == 0)
            rc = kb_gpu_launch("cross_entropy_mean", cross_entropy_mean<S, cross_entropy_nll<S, T>>,
                               one, mean_threads, 0, st, batch,
                               cross_entropy_nll<S, T>{probs, labels, n}, loss);
    }
    return rc;
}

/* 16-byte loads when a row is a whole number of them (rows then stay
 * aligned), else one element per load. */
static int cross_entropy_gpu(const kb_args *a, int fused) {
    int batch = 0, n = 0;
    int rc = kb_gpu_dim_int(a, "batch", &batch);
    if (rc == 0) rc = kb_gpu_dim_int(a, "classes", &n);
    if (rc != 0) return rc;
    /* the kernels' int loops step past the end by up to a block's loads */
    if (batch > CROSS_ENTROPY_MAX_DIM || n > CROSS_ENTROPY_MAX_DIM)
        return kb_unsupported("cross_entropy: batch %d, classes %d: each at most %d", batch, n,
                              CROSS_ENTROPY_MAX_DIM);
    return kb_gpu_dispatch(a->prec, [&](auto t) {
        typedef typename decltype(t)::type S;
        constexpr int W = kb_vec<S>::n;
        return n % W == 0 ? cross_entropy_launch<S, W>(a, batch, n, fused)
                          : cross_entropy_launch<S, 1>(a, batch, n, fused);
    });
}

static int cross_entropy_unfused_gpu(const kb_args *a) {
    return cross_entropy_gpu(a, 0);
}

static int cross_entropy_fused_gpu(const kb_args *a) {
    return cross_entropy_gpu(a, 1);
}

KB_GPU_REGISTER_IMPL("unfused", cross_entropy_unfused_gpu);
KB_GPU_REGISTER_IMPL("fused", cross_entropy_fused_gpu);

#if !defined(KB_GPU_HIP)
/* "vendor" on CUDA: the library a user would call has no such operation. */
KB_GPU_REGISTER_DECLINED("vendor", cross_entropy_vendor,
                         "cuDNN has no cross-entropy: its log-softmax (CUDNN_SOFTMAX_LOG) would "
                         "need a gather and a mean of our own");
#endif
