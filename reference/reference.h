/* Double-precision references of the kernels (reference/<name>.c). Inputs and
 * outputs are in the order of the kernel's layout. */
#ifndef KB_REFERENCE_H
#define KB_REFERENCE_H

#include "kb/kernel.h"

void kb_reference_layernorm(const kb_case *c, const double *const *in, double *const *out);
void kb_reference_gelu(const kb_case *c, const double *const *in, double *const *out);
void kb_reference_swish(const kb_case *c, const double *const *in, double *const *out);
void kb_reference_softmax(const kb_case *c, const double *const *in, double *const *out);
void kb_reference_mse(const kb_case *c, const double *const *in, double *const *out);
void kb_reference_cross_entropy(const kb_case *c, const double *const *in, double *const *out);
void kb_reference_gemm(const kb_case *c, const double *const *in, double *const *out);
void kb_reference_bandwidth(const kb_case *c, const double *const *in, double *const *out);
void kb_reference_linear(const kb_case *c, const double *const *in, double *const *out);
void kb_reference_conv2d_bn_relu(const kb_case *c, const double *const *in, double *const *out);
void kb_reference_attention(const kb_case *c, const double *const *in, double *const *out);
void kb_reference_poisson(const kb_case *c, const double *const *in, double *const *out);

#endif
