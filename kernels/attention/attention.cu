/* Attention on the GPU (CUDA and HIP from this one source),
 * O = softmax(Q K^T / sqrt(d)) V per (batch, head), non-causal, computed in
 * kb_acc<S> (float, double for fp64), O rounded once on store.
 *  - fused: one kernel, one block per (head, BQ query rows), flash-attention
 *    style: the Q rows in shared memory, K and V streamed through one shared
 *    tile of BK keys, the scores in registers, an online softmax per row
 *    (running max and sum, the accumulator rescaled by e^(old max - new max)),
 *    and the BQ x BK probabilities in shared memory for the P V product. No
 *    score ever reaches global memory.
 *  - unfused: per group of heads whose scores fit in the workspace, three
 *    kernels: a tiled S = Q K^T / sqrt(d) into the workspace (in kb_acc<S>),
 *    a row softmax in place (one block per row, the row in registers) and a
 *    tiled O = P V.
 * Both use 256 threads as 8 rows x 32 columns: thread (ty, tx) owns rows
 * ty + 8 i and columns tx + 32 j of its output tile, so shared-memory reads
 * are broadcasts (rows) or 32 distinct banks (columns). Tiles whose rows are
 * read down a column are stored with column c of row j at c ^ (j % 32), which
 * keeps both the row-wise stores and the column-wise reads conflict-free. */
#include "kb/gpu.h"

#include <math.h>

#define ATTENTION_THREADS 256

/* Position of column c of row j in a swizzled tile whose rows hold a whole
 * number of 32-column groups. */
__device__ __forceinline__ int attention_swz(int j, int c) {
    return c ^ (j & 31);
}

/* op over the 32 lanes tx of one row (aligned 32-lane groups: half a
 * 64-lane warp, or a whole 32-lane one). */
template <typename T, typename Op> __device__ __forceinline__ T attention_reduce32(T v, Op op) {
#pragma unroll
    for (int mask = 16; mask > 0; mask /= 2) v = op(v, kb_shfl_xor(v, mask));
    return v;
}

/* ---- fused ---- */

/* Tile sizes of the fused kernel for arithmetic type T and head dim D (a
 * multiple of 32, at most 128), within 48 KiB of shared memory:
 * Q (BQ x D) + K or V (BK x D) + P (BQ x BK). */
template <typename T, int D> struct attention_cfg {
    static constexpr int BQ = sizeof(T) == 8 ? (D > 64 ? 8 : 32) : (D > 64 ? 32 : 64);
    static constexpr int BK = sizeof(T) == 8 ? 32 : (D > 64 ? 32 : 64);
    static constexpr int RQ = BQ / 8, CK = BK / 32, CD = D / 32;
    static_assert(D % 32 == 0 && D <= 128, "head dim: a multiple of 32, at most 128");
    static_assert((BQ * D + BK * D + BQ * BK) * sizeof(T) <= 48 * 1024, "static shared memory");
};

/* rows [k0, k0 + BK) of one head's K or V into the swizzled tile, widened;
 * rows past seq are zero. Consecutive threads read consecutive columns. */
template <typename S, int D, int BK>
__device__ __forceinline__ void attention_load_kv(typename kb_acc<S>::type *tile,
                                                  const S *__restrict__ src, int k0, int seq) {
    typedef typename kb_acc<S>::type T;
    for (int idx = threadIdx.x; idx < BK * D; idx += ATTENTION_THREADS) {
        const int j = idx / D, c = idx % D;
        tile[j * D + attention_swz(j, c)] =
            k0 + j < seq ? kb_widen(src[(size_t)(k0 + j) * D + c]) : T(0);
    }
}

