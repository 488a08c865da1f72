/* 3x3 convolution (stride 1, zero padding 1, NCHW) + bias, inference-mode
 * batch normalisation, ReLU: y = max(0, (conv(x, w) + b - mean) * gamma /
 * sqrt(var + eps) + beta).
 *
 * Two variants share one direct-convolution core:
 * - "unfused": conv + bias writes z (the workspace), a BN pass rewrites z in
 *   place, a ReLU pass writes y;
 * - "folded": BN is folded into the weights and bias (w' = w s, b' = (b -
 *   mean) s + beta, s = gamma / sqrt(var + eps), computed per call into the
 *   workspace) and ReLU is the conv's epilogue, so y is written once.
 *
 * The core copies each image into the workspace with a zero border (so the
 * taps need no bounds checks; fp16/bf16 are widened to float there), packs
 * the weights by groups of CB output channels, and computes tiles of CB
 * output channels x TW output columns of one row with the accumulators in
 * vector registers, summing over the input channels and the 9 taps.
 * fp16/bf16 compute in float and round once on store. */
#include "conv2d_bn_relu.h"

#include "kb/cpu.h"
#include "kb/kernel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

/* Output channels per tile of the double core (and of the float core
 * without AVX2/FMA). Padded rows are w + 2 long: the float core computes
 * their two pad columns too, and the double core's tiles of up to 16
 * columns may read into the next row, whose values they do not store. */
#define CONV2D_BN_RELU_CB 4

/* The float core with FMA intrinsics (conv2d_bn_relu_fimage): FCB output
 * channels x FNV vectors of positions a tile, FCB * FNV accumulators of
 * the 32 (AVX-512) or 16 (AVX2) registers, FCB broadcasts and FNV loads a
 * tap for FCB * FNV multiply-adds. */
#if defined(__AVX512F__)
#define CONV2D_BN_RELU_FSIMD 1
#define CONV2D_BN_RELU_FCB   8
#define CONV2D_BN_RELU_FNV   3
#define CONV2D_BN_RELU_FVL   16
#elif defined(__AVX2__) && defined(__FMA__)
#define CONV2D_BN_RELU_FSIMD 1
#define CONV2D_BN_RELU_FCB   4
#define CONV2D_BN_RELU_FNV   3
#define CONV2D_BN_RELU_FVL   8
#else
#define CONV2D_BN_RELU_FSIMD 0
#define CONV2D_BN_RELU_FCB   CONV2D_BN_RELU_CB
#define CONV2D_BN_RELU_FNV   1
#define CONV2D_BN_RELU_FVL   16
#endif
#define CONV2D_BN_RELU_FTW (CONV2D_BN_RELU_FNV * CONV2D_BN_RELU_FVL)
/* Channel group of each type's packed weights. */
#define CONV2D_BN_RELU_GROUP_f64 CONV2D_BN_RELU_CB
#define CONV2D_BN_RELU_GROUP_f32 CONV2D_BN_RELU_FCB
#define CONV2D_BN_RELU_GROUP_MAX 8

typedef struct conv2d_bn_relu_dims {
    size_t n, cin, cout, h, w;
    size_t pw;    /* padded row: w + 2, zeros in columns 0 and w + 1 */
    size_t plane; /* padded plane: (h + 2) * pw and a little more */
} conv2d_bn_relu_dims;

static conv2d_bn_relu_dims conv2d_bn_relu_dims_of(const kb_case *c) {
    conv2d_bn_relu_dims d;
    d.n = (size_t)kb_case_dim(c, "n");
    d.cin = (size_t)kb_case_dim(c, "cin");
    d.cout = (size_t)kb_case_dim(c, "cout");
    d.h = (size_t)kb_case_dim(c, "h");
    d.w = (size_t)kb_case_dim(c, "w");
    d.pw = d.w + 2;
    /* An odd number of 16-element blocks: planes a multiple of 4 KiB apart
     * would put the same rows of every input channel in the same L1 sets. */
    /* The float core reads up to FTW + 2 past the last padded row. */
    d.plane = ((d.h + 2) * d.pw + CONV2D_BN_RELU_FTW + 2 + 15) / 16 | 1;
    d.plane *= 16;
    return d;
}

