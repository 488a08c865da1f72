/* Reference attention, O = softmax(Q K^T / sqrt(d)) V for each (batch, head),
 * non-causal: per query row the scores, a two-pass softmax (max, then the sum
 * of e^(s - max)) and the weighted sum of the value rows divided by that sum,
 * all in double. */
#include "kb/kernel.h"
#include "kbref/gemm.h"
#include "kbref/softmax.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void attention_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t bh = (size_t)(kb_case_dim(c, "batch") * kb_case_dim(c, "heads"));
    const size_t seq = (size_t)kb_case_dim(c, "seq"), d = (size_t)kb_case_dim(c, "d");
    const double scale = 1.0 / sqrt((double)d);
    double *s = malloc(seq * sizeof *s);
    if (!s) {
        fprintf(stderr, "attention reference: out of memory\n");
        abort();
    }
    for (size_t h = 0; h < bh; h++) {
        const double *q = in[0] + h * seq * d, *k = in[1] + h * seq * d, *v = in[2] + h * seq * d;
        double *o = out[0] + h * seq * d;
        for (size_t i = 0; i < seq; i++) {
            kbref_gemm(KBREF_TRANS, 1, seq, d, q + i * d, d, k, d, 0.0, s, seq);
            for (size_t j = 0; j < seq; j++) s[j] *= scale;
            const double sum = kbref_exp_sum_row(s, s, seq, kbref_max_row(s, seq));
            kbref_gemm(KBREF_NOTRANS, 1, d, seq, s, seq, v, d, 0.0, o + i * d, d);
            for (size_t e = 0; e < d; e++) o[i * d + e] /= sum;
        }
    }
    free(s);
}

KB_REGISTER_REFERENCE(attention_reference)
