/* What gemm.c and gemm.cu share: the scalars of c = alpha a b + beta c0
 * (reference.c states them again, on its own). */
#ifndef KERNELS_GEMM_H
#define KERNELS_GEMM_H

#define GEMM_ALPHA 1.0
#define GEMM_BETA  0.5

#endif
