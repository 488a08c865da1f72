/* A multithreaded kernel for the harness's own tests of the manifest's
 * "threads": y = p(x), p(x) = sum of (-1)^k x^k / (k + 1) for k = 0..deg,
 * by Horner's rule, the n elements split evenly between
 * kb_case_threads(c) OpenMP threads (static chunks: the same arithmetic
 * per element whatever the count, so every count has the same error).
 *
 * Each thread notes the CPUs it may run on (its affinity mask) and the CPU
 * it runs on (sched_getcpu) when it starts and ends its chunk. With
 * KB_TEST_MTMAP_CPUS=<file>, every process of the driver (the test's own
 * and those it starts with --partner) appends a line per case it ran to
 * <file> when the next case begins and when it exits:
 *
 *   mtmap pid=<pid> role=<lead|partner> case=<name> threads=<t> calls=<n>
 *         allowed=<list> allowed_all=<list> cpus=<list>
 *
 * (one line), each <list> ascending and comma-separated: `allowed` the CPUs
 * any thread of any call was allowed, `allowed_all` those every thread of
 * every call was allowed, `cpus` those any thread ran on. kbench.e2e.threads
 * compares them with the CPUs the result JSON says the case was pinned to.
 * A call whose parallel region ran with other than kb_case_threads(c)
 * threads is an error. */
#define _GNU_SOURCE
#include "kb/kernel.h"

#include <omp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MTMAP_MAX_CPUS 1024

#define MTMAP_WORDS (MTMAP_MAX_CPUS / 64)

/* What this process's calls of its current case saw, as CPU bit sets. */
static struct {
    const kb_case *c;
    uint64_t seen[MTMAP_WORDS];        /* ran on */
    uint64_t allowed[MTMAP_WORDS];     /* some thread's mask held */
    uint64_t allowed_all[MTMAP_WORDS]; /* every thread's mask held */
    long long calls;
    int flush_registered;
} mtmap;

static void note_cpu(void) {
    const int cpu = sched_getcpu();
    if (cpu >= 0 && cpu < MTMAP_MAX_CPUS)
        __atomic_fetch_or(&mtmap.seen[cpu / 64], (uint64_t)1 << (cpu % 64), __ATOMIC_RELAXED);
}

/* The calling thread's mask into the union and the intersection. */
static void note_mask(void) {
    cpu_set_t set;
    uint64_t words[MTMAP_WORDS] = {0};
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int cpu = 0; cpu < MTMAP_MAX_CPUS && cpu < CPU_SETSIZE; ++cpu)
            if (CPU_ISSET(cpu, &set)) words[cpu / 64] |= (uint64_t)1 << (cpu % 64);
    for (int w = 0; w < MTMAP_WORDS; ++w) {
        __atomic_fetch_or(&mtmap.allowed[w], words[w], __ATOMIC_RELAXED);
        __atomic_fetch_and(&mtmap.allowed_all[w], words[w], __ATOMIC_RELAXED);
    }
}

/* " <name>=<list>" of a bit set at the end of out (len characters so far). */
static size_t put_list(char *out, size_t size, size_t len, const char *name, const uint64_t *bits) {
    int first = 1;
    if (len < size) len += (size_t)snprintf(out + len, size - len, " %s=", name);
    for (int cpu = 0; cpu < MTMAP_MAX_CPUS && len < size; ++cpu)
        if (bits[cpu / 64] >> (cpu % 64) & 1) {
            len += (size_t)snprintf(out + len, size - len, "%s%d", first ? "" : ",", cpu);
            first = 0;
        }
    return len;
}

/* Whether this process was started with --partner (its command line's
 * arguments, NUL-separated in /proc/self/cmdline). */
static int mtmap_is_partner(void) {
    char line[8192];
    FILE *f = fopen("/proc/self/cmdline", "rb");
    size_t n = f ? fread(line, 1, sizeof line - 1, f) : 0;
    if (f) fclose(f);
    line[n] = '\0';
    for (size_t i = 0; i < n; i += strlen(line + i) + 1)
        if (strcmp(line + i, "--partner") == 0) return 1;
    return 0;
}

/* Appends the current case's line to KB_TEST_MTMAP_CPUS, if set. */
static void mtmap_flush(void) {
    const char *file = getenv("KB_TEST_MTMAP_CPUS");
    if (!mtmap.c || !file || !*file) return;
    char lists[16384];
    size_t len = put_list(lists, sizeof lists, 0, "allowed", mtmap.allowed);
    len = put_list(lists, sizeof lists, len, "allowed_all", mtmap.allowed_all);
    put_list(lists, sizeof lists, len, "cpus", mtmap.seen);
    FILE *f = fopen(file, "a");
    if (!f) return;
    fprintf(f, "mtmap pid=%d role=%s case=%s threads=%d calls=%lld%s\n", (int)getpid(),
            mtmap_is_partner() ? "partner" : "lead", kb_case_name(mtmap.c),
            kb_case_threads(mtmap.c), mtmap.calls, lists);
    fclose(f);
}

