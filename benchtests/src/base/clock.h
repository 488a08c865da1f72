/* Monotonic wall-clock time, and the date for records. */
#ifndef KB_CLOCK_H
#define KB_CLOCK_H

#include <stddef.h>

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double kb_now_s(void);

/* Sleeps for s seconds (used between confirmation rounds). */
void kb_sleep_s(double s);

/* The current UTC time as 2026-01-31T12:00:00Z. */
void kb_utc_now(char *out, size_t size);

#endif
