/* What the harness needs from a backend: availability, memory, copies, the
 * timing of back-to-back calls and a description of the hardware. The CPU
 * backend is backend_cpu.c; GPU backends provide the same table. */
#ifndef KB_BACKEND_H
#define KB_BACKEND_H

#include "base/error.h"
#include "kb/kernel.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/* One level of the memory hierarchy a kernel's data can live in: the
 * roofline (docs/roofline.md) takes a case's bandwidth roof from the
 * smallest level its working set fits in. */
typedef struct kb_mem_level {
    char name[16];   /* "L1", "L2", "L3", "DRAM" on the CPU; "L2", "device" on GPUs */
    double capacity; /* bytes of it one kernel can use (one core's share on the CPU);
                        0: the last level, memory, which holds everything */
} kb_mem_level;

#define KB_MAX_MEM_LEVELS 6

/* The units kb_backend.peak_compute can time. */
typedef enum kb_compute_unit {
    KB_UNIT_FMA,    /* vector/SIMT fused multiply-add pipes */
    KB_UNIT_MATRIX, /* matrix units (tensor cores), through the vendor's GEMM */
} kb_compute_unit;

/* The access patterns the manifests count, by the share of their bytes
 * that is written: a reduction reads only (0), the triad reads two arrays
 * and writes one (1/3), the copy reads one and writes one (1/2). The
 * calibration measures memory's ceiling for each (docs/roofline.md). */
typedef enum kb_mem_pattern {
    KB_PATTERN_READ,
    KB_PATTERN_TRIAD,
    KB_PATTERN_COPY,
    KB_PATTERN_COUNT
} kb_mem_pattern;

typedef struct kb_backend {
    const char *name;
    /* 0 when usable; otherwise fills `why` (one line) and the test skips. */
    int (*available)(char *why, size_t size);
    void *(*alloc)(size_t bytes, kb_err *err);
    void (*release)(void *p);
    int (*upload)(void *dst, const void *src, size_t bytes, kb_err *err);
    int (*download)(void *dst, const void *src, size_t bytes, kb_err *err);
    /* Times `reps` back-to-back calls of fn(a); elapsed milliseconds in *ms.
     * Returns 0, KB_TIMED_DISTURBED when the host clock measured time the
     * timing thread spent off its CPU (disturb.h; host-timed backends), or
     * -1 when a call failed. */
    int (*time_calls)(kb_impl_fn fn, const kb_args *a, int reps, double *ms);
    /* Times `reps` streaming passes reading `bytes` of src and writing as
     * many to dst (buffers from alloc; the CPU scales, GPUs use the runtime's
     * device-to-device copy): the machine's own bandwidth, which the gate
     * uses to tell a slower kernel from a slower machine (probe.h). May be
     * NULL: the gate then cannot allow for machine drift. */
    int (*time_stream)(void *dst, const void *src, size_t bytes, int reps, double *ms);
    /* The same with the runtime's own copy (memcpy on the CPU): a second
     * memory figure, which moves apart from the first on some hosts
     * (docs/gate.md). May be NULL. */
    int (*time_copy)(void *dst, const void *src, size_t bytes, int reps, double *ms);
    /* time_stream's pass with stores that bypass the caches (non-temporal),
     * which spare the read a cached store of a line not in cache costs (its
     * write-allocate): past the caches, what a streaming kernel can attain.
     * The calibration's memory roof is the better of the two there. May be
     * NULL: no such stores. */
    int (*time_stream_nt)(void *dst, const void *src, size_t bytes, int reps, double *ms);
    /* Times `reps` passes of pattern p over arrays of `bytes` each (buffers
     * from alloc, all written before): KB_PATTERN_READ sums a, COPY writes
     * a to dst, TRIAD writes a + 3 b to dst; `nt` 1 stores non-temporally,
     * 0 through the cache. Returns 0; 1 when the backend has no such pass
     * (`nt` on a machine without such stores); -1 on a failure. May be NULL:
     * memory then has one ceiling, its level's. */
    int (*time_pattern)(kb_mem_pattern p, int nt, void *dst, const void *a, const void *b,
                        size_t bytes, int reps, double *ms);
    /* Times `steps` steps of a core probe (probe_core.h): independent
     * multiply-adds (chain 0) or one dependent chain of them (chain 1): the
     * compute side of the machine model (machine/model.h). May be NULL. */
    int (*time_core)(int chain, long steps, double *ms);
    /* The memory hierarchy, smallest level first and memory (capacity 0)
     * last; returns how many levels were written (<= max), 0 when unknown.
     * The calibration times time_stream over working sets inside each level
     * (calibration.h). May be NULL: unknown. */
    int (*memory_levels)(kb_mem_level *levels, int max);
    /* Times a multiply-add throughput loop of `unit` in precision `p`: its
     * attainable GFLOP/s into *gflops and one line on how it was measured
     * (instruction set, width, loop) into `how`. Returns 0; 1 when there is
     * no such figure for p (`how` says why: no matrix unit, no native fp16
     * arithmetic); -1 on a failure (err). May be NULL: no compute roof. */
    int (*peak_compute)(kb_prec p, kb_compute_unit unit, double *gflops, char *how, size_t how_size,
                        kb_err *err);
    /* Profiler ranges (NVTX on CUDA, ROCTX on HIP): the runner pushes one
     * around each case and each timed round. Cost nothing without a tool
     * attached. May be NULL. */
    void (*range_push)(const char *name);
    void (*range_pop)(void);
    /* A profiler runs this process (--profiled-by): time the calls plainly,
     * with no work of the backend's own queued beside them (a GPU's stream
     * hold would be one more kernel in the profile, and a profiler that
     * stops the host at each launch would keep it waiting out its limit).
     * Called once, after `available`. May be NULL. */
    void (*profiled)(void);
    /* Whether the calls of `fn` are timed held right now: 1 when they are
     * queued behind the stream hold, 0 when launched one by one (no hold,
     * a profiler, or the hold gave up on fn). NULL: the host clock times
     * the calls as they run (machine/timing_mode.h). */
    int (*times_held)(kb_impl_fn fn);
    /* GPU backends: the stream implementations launch on (kb_args.stream). */
    void *(*stream)(void);
    /* Cold-cache mode: evicts the kernel's data from the caches (writes a
     * buffer larger than the last-level cache), ordered before the next
     * timed call but outside its timed region. */
    int (*flush_caches)(void);
    /* Why the device's clocks are held down right now, as KB_CLOCKS_* bits
     * (devmon.h; 0 = running free). Returns -1 when that cannot be known;
     * NULL when the backend has no such check. */
    int (*clock_limits)(unsigned *reasons);
    /* The device's cumulative energy counter in joules; -1 when unavailable.
     * NULL when the backend has none. */
    int (*energy_j)(double *joules);
    /* Device memory in use (all processes), MiB; -1 when unknown. NULL on
     * backends whose memory is the host's. */
    int (*memory_used_mib)(double *mib);
    /* Baseline profile slug and exact hardware id of the device. */
    void (*identify)(char *profile, size_t psize, char *hardware_id, size_t hsize);
    /* Adds backend-specific fields to the environment record. */
    void (*describe)(cJSON *env);
} kb_backend;

#define KB_TIMED_DISTURBED 1

/* The backend of that name compiled into this driver, or NULL. */
const kb_backend *kb_backend_find(const char *name);

/* Makes a backend built into this driver findable (GPU backends call it at
 * load time). Returns 0, or -1 when the table is full. */
int kb_backend_register(const kb_backend *b);

#endif
