#define _GNU_SOURCE
#include "backend/backend.h"
#include "backend/cpu_patterns.h"
#include "base/clock.h"
#include "machine/disturb.h"
#include "machine/fmapeak.h"
#include "machine/hwinfo.h"
#include "machine/probe_core.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* The host needs no setting up, but the backend holds its callers to the
 * contract a GPU backend needs (available() first: it picks the device and
 * makes the stream, events and hold): a mode that skips the setup fails here
 * on the CPU as it would on a GPU, instead of only where there is one. */
static int set_up;

static int cpu_available(char *why, size_t size) {
    (void)why;
    (void)size;
    set_up = 1;
    return 0;
}

static int not_set_up(kb_err *err) {
    return kb_fail(err, "the cpu backend was used before it was set up (a mode that skipped the "
                        "driver's backend setup)");
}

/* Host buffers are placed explicitly rather than left to malloc, whose choice
 * between the heap and mmap depends on what the process freed before: the
 * same case then ran 25 % slower or not depending on the cases before it
 * (measured on the swish fp32 n3m case). Each buffer gets its own mapping
 * aligned to 2 MiB and advised for transparent huge pages (fewer TLB misses,
 * physically contiguous 2 MiB runs), and the start of successive buffers is
 * staggered by a few cache lines so streams of different tensors do not
 * alias in the low address bits. */
#define HUGE_ALIGN ((size_t)2 << 20)
#define HEADER     64
#define STAGGER    1088 /* 17 cache lines */

typedef struct mapping {
    void *base;
    size_t length;
} mapping;

static void *cpu_alloc(size_t bytes, kb_err *err) {
    static unsigned counter;
    if (!set_up) {
        not_set_up(err);
        return NULL;
    }
    size_t offset = HEADER + (counter++ % 8) * STAGGER;
    size_t length = bytes + offset + HUGE_ALIGN;
    void *base = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        kb_fail(err, "out of host memory allocating %zu bytes: %s", bytes, strerror(errno));
        return NULL;
    }
    uintptr_t aligned = ((uintptr_t)base + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1);
    madvise((void *)aligned, length - (aligned - (uintptr_t)base), MADV_HUGEPAGE);
    char *p = (char *)aligned + offset;
    mapping m = {base, length};
    memcpy(p - sizeof m, &m, sizeof m);
    return p;
}

static void cpu_release(void *p) {
    if (!p) return;
    mapping m;
    memcpy(&m, (char *)p - sizeof m, sizeof m);
    munmap(m.base, m.length);
}

static int cpu_copy(void *dst, const void *src, size_t bytes, kb_err *err) {
    (void)err;
    memcpy(dst, src, bytes);
    return 0;
}

/* The host clock times the calls; the thread's CPU time and switch count
 * around them say whether that time was all the kernel's. */
