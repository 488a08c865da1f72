#define _GNU_SOURCE /* sched_{get,set}affinity, sched_getcpu, CPU_* */
#include "base/affinity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __linux__
#include <dirent.h>
#include <sched.h>
#include <sys/types.h>
#include <unistd.h>

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

/* The mask of the n CPUs; -1 when one is out of range or there is none. */
static int make_set(const int *cpus, int n, cpu_set_t *set) {
    CPU_ZERO(set);
    for (int i = 0; i < n; ++i) {
        if (cpus[i] < 0 || cpus[i] >= CPU_SETSIZE) return -1;
        CPU_SET(cpus[i], set);
    }
    return n > 0 ? 0 : -1;
}

/* The calling thread first, then every other thread of the process
 * (/proc/self/task): one that ended meanwhile is no error. */
static int set_all(const cpu_set_t *set) {
    if (sched_setaffinity(0, sizeof *set, set) != 0) return -1;
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    const pid_t self = (pid_t)gettid();
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char *end;
        long tid = strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end || tid <= 0 || (pid_t)tid == self) continue;
        (void)sched_setaffinity((pid_t)tid, sizeof *set, set);
    }
    closedir(d);
    return 0;
}

int kb_affinity_pin_all(const int *cpus, int n) {
    cpu_set_t set;
    if (make_set(cpus, n, &set) != 0) return -1;
    return set_all(&set);
}

int kb_affinity_restore(const kb_affinity *a) {
    if (a->n == 0) return 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int i = 0; i < a->n; ++i) CPU_SET(a->cpu[i], &set);
    return sched_setaffinity(0, sizeof set, &set);
}

int kb_affinity_restore_all(const kb_affinity *a) {
    cpu_set_t set;
    if (a->n == 0 || make_set(a->cpu, a->n, &set) != 0) return 0;
    return set_all(&set);
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

int kb_affinity_pin_all(const int *cpus, int n) {
    (void)cpus;
    (void)n;
    return -1;
}

int kb_affinity_restore(const kb_affinity *a) {
    (void)a;
    return 0;
}

int kb_affinity_restore_all(const kb_affinity *a) {
    (void)a;
    return 0;
}

#endif

const kb_affinity *kb_affinity_start(void) {
    static kb_affinity start;
    static int read;
    if (!read) {
        kb_affinity_init(&start);
        read = 1;
    }
    return &start;
}

/* Where `cpu` is in the allowed list; 0 (the first) when it is not there. */
static int position(const kb_affinity *a, int cpu) {
    for (int i = 0; i < a->n; ++i)
        if (a->cpu[i] == cpu) return i;
    return 0;
}

int kb_affinity_next(const kb_affinity *a, int from, int step) {
    if (a->n < 2) return -1;
    return a->cpu[(position(a, from) + step % a->n + a->n) % a->n];
}

int kb_affinity_window(const kb_affinity *a, int first, int t, int *cpus) {
    if (t < 1 || a->n < t) return 0;
    const int at = position(a, first);
    for (int i = 0; i < t; ++i) cpus[i] = a->cpu[(at + i) % a->n];
    return t;
}

static int compare_int(const void *a, const void *b) {
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void kb_affinity_format(const int *cpus, int n, char *out, size_t size) {
    int sorted[KB_MAX_CPUS];
    if (n > KB_MAX_CPUS) n = KB_MAX_CPUS;
    memcpy(sorted, cpus, (size_t)(n > 0 ? n : 0) * sizeof *sorted);
    qsort(sorted, (size_t)(n > 0 ? n : 0), sizeof *sorted, compare_int);
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n && len < size; ++i) {
        int j = i;
        while (j + 1 < n && sorted[j + 1] == sorted[j] + 1) ++j;
        len += (size_t)(j > i ? snprintf(out + len, size - len, "%s%d-%d", i ? "," : "", sorted[i],
                                         sorted[j])
                              : snprintf(out + len, size - len, "%s%d", i ? "," : "", sorted[i]));
        i = j;
    }
}
