/* The machine's roofs, measured by the calibration test (docs/calibration.md):
 * the bandwidth of each level of the memory hierarchy, from a sweep of
 * streaming passes over growing working sets, and the multiply-add
 * throughput (and matrix-unit throughput where the backend has one) per
 * precision. The calibration file holds them; roofline.h places each case
 * under them. */
#ifndef KB_ROOFS_H
#define KB_ROOFS_H

#include "backend/backend.h"
#include "base/error.h"

#define KB_MAX_SWEEP   64
#define KB_ROOF_HOW    512
#define KB_ROOFS_NOTES 16

typedef struct kb_level_roof {
    kb_mem_level level; /* capacity 0: the memory, last */
    double gbps;
    char how[KB_ROOF_HOW];
} kb_level_roof;

typedef struct kb_compute_roof {
    double gflops; /* 0: no figure for this precision */
    char how[KB_ROOF_HOW];
} kb_compute_roof;

typedef struct kb_sweep_point {
    double working_set_bytes; /* both buffers of the pass */
    double gbps;              /* read + write traffic over the best timing */
} kb_sweep_point;

/* Memory's ceiling for one access pattern (backend.h's kb_mem_pattern):
 * the pass with stores through the cache, with non-temporal ones, and the
 * figure kept, the best of them and of the calibration cases of that
 * pattern: what a kernel can reach with either kind of store. */
typedef struct kb_pattern_roof {
    double gbps;        /* the figure kept; 0: not measured */
    double cached_gbps; /* stores through the cache (the reduction's only figure); 0: none */
    double nt_gbps;     /* non-temporal stores; 0: none (the reduction, or no such stores) */
    char how[KB_ROOF_HOW];
} kb_pattern_roof;

/* The calibration cases' best GB/s per pattern (0: no case of it), with
 * their names and figures; a case counts for the pattern whose write
 * fraction its layout has (kb_pattern_of_fraction). */
typedef struct kb_pattern_cases {
    double gbps[KB_PATTERN_COUNT];
    char how[KB_PATTERN_COUNT][128];
} kb_pattern_cases;

typedef struct kb_roofs {
    int n_levels; /* 0: no bandwidth roofs */
    kb_level_roof levels[KB_MAX_MEM_LEVELS];
    kb_compute_roof fma[KB_PREC_COUNT], matrix[KB_PREC_COUNT];
    int n_patterns; /* KB_PATTERN_COUNT when memory has a ceiling per pattern, else 0 */
    kb_pattern_roof patterns[KB_PATTERN_COUNT];
    int n_sweep;
    kb_sweep_point sweep[KB_MAX_SWEEP];
    int n_notes;
    char notes[KB_ROOFS_NOTES][256]; /* each figure not measured, and why */
} kb_roofs;

/* Measures backend b's roofs. `memory_gbps` is the calibration cases' best
 * figure, which the memory level takes when it is larger than the sweep's
 * (`memory_how` names those cases); `cases` (NULL: none) their best per
 * pattern, which each pattern's ceiling takes likewise. A hook the backend
 * lacks, or a figure it has not, is left out with a note in out->notes; -1
 * only on a failure of the backend (err). */
int kb_roofs_measure(const kb_backend *b, double memory_gbps, const char *memory_how,
                     const kb_pattern_cases *cases, kb_roofs *out, kb_err *err);

/* "read", "triad", "copy": the calibration file's and the result's names. */
const char *kb_pattern_name(kb_mem_pattern p);

/* The share of a pattern's counted bytes that is written: 0, 1/3, 1/2. */
double kb_pattern_write_fraction(kb_mem_pattern p);

/* The pattern whose write fraction is `f` (to a part in 10^9), else -1. */
int kb_pattern_of_fraction(double f);

/* "32 KiB", "1.5 MiB": a capacity or working set in words. */
void kb_format_bytes(double bytes, char *out, size_t size);

/* Why `levels` (n of them) is not a hierarchy the roofline can use (NULL
 * when it is): names set and distinct, capacities positive and growing,
 * the last one (memory) 0. */
const char *kb_levels_problem(const kb_mem_level *levels, int n);

#endif
