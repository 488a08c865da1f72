/* Reference 3x3 convolution (stride 1, zero padding 1, NCHW) plus bias, then
 * inference-mode batch normalisation (running mean and variance, eps 1e-5)
 * and ReLU: y = max(0, (conv(x, w) + b - mean) / sqrt(var + eps) * gamma + beta).
 * Plain loops in double, in that order (no folding of the normalisation).
 * Each output plane is accumulated in place, tap by tap, over the output
 * positions whose input position lies inside the image (the others read the
 * zero padding and add nothing). */
#include "kb/kernel.h"
#include "kbref/activation.h"
#include "kbref/layernorm.h"

/* The output rows or columns [*lo, *hi) whose input o + k - 1 is in [0, len). */
static void conv2d_bn_relu_ref_range(size_t k, size_t len, size_t *lo, size_t *hi) {
    *lo = k == 0 ? 1 : 0;
    *hi = k == 2 ? len - 1 : len;
}

/* z[oy, ox] += w * x[oy + ky - 1, ox + kx - 1] over the positions inside x. */
static void conv2d_bn_relu_ref_tap(const double *x, double w, double *z, size_t ky, size_t kx,
                                   size_t h, size_t wd) {
    size_t y0, y1, x0, x1;
    conv2d_bn_relu_ref_range(ky, h, &y0, &y1);
    conv2d_bn_relu_ref_range(kx, wd, &x0, &x1);
    for (size_t oy = y0; oy < y1; oy++)
        for (size_t ox = x0; ox < x1; ox++)
            z[oy * wd + ox] += w * x[(oy + ky - 1) * wd + ox + kx - 1];
}

static void conv2d_bn_relu_reference(const kb_case *c, const double *const *in,
                                     double *const *out) {
    const size_t n = (size_t)kb_case_dim(c, "n"), cin = (size_t)kb_case_dim(c, "cin");
    const size_t cout = (size_t)kb_case_dim(c, "cout");
    const size_t h = (size_t)kb_case_dim(c, "h"), wd = (size_t)kb_case_dim(c, "w");
    const size_t hw = h * wd;
    const double *x = in[0], *w = in[1], *bias = in[2], *gamma = in[3], *beta = in[4];
    const double *mean = in[5], *var = in[6];
    for (size_t img = 0; img < n; img++)
        for (size_t co = 0; co < cout; co++) {
            double *z = out[0] + (img * cout + co) * hw;
            for (size_t i = 0; i < hw; i++) z[i] = bias[co];
            for (size_t ci = 0; ci < cin; ci++)
                for (size_t t = 0; t < 9; t++)
                    conv2d_bn_relu_ref_tap(x + (img * cin + ci) * hw, w[(co * cin + ci) * 9 + t], z,
                                           t / 3, t % 3, h, wd);
            const double rstd = kbref_rstd(var[co], 1e-5);
            for (size_t i = 0; i < hw; i++)
                z[i] = kbref_relu(kbref_normalize(z[i], mean[co], rstd, gamma[co], beta[co]));
        }
}

KB_REGISTER_REFERENCE(conv2d_bn_relu_reference)
