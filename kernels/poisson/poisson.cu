/* Pressure-Poisson solve by Jacobi iteration on the GPU (CUDA and HIP from
 * this one source); the algorithm and the stopping rule are poisson.c's.
 *
 * One kernel launch per sweep: a block of 32 x 8 threads owns a 32 x 8
 * column tile of the interior and marches over POISSON_TILE_Z planes, the
 * column's z-neighbours carried in registers and the x/y-neighbours loaded
 * from global memory (the same plane is read by the neighbouring threads,
 * so those loads hit L1/L2). Sweep 0 and the checking sweeps also sum the
 * squared residual: each block writes its partial (a block reduction) to
 * the workspace, and a one-block kernel adds the partials in a fixed order
 * (deterministic), keeps ||f||^2 from sweep 0, and writes the relative
 * residual to the workspace and the stats output.
 *
 * The stopping rule is applied on the device, so a call never waits for
 * it: the host queues every sweep up to max_iters at once; at a check that
 * stops (below tol, or the last allowed sweep) the residual kernel writes
 * the sweep count to the workspace, and every later sweep and residual
 * kernel of the call returns at once on reading it. A last kernel copies
 * the field from the buffer that count says holds it. The call is thus one
 * stretch of device work that a stream hold can time (docs/gpu-timing.md); a
 * converged solve leaves its remaining sweeps as empty launches, some
 * microseconds each. fp16/bf16: the field iterates in float in the
 * workspace and is rounded to p once at the end; f is widened on load. */
#include "kb/gpu.h"

#include "poisson.h"

#include <type_traits>

/* Sweep blocks per multiprocessor ptxas keeps room for: 6 x 256 threads
 * leave 40 registers, enough for the fp64 residual sweep without spills
 * (32, the occupancy ptxas picks by itself on sm_80, spills it). */
#define POISSON_SWEEP_BLOCKS 6

/* p -> q over the interior; F is the field's type, S the storage of f. */
template <typename F, typename S, bool RES>
__global__ void KB_LAUNCH_BOUNDS_MIN(POISSON_TILE_X *POISSON_TILE_Y, POISSON_SWEEP_BLOCKS)
    poisson_sweep(const F *__restrict__ p, F *__restrict__ q, const S *__restrict__ f, int nx,
                  int ny, int nz, double *__restrict__ partial, const double *__restrict__ stop) {
    if (*stop != 0.0) return; /* the solve stopped at an earlier check: every thread leaves */
    const int x = 1 + (int)blockIdx.x * POISSON_TILE_X + (int)threadIdx.x % POISSON_TILE_X;
    const int y = 1 + (int)blockIdx.y * POISSON_TILE_Y + (int)threadIdx.x / POISSON_TILE_X;
    const int z0 = 1 + (int)blockIdx.z * POISSON_TILE_Z;
    const int z1 = min(z0 + POISSON_TILE_Z, nz - 1);
    const size_t sy = (size_t)nx, sz = (size_t)nx * (size_t)ny;
    F acc = F(0);
    if (x < nx - 1 && y < ny - 1) {
        size_t i = (size_t)z0 * sz + (size_t)y * sy + (size_t)x;
        F below = p[i - sz], mid = p[i];
        for (int z = z0; z < z1; ++z, i += sz) {
            const F above = p[i + sz];
            const F s =
                p[i - 1] + p[i + 1] + p[i - sy] + p[i + sy] + below + above - kb_widen(f[i]);
            q[i] = s * F(1.0 / 6.0);
            if (RES) {
                const F r = s - F(6) * mid;
                acc += r * r;
            }
            below = mid;
            mid = above;
        }
    }
    if (RES) {
        __shared__ F scratch[32];
        const F sum = kb_block_reduce(acc, scratch, kb_op_sum(), F(0));
        if (threadIdx.x == 0)
            partial[blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)] = (double)sum;
    }
}

/* Adds the partials of a residual sweep (one block); state = {||f||^2, rel,
 * stop}. At a check (tol >= 0) that stops the solve, below tol or at the
 * last allowed sweep, stop gets the sweep count; nothing runs once it is
 * set. */
#define POISSON_THREADS 256 /* the residual and store kernels' blocks */

template <typename S>
__global__ void KB_LAUNCH_BOUNDS(POISSON_THREADS)
    poisson_residual(const double *__restrict__ partial, int count, double *__restrict__ state,
                     S *__restrict__ stats, int first, double iters, double tol, int last) {
    typedef typename kb_acc<S>::type T;
    if (state[2] != 0.0) return;
    __shared__ double scratch[32];
    double acc = 0.0;
    for (int i = (int)threadIdx.x; i < count; i += (int)blockDim.x) acc += partial[i];
    const double r2 = kb_block_reduce(acc, scratch, kb_op_sum(), 0.0);
    if (threadIdx.x == 0) {
        if (first) state[0] = r2;
        const double rel = state[0] > 0.0 ? sqrt(r2 / state[0]) : 0.0;
        state[1] = rel;
        stats[0] = kb_store<S>::from(T(rel));
        stats[1] = kb_store<S>::from(T(iters));
        if (last || rel < tol) state[2] = iters;
    }
}

/* p from the buffer that holds the field after state[2] sweeps (buf[k %
 * 2]), rounded to its storage format (fp16/bf16); nothing to do when that
 * buffer is p itself (fp64/fp32). */
