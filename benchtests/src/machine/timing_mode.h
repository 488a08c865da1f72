/* How a case's calls were timed: the result JSON, the baseline and the gate
 * name it, because timings taken two ways are not comparable. On a GPU the
 * calls of a sample are queued behind a stream hold (holdplan.h) unless the
 * backend has none, a profiler runs the process, or the implementation's
 * calls wait for the device (the hold gives up on it part way through the
 * run); held calls run back to back, unheld ones leave the device idle
 * between launches, and a small case timed unheld is several times slower
 * (docs/gpu-timing.md, "The stream hold"). */
#ifndef KB_TIMING_MODE_H
#define KB_TIMING_MODE_H

typedef enum kb_timing {
    KB_TIMING_UNKNOWN, /* no sample yet; a baseline entry without the field */
    KB_TIMING_HOST,    /* the host clock around the calls as they run (CPU) */
    KB_TIMING_HELD,    /* device events, the calls queued behind a stream hold */
    KB_TIMING_UNHELD,  /* device events around calls launched one by one */
    KB_TIMING_MIXED,   /* some samples held, later ones not: the hold gave up */
    KB_TIMING_N
} kb_timing;

/* "unknown", "host", "held", "unheld", "mixed"; "?" outside the enum. */
const char *kb_timing_name(kb_timing t);

/* The mode named `name` other than "unknown" (which no file holds: an
 * absent field is unknown): 0, or -1. */
int kb_timing_parse(const char *name, kb_timing *t);

/* The mode of samples timed as a and as b together: UNKNOWN adds nothing,
 * two different modes are MIXED. */
kb_timing kb_timing_join(kb_timing a, kb_timing b);

/* Whether a run timed as `now` is handicapped against a baseline timed as
 * `base`: the same work may take it longer, because its calls were timed
 * in a way that counts more than the device's work (unheld GPU calls
 * include the gaps between launches that held ones do not; mixed rounds
 * some of them), or the two were timed by different clocks. A slowdown it
 * shows may then be the timing's, not the code's, so the gate does not fail
 * it (KB_LAT_OTHER_TIMING); a run within tolerance, or one timed the faster
 * way (held against an unheld baseline), is gated as usual. Never for the
 * same mode or an unknown one (a baseline entry that does not say how it
 * was timed is gated as usual). */
int kb_timing_handicapped(kb_timing base, kb_timing now);

#endif
