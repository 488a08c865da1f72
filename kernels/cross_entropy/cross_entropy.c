/* Cross-entropy loss over a batch of logits rows:
 *   loss = mean over rows of logsumexp(x) - x[label],
 * numerically stable (the row max m is subtracted: logsumexp = m + log sum
 * e^(x - m)). Two variants:
 *   unfused: pass 1 writes the softmax probabilities of every row to a
 *            [batch, classes] workspace matrix; pass 2 reads p[label] of each
 *            row, NLL = -log p[label], and takes the mean;
 *   fused:   one pass per row (max, sum of exps, pick the label), no
 *            probability matrix.
 * fp64 computes in double (kb_exp, libm log), the others in float (kb_expf,
 * logf), fp16/bf16 rows widened into float scratch; the probabilities are in
 * that arithmetic type (fp16 storage would not do: p[label] reaches e^-20,
 * below fp16's range). Sums use KB_CPU_LANES partial sums.
 * Manifest bytes: both variants read the logits and labels once and write the
 * loss; unfused also writes the probability matrix and reads one probability
 * per row back, 4 bytes each (float) for fp32/fp16/bf16 and 8 (double) for
 * fp64, the manifest's `acc`. */
#include "kb/cpu.h"
#include "kb/kernel.h"
#include "kb/vmath/vmath.h"
#include "kb/vmath/vmath8.h"

#include <math.h>
#include <stdio.h>

/* Inputs: logits [batch, classes] and labels [batch]. The labels are a
 * tensor in the run's precision like every input, drawn uniform in
 * [0, classes); the class of row r is floor(labels[r]) clamped to
 * [0, classes - 1], here, in the GPU source and in the reference. Rounding
 * to fp16/bf16 (done before anyone sees the inputs) keeps an integer-valued
 * or in-range value, so every precision gets a valid class.
 * Workspace: [batch] per-row losses (double at most), then the unfused
 * variant's [batch, classes] probabilities (double at most), then one row of
 * logits in float for fp16/bf16 on the CPU. */
static void cross_entropy_layout(const kb_case *c, kb_layout *l) {
    size_t batch = (size_t)kb_case_dim(c, "batch"), classes = (size_t)kb_case_dim(c, "classes");
    kb_layout_input(l, "logits", batch * classes, KB_DIST_NORMAL, 0.0, 3.0);
    kb_layout_input(l, "labels", batch, KB_DIST_UNIFORM, 0.0, (double)classes);
    kb_layout_output(l, "loss", 1);
    kb_layout_workspace(l, (batch + batch * classes) * sizeof(double) + classes * sizeof(float));
}

/* The class of row r (see the layout). */
static size_t cross_entropy_label(const kb_args *a, size_t r, size_t classes) {
    double v = floor(kb_load_f64(a->in[1], a->prec, r));
    return v < 0.0 ? 0 : (v > (double)(classes - 1) ? classes - 1 : (size_t)v);
}

/* Row r of the logits in T: in place for fp64/fp32, widened into scratch for
 * fp16/bf16. */
static const double *cross_entropy_row_f64(const kb_args *a, float *scratch, size_t r, size_t n) {
    (void)scratch;
    return (const double *)a->in[0] + r * n;
}

static const float *cross_entropy_row_f32(const kb_args *a, float *scratch, size_t r, size_t n) {
    if (a->prec == KB_FP32) return (const float *)a->in[0] + r * n;
    kb_cpu_to_f32(scratch, a->in[0], a->prec, r * n, n);
    return scratch;
}

#if KB_VMATH8
/* cross_entropy_sumexp_f32 on the widest vectors: the KB_CPU_LANES partial
 * sums held as whole vectors, each lane adding what the scalar loop's lane
 * adds, in its order, with kb_expfv (kb_expf's bits): the same result, bit
 * for bit, without leaving the exps to a loop the compiler does not
 * vectorise. */
