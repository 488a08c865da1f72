/* The CPU backend's passes of the memory access patterns the calibration
 * measures (backend.h's time_pattern): a reduction, a copy and a triad,
 * each write with stores through the cache or non-temporal ones. */
#ifndef KB_CPU_PATTERNS_H
#define KB_CPU_PATTERNS_H

#include "backend/backend.h"

int kb_cpu_time_pattern(kb_mem_pattern p, int nt, void *dst, const void *a, const void *b,
                        size_t bytes, int reps, double *ms);

#endif
