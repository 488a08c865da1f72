#include "measure/roofline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int none(kb_roofline *out, const char *why) {
    out->present = 0;
    snprintf(out->why, sizeof out->why, "%s", why);
    return 0;
}

/* The smallest level whose capacity holds the footprint (a footprint equal
 * to a capacity fits); memory (capacity 0) holds everything. */
static const kb_level_roof *level_of(const kb_roofs *roofs, double footprint, int cold) {
    const kb_level_roof *memory = &roofs->levels[roofs->n_levels - 1];
    if (cold) return memory;
    for (int i = 0; i < roofs->n_levels; ++i)
        if (roofs->levels[i].level.capacity == 0.0 || footprint <= roofs->levels[i].level.capacity)
            return &roofs->levels[i];
    return memory;
}

/* The precision's compute roof: the multiply-add pipes', or the matrix
 * unit's where it was measured and is the larger. */
static double compute_roof(const kb_roofs *roofs, kb_prec p, const char **unit) {
    double fma = roofs->fma[p].gflops, matrix = roofs->matrix[p].gflops;
    *unit = matrix > fma ? "matrix" : fma > 0.0 ? "fma" : NULL;
    return fmax(fma, matrix);
}

double kb_memory_roof(const kb_roofs *roofs, double f, const char **name) {
    static const char *const between[] = {"read+triad", "triad+copy"};
    const kb_pattern_roof *pr = roofs->patterns;
    const int at = kb_pattern_of_fraction(f);
    if (at >= 0 || f <= 0.0 || f >= 0.5) {
        const int p = at >= 0 ? at : f <= 0.0 ? KB_PATTERN_READ : KB_PATTERN_COPY;
        *name = kb_pattern_name((kb_mem_pattern)p);
        return pr[p].gbps;
    }
    const int lo =
        f < kb_pattern_write_fraction(KB_PATTERN_TRIAD) ? KB_PATTERN_READ : KB_PATTERN_TRIAD;
    const double f0 = kb_pattern_write_fraction((kb_mem_pattern)lo),
                 f1 = kb_pattern_write_fraction((kb_mem_pattern)(lo + 1)), t = (f - f0) / (f1 - f0);
    *name = between[lo];
    return 1.0 / ((1.0 - t) / pr[lo].gbps + t / pr[lo + 1].gbps);
}

int kb_roofline_of(const kb_roofs *roofs, kb_prec p, double flops, double bytes, double footprint,
                   double written, int cold, double median_ms, kb_roofline *out) {
    memset(out, 0, sizeof *out);
    out->footprint_bytes = footprint;
    out->write_fraction = footprint > 0.0 ? fmin(fmax(written / footprint, 0.0), 1.0) : 0.0;
    if (!roofs || roofs->n_levels == 0) return none(out, "no bandwidth roofs calibrated");
    if ((unsigned)p >= KB_PREC_COUNT) return none(out, "unknown precision");
    if (!(median_ms > 0.0) || !(bytes > 0.0)) return none(out, "no time or no bytes to place");
    const kb_level_roof *l = level_of(roofs, footprint, cold);
    const double compute = compute_roof(roofs, p, &out->compute_unit);
    if (flops > 0.0 && compute <= 0.0) return none(out, "no compute roof for this precision");
    snprintf(out->level, sizeof out->level, "%s", l->level.name);
    /* from memory, the ceiling of the case's read/write mix */
    out->roof_gbps = l->level.capacity == 0.0 && roofs->n_patterns == KB_PATTERN_COUNT
                         ? kb_memory_roof(roofs, out->write_fraction, &out->pattern)
                         : l->gbps;
    out->compute_gflops = compute;
    out->intensity = flops > 0.0 ? flops / bytes : 0.0;
    const double t_memory = bytes / (out->roof_gbps * 1e9);
    const double t_compute = flops > 0.0 ? flops / (compute * 1e9) : 0.0;
    snprintf(out->bound, sizeof out->bound, "%s", t_compute > t_memory ? "compute" : l->level.name);
    out->attainable_gflops = flops > 0.0 ? fmin(compute, out->intensity * out->roof_gbps) : 0.0;
    out->pct = 100.0 * fmax(t_memory, t_compute) / (median_ms * 1e-3);
    out->present = 1;
    return 1;
}
