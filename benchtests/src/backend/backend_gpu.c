/* The GPU backend, one source for CUDA and HIP (built once per runtime with
 * KB_GPU_HIP for HIP, without for CUDA; kb/gpu_runtime.h maps the names). Memory lives
 * on the device CTest assigned (CTEST_RESOURCE_GROUP_0_GPUS) or device 0;
 * every call is timed with events on one stream the kernels launch on. */
#include "backend/backend.h"
#include "backend/gpu_hold.h"
#include "backend/gpu_roofs.h"
#include "backend/holdplan.h"
#include "kb/gpu_runtime.h"
#include "machine/devmon.h"
#include "machine/hwinfo.h"

#if !defined(KB_GPU_HIP)
/* NVTX 3 is header-only: it finds the profiler's injection library at run
 * time, and every call is a no-op without a tool attached. */
#include <nvtx3/nvToolsExt.h>
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef kb_gpu(Error_t) gpu_error;

/* The timed calls' hold (see start() below): the waiting kernel gives up
 * after HOLD_TIMEOUT_MS, far above the time to queue KB_HOLD_CALLS calls. */
#define HOLD_TIMEOUT_MS 20.0
static kb_gpu_hold hold;
static kb_hold_table holds; /* .usable once the hold's flags are allocated */

static int device = -1;
static kb_gpu_props props; /* of `device`, read once it is chosen */
static kb_gpu(Stream_t) stream;
static kb_gpu(Event_t) ev_start, ev_stop;
static kb_devmon monitor; /* NVML or ROCm SMI for `device`, where loadable */
static char bus_id[32];   /* PCI bus id of `device` */

static int fail(kb_err *err, gpu_error e, const char *what) {
    return kb_fail(err, "%s on %s device %d: %s", what, KB_GPU_BACKEND, device,
                   kb_gpu(GetErrorString)(e));
}

/* For the timing calls, whose interface has no error text: the message goes
 * to stderr and the caller reports the failure. */
static int complain(gpu_error e, const char *what) {
    fprintf(stderr, "%s on %s device %d: %s\n", what, KB_GPU_BACKEND, device,
            kb_gpu(GetErrorString)(e));
    return -1;
}

/* "id:3,slots:1" -> 3 (the first GPU of the first resource group). */
static int assigned_device(void) {
    const char *spec = getenv("CTEST_RESOURCE_GROUP_0_GPUS");
    const char *id = spec ? strstr(spec, "id:") : NULL;
    return id ? atoi(id + 3) : 0;
}

#if defined(KB_GPU_HIP)
#define MONITOR_SOURCE KB_DEVMON_ROCM_SMI
#else
#define MONITOR_SOURCE KB_DEVMON_NVML
#endif

/* The monitoring library finds the device by PCI bus id: the runtime's
 * device numbers (reordered by CUDA_VISIBLE_DEVICES and friends) are not
 * its numbers. What it cannot do is said in the environment record. */