static float cross_entropy_sumexpv_f32(const float *restrict x, float *restrict p, size_t n,
                                       float m) {
    enum { K = KB_CPU_LANES / KB_VLANES };
    const size_t nv = n - n % KB_CPU_LANES;
    const kb_f32v mv = KB_MMV(set1_ps)(m);
    kb_f32v acc[K];
    for (int k = 0; k < K; k++) acc[k] = KB_MMV(setzero_ps)();
    for (size_t i = 0; i < nv; i += KB_CPU_LANES)
        for (int k = 0; k < K; k++) {
            const size_t o = i + (size_t)k * KB_VLANES;
            const kb_f32v e = kb_expfv(KB_MMV(sub_ps)(KB_MMV(loadu_ps)(x + o), mv));
            if (p) KB_MMV(storeu_ps)(p + o, e);
            acc[k] = KB_MMV(add_ps)(acc[k], e);
        }
    float lanes[KB_CPU_LANES];
    for (int k = 0; k < K; k++) KB_MMV(storeu_ps)(lanes + k * KB_VLANES, acc[k]);
    float sum = kb_cpu_lanes_sum_f32(lanes);
    for (size_t i = nv; i < n; i++) {
        const float e = kb_expf(x[i] - m);
        if (p) p[i] = e;
        sum += e;
    }
    return sum;
}
#define CROSS_ENTROPY_SUMEXP_f32 cross_entropy_sumexpv_f32
#else
#define CROSS_ENTROPY_SUMEXP_f32 cross_entropy_sumexp_f32
#endif
#define CROSS_ENTROPY_SUMEXP_f64 cross_entropy_sumexp_f64

/* Per type T: sum of e^(x - m) (writing the exps to p unless p is NULL),
 * the fused row loss, the softmax row and the mean of the per-row losses. */
#define CROSS_ENTROPY_ROW(T, SUFFIX, EXP, LOG)                                                     \
    __attribute__((unused)) static T cross_entropy_sumexp_##SUFFIX(const T *restrict x,            \
                                                                   T *restrict p, size_t n, T m) { \
        const size_t nv = n - n % KB_CPU_LANES;                                                    \
        T acc[KB_CPU_LANES] = {0};                                                                 \
        if (p)                                                                                     \
            for (size_t i = 0; i < nv; i += KB_CPU_LANES)                                          \
                for (size_t j = 0; j < KB_CPU_LANES; j++) acc[j] += p[i + j] = EXP(x[i + j] - m);  \
        else                                                                                       \
            for (size_t i = 0; i < nv; i += KB_CPU_LANES)                                          \
                for (size_t j = 0; j < KB_CPU_LANES; j++) acc[j] += EXP(x[i + j] - m);             \
        T sum = kb_cpu_lanes_sum_##SUFFIX(acc);                                                    \
        for (size_t i = nv; i < n; i++) {                                                          \
            T e = EXP(x[i] - m);                                                                   \
            if (p) p[i] = e;                                                                       \
            sum += e;                                                                              \
        }                                                                                          \
        return sum;                                                                                \
    }                                                                                              \
                                                                                                   \
    /* logsumexp(x) - x[label] = (m - x[label]) + log sum e^(x - m) */                             \
    static T cross_entropy_row_loss_##SUFFIX(const T *restrict x, size_t n, size_t label) {        \
        const T m = kb_cpu_max_##SUFFIX(x, n);                                                     \
        return (m - x[label]) + LOG(CROSS_ENTROPY_SUMEXP_##SUFFIX(x, NULL, n, m));                 \
    }                                                                                              \
                                                                                                   \
    static void cross_entropy_softmax_##SUFFIX(const T *restrict x, T *restrict p, size_t n) {     \
        const T inv = (T)1 / CROSS_ENTROPY_SUMEXP_##SUFFIX(x, p, n, kb_cpu_max_##SUFFIX(x, n));    \
        for (size_t i = 0; i < n; i++) p[i] *= inv;                                                \
    }

CROSS_ENTROPY_ROW(double, f64, kb_exp, log)
CROSS_ENTROPY_ROW(float, f32, kb_expf, logf)

