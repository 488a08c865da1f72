/* Pressure-Poisson solve by Jacobi iteration: lap(p) = f on an nx*ny*nz grid
 * (x fastest, unit spacing), p = 0 on the boundary cells and at the start.
 * Sweep k: p_{k+1} = (sum of the 6 neighbours of p_k - f) / 6 on the
 * interior. Sweep 0 and every checking sweep (poisson.h) also sum the
 * squared residual r_k = lap(p_k) - f = 6 (p_{k+1} - p_k), fused into the
 * sweep; sweep 0 gives ||f||^2 (r_0 = -f). The iteration stops when
 * ||r_k|| / ||f|| < 10^-tol_exp at a check, or after max_iters sweeps.
 * Outputs: the field p and stats = {relative residual at the last check,
 * sweeps done}.
 *
 * CPU: the sweep runs over interior x-lines (vectorised, lane-wise residual
 * partial sums) and ping-pongs between the output p and the workspace,
 * starting in the buffer that makes max_iters sweeps end in p (an earlier
 * stop of the other parity copies). fp16/bf16 are the storage format of f
 * and p only: f is widened to float once, the field iterates in float in the
 * workspace and is rounded to p once at the end.
 *
 * The manifest's counts assume max_iters sweeps (the sweeps done depend on
 * the data): flops 7.4 per interior cell per sweep (5 adds for the
 * neighbour sum, subtract f, scale by 1/6; the residual's 4 on every 10th
 * sweep), bytes 3 arrays per sweep (read p and f, write p) of the type the
 * sweeps run on (the manifest's acc: float for fp16/bf16, which iterate in
 * the workspace; the one-off widening and final rounding are not counted). n64 runs all its 50
 * sweeps (relative residual about 0.02); x24_y16_z12_tol3 converges in 110-160 of its 250, so its
 * rates are nominal. */
#include "poisson.h"

#include "kb/cpu.h"
#include "kb/kernel.h"

#include <stdio.h>
#include <string.h>

static void poisson_layout(const kb_case *c, kb_layout *l) {
    const poisson_dims d = poisson_dims_of(c);
    kb_layout_input(l, "f", d.n, KB_DIST_NORMAL, 0.0, 1.0);
    kb_layout_output(l, "p", d.n);
    kb_layout_output(l, "stats", 2);
    kb_layout_workspace(l, poisson_workspace_bytes(&d));
}

/* One interior x-line of a sweep, x in [1, nx - 1): q = (nb - f) / 6 from the
 * row p, its y and z neighbour rows and f. The _res version also adds the
 * squared residual nb - 6 p - f at x = x0 + j into acc[j]. */
