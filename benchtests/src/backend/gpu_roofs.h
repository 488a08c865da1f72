/* The compute roofs of the GPU backends (gpu_roofs.cu, device code for
 * CUDA and HIP from one source): what backend_gpu.c's peak_compute hook
 * reports. Each returns 0 and the attainable GFLOP/s with one line on how
 * it was measured (`how`); 1 when there is no such figure (`how` says
 * why); -1 on a failure (`why` holds the runtime's or library's message).
 * Both run on `stream` of the current device and wait for it. */
#ifndef KB_GPU_ROOFS_H
#define KB_GPU_ROOFS_H

#include "kb/prec.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Multiply-add throughput of the SIMT pipes: fp64 fma, fp32 fmaf, fp16
 * and bf16 packed __hfma2 (kb/gpu/peak.h has the geometry). */
int kb_gpu_peak_fma(kb_prec p, void *stream, double *gflops, char *how, size_t how_size, char *why,
                    size_t why_size);

/* Matrix units through the vendor's GEMM (CUDA: cublasGemmEx). */
int kb_gpu_peak_matrix(kb_prec p, void *stream, double *gflops, char *how, size_t how_size,
                       char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
