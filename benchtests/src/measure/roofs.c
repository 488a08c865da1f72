#include "measure/roofs.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sweep: working sets (both buffers of a pass) from 4 KiB, at every
 * power of two and half-way (x1.5) between, up to 8x the largest cache (at
 * least 64 MiB). Each point is timed with enough passes per timing for the
 * clock (>= 2 ms) and keeps the best of 5 timings. */
#define SWEEP_FIRST   4096.0
#define SWEEP_MIN_TOP (64.0 * 1048576.0)
#define SWEEP_MIN_MS  2.0
#define SWEEP_TIMINGS 5
#define SWEEP_MAX_REP (1 << 26)

typedef int (*pass_fn)(void *dst, const void *src, size_t bytes, int reps, double *ms);

__attribute__((format(printf, 2, 3))) static void note(kb_roofs *r, const char *fmt, ...) {
    if (r->n_notes == KB_ROOFS_NOTES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->notes[r->n_notes], sizeof r->notes[0], fmt, ap);
    va_end(ap);
    r->n_notes++;
}

void kb_format_bytes(double bytes, char *out, size_t size) {
    if (bytes >= 1048576.0)
        snprintf(out, size, "%g MiB", bytes / 1048576.0);
    else
        snprintf(out, size, "%g KiB", bytes / 1024.0);
}

const char *kb_levels_problem(const kb_mem_level *levels, int n) {
    if (n < 1) return "no level";
    for (int i = 0; i < n; ++i) {
        if (!levels[i].name[0]) return "a level without a name";
        for (int j = 0; j < i; ++j)
            if (strcmp(levels[i].name, levels[j].name) == 0) return "a level named twice";
        const int last = i == n - 1;
        if (last && levels[i].capacity != 0.0)
            return "the last level (memory) must have capacity 0";
        if (!last && !(levels[i].capacity > 0.0 && isfinite(levels[i].capacity)))
            return "a cache level without a positive finite capacity";
        if (!last && i > 0 && !(levels[i].capacity > levels[i - 1].capacity))
            return "levels not ordered smallest first";
    }
    return NULL;
}

/* GB/s of one point: read + write traffic (2 x bytes per pass) over the
 * best timing. */
static int time_point(pass_fn fn, void *dst, const void *src, size_t bytes, double *gbps) {
    int reps = 1;
    double ms = 0.0;
    for (;;) {
        if (fn(dst, src, bytes, reps, &ms) != 0) return -1;
        if (ms >= SWEEP_MIN_MS || reps >= SWEEP_MAX_REP) break;
        double grow = ms > 0.01 ? 1.25 * SWEEP_MIN_MS / ms : 64.0;
        reps = (int)fmin((double)reps * fmax(grow, 2.0), SWEEP_MAX_REP);
    }
    double best = ms;
    for (int i = 0; i < SWEEP_TIMINGS; ++i) {
        if (fn(dst, src, bytes, reps, &ms) != 0) return -1;
        if (ms < best) best = ms;
    }
    *gbps = best > 0.0 ? 2.0 * (double)bytes * reps / (best * 1e-3) * 1e-9 : 0.0;
    return 0;
}

static double largest_cache(const kb_roofs *r) {
    return r->n_levels > 1 ? r->levels[r->n_levels - 2].level.capacity : 0.0;
}

/* Inside the caches the runtime's copy (memcpy on the CPU, dispatched on the
 * CPU's vector width at run time, where the scale pass runs as the harness
 * was compiled) may be the faster of the two. Past them the pass with
 * non-temporal stores is timed instead: a cached store pays a read of the
 * line first (write-allocate), which the bytes counted leave out, so a
 * kernel streaming with such stores moves more counted bytes a second,
 * and the memory roof is what the machine allows, not what one way of
 * storing gets. */