#define POISSON_CPU(T, SUFFIX)                                                                     \
    static void poisson_line_##SUFFIX(T *restrict q, const T *restrict p, const T *restrict ym,    \
                                      const T *restrict yp, const T *restrict zm,                  \
                                      const T *restrict zp, const T *restrict f, size_t nx) {      \
        for (size_t x = 1; x + 1 < nx; x++) {                                                      \
            const T s = p[x - 1] + p[x + 1] + ym[x] + yp[x] + zm[x] + zp[x] - f[x];                \
            q[x] = s * (T)(1.0 / 6.0);                                                             \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void poisson_line_res_##SUFFIX(T *restrict q, const T *restrict p,                      \
                                          const T *restrict ym, const T *restrict yp,              \
                                          const T *restrict zm, const T *restrict zp,              \
                                          const T *restrict f, size_t nx, T *restrict acc) {       \
        for (size_t x0 = 1; x0 + 1 < nx; x0 += KB_CPU_LANES) {                                     \
            const size_t m = nx - 1 - x0 < KB_CPU_LANES ? nx - 1 - x0 : KB_CPU_LANES;              \
            for (size_t j = 0; j < m; j++) {                                                       \
                const size_t x = x0 + j;                                                           \
                const T s = p[x - 1] + p[x + 1] + ym[x] + yp[x] + zm[x] + zp[x] - f[x];            \
                const T r = s - (T)6 * p[x];                                                       \
                acc[j] += r * r;                                                                   \
                q[x] = s * (T)(1.0 / 6.0);                                                         \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* p -> q over the interior; returns ||lap(p) - f||^2 when res, else 0.                        \
     * The lanes hold one z-plane's sum and are flushed into a double per                          \
     * plane, so the float error grows with a plane's size, not the grid's. */                     \
    static double poisson_sweep_##SUFFIX(const T *p, T *q, const T *f, const poisson_dims *d,      \
                                         int res) {                                                \
        const size_t sy = d->nx, sz = d->nx * d->ny;                                               \
        double total = 0.0;                                                                        \
        for (size_t z = 1; z + 1 < d->nz; z++) {                                                   \
            T acc[KB_CPU_LANES] = {0};                                                             \
            for (size_t y = 1; y + 1 < d->ny; y++) {                                               \
                const size_t i = z * sz + y * sy;                                                  \
                if (res)                                                                           \
                    poisson_line_res_##SUFFIX(q + i, p + i, p + i - sy, p + i + sy, p + i - sz,    \
                                              p + i + sz, f + i, d->nx, acc);                      \
                else                                                                               \
                    poisson_line_##SUFFIX(q + i, p + i, p + i - sy, p + i + sy, p + i - sz,        \
                                          p + i + sz, f + i, d->nx);                               \
            }                                                                                      \
            if (res) total += (double)kb_cpu_lanes_sum_##SUFFIX(acc);                              \
        }                                                                                          \
        return total;                                                                              \
    }                                                                                              \
                                                                                                   \
    /* Iterates from buf[0] = 0 (buf[1] = 0 too, for its boundary); returns the                    \
     * sweeps done, the result being in buf[sweeps % 2]; *rel gets the                             \
     * relative residual of the last check. */                                                     \
    static int64_t poisson_solve_##SUFFIX(T *const buf[2], const T *f, const poisson_dims *d,      \
                                          double *rel) {                                           \
        memset(buf[0], 0, d->n * sizeof(T));                                                       \
        memset(buf[1], 0, d->n * sizeof(T));                                                       \
        double f2 = 0.0;                                                                           \
        int64_t iters = 0;                                                                         \
        *rel = 0.0;                                                                                \
        while (iters < d->max_iters) {                                                             \
            const int check = poisson_is_check(iters + 1, d->max_iters);                           \
            const double r2 = poisson_sweep_##SUFFIX(buf[iters % 2], buf[(iters + 1) % 2], f, d,   \
                                                     iters == 0 || check);                         \
            if (iters == 0) f2 = r2;                                                               \
            iters++;                                                                               \
            if (check) {                                                                           \
                *rel = f2 > 0.0 ? sqrt(r2 / f2) : 0.0;                                             \
                if (*rel < d->tol) break;                                                          \
            }                                                                                      \
        }                                                                                          \
        return iters;                                                                              \
    }

POISSON_CPU(double, f64)
POISSON_CPU(float, f32)

static void poisson_stats(const kb_args *a, double rel, int64_t iters) {
    kb_store_f64(a->out[1], a->prec, 0, rel);
    kb_store_f64(a->out[1], a->prec, 1, (double)iters);
}

/* fp64/fp32: ping-pong between the output p and the workspace. */
#define POISSON_NATIVE(T, SUFFIX)                                                                  \
    static int poisson_native_##SUFFIX(const kb_args *a, const void *params) {                     \
        const poisson_dims *d = params;                                                            \
        T *out = a->out[0], *ws = a->workspace;                                                    \
        T *const buf[2] = {d->max_iters % 2 ? ws : out, d->max_iters % 2 ? out : ws};              \
        double rel;                                                                                \
        const int64_t iters = poisson_solve_##SUFFIX(buf, a->in[0], d, &rel);                      \
        if (buf[iters % 2] != out) memcpy(out, buf[iters % 2], d->n * sizeof(T));                  \
        poisson_stats(a, rel, iters);                                                              \
        return 0;                                                                                  \
    }

POISSON_NATIVE(double, f64)
POISSON_NATIVE(float, f32)

/* fp16/bf16: f widened to float once, the field iterated in float in the
 * workspace and rounded to p once. */
static int poisson_half(const kb_args *a, const void *params) {
    const poisson_dims *d = params;
    float *f = a->workspace;
    float *const buf[2] = {f + d->n, f + 2 * d->n};
    kb_cpu_to_f32(f, a->in[0], a->prec, 0, d->n);
    double rel;
    const int64_t iters = poisson_solve_f32(buf, f, d, &rel);
    kb_cpu_from_f32(a->out[0], a->prec, 0, buf[iters % 2], d->n);
    poisson_stats(a, rel, iters);
    return 0;
}

static int poisson_cpu(const kb_args *a) {
    const poisson_dims d = poisson_dims_of(a->c);
    static const kb_cpu_paths paths = {poisson_native_f64, poisson_native_f32, poisson_half};
    return kb_cpu_dispatch(a, &paths, &d);
}

static const kb_kernel poisson_kernel = {
    .layout = poisson_layout,
    .impls = {{"cpu", "default", poisson_cpu}},
};

KB_REGISTER_KERNEL(poisson_kernel)