template <typename S, int D>
__global__ void KB_LAUNCH_BOUNDS(ATTENTION_THREADS)
    attention_fused_kernel(const S *__restrict__ q, const S *__restrict__ k,
                           const S *__restrict__ v, S *__restrict__ o, int seq,
                           typename kb_acc<S>::type scale) {
    typedef typename kb_acc<S>::type T;
    typedef attention_cfg<T, D> cfg;
    constexpr int BQ = cfg::BQ, BK = cfg::BK, RQ = cfg::RQ, CK = cfg::CK, CD = cfg::CD;
    __shared__ T qs[BQ * D], kv[BK * D], ps[BQ * BK];
    const int tx = threadIdx.x % 32, ty = threadIdx.x / 32, q0 = blockIdx.x * BQ;
    const size_t head = (size_t)blockIdx.y * seq * D;
    q += head, k += head, v += head, o += head;

    for (int idx = threadIdx.x; idx < BQ * D; idx += ATTENTION_THREADS) {
        const int r = idx / D;
        qs[idx] = q0 + r < seq ? kb_widen(q[(size_t)q0 * D + idx]) : T(0);
    }
    T m[RQ], l[RQ], acc[RQ][CD];
#pragma unroll
    for (int i = 0; i < RQ; ++i) {
        m[i] = T(-INFINITY), l[i] = T(0);
#pragma unroll
        for (int c = 0; c < CD; ++c) acc[i][c] = T(0);
    }

    for (int k0 = 0; k0 < seq; k0 += BK) {
        __syncthreads(); /* the previous tile's P V is done with kv and ps */
        attention_load_kv<S, D, BK>(kv, k, k0, seq);
        __syncthreads();
        T s[RQ][CK];
#pragma unroll
        for (int i = 0; i < RQ; ++i)
#pragma unroll
            for (int j = 0; j < CK; ++j) s[i][j] = T(0);
#pragma unroll 8
        for (int c = 0; c < D; ++c) {
            T qv[RQ], kvv[CK];
#pragma unroll
            for (int i = 0; i < RQ; ++i) qv[i] = qs[(ty + 8 * i) * D + c];
#pragma unroll
            for (int j = 0; j < CK; ++j) kvv[j] = kv[(tx + 32 * j) * D + (c ^ tx)];
#pragma unroll
            for (int i = 0; i < RQ; ++i)
#pragma unroll
                for (int j = 0; j < CK; ++j) s[i][j] += qv[i] * kvv[j];
        }
        /* Online softmax: each row's block max and sum over its 32 lanes. */
#pragma unroll
        for (int i = 0; i < RQ; ++i) {
            T mx = T(-INFINITY);
#pragma unroll
            for (int j = 0; j < CK; ++j) {
                s[i][j] = k0 + tx + 32 * j < seq ? s[i][j] * scale : T(-INFINITY);
                mx = s[i][j] > mx ? s[i][j] : mx;
            }
            const T mnew = fmax(m[i], attention_reduce32(mx, kb_op_max()));
            const T corr = kb_exp(m[i] - mnew); /* 0 on the first tile */
            T sum = T(0);
#pragma unroll
            for (int j = 0; j < CK; ++j) {
                s[i][j] = kb_exp(s[i][j] - mnew);
                sum += s[i][j];
                ps[(ty + 8 * i) * BK + tx + 32 * j] = s[i][j];
            }
            l[i] = l[i] * corr + attention_reduce32(sum, kb_op_sum());
            m[i] = mnew;
#pragma unroll
            for (int c = 0; c < CD; ++c) acc[i][c] *= corr;
        }
        __syncthreads(); /* scores done with K; ps written */
        attention_load_kv<S, D, BK>(kv, v, k0, seq);
        __syncthreads();
#pragma unroll 4
        for (int kk = 0; kk < BK; ++kk) {
            T pv[RQ], vv[CD];
#pragma unroll
            for (int i = 0; i < RQ; ++i) pv[i] = ps[(ty + 8 * i) * BK + kk];
#pragma unroll
            for (int c = 0; c < CD; ++c) vv[c] = kv[kk * D + attention_swz(kk, tx + 32 * c)];
#pragma unroll
            for (int i = 0; i < RQ; ++i)
#pragma unroll
                for (int c = 0; c < CD; ++c) acc[i][c] += pv[i] * vv[c];
        }
    }
#pragma unroll
    for (int i = 0; i < RQ; ++i) {
        const int r = q0 + ty + 8 * i;
        if (r >= seq) continue;
        const T inv = T(1) / l[i];
#pragma unroll
        for (int c = 0; c < CD; ++c)
            o[(size_t)r * D + tx + 32 * c] = kb_store<S>::from(acc[i][c] * inv);
    }
}