static int cpu_time_calls(kb_impl_fn fn, const kb_args *a, int reps, double *ms) {
    kb_thread_mark m0, m1;
    if (!set_up) {
        kb_err err;
        not_set_up(&err);
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    kb_thread_mark_now(&m0);
    double t0 = kb_now_s();
    for (int r = 0; r < reps; ++r)
        if (fn(a) != 0) return -1;
    double wall = kb_now_s() - t0;
    kb_thread_mark_now(&m1);
    *ms = wall * 1e3;
    return kb_thread_disturbed(&m0, &m1, wall) ? KB_TIMED_DISTURBED : 0;
}

/* Not inlined, so the loop is the same code whatever the caller. */
__attribute__((noinline)) static void stream_scale(double *restrict dst, const double *restrict src,
                                                   size_t n) {
    for (size_t i = 0; i < n; ++i) dst[i] = 1.0000001 * src[i];
}

#if defined(__x86_64__)
#include <immintrin.h>

/* The scale pass with SSE2's non-temporal stores (every x86-64 has them;
 * 256-bit ones measured no faster here). The harness's buffers are 64-byte
 * aligned; an unaligned head or tail takes plain stores. */
__attribute__((noinline)) static void stream_scale_nt(double *restrict dst,
                                                      const double *restrict src, size_t n) {
    size_t i = 0;
    for (; i < n && ((uintptr_t)(dst + i) & 15) != 0; ++i) dst[i] = 1.0000001 * src[i];
    const __m128d c = _mm_set1_pd(1.0000001);
    for (; i + 2 <= n; i += 2) _mm_stream_pd(dst + i, _mm_mul_pd(_mm_loadu_pd(src + i), c));
    for (; i < n; ++i) dst[i] = 1.0000001 * src[i];
    _mm_sfence();
}

static int cpu_time_stream_nt(void *dst, const void *src, size_t bytes, int reps, double *ms) {
    size_t n = bytes / sizeof(double);
    double t0 = kb_now_s();
    for (int r = 0; r < reps; ++r) stream_scale_nt(dst, src, n);
    *ms = (kb_now_s() - t0) * 1e3;
    return 0;
}
#define CPU_TIME_STREAM_NT cpu_time_stream_nt
#else
#define CPU_TIME_STREAM_NT NULL
#endif

static int cpu_time_stream(void *dst, const void *src, size_t bytes, int reps, double *ms) {
    size_t n = bytes / sizeof(double);
    double t0 = kb_now_s();
    for (int r = 0; r < reps; ++r) stream_scale(dst, src, n);
    *ms = (kb_now_s() - t0) * 1e3;
    return 0;
}

static int cpu_time_copy(void *dst, const void *src, size_t bytes, int reps, double *ms) {
    double t0 = kb_now_s();
    for (int r = 0; r < reps; ++r) memcpy(dst, src, bytes);
    *ms = (kb_now_s() - t0) * 1e3;
    return 0;
}

static int cpu_time_core(int chain, long steps, double *ms) {
    double t0 = kb_now_s();
    if (chain)
        kb_probe_chain_steps(steps);
    else
        kb_probe_madd_steps(steps);
    *ms = (kb_now_s() - t0) * 1e3;
    return 0;
}

/* Cold-cache mode: read and write one word of every cache line of a buffer
 * twice the size of the largest cache, so the case's data is evicted from
 * every level. Explicit writes, not memset: for large sizes glibc's memset
 * uses non-temporal stores, which bypass the caches and evict nothing. */
static int cpu_flush_caches(void) {
    static volatile uint64_t *buffer;
    static size_t words;
    if (!buffer) {
        kb_cpu_info ci;
        kb_cpu_info_read(&ci);
        long kib = ci.l3_kib > ci.l2_kib ? ci.l3_kib : ci.l2_kib;
        size_t bytes = 2 * (size_t)(kib > 0 ? kib : 32768) * 1024;
        kb_err err;
        buffer = cpu_alloc(bytes, &err);
        if (!buffer) {
            fprintf(stderr, "cold-cache mode: %s\n", err.msg);
            return -1;
        }
        words = bytes / sizeof(uint64_t);
    }
    for (size_t i = 0; i < words; i += 64 / sizeof(uint64_t)) buffer[i] = buffer[i] + 1;
    return 0;
}

/* From the cache sizes sysfs gives for cpu0 (hwinfo.h): L1d and L2 are one
 * core's, L3 the size one core's slice of the chip shares, all of which a
 * single thread can fill; then DRAM. A level sysfs does not give is left
 * out. */
static int cpu_memory_levels(kb_mem_level *levels, int max) {
    kb_cpu_info ci;
    kb_cpu_info_read(&ci);
    const struct {
        const char *name;
        long kib;
    } caches[] = {{"L1", ci.l1d_kib}, {"L2", ci.l2_kib}, {"L3", ci.l3_kib}};
    int n = 0;
    for (size_t i = 0; i < sizeof caches / sizeof *caches && n + 1 < max; ++i) {
        if (caches[i].kib <= 0) continue;
        snprintf(levels[n].name, sizeof levels[n].name, "%s", caches[i].name);
        levels[n++].capacity = (double)caches[i].kib * 1024.0;
    }
    if (n >= max) return n;
    snprintf(levels[n].name, sizeof levels[n].name, "DRAM");
    levels[n++].capacity = 0.0;
    return n;
}

static int cpu_peak_compute(kb_prec p, kb_compute_unit unit, double *gflops, char *how,
                            size_t how_size, kb_err *err) {
    (void)err;
    if (unit == KB_UNIT_MATRIX) {
        snprintf(how, how_size, "no matrix unit used by kbench's CPU kernels");
        return 1;
    }
    kb_fma_peak(p, gflops, how, how_size);
    return 0;
}

static void cpu_identify(char *profile, size_t psize, char *hardware_id, size_t hsize) {
    kb_cpu_info ci;
    kb_cpu_info_read(&ci);
    kb_cpu_profile(&ci, profile, psize);
    kb_cpu_hardware_id(&ci, hardware_id, hsize);
}

static void cpu_describe(cJSON *env) {
    cJSON_AddStringToObject(env, "device", "host CPU (one thread)");
}

const kb_backend kb_backend_cpu = {
    .name = "cpu",
    .available = cpu_available,
    .alloc = cpu_alloc,
    .release = cpu_release,
    .upload = cpu_copy,
    .download = cpu_copy,
    .time_calls = cpu_time_calls,
    .time_stream = cpu_time_stream,
    .time_copy = cpu_time_copy,
    .time_stream_nt = CPU_TIME_STREAM_NT,
    .time_pattern = kb_cpu_time_pattern,
    .time_core = cpu_time_core,
    .memory_levels = cpu_memory_levels,
    .peak_compute = cpu_peak_compute,
    .flush_caches = cpu_flush_caches,
    .identify = cpu_identify,
    .describe = cpu_describe,
};