/* A new case: the previous one's line first. */
static void mtmap_begin(const kb_case *c) {
    if (!mtmap.flush_registered) {
        atexit(mtmap_flush);
        mtmap.flush_registered = 1;
    }
    mtmap_flush();
    memset(mtmap.seen, 0, sizeof mtmap.seen);
    memset(mtmap.allowed, 0, sizeof mtmap.allowed);
    memset(mtmap.allowed_all, 0xff, sizeof mtmap.allowed_all);
    mtmap.calls = 0;
    mtmap.c = c;
}

static void mtmap_layout(const kb_case *c, kb_layout *l) {
    size_t n = (size_t)kb_case_dim(c, "n");
    (void)kb_case_dim(c, "deg");
    kb_layout_input(l, "x", n, KB_DIST_UNIFORM, -0.5, 0.5);
    kb_layout_output(l, "y", n);
}

static void mtmap_reference(const kb_case *c, const double *const *in, double *const *out) {
    const int64_t n = kb_case_dim(c, "n"), deg = kb_case_dim(c, "deg");
    for (int64_t i = 0; i < n; ++i) {
        double p = 0.0;
        for (int64_t k = deg; k >= 0; --k)
            p = p * in[0][i] + (k % 2 ? -1.0 : 1.0) / (double)(k + 1);
        out[0][i] = p;
    }
}

/* The coefficients, highest degree first, in the run's type. */
#define MTMAP_MAX_DEG 256

static void map_f64(const double *x, double *y, size_t lo, size_t hi, const double *coef, int deg) {
    for (size_t i = lo; i < hi; ++i) {
        double p = 0.0;
        for (int k = 0; k <= deg; ++k) p = p * x[i] + coef[k];
        y[i] = p;
    }
}

static void map_f32(const float *x, float *y, size_t lo, size_t hi, const float *coef, int deg) {
    for (size_t i = lo; i < hi; ++i) {
        float p = 0.0f;
        for (int k = 0; k <= deg; ++k) p = p * x[i] + coef[k];
        y[i] = p;
    }
}

static int mtmap_cpu(const kb_args *a) {
    const size_t n = (size_t)kb_case_dim(a->c, "n");
    const int deg = (int)kb_case_dim(a->c, "deg"), t = kb_case_threads(a->c);
    if (a->prec != KB_FP64 && a->prec != KB_FP32)
        return kb_unsupported("mtmap runs fp64 and fp32 only");
    if (deg > MTMAP_MAX_DEG) {
        fprintf(stderr, "mtmap: deg %d is above %d\n", deg, MTMAP_MAX_DEG);
        return -1;
    }
    double c64[MTMAP_MAX_DEG + 1];
    float c32[MTMAP_MAX_DEG + 1];
    for (int k = 0; k <= deg; ++k) {
        const int power = deg - k;
        c64[k] = (power % 2 ? -1.0 : 1.0) / (double)(power + 1);
        c32[k] = (float)c64[k];
    }
    if (a->c != mtmap.c) mtmap_begin(a->c);
    ++mtmap.calls;
    int ran = t;
#pragma omp parallel num_threads(t)
    {
        const int nt = omp_get_num_threads(), id = omp_get_thread_num();
        const size_t lo = n * (size_t)id / (size_t)nt, hi = n * (size_t)(id + 1) / (size_t)nt;
        if (id == 0) ran = nt;
        note_mask();
        note_cpu();
        if (a->prec == KB_FP64)
            map_f64(a->in[0], a->out[0], lo, hi, c64, deg);
        else
            map_f32(a->in[0], a->out[0], lo, hi, c32, deg);
        note_cpu();
    }
    if (ran != t) {
        fprintf(stderr, "mtmap: case %s asked for %d threads, OpenMP ran %d\n", kb_case_name(a->c),
                t, ran);
        return -1;
    }
    return 0;
}

static const kb_kernel mtmap_kernel = {
    .layout = mtmap_layout,
    .impls = {{"cpu", "default", mtmap_cpu}},
};

KB_REGISTER_KERNEL(mtmap_kernel)
KB_REGISTER_REFERENCE(mtmap_reference)