/* Heads [h0, h0 + nh) of the fused kernel: grid y is the head. */
template <typename S, int D>
static int attention_fused_launch(const kb_args *a, long long h0, long long nh, int seq) {
    typedef typename kb_acc<S>::type T;
    const size_t at = (size_t)h0 * (size_t)seq * D;
    const long long blocks = (seq + attention_cfg<T, D>::BQ - 1) / attention_cfg<T, D>::BQ;
    return kb_gpu_launch("attention fused", attention_fused_kernel<S, D>, kb_dims(blocks, nh),
                         kb_dims(ATTENTION_THREADS), 0, kb_gpu_stream_of(a),
                         (const S *)a->in[0] + at, (const S *)a->in[1] + at,
                         (const S *)a->in[2] + at, (S *)a->out[0] + at, seq,
                         T(1.0 / sqrt((double)D)));
}

/* Every head, at most KB_GPU_MAX_GRID_YZ per launch (grid y). */
template <typename S, int D>
static int attention_fused_heads(const kb_args *a, long long bh, int seq) {
    const long long group = kb_gpu_per_launch(bh, bh, KB_GPU_MAX_GRID_YZ);
    for (long long h0 = 0; h0 < bh; h0 += group) {
        const long long nh = bh - h0 < group ? bh - h0 : group;
        const int rc = attention_fused_launch<S, D>(a, h0, nh, seq);
        if (rc != 0) return rc;
    }
    return 0;
}

/* The kernels index positions and head dims as int (plus a tile). */
#define ATTENTION_MAX_DIM (INT32_MAX / 128)

static int attention_fused_gpu(const kb_args *a) {
    const long long bh = kb_case_dim(a->c, "batch") * kb_case_dim(a->c, "heads");
    const long long seq = kb_case_dim(a->c, "seq"), d = kb_case_dim(a->c, "d");
    if (seq < 1 || seq > ATTENTION_MAX_DIM)
        return kb_unsupported("attention: seq = %lld outside 1 .. %d", seq, ATTENTION_MAX_DIM);
    return kb_gpu_dispatch(a->prec, [&](auto t) {
        typedef typename decltype(t)::type S;
        switch (d) {
        case 32: return attention_fused_heads<S, 32>(a, bh, (int)seq);
        case 64: return attention_fused_heads<S, 64>(a, bh, (int)seq);
        case 96: return attention_fused_heads<S, 96>(a, bh, (int)seq);
        case 128: return attention_fused_heads<S, 128>(a, bh, (int)seq);
        default: break;
        }
        return kb_unsupported("fused attention handles d = 32, 64, 96 or 128, not %lld", d);
    });
}

/* ---- unfused ---- */

#define ATTENTION_GM 64 /* output tile rows and columns */
#define ATTENTION_GK 32 /* reduction step */

/* Batched C[z] = alpha A[z] B[z] with A (m x kd, row-major, leading dim lda),
 * B(kk, j) = b[j ldb + kk] when B_T (K, for S = Q K^T) else b[kk ldb + j]
 * (V, for O = P V), C (m x n, ldc); z = blockIdx.z, sa/sb/sc the strides
 * between heads. A 64 x 64 tile per block, 8 x 2 outputs per thread, A and B
 * staged 32 reduction steps at a time in shared memory (B swizzled). */
