/* What bandwidth.c and bandwidth.cu share: reading the case's operation. */
#ifndef KERNELS_BANDWIDTH_H
#define KERNELS_BANDWIDTH_H

#include "kb/kernel.h"

#include <stdio.h>

enum { BANDWIDTH_COPY = 1, BANDWIDTH_TRIAD = 2 };

/* The case's dim op: BANDWIDTH_COPY or BANDWIDTH_TRIAD; 0 after saying why
 * when it is neither. */
static inline int bandwidth_op(const kb_case *c) {
    const int64_t op = kb_case_dim(c, "op");
    if (op == BANDWIDTH_COPY || op == BANDWIDTH_TRIAD) return (int)op;
    fprintf(stderr, "bandwidth: case '%s': dim op must be 1 (copy) or 2 (triad), not %lld\n",
            kb_case_name(c), (long long)op);
    return 0;
}

#endif
