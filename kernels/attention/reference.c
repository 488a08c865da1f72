/* Reference attention, O = softmax(Q K^T / sqrt(d)) V for each (batch, head),
 * non-causal: per query row the scores, a two-pass softmax (max, then the sum
 * of e^(s - max)) and the weighted sum of the value rows, all in double. */
#include "kb/kernel.h"

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
            double m = -INFINITY, sum = 0.0;
            for (size_t j = 0; j < seq; j++) {
                double dot = 0.0;
                for (size_t e = 0; e < d; e++) dot += q[i * d + e] * k[j * d + e];
                s[j] = dot * scale;
                m = s[j] > m ? s[j] : m;
            }
            for (size_t j = 0; j < seq; j++) {
                s[j] = exp(s[j] - m);
                sum += s[j];
            }
            for (size_t e = 0; e < d; e++) {
                double acc = 0.0;
                for (size_t j = 0; j < seq; j++) acc += s[j] * v[j * d + e];
                o[i * d + e] = acc / sum;
            }
        }
    }
    free(s);
}

KB_REGISTER_REFERENCE(attention_reference)
