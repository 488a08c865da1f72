/* The GPU backend, one source for CUDA and HIP (built once per runtime with
 * KB_GPU_HIP for HIP, without for CUDA; kb/gpu/runtime.h maps the names). Memory lives
 * on the device CTest assigned (CTEST_RESOURCE_GROUP_0_GPUS) or device 0;
 * every call is timed with events on one stream the kernels launch on.
 * This part sets the device up, times the calls and registers the backend's
 * table; its memory is backend_gpu_memory.c, its description
 * backend_gpu_info.c (backend_gpu.h). */
#include "backend/backend_gpu.h"

#include "backend/gpu_hold.h"
#include "backend/holdplan.h"

#if !defined(KB_GPU_HIP)
/* NVTX 3 is header-only: it finds the profiler's injection library at run
 * time, and every call is a no-op without a tool attached. */
#include <nvtx3/nvToolsExt.h>
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

kb__gpu_device kb__gpu_dev = {.index = -1};

/* The timed calls' hold (see start() below): the waiting kernel gives up
 * after HOLD_TIMEOUT_MS, far above the time to queue KB_HOLD_CALLS calls. */
#define HOLD_TIMEOUT_MS 20.0
static kb_gpu_hold hold;
static kb_hold_table holds; /* .usable once the hold's flags are allocated */

static kb_gpu(Event_t) ev_start, ev_stop;

int kb__gpu_fail(kb_err *err, gpu_error e, const char *what) {
    return kb_fail(err, "%s on %s device %d: %s", what, KB_GPU_BACKEND, kb__gpu_dev.index,
                   kb_gpu(GetErrorString)(e));
}

/* For the timing calls, whose interface has no error text: the message goes
 * to stderr and the caller reports the failure. */
int kb__gpu_complain(gpu_error e, const char *what) {
    fprintf(stderr, "%s on %s device %d: %s\n", what, KB_GPU_BACKEND, kb__gpu_dev.index,
            kb_gpu(GetErrorString)(e));
    return -1;
}

/* "id:3,slots:1" -> 3 (the first GPU of the first resource group). */
static int assigned_device(void) {
    const char *spec = getenv("CTEST_RESOURCE_GROUP_0_GPUS");
    const char *id = spec ? strstr(spec, "id:") : NULL;
    return id ? atoi(id + 3) : 0;
}

/* The monitoring library finds the device by PCI bus id: the runtime's
 * device numbers (reordered by CUDA_VISIBLE_DEVICES and friends) are not
 * its numbers. What it cannot do is said in the environment record. */
static void open_monitor(void) {
    if (kb_gpu(DeviceGetPCIBusId)(kb__gpu_dev.bus_id, (int)sizeof kb__gpu_dev.bus_id,
                                  kb__gpu_dev.index) != kb_gpu(Success)) {
        snprintf(kb__gpu_dev.bus_id, sizeof kb__gpu_dev.bus_id, "unknown");
        kb_devmon_open(&kb__gpu_dev.monitor, KB_GPU_MONITOR, "");
        return;
    }
    kb_devmon_open(&kb__gpu_dev.monitor, KB_GPU_MONITOR, kb__gpu_dev.bus_id);
}

static int gpu_available(char *why, size_t size) {
    int count = 0;
    gpu_error e = kb_gpu(GetDeviceCount)(&count);
    if (e != kb_gpu(Success)) {
        snprintf(why, size, "%s %s: %s", e == kb_gpu(ErrorNoDevice) ? "no" : "no usable driver for",
                 e == kb_gpu(ErrorNoDevice) ? KB_GPU_BACKEND " device" : KB_GPU_BACKEND,
                 kb_gpu(GetErrorString)(e));
        return 1;
    }
    kb__gpu_dev.index = assigned_device();
    if (count == 0 || kb__gpu_dev.index >= count) {
        snprintf(why, size, "no %s device %d (%d present)", KB_GPU_BACKEND, kb__gpu_dev.index,
                 count);
        return 1;
    }
    if ((e = kb_gpu(SetDevice)(kb__gpu_dev.index)) != kb_gpu(Success) ||
        (e = kb_gpu(GetDeviceProperties)(&kb__gpu_dev.props, kb__gpu_dev.index)) !=
            kb_gpu(Success) ||
        (e = kb_gpu(StreamCreate)(&kb__gpu_dev.stream)) != kb_gpu(Success) ||
        (e = kb_gpu(EventCreate)(&ev_start)) != kb_gpu(Success) ||
        (e = kb_gpu(EventCreate)(&ev_stop)) != kb_gpu(Success)) {
        snprintf(why, size, "%s device %d unusable: %s", KB_GPU_BACKEND, kb__gpu_dev.index,
                 kb_gpu(GetErrorString)(e));
        return 1;
    }
    char hold_why[256];
    holds.usable = kb_gpu_hold_open(&hold, HOLD_TIMEOUT_MS, hold_why, sizeof hold_why) == 0;
    if (!holds.usable) fprintf(stderr, "note: %s: the calls are timed unheld\n", hold_why);
    open_monitor();
    return 0;
}

/* Under a profiler the calls go unheld: the hold is a kernel of its own. */
static void gpu_profiled(void) {
    holds.usable = 0;
}

static int gpu_times_held(kb_impl_fn fn) {
    return kb_hold_holds(&holds, (const void *)fn);
}

/* Events on the kernels' stream bracket the timed calls, which are queued
 * behind a hold (gpu_hold.h) in parts of at most KB_HOLD_CALLS calls
 * (holdplan.h: the parts' times are summed; an implementation whose calls
 * wait for the device anyway is timed unheld): start() holds the stream and
 * records the start event, stop() records the stop event, releases the hold
 * and waits; a fault in any of the calls surfaces at that synchronisation. */
