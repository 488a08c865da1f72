#define _GNU_SOURCE /* sched_{get,set}affinity, sched_getcpu, CPU_* */
#include "affinity.h"

#include <string.h>

#ifdef __linux__
#include <sched.h>

int kb_affinity_init(kb_affinity *a) {
    memset(a, 0, sizeof *a);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    for (int c = 0; c < KB_MAX_CPUS && c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) a->cpu[a->n++] = c;
    return a->n;
}

int kb_affinity_current(void) {
    return sched_getcpu();
}

int kb_affinity_pin(int cpu) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) return -1;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

int kb_affinity_restore(const kb_affinity *a) {
    if (a->n == 0) return 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int i = 0; i < a->n; ++i) CPU_SET(a->cpu[i], &set);
    return sched_setaffinity(0, sizeof set, &set);
}

#else

int kb_affinity_init(kb_affinity *a) {
    memset(a, 0, sizeof *a);
    return 0;
}

int kb_affinity_current(void) {
    return -1;
}

int kb_affinity_pin(int cpu) {
    (void)cpu;
    return -1;
}

int kb_affinity_restore(const kb_affinity *a) {
    (void)a;
    return 0;
}

#endif

int kb_affinity_next(const kb_affinity *a, int from, int step) {
    if (a->n < 2) return -1;
    int at = 0;
    for (int i = 0; i < a->n; ++i)
        if (a->cpu[i] == from) at = i;
    return a->cpu[(at + step % a->n + a->n) % a->n];
}