static int measure_point(const kb_backend *b, void *dst, const void *src, double ws,
                         kb_sweep_point *p, double top_cache) {
    size_t bytes = (size_t)(ws / 2.0) / 64 * 64;
    double stream = 0.0, other = 0.0;
    if (time_point(b->time_stream, dst, src, bytes, &stream) != 0) return -1;
    int (*second)(void *, const void *, size_t, int, double *) =
        ws <= top_cache ? b->time_copy : b->time_stream_nt;
    if (second && time_point(second, dst, src, bytes, &other) != 0) return -1;
    p->working_set_bytes = 2.0 * (double)bytes;
    p->gbps = fmax(stream, other);
    return 0;
}

/* Writes a buffer with a pattern. The sweep's source must have been written:
 * a buffer that is only ever read stays mapped to the operating system's
 * shared zero page (a fresh anonymous mapping on Linux), which the caches
 * hold, and the sweep would time the writes alone. It did: DRAM 28-33 GB/s
 * on this project's VM, where the same pass over written buffers moves
 * 23-26. */
static int fill(const kb_backend *b, void *buf, size_t bytes, kb_err *err) {
    /* Not zeros: a kernel may map an all-zero page back to the zero page
     * (Linux splits under-used huge pages that way). */
    void *ones = malloc(bytes ? bytes : 1);
    if (!ones) return kb_fail(err, "out of host memory for the bandwidth sweep's source");
    memset(ones, 0x3f, bytes); /* doubles of about 4.8e-4 */
    int rc = b->upload(buf, ones, bytes, err);
    free(ones);
    return rc;
}

const char *kb_pattern_name(kb_mem_pattern p) {
    static const char *const names[KB_PATTERN_COUNT] = {"read", "triad", "copy"};
    return (unsigned)p < KB_PATTERN_COUNT ? names[p] : "?";
}

double kb_pattern_write_fraction(kb_mem_pattern p) {
    static const double written[KB_PATTERN_COUNT] = {0.0, 1.0 / 3.0, 0.5};
    return (unsigned)p < KB_PATTERN_COUNT ? written[p] : 0.0;
}

int kb_pattern_of_fraction(double f) {
    for (int p = 0; p < KB_PATTERN_COUNT; ++p)
        if (fabs(f - kb_pattern_write_fraction((kb_mem_pattern)p)) <= 1e-9) return p;
    return -1;
}

/* The arrays a pattern reads and writes: 1 for the reduction, 2 for the
 * copy, 3 for the triad; each counted once per pass. */
static double pattern_arrays(kb_mem_pattern p) {
    return p == KB_PATTERN_READ ? 1.0 : p == KB_PATTERN_COPY ? 2.0 : 3.0;
}

/* One pattern with one kind of store: its passes per timing, grown until a
 * timing lasts SWEEP_MIN_MS, and its best GB/s so far. */
typedef struct pattern_run {
    kb_mem_pattern p;
    int nt, reps, declined;
    double gbps;
} pattern_run;

/* The pattern's passes over arrays of `bytes`, in rounds over every
 * pattern and store kind, so that a burst of load spoils one round of
 * each rather than every timing of one; best of SWEEP_TIMINGS. */
static int time_patterns(const kb_backend *b, void *const buf[3], size_t bytes, pattern_run *runs,
                         int n) {
    for (int k = 0; k < n; ++k) {
        pattern_run *u = &runs[k];
        double ms = 0.0;
        for (u->reps = 1;; u->reps *= 2) {
            int rc = b->time_pattern(u->p, u->nt, buf[0], buf[1], buf[2], bytes, u->reps, &ms);
            if (rc < 0) return -1;
            u->declined = rc == 1;
            if (u->declined || ms >= SWEEP_MIN_MS || u->reps >= SWEEP_MAX_REP) break;
        }
    }
    for (int t = 0; t < SWEEP_TIMINGS; ++t)
        for (int k = 0; k < n; ++k) {
            pattern_run *u = &runs[k];
            double ms;
            if (u->declined) continue;
            if (b->time_pattern(u->p, u->nt, buf[0], buf[1], buf[2], bytes, u->reps, &ms) < 0)
                return -1;
            if (ms > 0.0)
                u->gbps = fmax(u->gbps,
                               pattern_arrays(u->p) * (double)bytes * u->reps / (ms * 1e-3) * 1e-9);
        }
    return 0;
}

