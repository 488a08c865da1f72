/* Monotonic wall-clock time. */
#ifndef KB_TIMER_H
#define KB_TIMER_H

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double kb_now_s(void);

/* Sleeps for s seconds (used between confirmation rounds). */
void kb_sleep_s(double s);

#endif
