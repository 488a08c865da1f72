/* Holding a GPU stream (gpu_hold.h). One source for nvcc and hipcc. */
#include "backend/gpu_hold.h"

#include "kb/gpu.h"

/* Formats a failure into `why`; returns -1. */
static int hold_fail(char *why, size_t size, const char *what, kb_gpu(Error_t) e) {
    snprintf(why, size, "holding the stream: %s: %s", what, kb_gpu(GetErrorString)(e));
    return -1;
}

/* One thread waits until the host releases it or its time is up. The flags
 * are read through volatile loads, which go to the host's memory each time. */
__global__ void KB_LAUNCH_BOUNDS(1) kb__hold(volatile int *flags, long long timeout_clks) {
    const long long t0 = clock64();
    while (flags[0] == 0) {
        if (clock64() - t0 > timeout_clks) {
            flags[1] = 1;
            return;
        }
    }
}

extern "C" int kb_gpu_hold_open(kb_gpu_hold *h, double timeout_ms, char *why, size_t why_size) {
    h->flags = nullptr;
    h->device_flags = nullptr;
    void *host = nullptr;
#if defined(KB_GPU_HIP)
    /* Coherent: ROCm's default host memory may be seen by the device only
     * at a synchronisation, which would leave the kernel waiting out its
     * time limit on every hold. */
    kb_gpu(Error_t) e =
        hipHostMalloc(&host, 2 * sizeof(int), hipHostMallocMapped | hipHostMallocCoherent);
#else
    kb_gpu(Error_t) e = cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped);
#endif
    if (e != kb_gpu(Success)) return hold_fail(why, why_size, "allocating mapped host memory", e);
    h->flags = (volatile int *)host;
    h->flags[0] = 1;
    h->flags[1] = 0;
    void *dev = nullptr;
    int device = 0, khz = 0;
    if ((e = kb_gpu(HostGetDevicePointer)(&dev, host, 0)) != kb_gpu(Success) ||
        (e = kb_gpu(GetDevice)(&device)) != kb_gpu(Success) ||
        (e = kb_gpu(DeviceGetAttribute)(&khz, KB_GPU_ATTR_TIMER_KHZ, device)) != kb_gpu(Success)) {
        kb_gpu_hold_close(h);
        return hold_fail(why, why_size, "mapping the flags", e);
    }
    h->device_flags = (int *)dev;
    /* clock64() counts the multiprocessor's clock on NVIDIA, at most the
     * peak rate the attribute gives (the wait lasts at least timeout_ms,
     * longer at a lower clock), and a timer of its own on AMD, whose rate
     * the runtime gives as the clock-instruction rate. (gfx11 reads a
     * narrower counter there; the default targets, gfx908 and gfx90a, do
     * not.) */
    h->timeout_clks = (long long)(timeout_ms * (khz > 0 ? khz : 2000000));
    return 0;
}

extern "C" void kb_gpu_hold_close(kb_gpu_hold *h) {
    if (!h->flags) return;
#if defined(KB_GPU_HIP)
    kb_gpu(Error_t) e = hipHostFree((void *)h->flags);
#else
    kb_gpu(Error_t) e = cudaFreeHost((void *)h->flags);
#endif
    if (e != kb_gpu(Success))
        fprintf(stderr, "holding the stream: freeing the flags: %s\n", kb_gpu(GetErrorString)(e));
    h->flags = nullptr;
    h->device_flags = nullptr;
}

extern "C" int kb_gpu_hold_begin(kb_gpu_hold *h, void *stream, char *why, size_t why_size) {
    h->flags[1] = 0;
    h->flags[0] = 0;
    const int rc =
        kb_gpu_launch("stream hold", kb__hold, kb_dims(1), kb_dims(1), 0, (kb_gpu(Stream_t))stream,
                      (volatile int *)h->device_flags, h->timeout_clks);
    if (rc == 0) return 0;
    h->flags[0] = 1;
    snprintf(why, why_size, "holding the stream: the launch failed%s%s",
             rc == KB_UNSUPPORTED ? ": " : "", rc == KB_UNSUPPORTED ? kb_unsupported_reason() : "");
    return -1;
}

extern "C" void kb_gpu_hold_release(kb_gpu_hold *h) {
    if (h->flags) h->flags[0] = 1;
}

extern "C" int kb_gpu_hold_timed_out(const kb_gpu_hold *h) {
    return h->flags && h->flags[1] != 0;
}