/* Memory's ceiling per pattern, from arrays of `bytes` each (at least 4x
 * the last cache: every working set lies in memory's window), the third
 * array allocated and written here. Each pattern that writes is timed
 * with both kinds of store: a store through the cache reads its line
 * first (write-allocate), a stream the counted bytes leave out, which
 * non-temporal stores spare; the figure kept is the better of the two, and
 * of the calibration cases of that pattern. */
static int measure_patterns(const kb_backend *b, void *dst, void *src, size_t bytes,
                            const kb_pattern_cases *cases, kb_roofs *r, kb_err *err) {
    void *third = b->alloc(bytes, err);
    if (!third || fill(b, third, bytes, err) != 0) {
        if (third) b->release(third);
        return -1;
    }
    void *const buf[3] = {dst, src, third};
    pattern_run runs[] = {{KB_PATTERN_READ, 0, 0, 0, 0.0},
                          {KB_PATTERN_TRIAD, 0, 0, 0, 0.0},
                          {KB_PATTERN_TRIAD, 1, 0, 0, 0.0},
                          {KB_PATTERN_COPY, 0, 0, 0, 0.0},
                          {KB_PATTERN_COPY, 1, 0, 0, 0.0}};
    const int n = (int)(sizeof runs / sizeof *runs);
    int rc = time_patterns(b, buf, bytes, runs, n);
    b->release(third);
    if (rc != 0)
        return kb_fail(err, "backend '%s': a memory access pattern's pass failed", b->name);
    for (int k = 0; k < n; ++k) {
        kb_pattern_roof *pr = &r->patterns[runs[k].p];
        *(runs[k].nt ? &pr->nt_gbps : &pr->cached_gbps) = runs[k].gbps;
    }
    char size[32];
    kb_format_bytes((double)bytes, size, sizeof size);
    for (int p = 0; p < KB_PATTERN_COUNT; ++p) {
        kb_pattern_roof *pr = &r->patterns[p];
        const double from_cases = cases ? cases->gbps[p] : 0.0;
        pr->gbps = fmax(fmax(pr->cached_gbps, pr->nt_gbps), from_cases);
        if (pr->cached_gbps <= 0.0) {
            note(r, "patterns: backend '%s' declined the %s pass: memory has one ceiling", b->name,
                 kb_pattern_name((kb_mem_pattern)p));
            return 0;
        }
        char stores[96];
        if (p == KB_PATTERN_READ)
            snprintf(stores, sizeof stores, "no stores, %.2f GB/s", pr->cached_gbps);
        else if (pr->nt_gbps > 0.0)
            snprintf(stores, sizeof stores, "stores through the cache %.2f GB/s, non-temporal %.2f",
                     pr->cached_gbps, pr->nt_gbps);
        else
            snprintf(stores, sizeof stores, "stores through the cache %.2f GB/s, no non-temporal",
                     pr->cached_gbps);
        snprintf(pr->how, sizeof pr->how,
                 "the best of the %s pass over arrays of %s each (%s; %g x the array counted per "
                 "pass, best of %d timings of >= 2 ms each) and the calibration cases of this "
                 "pattern (%s)",
                 kb_pattern_name((kb_mem_pattern)p), size, stores,
                 pattern_arrays((kb_mem_pattern)p), SWEEP_TIMINGS,
                 from_cases > 0.0 ? cases->how[p] : "none");
    }
    r->n_patterns = KB_PATTERN_COUNT;
    return 0;
}

