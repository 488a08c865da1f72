#define _GNU_SOURCE
#include "machine/disturb.h"

#include <sys/resource.h>
#include <time.h>

void kb_thread_mark_now(kb_thread_mark *m) {
    struct timespec ts;
    m->cpu_s = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0
                   ? (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9
                   : -1.0;
#ifdef RUSAGE_THREAD
    struct rusage u;
    m->nivcsw = getrusage(RUSAGE_THREAD, &u) == 0 ? u.ru_nivcsw : -1;
#else
    m->nivcsw = -1;
#endif
}

int kb_thread_disturbed(const kb_thread_mark *from, const kb_thread_mark *to, double wall_s) {
    if (from->cpu_s < 0.0 || to->cpu_s < 0.0) return from->nivcsw >= 0 && to->nivcsw > from->nivcsw;
    double lost = wall_s - (to->cpu_s - from->cpu_s);
    return lost > KB_DISTURB_LOST_FRACTION * wall_s + KB_DISTURB_LOST_MIN_S;
}