/* The workspace of one call (see the layout). */
typedef struct cross_entropy_ws {
    void *row_loss, *probs;
    float *scratch;
} cross_entropy_ws;

/* One call: its workspace, shape and variant. */
typedef struct cross_entropy_call {
    cross_entropy_ws w;
    size_t batch, n;
    int fused;
} cross_entropy_call;

/* The two variants per type T: the mean loss. */
#define CROSS_ENTROPY_VARIANTS(T, SUFFIX, LOG)                                                     \
    static T cross_entropy_fused_##SUFFIX(const kb_args *a, const cross_entropy_ws *w,             \
                                          size_t batch, size_t n) {                                \
        T *row_loss = w->row_loss;                                                                 \
        for (size_t r = 0; r < batch; r++)                                                         \
            row_loss[r] = cross_entropy_row_loss_##SUFFIX(                                         \
                cross_entropy_row_##SUFFIX(a, w->scratch, r, n), n, cross_entropy_label(a, r, n)); \
        return kb_cpu_sum_##SUFFIX(row_loss, batch) / (T)batch;                                    \
    }                                                                                              \
                                                                                                   \
    static T cross_entropy_unfused_##SUFFIX(const kb_args *a, const cross_entropy_ws *w,           \
                                            size_t batch, size_t n) {                              \
        T *row_loss = w->row_loss, *probs = w->probs;                                              \
        for (size_t r = 0; r < batch; r++) /* pass 1: softmax rows */                              \
            cross_entropy_softmax_##SUFFIX(cross_entropy_row_##SUFFIX(a, w->scratch, r, n),        \
                                           probs + r * n, n);                                      \
        for (size_t r = 0; r < batch; r++) /* pass 2: NLL */                                       \
            row_loss[r] = -LOG(probs[r * n + cross_entropy_label(a, r, n)]);                       \
        return kb_cpu_sum_##SUFFIX(row_loss, batch) / (T)batch;                                    \
    }                                                                                              \
                                                                                                   \
    /* The variant's loss, stored (from a float, fp16/bf16 round once). */                         \
    static int cross_entropy_path_##SUFFIX(const kb_args *a, const void *params) {                 \
        const cross_entropy_call *c = params;                                                      \
        kb_store_f64(a->out[0], a->prec, 0,                                                        \
                     c->fused ? cross_entropy_fused_##SUFFIX(a, &c->w, c->batch, c->n)             \
                              : cross_entropy_unfused_##SUFFIX(a, &c->w, c->batch, c->n));         \
        return 0;                                                                                  \
    }

CROSS_ENTROPY_VARIANTS(double, f64, log)
CROSS_ENTROPY_VARIANTS(float, f32, logf)

static int cross_entropy_run(const kb_args *a, int fused) {
    /* fp16/bf16 compute in float, so the store rounds once */
    static const kb_cpu_paths paths = {cross_entropy_path_f64, cross_entropy_path_f32,
                                       cross_entropy_path_f32};
    const size_t batch = (size_t)kb_case_dim(a->c, "batch");
    const size_t n = (size_t)kb_case_dim(a->c, "classes");
    char *ws = a->workspace;
    const cross_entropy_call c = {
        {ws, ws + batch * sizeof(double), (float *)(ws + (batch + batch * n) * sizeof(double))},
        batch,
        n,
        fused};
    return kb_cpu_dispatch(a, &paths, &c);
}

static int cross_entropy_unfused(const kb_args *a) {
    return cross_entropy_run(a, 0);
}

static int cross_entropy_fused(const kb_args *a) {
    return cross_entropy_run(a, 1);
}

static const kb_kernel cross_entropy_kernel = {
    .layout = cross_entropy_layout,
    .impls = {{"cpu", "unfused", cross_entropy_unfused}, {"cpu", "fused", cross_entropy_fused}},
};

KB_REGISTER_KERNEL(cross_entropy_kernel)