static int sweep(const kb_backend *b, const kb_pattern_cases *cases, kb_roofs *r, kb_err *err) {
    const double top_cache = largest_cache(r), top = fmax(8.0 * top_cache, SWEEP_MIN_TOP);
    size_t half = (size_t)(top / 2.0);
    void *src = b->alloc(half, err), *dst = src ? b->alloc(half, err) : NULL;
    int rc = src && dst ? 0 : -1;
    double ms;
    if (rc == 0) rc = fill(b, src, half, err);
    if (rc == 0) rc = b->time_stream(dst, src, half, 1, &ms); /* first touch of dst */
    for (double pow2 = SWEEP_FIRST; rc == 0 && pow2 <= top; pow2 *= 2.0)
        for (int k = 0; k < 2 && rc == 0 && r->n_sweep < KB_MAX_SWEEP; ++k) {
            double ws = k ? 1.5 * pow2 : pow2;
            if (ws > top) break;
            rc = measure_point(b, dst, src, ws, &r->sweep[r->n_sweep++], top_cache);
        }
    if (rc == 0 && b->time_pattern)
        rc = measure_patterns(b, dst, src, half / 64 * 64, cases, r, err);
    else if (rc == 0)
        note(r, "patterns: backend '%s' has no pass per access pattern: memory has one ceiling",
             b->name);
    if (dst) b->release(dst);
    if (src) b->release(src);
    if (rc != 0 && !err->msg[0]) kb_fail(err, "the bandwidth sweep's streaming pass failed");
    return rc;
}

/* Best GB/s of the sweep points whose working set is in (lo, hi]; hi 0:
 * no upper bound. */
static double window_best(const kb_roofs *r, double lo, double hi, int *count) {
    double best = 0.0;
    *count = 0;
    for (int i = 0; i < r->n_sweep; ++i) {
        double ws = r->sweep[i].working_set_bytes;
        if (ws <= lo || (hi > 0.0 && ws > hi)) continue;
        ++*count;
        best = fmax(best, r->sweep[i].gbps);
    }
    return best;
}

static const char *const counting =
    "2 x bytes per pass counted (read + write, as the manifests count; a write-allocate read is "
    "not), best of 5 timings of >= 2 ms each";

/* A level's window: working sets above twice the previous level's capacity
 * (so that level holds at most half of it) and within its own; memory's
 * starts above 3x the last cache, since a victim L3 (AMD's) still hits on
 * part of a set two or three times its size. */
static void level_figure(kb_roofs *r, int i, double memory_gbps, const char *memory_how) {
    kb_level_roof *l = &r->levels[i];
    const double below = i > 0 ? r->levels[i - 1].level.capacity : 0.0;
    const double lo = (l->level.capacity > 0.0 ? 2.0 : 3.0) * below;
    char los[32], his[32];
    kb_format_bytes(lo, los, sizeof los);
    kb_format_bytes(l->level.capacity, his, sizeof his);
    int count;
    l->gbps = window_best(r, lo, l->level.capacity, &count);
    if (l->level.capacity > 0.0) {
        snprintf(l->how, sizeof l->how,
                 "best of the %d sweep points with working set in (%s, %s]: the streaming scale "
                 "pass or the runtime's copy, whichever was faster; %s",
                 count, los, his, counting);
        return;
    }
    const double swept = l->gbps;
    l->gbps = fmax(swept, memory_gbps);
    snprintf(l->how, sizeof l->how,
             "the larger of the best of the %d sweep points with working set above %s (the "
             "streaming scale pass with cached or non-temporal stores, whichever was faster, "
             "%.2f GB/s; %s) and the calibration cases' best, %.2f GB/s (%s)",
             count, los, swept, counting, memory_gbps, memory_how);
}

/* The levels the backend names, each with its figure; a cache level no
 * sweep point fell in is left out. */
