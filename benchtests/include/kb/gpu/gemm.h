/* A shared-memory tiled GEMM for GPU kernels (CUDA and HIP from one source):
 * c[r][j] = ep(sum_p a[r][p] b[p][j], r, j), row-major, a [m, k], b [k, n],
 * c [m, n], all contiguous, in storage type S (double, float, kb_f16,
 * kb_bf16) with the arithmetic of kb_acc<S> (double, or float).
 *
 * Each block computes a BM x BN tile of c: per step of BK it stages a
 * BM x BK tile of a (transposed, padded against bank conflicts) and a BK x BN
 * tile of b in shared memory, widened to the arithmetic type, and every
 * thread accumulates a TM x TN register tile. A thread's rows and columns are
 * strided by the thread grid (row ty + i * BM / TM, column tx + j * BN / TN):
 * a warp reads consecutive shared-memory words of b and one or two
 * (broadcast) words of a, and its stores to c are consecutive. Out-of-range
 * rows, columns and depth are zero-filled, so any m, n, k works.
 *
 * The epilogue functor ep(T acc, int row, int col) -> T runs on each finished
 * element in registers (alpha/beta, bias, activation) before the one rounding
 * to S and the one store. */
#ifndef KB_GPU_GEMM_H
#define KB_GPU_GEMM_H

#include "kb/gpu.h"

/* Block tile BM x BN x BK, thread tile TM x TN: 256 threads either way.
 * float arithmetic: 128 x 128 with 8 x 8 per thread (64 accumulators); double:
 * 64 x 64 with 4 x 4, which keeps the register count of the float tile. */
template <typename T> struct kb_gpu_gemm_tile {
    static constexpr int bm = 128, bn = 128, bk = 8, tm = 8, tn = 8;
};
template <> struct kb_gpu_gemm_tile<double> {
    static constexpr int bm = 64, bn = 64, bk = 8, tm = 4, tn = 4;
};

/* The identity epilogue: c = a b. */
struct kb_gpu_gemm_ep_none {
    template <typename T> __device__ T operator()(T v, int, int) const { return v; }
};

#define KB_GPU_GEMM_THREADS 256

template <typename S, typename Ep>
__global__ void KB_LAUNCH_BOUNDS(KB_GPU_GEMM_THREADS)
    kb_gpu_gemm_kernel(int m, int n, int k, const S *__restrict__ a, const S *__restrict__ b,
                       S *__restrict__ c, Ep ep) {
    typedef typename kb_acc<S>::type T;
    typedef kb_gpu_gemm_tile<T> tile;
    constexpr int BM = tile::bm, BN = tile::bn, BK = tile::bk, TM = tile::tm, TN = tile::tn;
    constexpr int TX = BN / TN, TY = BM / TM, NT = TX * TY;
    static_assert(BM * BK % NT == 0 && BK * BN % NT == 0, "tiles load in whole rounds");
    static_assert(NT == KB_GPU_GEMM_THREADS, "the launch bound is the block");
    /* +4: the transposing store as[q][r] (q fastest across threads) hits
     * banks 4q + r, all different within a warp. */
    __shared__ T as[BK][BM + 4];
    __shared__ T bs[BK][BN];
    const int tx = (int)threadIdx.x % TX, ty = (int)threadIdx.x / TX;
    const int row0 = (int)blockIdx.y * BM, col0 = (int)blockIdx.x * BN;
    T acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = T(0);

    for (int p0 = 0; p0 < k; p0 += BK) {
#pragma unroll
        for (int l = 0; l < BM * BK / NT; ++l) {
            const int e = (int)threadIdx.x + l * NT;
            const int r = row0 + e / BK, q = p0 + e % BK;
            as[e % BK][e / BK] = r < m && q < k ? kb_widen(a[(size_t)r * k + q]) : T(0);
        }
#pragma unroll
        for (int l = 0; l < BK * BN / NT; ++l) {
            const int e = (int)threadIdx.x + l * NT;
            const int q = p0 + e / BN, j = col0 + e % BN;
            bs[e / BN][e % BN] = q < k && j < n ? kb_widen(b[(size_t)q * n + j]) : T(0);
        }
        __syncthreads();
#pragma unroll
        for (int q = 0; q < BK; ++q) {
            T ar[TM], br[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) ar[i] = as[q][ty + i * TY];
#pragma unroll
            for (int j = 0; j < TN; ++j) br[j] = bs[q][tx + j * TX];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fma(ar[i], br[j], acc[i][j]);
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int r = row0 + ty + i * TY;
        if (r >= m) continue;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int col = col0 + tx + j * TX;
            if (col < n) c[(size_t)r * n + col] = kb_store<S>::from(ep(acc[i][j], r, col));
        }
    }
}

/* Launches c = ep(a b) on stream s with kb_gpu_launch(): 0, 1 after a
 * failed launch (printed), or kb_unsupported() when m needs more row blocks
 * than grid y holds. */
template <typename S, typename Ep>
int kb_gpu_gemm_run(int m, int n, int k, const S *a, const S *b, S *c, Ep ep, kb_gpu_stream s) {
    typedef kb_gpu_gemm_tile<typename kb_acc<S>::type> tile;
    const long long gy = ((long long)m + tile::bm - 1) / tile::bm;
    const long long gx = ((long long)n + tile::bn - 1) / tile::bn;
    const int threads = (tile::bm / tile::tm) * (tile::bn / tile::tn);
    return kb_gpu_launch("kb_gpu_gemm_kernel", kb_gpu_gemm_kernel<S, Ep>, kb_dims(gx, gy),
                         kb_dims(threads), 0, s, m, n, k, a, b, c, ep);
}

#endif
