/* Reference STREAM operations: op 1 copies, y = a (there is no input b);
 * op 2 is the triad y = a + 3 b, evaluated as fma(3, b, a): the exact
 * a + 3 b rounded once to double. */
#include "kb/kernel.h"

#include <math.h>

static void bandwidth_reference(const kb_case *c, const double *const *in, double *const *out) {
    const size_t n = (size_t)kb_case_dim(c, "n");
    const int64_t op = kb_case_dim(c, "op");
    const double *a = in[0];
    double *y = out[0];
    if (op == 1)
        for (size_t i = 0; i < n; i++) y[i] = a[i];
    else /* the layout declares b only for op 2 */
        for (size_t i = 0; i < n; i++) y[i] = fma(3.0, in[1][i], a[i]);
}

KB_REGISTER_REFERENCE(bandwidth_reference)
