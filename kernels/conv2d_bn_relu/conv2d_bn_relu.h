/* What conv2d_bn_relu.c and .cu share: batchnorm's epsilon (the reference
 * states it again, on its own). */
#ifndef KERNELS_CONV2D_BN_RELU_H
#define KERNELS_CONV2D_BN_RELU_H

#define CONV2D_BN_RELU_EPS 1e-5

#endif
