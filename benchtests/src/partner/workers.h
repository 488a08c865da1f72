/* Worker processes: drivers started with --partner (partner/protocol.h) that measure
 * rounds of the case this driver has set up, each in a process of its own.
 * A process holds its placement for life (where its code, stack and buffers
 * landed, on GPUs its context and device memory), and that alone can make a
 * small case several per cent faster or slower in it; rounds spread over
 * several processes make that a spread the decision sees instead of a bias
 * it cannot (docs/gate.md, "Placement"). A/B mode spreads the base's rounds
 * over base processes and the head's over this build's own; recording
 * spreads its rounds over this build's. */
#ifndef KB_WORKERS_H
#define KB_WORKERS_H

#include "partner/protocol.h"

/* The most processes one side may use (--ab-processes, --record-processes). */
#define KB_MAX_WORKERS 8

typedef struct kb_workers {
    kb_partner p[KB_MAX_WORKERS];
    int n;     /* started and greeted */
    int asked; /* the current case was sent to every worker, answers unread */
    int open;  /* the current case is set up on every worker */
    char exe[4096];
    /* how they were started, for kb_workers_restart */
    int started;
    char *args[17];
    char argbuf[8192];
} kb_workers;

/* What a worker measures, so that it measures the same cases the same way
 * as the process that starts it. */
typedef struct kb_worker_run {
    const char *backend, *precision, *manifest;
    unsigned long long seed;
    int full;       /* the manifest's "full" case set */
    int cold_cache; /* --cold-cache */
} kb_worker_run;

/* This driver's own executable (/proc/self/exe; argv0 where that cannot be
 * read) into path: the driver this build's workers run. */
const char *kb_workers_self(const char *argv0, char *path, size_t size);

/* Starts n workers: `exe --partner` with run's settings (n <=
 * KB_MAX_WORKERS), all at once, then reads their greetings, so that their
 * start-up (a GPU context each) overlaps; the arguments are kept for a
 * restart. 0, or -1 with a message; none is left running on failure. */
int kb_workers_start(kb_workers *w, int n, const char *exe, const kb_worker_run *run, kb_err *err);

/* Stops the workers and starts as many new ones the same way: fresh
 * processes, each with a placement of its own. 0, or -1 with a message. */
int kb_workers_restart(kb_workers *w, kb_err *err);

/* Asks every worker to set the case up, without waiting (each prepares its
 * side while the caller prepares its own). */
int kb_workers_case_send(kb_workers *w, const char *variant, const char *case_name, kb_err *err);

/* Every worker's answer to the case sent. They run the same build, so they
 * must agree: READY in all (rmse and max_abs the first one's), SKIP in all
 * (why: the first one's), or ABSENT in all; anything else is an error. A
 * no-op when nothing was asked. */
int kb_workers_case_reply(kb_workers *w, kb_partner_case *status, double *rmse, double *max_abs,
                          char *why, size_t why_size, kb_err *err);

/* One round on worker i (see kb_partner_round). */
int kb_workers_round(kb_workers *w, int i, int cpu, const kb_sampling *cfg, kb_samples *out,
                     kb_err *err);

/* Releases the case on every worker that set it up. */
int kb_workers_case_close(kb_workers *w, kb_err *err);

/* Asks every worker to quit and waits for it. */
void kb_workers_stop(kb_workers *w);

#endif
