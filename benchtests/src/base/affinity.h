/* Which CPUs a timed round runs on. The gate re-measures a suspected
 * slowdown on each of the CPUs the process may use in turn (docs/gate.md,
 * rule 3): a slower kernel is slow on every CPU, while a busy hardware
 * neighbour or a throttled core slows only the CPU it shares. A case that
 * runs t threads (the manifest's "threads") runs on t CPUs: a window of t
 * consecutive CPUs of the allowed list, which moves on by one CPU where a
 * single-threaded case moves to the next CPU. Linux only; elsewhere the
 * list is empty and rounds run where the scheduler puts them. */
#ifndef KB_AFFINITY_H
#define KB_AFFINITY_H

#include <stddef.h>

#define KB_MAX_CPUS 1024

typedef struct kb_affinity {
    int n;                /* CPUs allowed when the run started; 0 = unknown */
    int cpu[KB_MAX_CPUS]; /* their numbers, ascending: the mask kb_affinity_restore sets again */
} kb_affinity;

/* Reads the CPUs this thread may run on. Returns their count (0 when the
 * platform cannot tell). */
int kb_affinity_init(kb_affinity *a);

/* The CPUs the process was allowed when it started: its affinity mask
 * (taskset, CTest's PROCESSOR_AFFINITY or a cgroup may make it fewer than the
 * machine's CPUs), read by the first call, which the driver makes before
 * it pins anything. The processes a driver starts get this mask too
 * (workers.c), so they read the same list. */
const kb_affinity *kb_affinity_start(void);

/* The CPU the calling thread runs on now, or -1. */
int kb_affinity_current(void);

/* The CPU `step` places after `from` in the allowed list (wrapping), or -1
 * when fewer than two CPUs are allowed. */
int kb_affinity_next(const kb_affinity *a, int from, int step);

/* The t CPUs a round of a t-thread case starting at CPU `first` runs on:
 * `first` and the t - 1 CPUs after it in the allowed list (wrapping; a CPU
 * not in the list counts as the first one), into cpus. Returns t, or 0
 * when the list is unknown or holds fewer than t CPUs. */
int kb_affinity_window(const kb_affinity *a, int first, int t, int *cpus);

/* Pins the calling thread to `cpu`. Returns 0, or -1 (errno set). */
int kb_affinity_pin(int cpu);

/* Pins every thread of the process to the n CPUs: the threads a kernel
 * started before (an OpenMP pool keeps its threads between calls, each
 * with the mask it was created with) as well as the calling one, whose
 * mask the threads it starts later inherit. Returns 0, or -1 when the
 * calling thread could not be pinned. */
int kb_affinity_pin_all(const int *cpus, int n);

/* Gives the calling thread the CPUs it was allowed at kb_affinity_init. */
int kb_affinity_restore(const kb_affinity *a);

/* Gives every thread of the process the CPUs of `a`. */
int kb_affinity_restore_all(const kb_affinity *a);

/* "0-3,8" for the n CPUs (ascending or not) into out, for messages. */
void kb_affinity_format(const int *cpus, int n, char *out, size_t size);

#endif
