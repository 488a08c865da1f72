/* Whether a timed sample ran undisturbed. On a shared machine the timing
 * thread can lose its CPU in the middle of a sample: to another process
 * (an involuntary context switch), to the hypervisor (steal) or to
 * interrupts. The sample's wall time then measures the neighbour, not the
 * kernel. The thread's own CPU time does not advance while it is off the
 * CPU, so the gap between wall and thread CPU time, together with the
 * involuntary-switch counter, tells such a sample apart (docs/gate.md). */
#ifndef KB_DISTURB_H
#define KB_DISTURB_H

/* The thread's CPU time and involuntary context switches at one instant. */
typedef struct kb_thread_mark {
    double cpu_s; /* CLOCK_THREAD_CPUTIME_ID; < 0 when unavailable */
    long nivcsw;  /* involuntary context switches so far; < 0 when unavailable */
} kb_thread_mark;

void kb_thread_mark_now(kb_thread_mark *m);

/* Wall time a sample may lose without counting as disturbed: a fraction of
 * its length plus a fixed allowance for the clock reads themselves. */
#define KB_DISTURB_LOST_FRACTION 0.03
#define KB_DISTURB_LOST_MIN_S    5e-6

/* Whether the thread lost its CPU between `from` and `to`, wall_s seconds
 * apart: its CPU time fell short of the wall time by more than the
 * allowance. A switch that cost less is not a disturbance: a 300 ms sample
 * almost always holds one (a kernel thread's few microseconds). Without a
 * thread CPU clock, any involuntary switch counts; 0 when the platform
 * can tell neither (the sample is then kept). */
int kb_thread_disturbed(const kb_thread_mark *from, const kb_thread_mark *to, double wall_s);

#endif