template <typename TA, typename TB, typename TC, bool B_T>
__global__ void KB_LAUNCH_BOUNDS(ATTENTION_THREADS)
    attention_gemm(const TA *__restrict__ a, const TB *__restrict__ b, TC *__restrict__ c, int m,
                   int n, int kd, int lda, int ldb, int ldc, size_t sa, size_t sb, size_t sc,
                   typename kb_acc<TB>::type alpha) {
    typedef typename kb_acc<TB>::type T;
    constexpr int GM = ATTENTION_GM, GK = ATTENTION_GK, RQ = GM / 8, CN = GM / 32;
    __shared__ T as[GM * GK], bs[GK * GM];
    const int tx = threadIdx.x % 32, ty = threadIdx.x / 32;
    const int row0 = blockIdx.y * GM, col0 = blockIdx.x * GM;
    a += blockIdx.z * sa, b += blockIdx.z * sb, c += blockIdx.z * sc;
    T acc[RQ][CN];
#pragma unroll
    for (int i = 0; i < RQ; ++i)
#pragma unroll
        for (int j = 0; j < CN; ++j) acc[i][j] = T(0);

    for (int k0 = 0; k0 < kd; k0 += GK) {
        __syncthreads(); /* the previous step is done with as and bs */
        for (int idx = threadIdx.x; idx < GM * GK; idx += ATTENTION_THREADS) {
            const int r = idx / GK, kk = idx % GK;
            as[idx] = row0 + r < m && k0 + kk < kd
                          ? T(kb_widen(a[(size_t)(row0 + r) * lda + k0 + kk]))
                          : T(0);
            /* B: consecutive threads along B's contiguous dimension. */
            const int j = B_T ? idx / GK : idx % GM, kb = B_T ? idx % GK : idx / GM;
            const bool in = col0 + j < n && k0 + kb < kd;
            const size_t at =
                B_T ? (size_t)(col0 + j) * ldb + k0 + kb : (size_t)(k0 + kb) * ldb + col0 + j;
            bs[kb * GM + attention_swz(kb, j)] = in ? kb_widen(b[at]) : T(0);
        }
        __syncthreads();
#pragma unroll 8
        for (int kk = 0; kk < GK; ++kk) {
            T av[RQ], bv[CN];
#pragma unroll
            for (int i = 0; i < RQ; ++i) av[i] = as[(ty + 8 * i) * GK + kk];
#pragma unroll
            for (int j = 0; j < CN; ++j) bv[j] = bs[kk * GM + attention_swz(kk, tx + 32 * j)];
#pragma unroll
            for (int i = 0; i < RQ; ++i)
#pragma unroll
                for (int j = 0; j < CN; ++j) acc[i][j] += av[i] * bv[j];
        }
    }
#pragma unroll
    for (int i = 0; i < RQ; ++i) {
        const int r = row0 + ty + 8 * i;
#pragma unroll
        for (int j = 0; j < CN; ++j) {
            const int col = col0 + tx + 32 * j;
            if (r < m && col < n) c[(size_t)r * ldc + col] = kb_store<TC>::from(alpha * acc[i][j]);
        }
    }
}

/* P = softmax(S) in place, one block per row of n scores held in registers. */
template <typename T, int V, int VPT>
__global__ void KB_ROW_LAUNCH_BOUNDS(T, V, VPT) attention_softmax_rows(T *s, int n) {
    __shared__ T scratch[32];
    T *row_s = s + (size_t)blockIdx.x * (size_t)n;
    kb_row<T, V, VPT> row;
    row.load(row_s, n);
    const T mx = row.reduce([](T x) { return x; }, kb_op_max(), T(-INFINITY), scratch);
    row.apply([=](T x) { return kb_exp(x - mx); });
    const T inv = T(1) / row.reduce([](T x) { return x; }, kb_op_sum(), T(0), scratch);
    row.store(row_s, [=](const T(&e)[V], int, T(&out)[V]) {
#pragma unroll
        for (int j = 0; j < V; ++j) out[j] = e[j] * inv;
    });
}

template <typename T>
static int attention_softmax(const kb_args *a, T *s, long long rows, long long n) {
    return kb_row_launch<T, T>(n, [&](auto shape, int threads) {
        typedef decltype(shape) sh;
        return kb_gpu_launch("attention softmax", attention_softmax_rows<T, sh::v, sh::vpt>,
                             kb_dims(rows), kb_dims(threads), 0, kb_gpu_stream_of(a), s, (int)n);
    });
}

