/* Holding a GPU stream while the timed calls of a sample are queued on it
 * (gpu_hold.cu; docs/gpu-timing.md, "Timing"). A one-thread kernel waits on a flag
 * in mapped host memory; the backend records its start event behind that
 * kernel, queues the calls and the stop event, and then releases it. The
 * calls then run back to back, so the events time the device's work alone,
 * not how fast the host launched them: a call of a few microseconds is
 * shorter than a launch, and timed unheld it measures the host (its CPU,
 * its neighbours), which moved such cases by 10-25 % from one round to the
 * next on an H100.
 *
 * The kernel gives up waiting after `timeout_ms` (a call that waits for the
 * device, e.g. a library that synchronises, or a queue too full to take
 * another launch, would otherwise wait on it for ever); the sample then
 * includes host time and kb_gpu_hold_timed_out() says so. */
#ifndef KB_GPU_HOLD_H
#define KB_GPU_HOLD_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kb_gpu_hold {
    volatile int *flags;    /* mapped host memory: [0] released, [1] timed out */
    int *device_flags;      /* the same two ints as the device addresses them */
    long long timeout_clks; /* the wait's limit in the device's clock64() ticks */
} kb_gpu_hold;

/* Allocates the flags on the current device; 0, or -1 with the runtime's
 * message in `why`. */
int kb_gpu_hold_open(kb_gpu_hold *h, double timeout_ms, char *why, size_t why_size);
void kb_gpu_hold_close(kb_gpu_hold *h);

/* Launches the waiting kernel on `stream`; 0, or -1 with `why`. */
int kb_gpu_hold_begin(kb_gpu_hold *h, void *stream, char *why, size_t why_size);

/* Lets the waiting kernel end (idempotent). */
void kb_gpu_hold_release(kb_gpu_hold *h);

/* After the stream has been synchronised: 1 when the kernel stopped waiting
 * at its time limit instead of being released. */
int kb_gpu_hold_timed_out(const kb_gpu_hold *h);

#ifdef __cplusplus
}
#endif

#endif