/* After a failure: releases the hold and waits for the stream, so that
 * the hold kernel has ended before the next part resets its flags (else it
 * could outwait its limit and mark that part as run out). */
static void unhold(void) {
    kb_gpu_hold_release(&hold);
    (void)kb_gpu(StreamSynchronize)(kb__gpu_dev.stream);
}

static int start(int held) {
    char why[256];
    if (held && kb_gpu_hold_begin(&hold, kb__gpu_dev.stream, why, sizeof why) != 0) {
        fprintf(stderr, "%s\n", why);
        return -1;
    }
    gpu_error e = kb_gpu(EventRecord)(ev_start, kb__gpu_dev.stream);
    if (e == kb_gpu(Success)) return 0;
    unhold();
    return kb__gpu_complain(e, "recording the start event");
}

static int stop(double *ms) {
    gpu_error e = kb_gpu(EventRecord)(ev_stop, kb__gpu_dev.stream);
    if (e != kb_gpu(Success)) {
        unhold();
        return kb__gpu_complain(e, "recording the stop event");
    }
    kb_gpu_hold_release(&hold);
    if ((e = kb_gpu(EventSynchronize)(ev_stop)) != kb_gpu(Success))
        return kb__gpu_complain(e, "running the timed calls");
    float elapsed = 0.0f;
    if ((e = kb_gpu(EventElapsedTime)(&elapsed, ev_start, ev_stop)) != kb_gpu(Success))
        return kb__gpu_complain(e, "reading the events");
    *ms = elapsed;
    return 0;
}

/* One part of a sample (kb_hold_part_fn): `calls` calls queued by
 * `queue`, held when `held`; 1 when the hold ran out before they were all
 * queued. */
typedef int (*queue_fn)(const void *ctx, int calls);

struct part_ctx {
    queue_fn queue;
    const void *ctx;
};

static int time_part(void *p, int calls, int held, double *ms) {
    const struct part_ctx *c = p;
    if (start(held) != 0) return -1;
    if (c->queue(c->ctx, calls) != 0) {
        unhold();
        return -1;
    }
    if (stop(ms) != 0) return -1;
    return held && kb_gpu_hold_timed_out(&hold) ? 1 : 0;
}

static int time_held(queue_fn queue, const void *ctx, const void *key, int reps, double *ms) {
    struct part_ctx c = {queue, ctx};
    const int rc = kb_hold_time(&holds, key, reps, time_part, &c, ms);
    return rc < 0 ? -1 : rc ? KB_TIMED_DISTURBED : 0;
}

struct impl_call {
    kb_impl_fn fn;
    const kb_args *a;
};

static int queue_impl(const void *ctx, int calls) {
    const struct impl_call *c = ctx;
    for (int r = 0; r < calls; ++r)
        if (c->fn(c->a) != 0) return -1;
    return 0;
}

static int gpu_time_calls(kb_impl_fn fn, const kb_args *a, int reps, double *ms) {
    const struct impl_call c = {fn, a};
    return time_held(queue_impl, &c, (const void *)fn, reps, ms);
}

/* The device's own streaming bandwidth: the runtime's device-to-device copy. */
struct stream_copy {
    void *dst;
    const void *src;
    size_t bytes;
};

static int queue_copies(const void *ctx, int calls) {
    const struct stream_copy *c = ctx;
    for (int r = 0; r < calls; ++r) {
        gpu_error e = kb_gpu(MemcpyAsync)(c->dst, c->src, c->bytes, kb_gpu(MemcpyDeviceToDevice),
                                          kb__gpu_dev.stream);
        if (e != kb_gpu(Success)) return kb__gpu_complain(e, "the bandwidth probe's copy");
    }
    return 0;
}

static int gpu_time_stream(void *dst, const void *src, size_t bytes, int reps, double *ms) {
    const struct stream_copy c = {dst, src, bytes};
    return time_held(queue_copies, &c, (const void *)queue_copies, reps, ms);
}

#if !defined(KB_GPU_HIP)
static void gpu_range_push(const char *name) {
    nvtxRangePushA(name);
}

static void gpu_range_pop(void) {
    nvtxRangePop();
}
#endif

static void *gpu_stream(void) {
    return (void *)kb__gpu_dev.stream;
}

static const kb_backend gpu_backend = {
    .name = KB_GPU_BACKEND,
    .available = gpu_available,
    .alloc = kb__gpu_mem_alloc,
    .release = kb__gpu_mem_release,
    .upload = kb__gpu_mem_upload,
    .download = kb__gpu_mem_download,
    .time_calls = gpu_time_calls,
    .time_stream = gpu_time_stream,
    .memory_levels = kb__gpu_info_memory_levels,
    .peak_compute = kb__gpu_info_peak_compute,
#if !defined(KB_GPU_HIP)
    /* ROCTX: Debian packages no roctracer, so HIP runs have no ranges. */
    .range_push = gpu_range_push,
    .range_pop = gpu_range_pop,
#endif
    .profiled = gpu_profiled,
    .times_held = gpu_times_held,
    .stream = gpu_stream,
    .flush_caches = kb__gpu_mem_flush_caches,
    .clock_limits = kb__gpu_info_clock_limits,
    .energy_j = kb__gpu_info_energy_j,
    .memory_used_mib = kb__gpu_info_memory_used_mib,
    .identify = kb__gpu_info_identify,
    .describe = kb__gpu_info_describe,
};

__attribute__((constructor)) static void register_backend(void) {
    kb_backend_register(&gpu_backend);
}
