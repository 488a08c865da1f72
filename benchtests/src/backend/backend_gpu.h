/* What the parts of the GPU backend share: the device it runs on, and the
 * hooks each part gives the backend's table (backend_gpu.c: the device's
 * set-up, the timing and the table; backend_gpu_memory.c: its memory;
 * backend_gpu_info.c: what it says about the device). Like them, one
 * source for CUDA and HIP, built once per runtime into kb_backend_<runtime>
 * (sources.cmake: KB_SRC_backend_gpu). */
#ifndef KB_BACKEND_GPU_H
#define KB_BACKEND_GPU_H

#include "backend/backend.h"
#include "base/error.h"
#include "kb/gpu/runtime.h"
#include "machine/devmon.h"

#include <cjson/cJSON.h>
#include <stddef.h>

typedef kb_gpu(Error_t) gpu_error;

#if defined(KB_GPU_HIP)
#define KB_GPU_MONITOR KB_DEVMON_ROCM_SMI
#else
#define KB_GPU_MONITOR KB_DEVMON_NVML
#endif

/* The device, chosen and set up by the backend's `available` hook. */
typedef struct kb__gpu_device {
    int index;               /* the runtime's number for it; -1 until chosen */
    kb_gpu_props props;      /* read once it is chosen */
    kb_gpu(Stream_t) stream; /* the kernels launch on it and the events time it */
    kb_devmon monitor;       /* NVML or ROCm SMI for it, where loadable */
    char bus_id[32];         /* its PCI bus id */
} kb__gpu_device;
extern kb__gpu_device kb__gpu_dev;

/* A runtime error as the harness reports it, naming the device: into err,
 * or (for the hooks whose interface has no error text) to stderr, the
 * caller reporting the failure; both return -1. */
int kb__gpu_fail(kb_err *err, gpu_error e, const char *what);
int kb__gpu_complain(gpu_error e, const char *what);

/* backend_gpu_memory.c: kb_backend's hooks of the same names. */
void *kb__gpu_mem_alloc(size_t bytes, kb_err *err);
void kb__gpu_mem_release(void *p);
int kb__gpu_mem_upload(void *dst, const void *src, size_t bytes, kb_err *err);
int kb__gpu_mem_download(void *dst, const void *src, size_t bytes, kb_err *err);
int kb__gpu_mem_flush_caches(void);

/* backend_gpu_info.c: kb_backend's hooks of the same names. */
int kb__gpu_info_memory_levels(kb_mem_level *levels, int max);
int kb__gpu_info_peak_compute(kb_prec p, kb_compute_unit unit, double *gflops, char *how,
                              size_t how_size, kb_err *err);
int kb__gpu_info_clock_limits(unsigned *reasons);
int kb__gpu_info_energy_j(double *joules);
int kb__gpu_info_memory_used_mib(double *mib);
void kb__gpu_info_identify(char *profile, size_t psize, char *hardware_id, size_t hsize);
void kb__gpu_info_describe(cJSON *env);

#endif
