/* Double-precision references of the kernels (reference/<name>.c). Inputs and
 * outputs are in the order of the kernel's layout. */
#ifndef KB_REFERENCE_H
#define KB_REFERENCE_H

#include "kb/kernel.h"

void kb_reference_layernorm(const kb_case *c, const double *const *in, double *const *out);
void kb_reference_gelu(const kb_case *c, const double *const *in, double *const *out);
void kb_reference_swish(const kb_case *c, const double *const *in, double *const *out);
void kb_reference_softmax(const kb_case *c, const double *const *in, double *const *out);

#endif
