/* Reference pressure-Poisson solve, in double: Jacobi iteration for
 * lap(p) = f on an nx*ny*nz grid (x fastest), unit spacing, p = 0 on the
 * boundary cells, p = 0 to start. Sweep k turns p_k into
 * p_{k+1} = (sum of the 6 neighbours of p_k - f) / 6 on the interior and also
 * gives ||r_k||^2, r_k = lap(p_k) - f = 6 (p_{k+1} - p_k), over the interior.
 * r_0 = -f, so sweep 0 gives ||f||^2. After sweep k, when k + 1 is a multiple
 * of POISSON_REF_CHECK_EVERY or equals max_iters, the relative residual
 * rel = ||r_k|| / ||f|| is checked: rel < 10^-tol_exp stops the iteration.
 * Outputs: p = p_{iterations}; stats = {rel at the last check, iterations}. */
#include "kb/kernel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POISSON_REF_CHECK_EVERY 10

/* One sweep p -> q over the interior; returns the squared residual norm of p. */
static double poisson_ref_sweep(const double *p, double *q, const double *f, size_t nx, size_t ny,
                                size_t nz) {
    const size_t sy = nx, sz = nx * ny;
    double r2 = 0.0;
    for (size_t z = 1; z + 1 < nz; z++)
        for (size_t y = 1; y + 1 < ny; y++)
            for (size_t x = 1; x + 1 < nx; x++) {
                const size_t i = z * sz + y * sy + x;
                const double nb =
                    p[i - 1] + p[i + 1] + p[i - sy] + p[i + sy] + p[i - sz] + p[i + sz];
                const double r = nb - 6.0 * p[i] - f[i];
                q[i] = (nb - f[i]) / 6.0;
                r2 += r * r;
            }
    return r2;
}

static void poisson_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t nx = (size_t)kb_case_dim(c, "nx"), ny = (size_t)kb_case_dim(c, "ny");
    const size_t nz = (size_t)kb_case_dim(c, "nz"), n = nx * ny * nz;
    const int64_t max_iters = kb_case_dim(c, "max_iters");
    const double tol = pow(10.0, -(double)kb_case_dim(c, "tol_exp"));
    double *p = out[0], *q = malloc(n * sizeof *q);
    if (!q) {
        fprintf(stderr, "poisson reference: out of memory\n");
        abort();
    }
    memset(p, 0, n * sizeof *p); /* all-bits-zero is 0.0 in IEEE 754 */
    memset(q, 0, n * sizeof *q);
    double f2 = 0.0, rel = 0.0;
    int64_t iters = 0;
    while (iters < max_iters) {
        const double r2 = poisson_ref_sweep(p, q, in[0], nx, ny, nz);
        double *t = p;
        p = q;
        q = t;
        if (iters == 0) f2 = r2;
        iters++;
        if (iters % POISSON_REF_CHECK_EVERY == 0 || iters == max_iters) {
            rel = f2 > 0.0 ? sqrt(r2 / f2) : 0.0;
            if (rel < tol) break;
        }
    }
    if (p != out[0]) {
        memcpy(out[0], p, n * sizeof *p);
        q = p;
    }
    free(q);
    out[1][0] = rel;
    out[1][1] = (double)iters;
}

KB_REGISTER_REFERENCE(poisson_reference)
