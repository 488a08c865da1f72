/* What layernorm.c and layernorm.cu share: the epsilon added to the
 * variance (the reference states it again, on its own). */
#ifndef KERNELS_LAYERNORM_H
#define KERNELS_LAYERNORM_H

#define LAYERNORM_EPS 1e-5

#endif
