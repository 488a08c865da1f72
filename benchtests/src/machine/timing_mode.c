/* The timing modes (machine/timing_mode.h). */
#include "machine/timing_mode.h"

#include <string.h>

static const char *const names[KB_TIMING_N] = {"unknown", "host", "held", "unheld", "mixed"};

const char *kb_timing_name(kb_timing t) {
    return (unsigned)t < KB_TIMING_N ? names[t] : "?";
}

int kb_timing_parse(const char *name, kb_timing *t) {
    for (int i = KB_TIMING_HOST; i < KB_TIMING_N; ++i)
        if (strcmp(name, names[i]) == 0) {
            *t = (kb_timing)i;
            return 0;
        }
    return -1;
}

kb_timing kb_timing_join(kb_timing a, kb_timing b) {
    if (a == KB_TIMING_UNKNOWN) return b;
    if (b == KB_TIMING_UNKNOWN) return a;
    return a == b ? a : KB_TIMING_MIXED;
}

/* The GPU modes from the fastest timing of the same work to the slowest;
 * -1 for the host clock and unknown. */
static int gpu_rank(kb_timing t) {
    switch (t) {
    case KB_TIMING_HELD: return 0;
    case KB_TIMING_MIXED: return 1;
    case KB_TIMING_UNHELD: return 2;
    default: return -1;
    }
}

int kb_timing_handicapped(kb_timing base, kb_timing now) {
    if (base == KB_TIMING_UNKNOWN || now == KB_TIMING_UNKNOWN || base == now) return 0;
    const int b = gpu_rank(base), n = gpu_rank(now);
    return b < 0 || n < 0 || n > b; /* the host clock against a GPU's: not comparable */
}
