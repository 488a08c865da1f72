/* Which CPU a timed round runs on. The gate re-measures a suspected slowdown
 * on each of the CPUs the process may use in turn (docs/gate.md, rule 3): a
 * slower kernel is slow on every CPU, while a busy hardware neighbour or a
 * throttled core slows only the CPU it shares. Linux only; elsewhere the
 * list is empty and rounds run where the scheduler puts them. */
#ifndef KB_AFFINITY_H
#define KB_AFFINITY_H

#define KB_MAX_CPUS 1024

typedef struct kb_affinity {
    int n;                /* CPUs allowed when the run started; 0 = unknown */
    int cpu[KB_MAX_CPUS]; /* their numbers, ascending: the mask kb_affinity_restore sets again */
} kb_affinity;

/* Reads the CPUs this thread may run on. Returns their count (0 when the
 * platform cannot tell). */
int kb_affinity_init(kb_affinity *a);

/* The CPU the calling thread runs on now, or -1. */
int kb_affinity_current(void);

/* The CPU `step` places after `from` in the allowed list (wrapping), or -1
 * when fewer than two CPUs are allowed. */
int kb_affinity_next(const kb_affinity *a, int from, int step);

/* Pins the calling thread to `cpu`. Returns 0, or -1 (errno set). */
int kb_affinity_pin(int cpu);

/* Gives the calling thread the CPUs it was allowed at kb_affinity_init. */
int kb_affinity_restore(const kb_affinity *a);

#endif