/* Heads per round of the unfused kernels: as many as the workspace holds
 * scores for, within grid z (heads) and grid x of the softmax (their rows). */
static long long attention_group(size_t workspace, size_t per_head, long long bh, long long seq) {
    const long long rows = KB_GPU_MAX_GRID_X / seq;
    return kb_gpu_per_launch(bh, (long long)(workspace / per_head),
                             rows < KB_GPU_MAX_GRID_YZ ? rows : KB_GPU_MAX_GRID_YZ);
}

/* The three kernels over heads [h0, h0 + nb). */
template <typename S>
static int attention_unfused_round(const kb_args *a, long long h0, long long nb, int seq, int d) {
    typedef typename kb_acc<S>::type T;
    const size_t hd = (size_t)seq * d, at = (size_t)h0 * hd, ss = (size_t)seq * seq;
    const S *q = (const S *)a->in[0] + at, *k = (const S *)a->in[1] + at;
    const S *v = (const S *)a->in[2] + at;
    S *o = (S *)a->out[0] + at;
    T *s = (T *)a->workspace;
    const long long tiles_s = (seq + ATTENTION_GM - 1) / ATTENTION_GM;
    const long long tiles_d = (d + ATTENTION_GM - 1) / ATTENTION_GM;
    const kb_gpu_stream st = kb_gpu_stream_of(a);
    int rc = kb_gpu_launch("attention scores", attention_gemm<S, S, T, true>,
                           kb_dims(tiles_s, tiles_s, nb), kb_dims(ATTENTION_THREADS), 0, st, q, k,
                           s, seq, seq, d, d, d, seq, hd, hd, ss, T(1.0 / sqrt((double)d)));
    if (rc == 0) rc = attention_softmax<T>(a, s, nb * seq, seq);
    if (rc == 0)
        rc = kb_gpu_launch("attention P V", attention_gemm<T, S, S, false>,
                           kb_dims(tiles_d, tiles_s, nb), kb_dims(ATTENTION_THREADS), 0, st, s, v,
                           o, seq, d, seq, seq, d, d, ss, hd, hd, T(1));
    return rc;
}

template <typename S>
static int attention_unfused_run(const kb_args *a, long long bh, long long seq, long long d) {
    typedef typename kb_acc<S>::type T;
    constexpr int W = kb_vec<T>::n; /* as attention_softmax loads a row */
    const long long longest = kb_row_max(seq % W == 0 ? W : 1, (int)sizeof(T));
    if (seq > longest)
        return kb_unsupported("unfused: score rows of %lld elements, one %s block holds at most "
                              "%lld in registers",
                              seq, KB_GPU_BACKEND, longest);
    const long long group =
        attention_group(a->workspace_bytes, (size_t)seq * seq * sizeof(T), bh, seq);
    if (group < 1) return kb_unsupported("workspace too small for one head's scores");
    for (long long h0 = 0; h0 < bh; h0 += group) {
        const long long nb = bh - h0 < group ? bh - h0 : group;
        const int rc = attention_unfused_round<S>(a, h0, nb, (int)seq, (int)d);
        if (rc != 0) return rc;
    }
    return 0;
}

static int attention_unfused_gpu(const kb_args *a) {
    const long long bh = kb_case_dim(a->c, "batch") * kb_case_dim(a->c, "heads");
    const long long seq = kb_case_dim(a->c, "seq"), d = kb_case_dim(a->c, "d");
    if (seq < 1 || seq > ATTENTION_MAX_DIM || d < 1 || d > ATTENTION_MAX_DIM)
        return kb_unsupported("attention: seq = %lld, d = %lld: each must be in 1 .. %d", seq, d,
                              ATTENTION_MAX_DIM);
    return kb_gpu_dispatch(a->prec, [&](auto t) {
        typedef typename decltype(t)::type S;
        return attention_unfused_run<S>(a, bh, seq, d);
    });
}

KB_GPU_REGISTER_IMPL("unfused", attention_unfused_gpu);
KB_GPU_REGISTER_IMPL("fused", attention_fused_gpu);
