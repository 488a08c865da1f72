/* Reference erf in double: the C library's, correctly rounded to within
 * an ulp of double, far finer than either precision's tolerance. */
#include "kb/kernel.h"

#include <math.h>

static void sleef_erf_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t n = (size_t)kb_case_dim(c, "n");
    for (size_t i = 0; i < n; i++) out[0][i] = erf(in[0][i]);
}

KB_REGISTER_REFERENCE(sleef_erf_reference)
