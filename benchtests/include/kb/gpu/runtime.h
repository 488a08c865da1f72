/* The host side of the GPU portability layer: which runtime this file is
 * built for and its names. Both runtime APIs are plain C, so the harness's
 * GPU backend (C) and the kernels' GPU sources (CUDA/HIP C++) share it.
 *
 * HIP when compiled by hipcc (__HIPCC__) or with KB_GPU_HIP defined, CUDA
 * otherwise. kb_gpu(Malloc) is cudaMalloc or hipMalloc, and so on for every
 * runtime name whose two spellings differ only in the prefix.
 * KB_GPU_ATTR_TIMER_KHZ is the rate of the device-side clock64(): the
 * multiprocessor's clock on NVIDIA, a timer of its own on AMD. */
#ifndef KB_GPU_RUNTIME_H
#define KB_GPU_RUNTIME_H

#if defined(__HIPCC__) && !defined(KB_GPU_HIP)
#define KB_GPU_HIP 1
#endif

#if defined(KB_GPU_HIP)
#include <hip/hip_runtime_api.h>
#define kb_gpu(name)             hip##name
#define KB_GPU_BACKEND           "hip"
#define KB_GPU_ATTR_SMS          hipDeviceAttributeMultiprocessorCount
#define KB_GPU_ATTR_CLOCK_KHZ    hipDeviceAttributeClockRate
#define KB_GPU_ATTR_TIMER_KHZ    hipDeviceAttributeClockInstructionRate
#define KB_GPU_ATTR_MEMCLOCK_KHZ hipDeviceAttributeMemoryClockRate
#define KB_GPU_ATTR_BUS_BITS     hipDeviceAttributeMemoryBusWidth
#define KB_GPU_ATTR_L2_BYTES     hipDeviceAttributeL2CacheSize
#define KB_GPU_ATTR_WARP         hipDeviceAttributeWarpSize
#define KB_GPU_ATTR_GRID_X       hipDeviceAttributeMaxGridDimX
#define KB_GPU_ATTR_GRID_Y       hipDeviceAttributeMaxGridDimY
#define KB_GPU_ATTR_GRID_Z       hipDeviceAttributeMaxGridDimZ
#define KB_GPU_ATTR_SMEM_BLOCK   hipDeviceAttributeMaxSharedMemoryPerBlock
#define KB_GPU_ATTR_SM_THREADS   hipDeviceAttributeMaxThreadsPerMultiProcessor
/* AMD: blocks x threads in any one grid dimension stay below 2^32. */
#define KB_GPU_GRID_DIM_THREADS 4294967296LL
typedef hipDeviceProp_t kb_gpu_props;
typedef hipFuncAttributes kb_gpu_func_attrs;
#else
#include <cuda_runtime_api.h>
#define kb_gpu(name)             cuda##name
#define KB_GPU_BACKEND           "cuda"
#define KB_GPU_ATTR_SMS          cudaDevAttrMultiProcessorCount
#define KB_GPU_ATTR_CLOCK_KHZ    cudaDevAttrClockRate
#define KB_GPU_ATTR_TIMER_KHZ    cudaDevAttrClockRate
#define KB_GPU_ATTR_MEMCLOCK_KHZ cudaDevAttrMemoryClockRate
#define KB_GPU_ATTR_BUS_BITS     cudaDevAttrGlobalMemoryBusWidth
#define KB_GPU_ATTR_L2_BYTES     cudaDevAttrL2CacheSize
#define KB_GPU_ATTR_WARP         cudaDevAttrWarpSize
#define KB_GPU_ATTR_GRID_X       cudaDevAttrMaxGridDimX
#define KB_GPU_ATTR_GRID_Y       cudaDevAttrMaxGridDimY
#define KB_GPU_ATTR_GRID_Z       cudaDevAttrMaxGridDimZ
#define KB_GPU_ATTR_SMEM_BLOCK   cudaDevAttrMaxSharedMemoryPerBlock
#define KB_GPU_ATTR_SM_THREADS   cudaDevAttrMaxThreadsPerMultiProcessor
#define KB_GPU_GRID_DIM_THREADS  0LL /* no limit beyond the grid's own */
typedef struct cudaDeviceProp kb_gpu_props;
typedef struct cudaFuncAttributes kb_gpu_func_attrs;
#endif

#endif