/* Workspace, in elements of up to 8 bytes (double for fp64), each part
 * 64-byte aligned: the padded image; the weights widened (fp16/bf16); the
 * weights packed for the tiles (BN folded in for "folded"); 8 per-channel
 * vectors (bias, gamma, beta, mean, var widened, the BN scale, the folded
 * bias); z (unfused: all images; folded fp16/bf16: one image before
 * rounding). */
/* Positions of one output plane in the float core: h rows of pw (the
 * columns past w computed and dropped), rounded up to whole tiles. */
static size_t conv2d_bn_relu_qlen(const conv2d_bn_relu_dims *d) {
    return (d->h * d->pw + CONV2D_BN_RELU_FTW - 1) / CONV2D_BN_RELU_FTW * CONV2D_BN_RELU_FTW;
}

/* Byte offsets of the workspace parts xp, w, wp, vec, zq (the float core's
 * FCB output planes of qlen), z; returns the size without z. */
static size_t conv2d_bn_relu_ws_offsets(const conv2d_bn_relu_dims *d, size_t elem, size_t off[6]) {
    const size_t groups = (d->cout + CONV2D_BN_RELU_GROUP_MAX - 1) / CONV2D_BN_RELU_GROUP_MAX;
    const size_t part[5] = {d->cin * d->plane, d->cout * d->cin * 9,
                            groups * CONV2D_BN_RELU_GROUP_MAX * d->cin * 9, 8 * d->cout,
                            CONV2D_BN_RELU_FCB * conv2d_bn_relu_qlen(d)};
    off[0] = 0;
    for (int i = 0; i < 5; i++) off[i + 1] = off[i] + kb_workspace_align(part[i] * elem);
    return off[5];
}

typedef struct conv2d_bn_relu_ws {
    void *xp, *w, *wp, *vec, *zq, *z;
} conv2d_bn_relu_ws;

static conv2d_bn_relu_ws conv2d_bn_relu_ws_of(const conv2d_bn_relu_dims *d, void *base,
                                              size_t elem) {
    size_t off[6];
    conv2d_bn_relu_ws_offsets(d, elem, off);
    char *p = base;
    return (conv2d_bn_relu_ws){p + off[0], p + off[1], p + off[2],
                               p + off[3], p + off[4], p + off[5]};
}

static void conv2d_bn_relu_layout(const kb_case *c, kb_layout *l) {
    const conv2d_bn_relu_dims d = conv2d_bn_relu_dims_of(c);
    const size_t hw = d.h * d.w;
    /* Uniform weights with variance 1 / (9 cin): conv outputs of variance
     * about 1 for unit-normal x, whatever the layer's width. */
    const double wmax = sqrt(3.0 / (9.0 * (double)d.cin));
    kb_layout_input(l, "x", d.n * d.cin * hw, KB_DIST_NORMAL, 0.0, 1.0);
    kb_layout_input(l, "weight", d.cout * d.cin * 9, KB_DIST_UNIFORM, -wmax, wmax);
    kb_layout_input(l, "bias", d.cout, KB_DIST_UNIFORM, -0.5, 0.5);
    kb_layout_input(l, "gamma", d.cout, KB_DIST_UNIFORM, 0.5, 1.5);
    kb_layout_input(l, "beta", d.cout, KB_DIST_UNIFORM, -0.5, 0.5);
    kb_layout_input(l, "mean", d.cout, KB_DIST_UNIFORM, -0.5, 0.5);
    kb_layout_input(l, "var", d.cout, KB_DIST_UNIFORM, 0.5, 1.5);
    kb_layout_output(l, "y", d.n * d.cout * hw);
    size_t off[6];
    kb_layout_workspace(l, conv2d_bn_relu_ws_offsets(&d, sizeof(double), off) +
                               kb_workspace_align(d.n * d.cout * hw * sizeof(double)));
}