static void open_monitor(void) {
    if (kb_gpu(DeviceGetPCIBusId)(bus_id, (int)sizeof bus_id, device) != kb_gpu(Success)) {
        snprintf(bus_id, sizeof bus_id, "unknown");
        kb_devmon_open(&monitor, MONITOR_SOURCE, "");
        return;
    }
    kb_devmon_open(&monitor, MONITOR_SOURCE, bus_id);
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
    device = assigned_device();
    if (count == 0 || device >= count) {
        snprintf(why, size, "no %s device %d (%d present)", KB_GPU_BACKEND, device, count);
        return 1;
    }
    if ((e = kb_gpu(SetDevice)(device)) != kb_gpu(Success) ||
        (e = kb_gpu(GetDeviceProperties)(&props, device)) != kb_gpu(Success) ||
        (e = kb_gpu(StreamCreate)(&stream)) != kb_gpu(Success) ||
        (e = kb_gpu(EventCreate)(&ev_start)) != kb_gpu(Success) ||
        (e = kb_gpu(EventCreate)(&ev_stop)) != kb_gpu(Success)) {
        snprintf(why, size, "%s device %d unusable: %s", KB_GPU_BACKEND, device,
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

/* Where a buffer lands in device memory decides which L2 slices and memory
 * channels its lines hash to, and a process keeps what it drew for as long
 * as it keeps the buffer. Each buffer therefore starts at a random offset
 * (a multiple of the runtime's own 256-byte alignment, below one 2 MiB
 * page) into a block that much larger: the rounds' moves (runner.c) then
 * draw a new placement each time instead of alternating between the same
 * two blocks, and the interval sees placement as the noise it is. */
#define PLACE_ALIGN ((size_t)256)
#define PLACE_SPAN  ((size_t)2 << 20)

typedef struct block {
    void *user, *base;
} block;
static block *blocks; /* the allocations made with an offset */
static size_t n_blocks, blocks_cap;

/* A per-process draw (not the run's seed: the point is that processes
 * differ), xorshift64 seeded from the clock and the process id. */
static size_t random_offset(void) {
    static unsigned long long x;
    if (x == 0) {
        struct timespec t = {0, 0};
        timespec_get(&t, TIME_UTC);
        x = ((unsigned long long)t.tv_nsec << 20) ^ (unsigned long long)t.tv_sec ^
            ((unsigned long long)getpid() << 40) ^ 0x9e3779b97f4a7c15ull;
    }
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return (size_t)(x % (PLACE_SPAN / PLACE_ALIGN)) * PLACE_ALIGN;
}

static int remember(void *user, void *base) {
    if (n_blocks == blocks_cap) {
        size_t cap = blocks_cap ? 2 * blocks_cap : 64;
        block *b = realloc(blocks, cap * sizeof *b);
        if (!b) return -1;
        blocks = b;
        blocks_cap = cap;
    }
    blocks[n_blocks++] = (block){user, base};
    return 0;
}

static void *gpu_alloc(size_t bytes, kb_err *err) {
    void *base = NULL;
    const size_t offset = random_offset();
    /* with the offset when memory allows it and it can be remembered */
    if (bytes <= SIZE_MAX - PLACE_SPAN &&
        kb_gpu(Malloc)(&base, bytes + PLACE_SPAN) == kb_gpu(Success)) {
        void *user = (char *)base + offset;
        if (remember(user, base) == 0) return user;
        (void)kb_gpu(Free)(base);
    }
    (void)kb_gpu(GetLastError)(); /* the padded request's failure is not this one's */
    void *p = NULL;
    gpu_error e = kb_gpu(Malloc)(&p, bytes ? bytes : 1);
    if (e != kb_gpu(Success)) {
        char what[96];
        snprintf(what, sizeof what, "allocating %zu bytes", bytes);
        fail(err, e, what);
        return NULL;
    }
    return p;
}

/* The block behind p (p itself when it was allocated without an offset). */
static void *block_of(void *p) {
    for (size_t i = 0; i < n_blocks; ++i) {
        if (blocks[i].user != p) continue;
        void *base = blocks[i].base;
        blocks[i] = blocks[--n_blocks];
        return base;
    }
    return p;
}

/* The interface has no error path here; a failure (a fault left by a
 * kernel, usually) is reported and the case's own checks fail on it. */
static void gpu_release(void *p) {
    gpu_error e = p ? kb_gpu(Free)(block_of(p)) : kb_gpu(Success);
    if (e != kb_gpu(Success)) complain(e, "freeing device memory");
}

static int gpu_upload(void *dst, const void *src, size_t bytes, kb_err *err) {
    gpu_error e = kb_gpu(Memcpy)(dst, src, bytes, kb_gpu(MemcpyHostToDevice));
    return e == kb_gpu(Success) ? 0 : fail(err, e, "copying to the device");
}

/* Also where a kernel's asynchronous fault surfaces after the checked run. */
static int gpu_download(void *dst, const void *src, size_t bytes, kb_err *err) {
    gpu_error e = kb_gpu(StreamSynchronize)(stream);
    if (e == kb_gpu(Success)) e = kb_gpu(Memcpy)(dst, src, bytes, kb_gpu(MemcpyDeviceToHost));
    return e == kb_gpu(Success) ? 0 : fail(err, e, "copying from the device");
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
    (void)kb_gpu(StreamSynchronize)(stream);
}

static int start(int held) {
    char why[256];
    if (held && kb_gpu_hold_begin(&hold, stream, why, sizeof why) != 0) {
        fprintf(stderr, "%s\n", why);
        return -1;
    }
    gpu_error e = kb_gpu(EventRecord)(ev_start, stream);
    if (e == kb_gpu(Success)) return 0;
    unhold();
    return complain(e, "recording the start event");
}

static int stop(double *ms) {
    gpu_error e = kb_gpu(EventRecord)(ev_stop, stream);
    if (e != kb_gpu(Success)) {
        unhold();
        return complain(e, "recording the stop event");
    }
    kb_gpu_hold_release(&hold);
    if ((e = kb_gpu(EventSynchronize)(ev_stop)) != kb_gpu(Success))
        return complain(e, "running the timed calls");
    float elapsed = 0.0f;
    if ((e = kb_gpu(EventElapsedTime)(&elapsed, ev_start, ev_stop)) != kb_gpu(Success))
        return complain(e, "reading the events");
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
        gpu_error e =
            kb_gpu(MemcpyAsync)(c->dst, c->src, c->bytes, kb_gpu(MemcpyDeviceToDevice), stream);
        if (e != kb_gpu(Success)) return complain(e, "the bandwidth probe's copy");
    }
    return 0;
}

static int gpu_time_stream(void *dst, const void *src, size_t bytes, int reps, double *ms) {
    const struct stream_copy c = {dst, src, bytes};
    return time_held(queue_copies, &c, (const void *)queue_copies, reps, ms);
}

/* A device attribute, -1 when the runtime cannot say. */
static int attribute(int attr) {
    int v = 0;
    return kb_gpu(DeviceGetAttribute)(&v, attr, device) == kb_gpu(Success) ? v : -1;
}

/* The roofline's memory levels: L2 (its size from the runtime), then device
 * memory. */
static int gpu_memory_levels(kb_mem_level *levels, int max) {
    int n = 0;
    const int l2 = attribute(KB_GPU_ATTR_L2_BYTES);
    if (l2 > 0 && n < max) {
        snprintf(levels[n].name, sizeof levels[n].name, "L2");
        levels[n++].capacity = l2;
    }
    if (n < max) {
        snprintf(levels[n].name, sizeof levels[n].name, "device");
        levels[n++].capacity = 0;
    }
    return n;
}

static int gpu_peak_compute(kb_prec p, kb_compute_unit unit, double *gflops, char *how,
                            size_t how_size, kb_err *err) {
    char why[256] = "";
    const int rc =
        unit == KB_UNIT_MATRIX
            ? kb_gpu_peak_matrix(p, (void *)stream, gflops, how, how_size, why, sizeof why)
            : kb_gpu_peak_fma(p, (void *)stream, gflops, how, how_size, why, sizeof why);
    return rc < 0 ? kb_fail(err, "%s device %d: %s", KB_GPU_BACKEND, device, why) : rc;
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
    return (void *)stream;
}

/* Cold-cache mode: writes a buffer twice the size of L2 on the kernels'
 * stream, so it is ordered before the next timed call but before its start
 * event too. Memsets run as kernels through L2 and so evict it. */
static int gpu_flush_caches(void) {
    static void *buffer;
    static size_t bytes;
    gpu_error e;
    if (!buffer) {
        bytes = 2 * (size_t)(props.l2CacheSize > 0 ? props.l2CacheSize : 64 << 20);
        if ((e = kb_gpu(Malloc)(&buffer, bytes)) != kb_gpu(Success)) {
            buffer = NULL;
            return complain(e, "allocating the cold-cache flush buffer");
        }
    }
    static int value;
    e = kb_gpu(MemsetAsync)(buffer, ++value & 0xff, bytes, stream);
    return e == kb_gpu(Success) ? 0 : complain(e, "flushing the caches");
}

static int gpu_clock_limits(unsigned *reasons) {
    return kb_devmon_clock_reasons(&monitor, reasons);
}

static int gpu_energy_j(double *joules) {
    return kb_devmon_energy_j(&monitor, joules);
}

static int gpu_memory_used_mib(double *mib) {
    size_t free_b = 0, total_b = 0;
    if (kb_gpu(MemGetInfo)(&free_b, &total_b) != kb_gpu(Success)) return -1;
    *mib = (double)(total_b - free_b) / (1024.0 * 1024.0);
    return 0;
}

/* Profile: the device name as a slug ("nvidia-h100-80gb-hbm3"); hardware id:
 * name, architecture, SMs, memory and clock, which must all match. */
static void gpu_identify(char *profile, size_t psize, char *hardware_id, size_t hsize) {
    kb_slugify(props.name, profile, psize);
#if defined(KB_GPU_HIP)
    const char *arch = props.gcnArchName;
#else
    char arch[16];
    snprintf(arch, sizeof arch, "sm_%d%d", props.major, props.minor);
#endif
    snprintf(hardware_id, hsize, "%s|%s|%d SMs|%zu MiB|%d MHz", props.name, arch,
             attribute(KB_GPU_ATTR_SMS), (size_t)(props.totalGlobalMem >> 20),
             attribute(KB_GPU_ATTR_CLOCK_KHZ) / 1000);
}

/* A number from a runtime query, or null when the query failed. */
static void add_queried(cJSON *env, const char *key, gpu_error e, double value) {
    if (e == kb_gpu(Success))
        cJSON_AddNumberToObject(env, key, value);
    else
        cJSON_AddNullToObject(env, key);
}

static void add_attribute(cJSON *env, const char *key, int attr, int divisor) {
    int v = attribute(attr);
    if (v < 0)
        cJSON_AddNullToObject(env, key);
    else
        cJSON_AddNumberToObject(env, key, v / divisor);
}

static void gpu_describe(cJSON *env) {
    int driver = 0, runtime = 0;
    size_t free_b = 0, total_b = 0;
    gpu_error e_driver = kb_gpu(DriverGetVersion)(&driver);
    gpu_error e_runtime = kb_gpu(RuntimeGetVersion)(&runtime);
    gpu_error e_mem = kb_gpu(MemGetInfo)(&free_b, &total_b);
    cJSON_AddStringToObject(env, "device", props.name);
    cJSON_AddNumberToObject(env, "device_index", device);
    cJSON_AddNumberToObject(env, "compute_capability", props.major + props.minor / 10.0);
#if defined(KB_GPU_HIP)
    cJSON_AddStringToObject(env, "gcn_arch", props.gcnArchName);
#endif
    add_attribute(env, "multiprocessors", KB_GPU_ATTR_SMS, 1);
    add_attribute(env, "warp_size", KB_GPU_ATTR_WARP, 1);
    add_attribute(env, "sm_clock_mhz", KB_GPU_ATTR_CLOCK_KHZ, 1000);
    add_attribute(env, "memory_clock_mhz", KB_GPU_ATTR_MEMCLOCK_KHZ, 1000);
    add_attribute(env, "memory_bus_bits", KB_GPU_ATTR_BUS_BITS, 1);
    add_attribute(env, "l2_bytes", KB_GPU_ATTR_L2_BYTES, 1);
    add_queried(env, "memory_total_mib", e_mem, (double)(total_b >> 20));
    add_queried(env, "memory_in_use_mib", e_mem, (double)((total_b - free_b) >> 20));
    add_queried(env, "driver_version", e_driver, driver);
    add_queried(env, "runtime_version", e_runtime, runtime);
    cJSON_AddStringToObject(env, "pci_bus_id", bus_id);
    cJSON *mon = cJSON_AddObjectToObject(env, "monitor");
    cJSON_AddStringToObject(mon, "library", MONITOR_SOURCE == KB_DEVMON_NVML ? "nvml" : "rocm-smi");
    cJSON_AddStringToObject(mon, "clock_check", monitor.clocks_ok ? "ok" : monitor.why_clocks);
    cJSON_AddStringToObject(mon, "energy", monitor.energy_ok ? "ok" : monitor.why_energy);
}

static const kb_backend gpu_backend = {
    .name = KB_GPU_BACKEND,
    .available = gpu_available,
    .alloc = gpu_alloc,
    .release = gpu_release,
    .upload = gpu_upload,
    .download = gpu_download,
    .time_calls = gpu_time_calls,
    .time_stream = gpu_time_stream,
    .memory_levels = gpu_memory_levels,
    .peak_compute = gpu_peak_compute,
#if !defined(KB_GPU_HIP)
    /* ROCTX: Debian packages no roctracer, so HIP runs have no ranges. */
    .range_push = gpu_range_push,
    .range_pop = gpu_range_pop,
#endif
    .profiled = gpu_profiled,
    .times_held = gpu_times_held,
    .stream = gpu_stream,
    .flush_caches = gpu_flush_caches,
    .clock_limits = gpu_clock_limits,
    .energy_j = gpu_energy_j,
    .memory_used_mib = gpu_memory_used_mib,
    .identify = gpu_identify,
    .describe = gpu_describe,
};

__attribute__((constructor)) static void register_backend(void) {
    kb_backend_register(&gpu_backend);
}
