/* Elementwise activations in double, accurate over the whole range: none
 * overflows or cancels for large |x|. */
#ifndef KBREF_ACTIVATION_H
#define KBREF_ACTIVATION_H

#ifdef __cplusplus
extern "C" {
#endif

/* GELU, erf form: 0.5 x (1 + erf(x / sqrt(2))), evaluated as
 * 0.5 x erfc(-x / sqrt(2)), which keeps its relative accuracy for x << 0
 * where 1 + erf cancels to nothing. Computed in long double and rounded
 * once: within 1 ulp of GELU over all doubles where long double carries at
 * least 64 bits (x87, binary128). -inf gives -0, +inf gives +inf. */
double kbref_gelu(double x);

/* The logistic function 1 / (1 + e^-x), within 3 ulp over all doubles;
 * e^-x never overflows (e^x is taken where 1 + e^x is 1). */
double kbref_sigmoid(double x);

/* Swish (SiLU): x sigmoid(x) as x / (1 + e^-x), within 3 ulp over all
 * doubles, its result subnormal below x = -708 included; -inf gives -0. */
double kbref_swish(double x);

/* max(x, 0); NaN gives 0, as a comparison x > 0 does. */
double kbref_relu(double x);

#ifdef __cplusplus
}
#endif

#endif
