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

typedef struct kb_roofs {
    int n_levels; /* 0: no bandwidth roofs */
    kb_level_roof levels[KB_MAX_MEM_LEVELS];
    kb_compute_roof fma[KB_PREC_COUNT], matrix[KB_PREC_COUNT];
    int n_sweep;
    kb_sweep_point sweep[KB_MAX_SWEEP];
    int n_notes;
    char notes[KB_ROOFS_NOTES][256]; /* each figure not measured, and why */
} kb_roofs;

/* Measures backend b's roofs. `memory_gbps` is the calibration cases' best
 * figure, which the memory level takes when it is larger than the sweep's
 * (`memory_how` names those cases). A hook the backend lacks, or a figure
 * it has not, is left out with a note in out->notes; -1 only on a failure
 * of the backend (err). */
int kb_roofs_measure(const kb_backend *b, double memory_gbps, const char *memory_how, kb_roofs *out,
                     kb_err *err);

/* "32 KiB", "1.5 MiB": a capacity or working set in words. */
void kb_format_bytes(double bytes, char *out, size_t size);

/* Why `levels` (n of them) is not a hierarchy the roofline can use (NULL
 * when it is): names set and distinct, capacities positive and growing,
 * the last one (memory) 0. */
const char *kb_levels_problem(const kb_mem_level *levels, int n);

#endif