static int measure_levels(const kb_backend *b, double memory_gbps, const char *memory_how,
                          const kb_pattern_cases *cases, kb_roofs *r, kb_err *err) {
    kb_mem_level levels[KB_MAX_MEM_LEVELS];
    int n = b->memory_levels ? b->memory_levels(levels, KB_MAX_MEM_LEVELS) : 0;
    if (n <= 0) {
        note(r, "levels: backend '%s' does not describe its memory hierarchy: no roofline",
             b->name);
        return 0;
    }
    if (n > KB_MAX_MEM_LEVELS)
        return kb_fail(err, "backend '%s': %d memory levels, more than %d", b->name, n,
                       KB_MAX_MEM_LEVELS);
    const char *problem = kb_levels_problem(levels, n);
    if (problem) return kb_fail(err, "backend '%s': memory levels: %s", b->name, problem);
    for (int i = 0; i < n; ++i) r->levels[i].level = levels[i];
    r->n_levels = n;
    if (!b->time_stream) {
        note(r, "sweep: backend '%s' has no streaming pass: no cache levels", b->name);
        r->levels[0] = r->levels[n - 1];
        r->n_levels = 1;
    } else if (sweep(b, cases, r, err) != 0) {
        return -1;
    }
    int kept = 0;
    for (int i = 0; i < r->n_levels; ++i) {
        level_figure(r, i, memory_gbps, memory_how);
        if (r->levels[i].gbps > 0.0)
            r->levels[kept++] = r->levels[i];
        else
            note(r, "%s: no sweep point inside it", r->levels[i].level.name);
    }
    r->n_levels = kept;
    return 0;
}

/* One pass over the compute roofs; a later pass keeps the higher figure of
 * each, and notes only what the first pass found missing. */
static int measure_compute(const kb_backend *b, kb_roofs *r, int pass, kb_err *err) {
    if (!b->peak_compute) {
        if (pass == 0)
            note(r, "compute: backend '%s' has no multiply-add throughput loop: no compute roof",
                 b->name);
        return 0;
    }
    static const struct {
        kb_compute_unit unit;
        const char *name;
    } units[] = {{KB_UNIT_FMA, "compute"}, {KB_UNIT_MATRIX, "matrix"}};
    for (int p = 0; p < KB_PREC_COUNT; ++p)
        for (int u = 0; u < 2; ++u) {
            kb_compute_roof *c = units[u].unit == KB_UNIT_FMA ? &r->fma[p] : &r->matrix[p];
            if (pass > 0 && c->gflops <= 0.0) continue; /* none the first time */
            double g = 0.0;
            char how[sizeof c->how];
            int rc = b->peak_compute((kb_prec)p, units[u].unit, &g, how, sizeof how, err);
            if (rc < 0 && pass > 0) { /* the first pass's figure stands */
                note(r, "%s %s: the second measurement failed (%s); the first is kept",
                     units[u].name, kb_prec_name((kb_prec)p), err->msg);
                err->msg[0] = '\0';
                continue;
            }
            if (rc < 0) return -1;
            if (rc == 0 && g > 0.0 && isfinite(g)) {
                if (g >= c->gflops) { /* ties too: the later `how` counts every timing */
                    c->gflops = g;
                    memcpy(c->how, how, sizeof how);
                }
                continue;
            }
            if (pass == 0)
                note(r, "%s %s: %s", units[u].name, kb_prec_name((kb_prec)p),
                     rc == 0 ? "the backend gave no positive figure" : how);
        }
    return 0;
}

int kb_roofs_measure(const kb_backend *b, double memory_gbps, const char *memory_how,
                     const kb_pattern_cases *cases, kb_roofs *out, kb_err *err) {
    memset(out, 0, sizeof *out);
    err->msg[0] = '\0';
    /* The compute roofs before and after the memory sweep: a burst of load
     * that spoils one pass seldom spoils both. */
    if (measure_compute(b, out, 0, err) != 0) return -1;
    if (measure_levels(b, memory_gbps, memory_how, cases, out, err) != 0) return -1;
    return measure_compute(b, out, 1, err);
}
