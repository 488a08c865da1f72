/* One case under the machine's roofs (docs/roofline.md): its arithmetic
 * intensity, the level of the memory hierarchy its buffers fit in, the
 * attainable rate there, and how close its median time comes to it. */
#ifndef KB_ROOFLINE_H
#define KB_ROOFLINE_H

#include "measure/roofs.h"

typedef struct kb_roofline {
    int present;              /* 0: no figure; `why` says why */
    double intensity;         /* manifest flops / bytes; 0 when flops is 0 */
    double footprint_bytes;   /* every input and output buffer at the case's precision */
    char level[16];           /* the smallest level that holds the footprint */
    char bound[16];           /* that level's name, or "compute" */
    double write_fraction;    /* the outputs' share of the footprint */
    const char *pattern;      /* memory's ceiling by write_fraction (kb_memory_roof); NULL:
                                 the level's figure (a cache, or no ceiling per pattern) */
    double roof_gbps;         /* the level's bandwidth, or memory's for the case's pattern */
    double compute_gflops;    /* the precision's compute roof (0: none, flops 0) */
    const char *compute_unit; /* "fma" or "matrix": the larger of the two; NULL: none */
    double attainable_gflops; /* min(compute, intensity x roof_gbps); 0 when flops is 0 */
    double pct;               /* minimal time / median time x 100 */
    char why[640];            /* as long as the calibration's notes */
} kb_roofline;

/* The case's roofline from its counts and median (ms) in precision p;
 * `written` is the part of `footprint` in its outputs. `cold`: the case
 * runs with its caches flushed, so its data comes from memory whatever its
 * footprint. The minimal time is max(flops / compute, bytes / bandwidth),
 * the bandwidth from memory that of the case's read/write mix
 * (kb_memory_roof) where the calibration has one per pattern; with flops 0
 * only the bandwidth counts, and a precision without a compute figure
 * leaves a case with flops no roofline. Returns out->present. */
int kb_roofline_of(const kb_roofs *roofs, kb_prec p, double flops, double bytes, double footprint,
                   double written, int cold, double median_ms, kb_roofline *out);

/* Memory's ceiling for a case writing the fraction f of its bytes, from
 * the patterns' (roofs->n_patterns must be KB_PATTERN_COUNT): a pattern's
 * own at its fraction (read 0, triad 1/3, copy 1/2), the copy's above
 * 1/2, and between two patterns the seconds per byte interpolated
 * linearly in f (a mix of the two moves its bytes in the sum of their
 * times). *name: "read", "read+triad", "triad", "triad+copy" or "copy". */
double kb_memory_roof(const kb_roofs *roofs, double f, const char **name);

#endif
