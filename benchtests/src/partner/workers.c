#define _GNU_SOURCE
#include "partner/workers.h"

#include "base/affinity.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *kb_workers_self(const char *argv0, char *path, size_t size) {
    ssize_t n = readlink("/proc/self/exe", path, size - 1);
    if (n > 0)
        path[n] = '\0';
    else
        snprintf(path, size, "%s", argv0);
    return path;
}

/* Appends one word to w's arguments. */
static int add_arg(kb_workers *w, int *n, size_t *used, const char *word, kb_err *err) {
    const size_t len = strlen(word) + 1;
    if (*n + 1 >= (int)(sizeof w->args / sizeof *w->args) || *used + len > sizeof w->argbuf)
        return kb_fail(err, "driver %s: its worker's arguments are too long", w->exe);
    memcpy(w->argbuf + *used, word, len);
    w->args[(*n)++] = w->argbuf + *used;
    w->args[*n] = NULL;
    *used += len;
    return 0;
}

/* The worker's command line, kept in w for a restart: its driver,
 * --partner, and what makes it measure the same cases the same way. */
static int make_args(kb_workers *w, const kb_worker_run *run, kb_err *err) {
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", run->seed);
    const char *words[] = {w->exe,         "--partner",  "--backend",   run->backend, "--precision",
                           run->precision, "--manifest", run->manifest, "--seed",     seed};
    int n = 0;
    size_t used = 0;
    for (size_t i = 0; i < sizeof words / sizeof *words; ++i)
        if (add_arg(w, &n, &used, words[i], err) != 0) return -1;
    if (run->full &&
        (add_arg(w, &n, &used, "--set", err) != 0 || add_arg(w, &n, &used, "full", err) != 0))
        return -1;
    return run->cold_cache ? add_arg(w, &n, &used, "--cold-cache", err) : 0;
}

/* Spawns w->started workers from the arguments kept in w, all at once, then
 * reads their greetings, so that their start-up overlaps; every one spawned
 * is greeted or stopped, also after a failure. A process inherits the
 * affinity of the thread that starts it, which a round may have pinned to
 * one CPU (a fresh process confirming a slowdown, A/B's second stage): each
 * is started with the CPUs this process was allowed at start, so that it
 * reads the same list (kb_affinity_start) and can run a case's threads on
 * the same CPUs. */
static int launch(kb_workers *w, kb_err *err) {
    int spawned = 0, rc = 0;
    kb_affinity now;
    kb_affinity_init(&now);
    (void)kb_affinity_restore(kb_affinity_start());
    while (spawned < w->started && rc == 0)
        rc = kb_partner_spawn(&w->p[spawned++], w->exe, w->args, err);
    (void)kb_affinity_restore(&now);
    for (int i = 0; i < spawned; ++i) {
        kb_err local;
        if (rc == 0 && kb_partner_greet(&w->p[i], &local) != 0) {
            *err = local;
            rc = -1;
        } else if (rc != 0) {
            kb_partner_reap(&w->p[i], 0.0); /* abandoned before its greeting: killed */
        }
        if (rc == 0) w->n = i + 1;
    }
    if (rc != 0) kb_workers_stop(w);
    return rc;
}

int kb_workers_start(kb_workers *w, int n, const char *exe, const kb_worker_run *run, kb_err *err) {
    memset(w, 0, sizeof *w);
    snprintf(w->exe, sizeof w->exe, "%s", exe);
    if (n < 1 || n > KB_MAX_WORKERS)
        return kb_fail(err, "%d worker processes asked for (1 to %d)", n, KB_MAX_WORKERS);
    if (make_args(w, run, err) != 0) return -1;
    w->started = n;
    return launch(w, err);
}

int kb_workers_restart(kb_workers *w, kb_err *err) {
    if (w->started == 0) return 0;
    kb_workers_stop(w);
    return launch(w, err);
}

int kb_workers_case_send(kb_workers *w, const char *variant, const char *case_name, kb_err *err) {
    for (int i = 0; i < w->n; ++i)
        if (kb_partner_case_send(&w->p[i], variant, case_name, err) != 0) return -1;
    w->asked = w->n > 0;
    return 0;
}

static const char *status_name(kb_partner_case s) {
    return s == KB_PARTNER_READY ? "ready" : s == KB_PARTNER_SKIP ? "declined" : "no such case";
}

/* Every answer is read, whatever the first ones were: a worker left with
 * its answer unread would read the next command's answer as this one. */
int kb_workers_case_reply(kb_workers *w, kb_partner_case *status, double *rmse, double *max_abs,
                          char *why, size_t why_size, kb_err *err) {
    if (!w->asked) return 0;
    w->asked = 0;
    int rc = 0, ready = 0;
    for (int i = 0; i < w->n; ++i) {
        kb_partner_case s;
        double e = 0.0, m = 0.0;
        char reason[512] = "";
        kb_err local;
        if (kb_partner_case_reply(&w->p[i], &s, &e, &m, reason, sizeof reason, &local) != 0) {
            if (rc == 0) *err = local;
            rc = -1;
            continue;
        }
        ready += s == KB_PARTNER_READY;
        if (i == 0) {
            *status = s;
            *rmse = e;
            *max_abs = m;
            snprintf(why, why_size, "%s", reason);
        } else if (s != *status && rc == 0) {
            rc = kb_fail(err,
                         "driver %s: two processes of the same build disagree on the case: one "
                         "%s, another %s",
                         w->exe, status_name(*status), status_name(s));
        }
    }
    /* set up on all or none: a disagreement releases those that set it up */
    w->open = ready > 0;
    kb_err ignored;
    if (rc != 0) (void)kb_workers_case_close(w, &ignored);
    return rc;
}

int kb_workers_round(kb_workers *w, int i, int cpu, const kb_sampling *cfg, kb_samples *out,
                     kb_err *err) {
    return kb_partner_round(&w->p[i], cpu, 1, cfg, out, err);
}

int kb_workers_case_close(kb_workers *w, kb_err *err) {
    if (!w->open) return 0;
    w->open = 0;
    int rc = 0;
    for (int i = 0; i < w->n; ++i) {
        kb_err local;
        if (kb_partner_case_close(&w->p[i], &local) != 0 && rc == 0) {
            *err = local;
            rc = -1;
        }
    }
    return rc;
}

/* All asked to quit at once and given the same few seconds to, so that
 * stopping many takes no longer than stopping one. */
void kb_workers_stop(kb_workers *w) {
    for (int i = 0; i < KB_MAX_WORKERS; ++i) kb_partner_hang_up(&w->p[i]);
    const double until = kb_partner_exit_deadline();
    for (int i = 0; i < KB_MAX_WORKERS; ++i) kb_partner_reap(&w->p[i], until);
    w->n = 0;
    w->open = w->asked = 0;
}
