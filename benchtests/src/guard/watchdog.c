#define _GNU_SOURCE
#include "guard/watchdog.h"

#include "base/atomicfile.h"
#include "guard/progress.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* What the driver is doing. Written by the driver's thread under `lock`;
 * read under it by the watchdog's thread, and without it by a crash
 * handler (which runs in the thread that crashed). */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stopping, running;
    double deadline; /* CLOCK_MONOTONIC seconds; 0: none */
    double started;  /* when the limit began */
    kb_stage stage;
    double stage_t0;
    double stage_s[KB_STAGE_COUNT];
    pthread_t thread;
} wd = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static atomic_int fired; /* an event was written: nothing else may be */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* async-signal-safe */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void describe(kb_progress_event *ev, const char *status, const char *signal) {
    double t = now_s();
    memset(ev, 0, sizeof *ev);
    ev->status = status;
    ev->signal = signal;
    ev->stage = wd.stage;
    ev->elapsed_s = t - wd.stage_t0;
    ev->limit_s = wd.deadline > 0.0 ? wd.deadline - wd.stage_t0 : -1.0;
    memcpy(ev->stage_s, wd.stage_s, sizeof ev->stage_s);
    ev->stage_s[wd.stage] += ev->elapsed_s;
}

static void say(const char *a, const char *b, const char *c, const char *d) {
    const char *parts[] = {"kbench: error: ", a, b, c, d, "\n"};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; ++i)
        if (write(STDERR_FILENO, parts[i], strlen(parts[i])) < 0) return;
}

/* ---- hangs ------------------------------------------------------------------ */

static void time_out(void) {
    if (atomic_exchange(&fired, 1)) return;
    kb_progress_event ev;
    kb_progress_hold(); /* the driver's thread may no longer move on to the next case */
    pthread_mutex_lock(&wd.lock);
    describe(&ev, "timeout", NULL);
    kb_atomicfile_abandon();
    int written = kb_progress_write(&ev) == 0;
    say("timeout: stage '", kb_stage_name(ev.stage),
        written ? "' still running shortly before the test's time limit (--timeout, "
                  "KBENCH_TIMEOUT); the result says where"
                : "' still running shortly before the test's time limit; no result written",
        kb_progress_running_case());
    _exit(2);
}

static struct timespec to_timespec(double s) {
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    return ts;
}

static void *watch(void *unused) {
    (void)unused;
    pthread_mutex_lock(&wd.lock);
    while (!wd.stopping && now_s() < wd.deadline) {
        struct timespec until = to_timespec(wd.deadline);
        pthread_cond_timedwait(&wd.wake, &wd.lock, &until);
    }
    int expired = !wd.stopping;
    pthread_mutex_unlock(&wd.lock);
    if (expired) time_out();
    return NULL;
}

double kb_watchdog_margin(double timeout_s) {
    double m = 0.05 * timeout_s;
    return m < 0.5 ? 0.5 : m > 10.0 ? 10.0 : m;
}

int kb_watchdog_start(double timeout_s, kb_err *err) {
    pthread_mutex_lock(&wd.lock);
    wd.stage_t0 = now_s();
    pthread_mutex_unlock(&wd.lock);
    if (timeout_s <= 0.0) return 0;
    wd.started = now_s();
    wd.deadline = wd.started + timeout_s - kb_watchdog_margin(timeout_s);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&wd.wake, &attr);
    pthread_condattr_destroy(&attr);
    /* the thread gets no signal meant for the process (SIGINT, SIGTERM...) */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&wd.thread, NULL, watch, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) return kb_fail(err, "--timeout: cannot start the watchdog thread");
    wd.running = 1;
    return 0;
}

void kb_watchdog_stop(void) {
    if (!wd.running) return;
    pthread_mutex_lock(&wd.lock);
    wd.stopping = 1;
    pthread_cond_signal(&wd.wake);
    pthread_mutex_unlock(&wd.lock);
    pthread_join(wd.thread, NULL);
    wd.running = 0;
}

/* ---- stages ------------------------------------------------------------------ */

static void enter(kb_stage s, int new_case) {
    pthread_mutex_lock(&wd.lock);
    double t = now_s();
    if (new_case)
        memset(wd.stage_s, 0, sizeof wd.stage_s);
    else
        wd.stage_s[wd.stage] += t - wd.stage_t0;
    wd.stage = s;
    wd.stage_t0 = t;
    pthread_mutex_unlock(&wd.lock);
}

void kb_watchdog_case(void) {
    enter(KB_STAGE_SETUP, 1);
}

void kb_watchdog_stage(kb_stage s) {
    if (s != wd.stage) enter(s, 0);
}

kb_stage kb_watchdog_current(void) {
    return wd.stage;
}

/* ---- crashes ----------------------------------------------------------------- */

static const struct {
    int sig;
    const char *name;
} crash_signals[] = {{SIGSEGV, "SIGSEGV"},
                     {SIGBUS, "SIGBUS"},
                     {SIGFPE, "SIGFPE"},
                     {SIGILL, "SIGILL"},
                     {SIGABRT, "SIGABRT"}};

static void on_crash(int sig) {
    const char *name = "signal";
    for (size_t i = 0; i < sizeof crash_signals / sizeof *crash_signals; ++i)
        if (crash_signals[i].sig == sig) name = crash_signals[i].name;
    if (!atomic_exchange(&fired, 1)) {
        kb_progress_event ev;
        describe(&ev, "crashed", name);
        kb_atomicfile_abandon();
        int written = kb_progress_write(&ev) == 0;
        say(name, " in stage ", kb_stage_name(ev.stage), kb_progress_running_case());
        if (!written) say("no result could be written", "", "", "");
    }
    signal(sig, SIG_DFL);
    raise(sig); /* returns into the fault, which now ends the process */
}

void kb_watchdog_catch_crashes(void) {
    static char alt_stack[64 * 1024];
    stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack, .ss_flags = 0};
    sigaltstack(&ss, NULL);
    for (size_t i = 0; i < sizeof crash_signals / sizeof *crash_signals; ++i) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_crash;
        sa.sa_flags = SA_ONSTACK | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        sigaction(crash_signals[i].sig, &sa, NULL);
    }
}

double kb_watchdog_share_left(void) {
    if (!(wd.deadline > 0.0)) return 1.0;
    double left = kb_watchdog_left_s() / (wd.deadline - wd.started);
    return left > 0.0 ? left : 0.0;
}

double kb_watchdog_left_s(void) {
    return wd.deadline > 0.0 ? wd.deadline - now_s() : INFINITY;
}
