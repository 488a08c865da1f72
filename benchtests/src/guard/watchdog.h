/* The watchdog: knows which case and stage the driver is in, and turns a
 * hang or a crash into a result instead of nothing.
 *
 * A hang: given the test's time limit (--timeout, KBENCH_TIMEOUT: CTest's
 * TIMEOUT, which the test registration passes on), a thread waits until
 * shortly before it (kb_watchdog_margin) and then writes the result with
 * status "timeout" (the case, its stage, how long the stage ran against the
 * time it had, the case's time per stage so far) and ends the process with
 * exit status 2, before CTest kills it and nothing is written. Every stage's
 * budget is thus the test's time left when the stage began.
 *
 * A crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT): the handler writes the
 * result with status "crashed" and the signal, then lets the signal end the
 * process as it would have. Both write through progress.h, which is
 * async-signal-safe. */
#ifndef KB_WATCHDOG_H
#define KB_WATCHDOG_H

#include "base/error.h"
#include "guard/stage.h"

/* How long before the test's limit the watchdog fires: 5 % of it, at least
 * 0.5 s and at most 10 s (time to write the result and exit). */
double kb_watchdog_margin(double timeout_s);

/* Starts the thread for a limit of timeout_s seconds from now (0: none). */
int kb_watchdog_start(double timeout_s, kb_err *err);

/* Installs the crash handlers (on an alternate stack, so that a stack
 * overflow is reported too). */
void kb_watchdog_catch_crashes(void);

/* A case begins: its stage times start from zero in stage `setup`. */
void kb_watchdog_case(void);

/* The case (or the run, between cases) enters stage s. */
void kb_watchdog_stage(kb_stage s);

kb_stage kb_watchdog_current(void);

/* The share of the run's time limit still ahead, from 1 to 0 (1 when
 * there is no limit): what optional work, such as measuring a noisy
 * recording again, may still spend. */
double kb_watchdog_share_left(void);

/* Seconds until the watchdog ends the run (INFINITY when there is no
 * limit): what any wait of the driver's must end before. */
double kb_watchdog_left_s(void);

/* Stops the thread (the run is over). */
void kb_watchdog_stop(void);

#endif
