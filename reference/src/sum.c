#include "kbref/sum.h"

#include <math.h>

void kbref_sum_add(kbref_sum *s, double term) {
    const double t = s->sum + term;
    /* The larger operand's low bits are exact in t; what is lost is the
     * smaller one's, recovered exactly by the subtraction. */
    s->comp += fabs(s->sum) >= fabs(term) ? (s->sum - t) + term : (term - t) + s->sum;
    s->sum = t;
}

double kbref_sum_value(const kbref_sum *s) {
    return s->sum + s->comp;
}

double kbref_sum_row(const double *x, size_t n) {
    kbref_sum s = KBREF_SUM_INIT;
    for (size_t i = 0; i < n; i++) kbref_sum_add(&s, x[i]);
    return kbref_sum_value(&s);
}