template <typename S, typename F>
__global__ void KB_LAUNCH_BOUNDS(POISSON_THREADS)
    poisson_finish(const F *b0, const F *b1, S *y, const double *__restrict__ state, size_t n) {
    const F *x = (long long)state[2] % 2 ? b1 : b0;
    if ((const void *)x == (const void *)y) return;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = kb_store<S>::from(x[i]);
}

static int poisson_ok(kb_gpu(Error_t) e, const char *what) {
    if (e == kb_gpu(Success)) return 0;
    fprintf(stderr, "poisson: %s failed: %s\n", what, kb_gpu(GetErrorString)(e));
    return 1;
}

/* The sweeps, from buf[0] = buf[1] = 0, up to the stopping rule, then p
 * from the buffer that holds the result; nothing waits for the device. */
template <typename F, typename S>
static int poisson_solve(const kb_args *a, const poisson_dims &d, F *const buf[2]) {
    const kb_gpu_stream st = kb_gpu_stream_of(a);
    const size_t tiles = poisson_tiles(&d);
    double *partial = (double *)((char *)a->workspace + poisson_field_bytes(d.n));
    double *state = partial + tiles;
    const kb_gpu_dims grid = kb_dims((long long)poisson_ceil_div(d.nx - 2, POISSON_TILE_X),
                                     (long long)poisson_ceil_div(d.ny - 2, POISSON_TILE_Y),
                                     (long long)poisson_ceil_div(d.nz - 2, POISSON_TILE_Z));
    const kb_gpu_dims threads = kb_dims(POISSON_TILE_X * POISSON_TILE_Y);
    const int nx = (int)d.nx, ny = (int)d.ny, nz = (int)d.nz;
    const S *f = (const S *)a->in[0];
    if (poisson_ok(kb_gpu(MemsetAsync)(buf[0], 0, d.n * sizeof(F), st), "memset") ||
        poisson_ok(kb_gpu(MemsetAsync)(buf[1], 0, d.n * sizeof(F), st), "memset") ||
        poisson_ok(kb_gpu(MemsetAsync)(state + 2, 0, sizeof(double), st), "memset"))
        return 1;
    /* No sweep allowed: stats {0, 0}, as on the CPU (zero bits are zero in
     * every format); no residual kernel would write them. */
    if (d.max_iters < 1 &&
        poisson_ok(kb_gpu(MemsetAsync)(a->out[1], 0, 2 * sizeof(S), st), "stats memset"))
        return 1;
    for (int64_t iters = 0; iters < d.max_iters;) {
        const int check = poisson_is_check(iters + 1, d.max_iters), res = iters == 0 || check;
        const F *src = buf[iters % 2];
        F *dst = buf[(iters + 1) % 2];
        int rc = kb_gpu_launch("poisson_sweep",
                               res ? poisson_sweep<F, S, true> : poisson_sweep<F, S, false>, grid,
                               threads, 0, st, src, dst, f, nx, ny, nz, partial, state + 2);
        if (rc != 0) return rc;
        ++iters;
        if (!res) continue;
        rc = kb_gpu_launch("poisson_residual", poisson_residual<S>, kb_dims(1),
                           kb_dims(POISSON_THREADS), 0, st, partial, (int)tiles, state,
                           (S *)a->out[1], iters == 1, (double)iters, check ? d.tol : -1.0,
                           iters == d.max_iters);
        if (rc != 0) return rc;
    }
    return kb_gpu_launch("poisson_finish", poisson_finish<S, F>,
                         kb_dims(kb_gpu_grid(d.n, POISSON_THREADS)), kb_dims(POISSON_THREADS), 0,
                         st, (const F *)buf[0], (const F *)buf[1], (S *)a->out[0],
                         (const double *)state, d.n);
}

static int poisson_gpu(const kb_args *a) {
    const poisson_dims d = poisson_dims_of(a->c);
    if (poisson_tiles(&d) == 0) return kb_unsupported("poisson needs nx, ny, nz >= 3");
    if (poisson_ceil_div(d.ny - 2, POISSON_TILE_Y) > 65535 ||
        poisson_ceil_div(d.nz - 2, POISSON_TILE_Z) > 65535 || d.n > (size_t)INT32_MAX)
        return kb_unsupported("poisson grid %zux%zux%zu too large for the GPU tiling", d.nx, d.ny,
                              d.nz);
    return kb_gpu_dispatch(a->prec, [&](auto t) {
        typedef typename decltype(t)::type S;
        typedef typename kb_acc<S>::type F;
        if constexpr (std::is_same<S, F>::value) {
            /* fp64/fp32: ping-pong between p and the workspace, max_iters
             * sweeps ending in p (a solve that stops early may end in the
             * workspace, and is copied). */
            F *out = (F *)a->out[0], *ws = (F *)a->workspace;
            F *const buf[2] = {d.max_iters % 2 ? ws : out, d.max_iters % 2 ? out : ws};
            return poisson_solve<F, S>(a, d, buf);
        } else {
            float *ws = (float *)a->workspace;
            float *const buf[2] = {ws, ws + d.n};
            return poisson_solve<F, S>(a, d, buf);
        }
    });
}

KB_GPU_REGISTER_IMPL("default", poisson_gpu);
