#define _POSIX_C_SOURCE 200809L
#include "base/clock.h"

#include <errno.h>
#include <time.h>

double kb_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void kb_sleep_s(double s) {
    if (s <= 0.0) return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

void kb_utc_now(char *out, size_t size) {
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
