#define _GNU_SOURCE
#include "workers.h"

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

void kb_workers_args(char *args[16], const char *exe, const char *backend, const char *precision,
                     const char *manifest, unsigned long long seed, char seed_text[32], int full,
                     int cold_cache) {
    snprintf(seed_text, 32, "%llu", seed);
    int n = 0;
    args[n++] = (char *)exe;
    args[n++] = "--partner";
    args[n++] = "--backend";
    args[n++] = (char *)backend;
    args[n++] = "--precision";
    args[n++] = (char *)precision;
    args[n++] = "--manifest";
    args[n++] = (char *)manifest;
    args[n++] = "--seed";
    args[n++] = seed_text;
    if (full) args[n++] = "--set", args[n++] = "full";
    if (cold_cache) args[n++] = "--cold-cache";
    args[n] = NULL;
}

/* A copy of args in w, for a restart. */
static int keep_args(kb_workers *w, char *const args[], kb_err *err) {
    size_t used = 0;
    int i = 0;
    for (; args[i]; ++i) {
        size_t len = strlen(args[i]) + 1;
        if (i + 1 >= (int)(sizeof w->args / sizeof *w->args) || used + len > sizeof w->argbuf)
            return kb_fail(err, "driver %s: its worker's arguments are too long", w->exe);
        memcpy(w->argbuf + used, args[i], len);
        w->args[i] = w->argbuf + used;
        used += len;
    }
    w->args[i] = NULL;
    return 0;
}

int kb_workers_start(kb_workers *w, int n, const char *exe, char *const args[], kb_err *err) {
    memset(w, 0, sizeof *w);
    snprintf(w->exe, sizeof w->exe, "%s", exe);
    if (n < 1 || n > KB_MAX_WORKERS)
        return kb_fail(err, "%d worker processes asked for (1 to %d)", n, KB_MAX_WORKERS);
    if (keep_args(w, args, err) != 0) return -1;
    w->started = n;
    args = w->args;
    int spawned = 0, rc = 0;
    while (spawned < n && rc == 0) rc = kb_partner_spawn(&w->p[spawned++], exe, args, err);
    /* every one spawned is greeted or stopped, also after a failure */
    for (int i = 0; i < spawned; ++i) {
        kb_err local;
        if (rc == 0 && kb_partner_greet(&w->p[i], &local) != 0) {
            *err = local;
            rc = -1;
        } else if (rc != 0) {
            kb_partner_stop(&w->p[i]);
        }
        if (rc == 0) w->n = i + 1;
    }
    if (rc != 0) kb_workers_stop(w);
    return rc;
}

int kb_workers_restart(kb_workers *w, kb_err *err) {
    if (w->started == 0) return 0;
    static kb_workers fresh; /* one restart at a time, from one thread */
    char *args[17];
    kb_workers_stop(w);
    memcpy(&fresh, w, sizeof fresh); /* the arguments survive the restart's reset */
    /* the same words, in the copy's buffer (w's is cleared by the start) */
    for (int i = 0; i < 17; ++i)
        args[i] = fresh.args[i] ? fresh.argbuf + (fresh.args[i] - w->argbuf) : NULL;
    return kb_workers_start(w, fresh.started, fresh.exe, args, err);
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
    if (rc != 0 && w->open) {
        kb_err ignored;
        for (int i = 0; i < w->n; ++i) (void)kb_partner_case_close(&w->p[i], &ignored);
        w->open = 0;
    }
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

void kb_workers_stop(kb_workers *w) {
    for (int i = 0; i < KB_MAX_WORKERS; ++i)
        if (w->p[i].to || w->p[i].from || w->p[i].pid > 0) kb_partner_stop(&w->p[i]);
    w->n = 0;
    w->open = w->asked = 0;
}
