#include "kbref/activation.h"

#include <math.h>

/* Below -708, e^-x would overflow (past -709.78) and 1 + e^x is 1. */
#define KBREF_EXP_NEG_LIMIT (-708.0)

/* 1 / (1 + e^-x): at most ~2.6 ulp (exp's half ulp reaching the sum in
 * full, the sum's and the quotient's roundings). Below -708, e^x itself. */
double kbref_sigmoid(double x) {
    if (x < KBREF_EXP_NEG_LIMIT) return exp(x);
    return 1.0 / (1.0 + exp(-x));
}

/* x / (1 + e^-x), within the same ~2.6 ulp, for x >= -708. Below, x e^x:
 * in double e^x would be subnormal from -708.4 on and its rounding, a
 * fixed step of 2^-1074, multiplied by |x| (hundreds of the result's
 * steps), so the product is formed in long double, whose range keeps e^x
 * normal, and rounded once. */
double kbref_swish(double x) {
    if (x >= KBREF_EXP_NEG_LIMIT) return x / (1.0 + exp(-x));
    if (x == -INFINITY) return -0.0;
    return (double)((long double)x * expl(x));
}