/* One padded image into out (cout planes of h x w), ReLU when relu is set:
 * the float core with FMA where the target has it, else the direct core
 * (conv2d_bn_relu_dimage_*). zq: the float core's scratch planes. */
static void conv2d_bn_relu_image_f64(const double *restrict xp, const double *restrict wp,
                                     const double *restrict b, double *restrict out,
                                     const conv2d_bn_relu_dims *d, int relu, void *zq);
static void conv2d_bn_relu_image_f32(const float *restrict xp, const float *restrict wp,
                                     const float *restrict b, float *restrict out,
                                     const conv2d_bn_relu_dims *d, int relu, void *zq);

/* The per-type pieces: T is double (fp64) or float (fp32, and fp16/bf16
 * after widening). A tile keeps CB x 2 vectors of 32 bytes (GNU vector
 * extension, GCC and Clang: AVX2/AVX-512 registers, SSE pairs without them)
 * as accumulators, so TW = 2 * 32 / sizeof(T) columns (16 floats, 8 doubles).
 * ISO C mode does not contract a * b + c, so the tile rounds the product and
 * the sum separately (the reference's order of operations, in T). */
#define CONV2D_BN_RELU_CORE(T, SUF, SQRT)                                                          \
    typedef T conv2d_bn_relu_v##SUF __attribute__((vector_size(32)));                              \
                                                                                                   \
    /* Zero border of the padded image: rows 0 and h + 1, column 0 and the                         \
     * columns after w. */                                                                         \
    static void conv2d_bn_relu_border_##SUF(T *xp, const conv2d_bn_relu_dims *d) {                 \
        for (size_t ci = 0; ci < d->cin; ci++) {                                                   \
            T *p = xp + ci * d->plane;                                                             \
            memset(p, 0, d->pw * sizeof(T));                                                       \
            memset(p + (d->h + 1) * d->pw, 0, (d->plane - (d->h + 1) * d->pw) * sizeof(T));        \
            for (size_t r = 1; r <= d->h; r++) {                                                   \
                p[r * d->pw] = 0;                                                                  \
                memset(p + r * d->pw + 1 + d->w, 0, (d->pw - 1 - d->w) * sizeof(T));               \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* One image x (cin planes of h x w) into the padded buffer. */                                \
    static void conv2d_bn_relu_pad_##SUF(const T *restrict x, T *restrict xp,                      \
                                         const conv2d_bn_relu_dims *d) {                           \
        conv2d_bn_relu_border_##SUF(xp, d);                                                        \
        for (size_t ci = 0; ci < d->cin; ci++)                                                     \
            for (size_t r = 0; r < d->h; r++)                                                      \
                memcpy(xp + ci * d->plane + (r + 1) * d->pw + 1, x + (ci * d->h + r) * d->w,       \
                       d->w * sizeof(T));                                                          \
    }                                                                                              \
                                                                                                   \
    /* Weights [cout][cin * 9] (times s[co] when s is given) into groups of CB                     \
     * output channels, [group][cin * 9][CB], zeros past cout. */                                  \
    static void conv2d_bn_relu_pack_##SUF(const T *restrict w, const T *restrict s,                \
                                          T *restrict wp, const conv2d_bn_relu_dims *d) {          \
        const size_t k = d->cin * 9;                                                               \
        for (size_t co0 = 0; co0 < d->cout; co0 += CONV2D_BN_RELU_GROUP_##SUF)                     \
            for (size_t i = 0; i < k; i++)                                                         \
                for (size_t j = 0; j < CONV2D_BN_RELU_GROUP_##SUF; j++) {                          \
                    const size_t co = co0 + j;                                                     \
                    const T v = co < d->cout ? w[co * k + i] : 0;                                  \
                    wp[co0 * k + i * CONV2D_BN_RELU_GROUP_##SUF + j] =                             \
                        s && co < d->cout ? v * s[co] : v;                                         \
                }                                                                                  \
    }                                                                                              \
                                                                                                   \
    /* cb <= CB output channels x TW columns from (oy, ox), nx <= TW of them                       \
     * stored: out[k][oy][ox + j] = b[k] + sum over ci and the taps of                             \
     * w[k][ci][t] xp[ci][oy + ky][ox + kx + j], then the ReLU when relu is set.                   \
     * wp is the channel group's packed weights, b and out start at its first                      \
     * channel. */                                                                                 \
    static inline void conv2d_bn_relu_tile_##SUF(                                                  \
        const T *restrict xp, const T *restrict wp, const T *restrict b, T *restrict out,          \
        const conv2d_bn_relu_dims *d, size_t cb, size_t oy, size_t ox, size_t nx, int relu) {      \
        typedef conv2d_bn_relu_v##SUF V;                                                           \
        enum { VL = sizeof(V) / sizeof(T) };                                                       \
        V acc[CONV2D_BN_RELU_CB][2];                                                               \
        _Pragma("GCC unroll 4") for (size_t k = 0; k < CONV2D_BN_RELU_CB; k++) {                   \
            const T bk = k < cb ? b[k] : 0;                                                        \
            acc[k][0] = acc[k][1] = (V){0} + bk;                                                   \
        }                                                                                          \
        for (size_t ci = 0; ci < d->cin; ci++) {                                                   \
            const T *src = xp + ci * d->plane + oy * d->pw + ox;                                   \
            const T *wc = wp + ci * 9 * CONV2D_BN_RELU_CB;                                         \
            _Pragma("GCC unroll 9") for (size_t t = 0; t < 9; t++) {                               \
                const T *s = src + t / 3 * d->pw + t % 3;                                          \
                V x0, x1;                                                                          \
                memcpy(&x0, s, sizeof x0);                                                         \
                memcpy(&x1, s + VL, sizeof x1);                                                    \
                _Pragma("GCC unroll 4") for (size_t k = 0; k < CONV2D_BN_RELU_CB; k++) {           \
                    const T wv = wc[t * CONV2D_BN_RELU_CB + k];                                    \
                    acc[k][0] += wv * x0;                                                          \
                    acc[k][1] += wv * x1;                                                          \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        for (size_t k = 0; k < cb; k++) {                                                          \
            T v[2 * VL];                                                                           \
            memcpy(v, acc[k], sizeof v);                                                           \
            T *o = out + k * d->h * d->w + oy * d->w + ox;                                         \
            for (size_t j = 0; j < nx; j++) o[j] = relu && v[j] < 0 ? 0 : v[j];                    \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* One padded image into out (cout planes of h x w). */                                        \
    __attribute__((unused)) static void conv2d_bn_relu_dimage_##SUF(                               \
        const T *restrict xp, const T *restrict wp, const T *restrict b, T *restrict out,          \
        const conv2d_bn_relu_dims *d, int relu) {                                                  \
        const size_t tw = 2 * sizeof(conv2d_bn_relu_v##SUF) / sizeof(T);                           \
        for (size_t co = 0; co < d->cout; co += CONV2D_BN_RELU_CB) {                               \
            const size_t cb = d->cout - co < CONV2D_BN_RELU_CB ? d->cout - co : CONV2D_BN_RELU_CB; \
            for (size_t oy = 0; oy < d->h; oy++)                                                   \
                for (size_t ox = 0; ox < d->w; ox += tw)                                           \
                    conv2d_bn_relu_tile_##SUF(xp, wp + co * d->cin * 9, b + co,                    \
                                              out + co * d->h * d->w, d, cb, oy, ox,               \
                                              d->w - ox < tw ? d->w - ox : tw, relu);              \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* BN as a scale and shift per channel: s = gamma / sqrt(var + eps), and                       \
     * the folded bias bf = (b - mean) s + beta. p holds bias, gamma, beta,                        \
     * mean, var. */                                                                               \
    static void conv2d_bn_relu_scale_##SUF(const T *const p[5], T *restrict s, T *restrict bf,     \
                                           const conv2d_bn_relu_dims *d) {                         \
        for (size_t co = 0; co < d->cout; co++) {                                                  \
            s[co] = p[1][co] / SQRT(p[4][co] + (T)CONV2D_BN_RELU_EPS);                             \
            bf[co] = (p[0][co] - p[3][co]) * s[co] + p[2][co];                                     \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    /* The unfused BN pass over z (n x cout planes of hw), in place:                               \
     * z = (z - mean) s + beta. */                                                                 \
    static void conv2d_bn_relu_bn_##SUF(T *z, const T *restrict s, const T *restrict mean,         \
                                        const T *restrict beta, const conv2d_bn_relu_dims *d) {    \
        const size_t hw = d->h * d->w;                                                             \
        for (size_t img = 0; img < d->n; img++)                                                    \
            for (size_t co = 0; co < d->cout; co++) {                                              \
                T *zc = z + (img * d->cout + co) * hw;                                             \
                const T sc = s[co], m = mean[co], bt = beta[co];                                   \
                for (size_t i = 0; i < hw; i++) zc[i] = (zc[i] - m) * sc + bt;                     \
            }                                                                                      \
    }                                                                                              \
                                                                                                   \
    /* y = max(z, 0) over n elements. */                                                           \
    static void conv2d_bn_relu_relu_##SUF(const T *restrict z, T *restrict y, size_t n) {          \
        for (size_t i = 0; i < n; i++) y[i] = z[i] < 0 ? 0 : z[i];                                 \
    }                                                                                              \
                                                                                                   \
    /* The unfused conv + bias (z), BN and ReLU passes over all images; x is                       \
     * image img padded into xp by pad(img), w the weights as [cout][cin * 9]. */                  \
    static void conv2d_bn_relu_passes_##SUF(                                                       \
        const kb_args *a, const conv2d_bn_relu_dims *d, const conv2d_bn_relu_ws *ws, const T *w,   \
        const T *const p[5],                                                                       \
        void (*pad)(const kb_args *, const conv2d_bn_relu_dims *, T *, size_t)) {                  \
        const size_t zs = d->cout * d->h * d->w;                                                   \
        T *z = ws->z, *s = (T *)ws->vec + 5 * d->cout;                                             \
        conv2d_bn_relu_pack_##SUF(w, NULL, ws->wp, d);                                             \
        for (size_t img = 0; img < d->n; img++) {                                                  \
            pad(a, d, ws->xp, img);                                                                \
            conv2d_bn_relu_image_##SUF(ws->xp, ws->wp, p[0], z + img * zs, d, 0, ws->zq);          \
        }                                                                                          \
        conv2d_bn_relu_scale_##SUF(p, s, s + d->cout, d);                                          \
        conv2d_bn_relu_bn_##SUF(z, s, p[3], p[2], d);                                              \
    }

CONV2D_BN_RELU_CORE(double, f64, sqrt)
CONV2D_BN_RELU_CORE(float, f32, sqrtf)

static void conv2d_bn_relu_image_f64(const double *restrict xp, const double *restrict wp,
                                     const double *restrict b, double *restrict out,
                                     const conv2d_bn_relu_dims *d, int relu, void *zq) {
    (void)zq;
    conv2d_bn_relu_dimage_f64(xp, wp, b, out, d, relu);
}

#if CONV2D_BN_RELU_FSIMD
#if defined(__AVX512F__)
typedef __m512 conv2d_bn_relu_fv;
#define CONV2D_BN_RELU_MM(op) _mm512_##op
#else
typedef __m256 conv2d_bn_relu_fv;
#define CONV2D_BN_RELU_MM(op) _mm256_##op
#endif

/* FCB output channels (b and wp at the group's first) x FTW positions from
 * q0 of the plane seen as h rows of pw: position q = oy pw + ox reads tap
 * (ky, kx) at xp[q + ky pw + kx], so a tile is FNV plain loads a tap with
 * no row edges; the columns past w are garbage that the caller drops. One
 * fused multiply-add a term, in the reference's order (bias, then ci and
 * the taps). */
static inline void conv2d_bn_relu_ftile(const float *restrict xp, const float *restrict wp,
                                        const float *restrict b, float *restrict zq, size_t qlen,
                                        const conv2d_bn_relu_dims *d, size_t q0, int relu) {
    conv2d_bn_relu_fv acc[CONV2D_BN_RELU_FCB][CONV2D_BN_RELU_FNV];
    _Pragma("GCC unroll 8") for (int k = 0; k < CONV2D_BN_RELU_FCB; k++) {
        _Pragma("GCC unroll 4") for (int v = 0; v < CONV2D_BN_RELU_FNV; v++) acc[k][v] =
            CONV2D_BN_RELU_MM(set1_ps)(b[k]);
    }
    const size_t pw = d->pw;
    for (size_t ci = 0; ci < d->cin; ci++) {
        const float *src = xp + ci * d->plane + q0;
        const float *wc = wp + ci * 9 * CONV2D_BN_RELU_FCB;
        _Pragma("GCC unroll 9") for (int t = 0; t < 9; t++) {
            const float *s = src + (size_t)(t / 3) * pw + (size_t)(t % 3);
            conv2d_bn_relu_fv x[CONV2D_BN_RELU_FNV];
            _Pragma("GCC unroll 4") for (int v = 0; v < CONV2D_BN_RELU_FNV; v++) x[v] =
                CONV2D_BN_RELU_MM(loadu_ps)(s + v * CONV2D_BN_RELU_FVL);
            _Pragma("GCC unroll 8") for (int k = 0; k < CONV2D_BN_RELU_FCB; k++) {
                const conv2d_bn_relu_fv wv =
                    CONV2D_BN_RELU_MM(set1_ps)(wc[t * CONV2D_BN_RELU_FCB + k]);
                _Pragma("GCC unroll 4") for (int v = 0; v < CONV2D_BN_RELU_FNV; v++) acc[k][v] =
                    CONV2D_BN_RELU_MM(fmadd_ps)(wv, x[v], acc[k][v]);
            }
        }
    }
    const conv2d_bn_relu_fv zero = CONV2D_BN_RELU_MM(setzero_ps)();
    _Pragma("GCC unroll 8") for (int k = 0; k < CONV2D_BN_RELU_FCB; k++) {
        _Pragma("GCC unroll 4") for (int v = 0; v < CONV2D_BN_RELU_FNV; v++) {
            const conv2d_bn_relu_fv r =
                relu ? CONV2D_BN_RELU_MM(max_ps)(acc[k][v], zero) : acc[k][v];
            CONV2D_BN_RELU_MM(storeu_ps)(zq + k * qlen + q0 + v * CONV2D_BN_RELU_FVL, r);
        }
    }
}

static void conv2d_bn_relu_image_f32(const float *restrict xp, const float *restrict wp,
                                     const float *restrict b, float *restrict out,
                                     const conv2d_bn_relu_dims *d, int relu, void *zqv) {
    float *zq = zqv;
    const size_t qlen = conv2d_bn_relu_qlen(d), hw = d->h * d->w;
    for (size_t co = 0; co < d->cout; co += CONV2D_BN_RELU_FCB) {
        const size_t cb = d->cout - co < CONV2D_BN_RELU_FCB ? d->cout - co : CONV2D_BN_RELU_FCB;
        float bias[CONV2D_BN_RELU_FCB] = {0};
        memcpy(bias, b + co, cb * sizeof(float));
        for (size_t q0 = 0; q0 < qlen; q0 += CONV2D_BN_RELU_FTW)
            conv2d_bn_relu_ftile(xp, wp + co * d->cin * 9, bias, zq, qlen, d, q0, relu);
        for (size_t k = 0; k < cb; k++)
            for (size_t oy = 0; oy < d->h; oy++)
                memcpy(out + (co + k) * hw + oy * d->w, zq + k * qlen + oy * d->pw,
                       d->w * sizeof(float));
    }
}
#else
static void conv2d_bn_relu_image_f32(const float *restrict xp, const float *restrict wp,
                                     const float *restrict b, float *restrict out,
                                     const conv2d_bn_relu_dims *d, int relu, void *zq) {
    (void)zq;
    conv2d_bn_relu_dimage_f32(xp, wp, b, out, d, relu);
}
#endif

/* ---- fp64 and fp32: inputs used in place, z and y in the run's type ---- */

#define CONV2D_BN_RELU_DIRECT(T, SUF)                                                              \
    static void conv2d_bn_relu_pad_image_##SUF(const kb_args *a, const conv2d_bn_relu_dims *d,     \
                                               T *xp, size_t img) {                                \
        conv2d_bn_relu_pad_##SUF((const T *)a->in[0] + img * d->cin * d->h * d->w, xp, d);         \
    }                                                                                              \
                                                                                                   \
    static int conv2d_bn_relu_unfused_##SUF(const kb_args *a, const void *params) {                \
        const conv2d_bn_relu_dims *d = params;                                                     \
        const conv2d_bn_relu_ws ws = conv2d_bn_relu_ws_of(d, a->workspace, sizeof(T));             \
        const T *const p[5] = {a->in[2], a->in[3], a->in[4], a->in[5], a->in[6]};                  \
        conv2d_bn_relu_passes_##SUF(a, d, &ws, a->in[1], p, conv2d_bn_relu_pad_image_##SUF);       \
        conv2d_bn_relu_relu_##SUF(ws.z, a->out[0], d->n * d->cout * d->h * d->w);                  \
        return 0;                                                                                  \
    }                                                                                              \
                                                                                                   \
    static int conv2d_bn_relu_folded_##SUF(const kb_args *a, const void *params) {                 \
        const conv2d_bn_relu_dims *d = params;                                                     \
        const conv2d_bn_relu_ws ws = conv2d_bn_relu_ws_of(d, a->workspace, sizeof(T));             \
        const T *const p[5] = {a->in[2], a->in[3], a->in[4], a->in[5], a->in[6]};                  \
        const size_t ys = d->cout * d->h * d->w;                                                   \
        T *s = (T *)ws.vec + 5 * d->cout, *bf = s + d->cout;                                       \
        conv2d_bn_relu_scale_##SUF(p, s, bf, d);                                                   \
        conv2d_bn_relu_pack_##SUF(a->in[1], s, ws.wp, d);                                          \
        for (size_t img = 0; img < d->n; img++) {                                                  \
            conv2d_bn_relu_pad_image_##SUF(a, d, ws.xp, img);                                      \
            conv2d_bn_relu_image_##SUF(ws.xp, ws.wp, bf, (T *)a->out[0] + img * ys, d, 1, ws.zq);  \
        }                                                                                          \
        return 0;                                                                                  \
    }

CONV2D_BN_RELU_DIRECT(double, f64)
CONV2D_BN_RELU_DIRECT(float, f32)

/* ---- fp16 and bf16: everything widened to float in the workspace ---- */

/* Widens the weights into ws->w and bias, gamma, beta, mean, var into
 * ws->vec; p gets the five vectors. */
static void conv2d_bn_relu_widen(const kb_args *a, const conv2d_bn_relu_dims *d,
                                 const conv2d_bn_relu_ws *ws, const float *p[5]) {
    float *vec = ws->vec;
    kb_cpu_to_f32(ws->w, a->in[1], a->prec, 0, d->cout * d->cin * 9);
    for (int i = 0; i < 5; i++) {
        kb_cpu_to_f32(vec + (size_t)i * d->cout, a->in[2 + i], a->prec, 0, d->cout);
        p[i] = vec + (size_t)i * d->cout;
    }
}

/* Image img of x, widened into the padded buffer. */
static void conv2d_bn_relu_pad_half(const kb_args *a, const conv2d_bn_relu_dims *d, float *xp,
                                    size_t img) {
    conv2d_bn_relu_border_f32(xp, d);
    for (size_t ci = 0; ci < d->cin; ci++)
        for (size_t r = 0; r < d->h; r++)
            kb_cpu_to_f32(xp + ci * d->plane + (r + 1) * d->pw + 1, a->in[0], a->prec,
                          ((img * d->cin + ci) * d->h + r) * d->w, d->w);
}

static int conv2d_bn_relu_unfused_half(const kb_args *a, const void *params) {
    const conv2d_bn_relu_dims *d = params;
    const conv2d_bn_relu_ws ws = conv2d_bn_relu_ws_of(d, a->workspace, sizeof(float));
    const float *p[5];
    conv2d_bn_relu_widen(a, d, &ws, p);
    conv2d_bn_relu_passes_f32(a, d, &ws, ws.w, p, conv2d_bn_relu_pad_half);
    const size_t n = d->n * d->cout * d->h * d->w;
    const float *z = ws.z;
    float yf[KB_CPU_BLOCK];
    for (size_t off = 0; off < n; off += KB_CPU_BLOCK) {
        const size_t m = n - off < KB_CPU_BLOCK ? n - off : KB_CPU_BLOCK;
        conv2d_bn_relu_relu_f32(z + off, yf, m);
        kb_cpu_from_f32(a->out[0], a->prec, off, yf, m);
    }
    return 0;
}

static int conv2d_bn_relu_folded_half(const kb_args *a, const void *params) {
    const conv2d_bn_relu_dims *d = params;
    const conv2d_bn_relu_ws ws = conv2d_bn_relu_ws_of(d, a->workspace, sizeof(float));
    const float *p[5];
    conv2d_bn_relu_widen(a, d, &ws, p);
    float *s = (float *)ws.vec + 5 * d->cout, *bf = s + d->cout;
    conv2d_bn_relu_scale_f32(p, s, bf, d);
    conv2d_bn_relu_pack_f32(ws.w, s, ws.wp, d);
    const size_t ys = d->cout * d->h * d->w;
    for (size_t img = 0; img < d->n; img++) {
        conv2d_bn_relu_pad_half(a, d, ws.xp, img);
        conv2d_bn_relu_image_f32(ws.xp, ws.wp, bf, ws.z, d, 1, ws.zq);
        kb_cpu_from_f32(a->out[0], a->prec, img * ys, ws.z, ys);
    }
    return 0;
}

/* ---- entry points ---- */

static int conv2d_bn_relu_run(const kb_args *a, const kb_cpu_paths *paths) {
    const conv2d_bn_relu_dims d = conv2d_bn_relu_dims_of(a->c);
    return kb_cpu_dispatch(a, paths, &d);
}

static int conv2d_bn_relu_unfused(const kb_args *a) {
    static const kb_cpu_paths paths = {conv2d_bn_relu_unfused_f64, conv2d_bn_relu_unfused_f32,
                                       conv2d_bn_relu_unfused_half};
    return conv2d_bn_relu_run(a, &paths);
}

static int conv2d_bn_relu_folded(const kb_args *a) {
    static const kb_cpu_paths paths = {conv2d_bn_relu_folded_f64, conv2d_bn_relu_folded_f32,
                                       conv2d_bn_relu_folded_half};
    return conv2d_bn_relu_run(a, &paths);
}

static const kb_kernel conv2d_bn_relu_kernel = {
    .layout = conv2d_bn_relu_layout,
    .impls = {{"cpu", "unfused", conv2d_bn_relu_unfused}, {"cpu", "folded", conv2d_bn_relu_folded}},
};

KB_REGISTER_KERNEL(conv2d_bn_relu_kernel)
