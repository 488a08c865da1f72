/* What poisson.c (layout, CPU) and poisson.cu (GPU) share: the case's dims,
 * the stopping rule, the GPU's tiling and the workspace partition. The
 * reference (reference.c) states the same rule on its own. */
#ifndef POISSON_H
#define POISSON_H

#include "kb/kernel.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* The relative residual is checked after every 10th sweep and after the
 * last allowed one (see reference.c). */
#define POISSON_CHECK_EVERY 10

/* GPU sweep: one block of 32 x 8 threads per 32 x 8 column tile of the
 * interior, marching over POISSON_TILE_Z planes. */
#define POISSON_TILE_X 32
#define POISSON_TILE_Y 8
#define POISSON_TILE_Z 8

typedef struct poisson_dims {
    size_t nx, ny, nz, n; /* grid, boundary cells included; n = nx * ny * nz */
    int64_t max_iters;
    double tol; /* 10^-tol_exp */
} poisson_dims;

static inline poisson_dims poisson_dims_of(const kb_case *c) {
    poisson_dims d;
    d.nx = (size_t)kb_case_dim(c, "nx");
    d.ny = (size_t)kb_case_dim(c, "ny");
    d.nz = (size_t)kb_case_dim(c, "nz");
    d.n = d.nx * d.ny * d.nz;
    d.max_iters = kb_case_dim(c, "max_iters");
    d.tol = pow(10.0, -(double)kb_case_dim(c, "tol_exp"));
    return d;
}

/* Whether the relative residual is compared with tol after `iters` sweeps. */
static inline int poisson_is_check(int64_t iters, int64_t max_iters) {
    return iters % POISSON_CHECK_EVERY == 0 || iters == max_iters;
}

static inline size_t poisson_ceil_div(size_t a, size_t b) {
    return (a + b - 1) / b;
}

/* GPU blocks per sweep, one residual partial each (0 without interior). */
static inline size_t poisson_tiles(const poisson_dims *d) {
    if (d->nx < 3 || d->ny < 3 || d->nz < 3) return 0;
    return poisson_ceil_div(d->nx - 2, POISSON_TILE_X) *
           poisson_ceil_div(d->ny - 2, POISSON_TILE_Y) *
           poisson_ceil_div(d->nz - 2, POISSON_TILE_Z);
}

/* Workspace: the field region first, 12 bytes per cell (CPU fp16/bf16: f
 * and two field buffers in float; fp64: the second field buffer, 8; GPU
 * fp16/bf16: two float field buffers, 8), then, for the GPU, one double
 * residual partial per block and the state {||f||^2, rel, stop}. */
static inline size_t poisson_field_bytes(size_t n) {
    return poisson_ceil_div(12 * n, 64) * 64;
}

static inline size_t poisson_workspace_bytes(const poisson_dims *d) {
    return poisson_field_bytes(d->n) + (poisson_tiles(d) + 3) * sizeof(double);
}

#endif
