#define _GNU_SOURCE
#include "partner.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ---- lines -------------------------------------------------------------- */

/* Reads one line without its newline into *line (getline's buffer).
 * Returns its length, or -1 at end of input. */
static ssize_t read_line(FILE *f, char **line, size_t *cap) {
    ssize_t len = getline(line, cap, f);
    if (len > 0 && (*line)[len - 1] == '\n') (*line)[--len] = '\0';
    return len;
}

/* The rest of `line` after its first word ("" when there is none). */
static const char *rest_of(const char *line) {
    const char *sp = strchr(line, ' ');
    return sp ? sp + 1 : "";
}

static int starts_with_word(const char *line, const char *word) {
    size_t n = strlen(word);
    return strncmp(line, word, n) == 0 && (line[n] == ' ' || line[n] == '\0');
}

static int is_word(const char *s) {
    if (!*s) return 0;
    for (; *s; ++s)
        if (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t') return 0;
    return 1;
}

/* "samples <disturbed> <kept> <reps> <n> <ms>..." into out. */
static int parse_samples(const char *line, kb_samples *out) {
    char *end;
    const char *p = rest_of(line);
    long v[4];
    for (int i = 0; i < 4; ++i) {
        v[i] = strtol(p, &end, 10);
        if (end == p || v[i] < 0 || v[i] > 100000000) return -1;
        p = end;
    }
    memset(out, 0, sizeof *out);
    out->disturbed = (int)v[0];
    out->disturbed_kept = (int)v[1];
    out->reps = (int)v[2];
    if (v[3] < 1) return -1;
    out->ms = malloc((size_t)v[3] * sizeof *out->ms);
    if (!out->ms) return -1;
    out->cap = (int)v[3];
    for (out->n = 0; out->n < (int)v[3]; ++out->n) {
        out->ms[out->n] = strtod(p, &end);
        if (end == p || !(out->ms[out->n] >= 0.0)) return -1;
        p = end;
    }
    return *p == '\0' ? 0 : -1;
}

/* ---- the head's side ---------------------------------------------------- */

/* How the base ended, for messages: "exited with status 2", "killed by
 * signal 11", or "still running". */
static void describe_exit(kb_partner *p, char *out, size_t size) {
    int status = 0;
    if (p->pid <= 0) {
        snprintf(out, size, "ended before");
        return;
    }
    pid_t r = waitpid(p->pid, &status, 0);
    if (r != p->pid)
        snprintf(out, size, "still running");
    else if (WIFEXITED(status))
        snprintf(out, size, "exited with status %d", WEXITSTATUS(status));
    else
        snprintf(out, size, "killed by signal %d", WTERMSIG(status));
    if (r == p->pid) p->pid = -1;
}

static int lost(kb_partner *p, const char *during, kb_err *err) {
    char how[64];
    describe_exit(p, how, sizeof how);
    return kb_fail(err, "base driver %s stopped answering %s (%s; its own output is above)", p->exe,
                   during, how);
}

/* Reads the answer to `command` into *line. */
static int receive(kb_partner *p, const char *command, char **line, size_t *cap, kb_err *err) {
    if (read_line(p->from, line, cap) < 0) return lost(p, command, err);
    if (starts_with_word(*line, "error"))
        return kb_fail(err, "base driver %s: %s", p->exe, rest_of(*line));
    return 0;
}

/* Sends one command line. */
static int send_line(kb_partner *p, const char *command, kb_err *err) {
    if (fprintf(p->to, "%s\n", command) < 0 || fflush(p->to) != 0) return lost(p, command, err);
    return 0;
}

/* Sends one command and reads the answer line into *line. */
static int exchange(kb_partner *p, const char *command, char **line, size_t *cap, kb_err *err) {
    return send_line(p, command, err) != 0 ? -1 : receive(p, command, line, cap, err);
}

static int spawn(kb_partner *p, char *const args[], kb_err *err) {
    int down[2], up[2];
    if (pipe(down) != 0) return kb_fail(err, "pipe: %s", strerror(errno));
    if (pipe(up) != 0) {
        close(down[0]);
        close(down[1]);
        return kb_fail(err, "pipe: %s", strerror(errno));
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, down[0], 0);
    posix_spawn_file_actions_adddup2(&fa, up[1], 1);
    posix_spawn_file_actions_addclose(&fa, down[1]);
    posix_spawn_file_actions_addclose(&fa, up[0]);
    int rc = posix_spawn(&p->pid, p->exe, &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(down[0]);
    close(up[1]);
    p->to = rc == 0 ? fdopen(down[1], "w") : NULL;
    p->from = rc == 0 ? fdopen(up[0], "r") : NULL;
    if (!p->to || !p->from) {
        if (!p->to) close(down[1]);
        if (!p->from) close(up[0]);
        p->pid = rc == 0 ? p->pid : -1;
        return kb_fail(err, "cannot start base driver %s: %s", p->exe, strerror(rc ? rc : errno));
    }
    return 0;
}

int kb_partner_start(kb_partner *p, const char *exe, char *const args[], kb_err *err) {
    memset(p, 0, sizeof *p);
    p->pid = -1;
    snprintf(p->exe, sizeof p->exe, "%s", exe);
    /* A base that dies mid-write must give an error here, not kill us. */
    signal(SIGPIPE, SIG_IGN);
    if (spawn(p, args, err) != 0) return -1;
    char *line = NULL;
    size_t cap = 0;
    int version = 0;
    char kernel[128] = "";
    int rc = 0;
    if (read_line(p->from, &line, &cap) < 0) {
        char how[64];
        describe_exit(p, how, sizeof how);
        rc = kb_fail(err,
                     "base driver %s did not answer the A/B partner protocol (%s): it predates "
                     "A/B mode or failed to start; build a base that has it (docs/ab.md)",
                     p->exe, how);
    } else if (sscanf(line, "kbench-partner %d %127s", &version, kernel) != 2) {
        rc = kb_fail(err, "base driver %s greeted with '%.200s', not 'kbench-partner <version>'",
                     p->exe, line);
    } else if (version != KB_PARTNER_VERSION) {
        rc = kb_fail(err,
                     "base driver %s speaks A/B partner protocol version %d, this driver "
                     "version %d: the harness changed between base and head in a way A/B "
                     "cannot bridge; compare with a base at or after that change",
                     p->exe, version, KB_PARTNER_VERSION);
    }
    free(line);
    snprintf(p->kernel, sizeof p->kernel, "%s", kernel);
    if (rc != 0) kb_partner_stop(p);
    return rc;
}

int kb_partner_case_send(kb_partner *p, const char *variant, const char *case_name, kb_err *err) {
    if (!is_word(variant) || !is_word(case_name))
        return kb_fail(err, "A/B: case '%s' variant '%s': names with spaces cannot be sent",
                       case_name, variant);
    snprintf(p->pending, sizeof p->pending, "case %s %s", variant, case_name);
    return send_line(p, p->pending, err);
}

int kb_partner_case_reply(kb_partner *p, kb_partner_case *status, double *rmse, double *max_abs,
                          char *why, size_t why_size, kb_err *err) {
    char *line = NULL;
    size_t cap = 0;
    int rc = receive(p, p->pending, &line, &cap, err);
    if (rc == 0 && starts_with_word(line, "ready") &&
        sscanf(rest_of(line), "%lf %lf", rmse, max_abs) == 2)
        *status = KB_PARTNER_READY;
    else if (rc == 0 && strcmp(line, "absent") == 0)
        *status = KB_PARTNER_ABSENT;
    else if (rc == 0 && starts_with_word(line, "skip")) {
        *status = KB_PARTNER_SKIP;
        snprintf(why, why_size, "%s", rest_of(line));
    } else if (rc == 0)
        rc = kb_fail(err, "base driver %s answered '%.200s' to '%s'", p->exe, line, p->pending);
    free(line);
    return rc;
}

int kb_partner_round(kb_partner *p, int cpu, int move, const kb_sampling *cfg, kb_samples *out,
                     kb_err *err) {
    char command[512], *line = NULL;
    size_t cap = 0;
    snprintf(command, sizeof command, "round %d %d %d %d %.17g %.17g %.17g %.17g %.17g", cpu,
             move != 0, cfg->min_samples, cfg->max_samples, cfg->min_time_s, cfg->max_time_s,
             cfg->target_rel_ci, cfg->warmup_s, cfg->sample_min_s);
    int rc = exchange(p, command, &line, &cap, err);
    if (rc == 0 && (!starts_with_word(line, "samples") || parse_samples(line, out) != 0)) {
        kb_samples_free(out);
        rc = kb_fail(err, "base driver %s answered '%.200s' to a round", p->exe, line);
    }
    free(line);
    return rc;
}

int kb_partner_case_close(kb_partner *p, kb_err *err) {
    char *line = NULL;
    size_t cap = 0;
    int rc = exchange(p, "end", &line, &cap, err);
    if (rc == 0 && strcmp(line, "ended") != 0)
        rc = kb_fail(err, "base driver %s answered '%.200s' to 'end'", p->exe, line);
    free(line);
    return rc;
}

void kb_partner_stop(kb_partner *p) {
    if (p->to) {
        fprintf(p->to, "quit\n");
        fclose(p->to);
    }
    if (p->from) fclose(p->from);
    p->to = p->from = NULL;
    if (p->pid > 0) waitpid(p->pid, NULL, 0);
    p->pid = -1;
}

/* ---- the base's side ---------------------------------------------------- */

static int answer_case(const kb_partner_server *s, const char *args, FILE *out, int *open,
                       kb_err *err) {
    char variant[128], name[256];
    if (sscanf(args, "%127s %255s", variant, name) != 2)
        return kb_fail(err, "A/B partner: bad 'case' command '%s'", args);
    if (*open) s->close(s->ctx);
    *open = 0;
    kb_partner_case status;
    double rmse = 0.0, max_abs = 0.0;
    char why[512] = "";
    kb_err local = {{0}};
    if (s->open(s->ctx, variant, name, &status, &rmse, &max_abs, why, sizeof why, &local) != 0)
        return fprintf(out, "error %s\n", local.msg) < 0 ? -1 : 0;
    *open = status == KB_PARTNER_READY;
    if (status == KB_PARTNER_READY) return fprintf(out, "ready %.17g %.17g\n", rmse, max_abs);
    if (status == KB_PARTNER_SKIP) return fprintf(out, "skip %s\n", why);
    return fprintf(out, "absent\n");
}

static int answer_round(const kb_partner_server *s, const char *args, FILE *out, int open,
                        kb_err *err) {
    int cpu;
    kb_sampling c;
    int move;
    if (sscanf(args, "%d %d %d %d %lf %lf %lf %lf %lf", &cpu, &move, &c.min_samples, &c.max_samples,
               &c.min_time_s, &c.max_time_s, &c.target_rel_ci, &c.warmup_s, &c.sample_min_s) != 9 ||
        (move != 0 && move != 1) || c.min_samples < 1 || c.max_samples < c.min_samples ||
        c.max_samples > 1000000 ||
        !(c.min_time_s >= 0.0 && c.max_time_s >= c.min_time_s && c.max_time_s <= 3600.0) ||
        !(c.target_rel_ci >= 0.0 && c.target_rel_ci <= 1.0) ||
        !(c.warmup_s >= 0.0 && c.warmup_s <= 3600.0) ||
        !(c.sample_min_s >= 0.0 && c.sample_min_s <= 3600.0))
        return kb_fail(err, "A/B partner: bad 'round' command '%s'", args);
    if (!open) return fprintf(out, "error no case is set up for this round\n");
    kb_samples smp = {0};
    kb_err local = {{0}};
    if (s->round(s->ctx, cpu, move, &c, &smp, &local) != 0) {
        kb_samples_free(&smp);
        return fprintf(out, "error %s\n", local.msg);
    }
    int rc =
        fprintf(out, "samples %d %d %d %d", smp.disturbed, smp.disturbed_kept, smp.reps, smp.n);
    for (int i = 0; i < smp.n && rc >= 0; ++i) rc = fprintf(out, " %.17g", smp.ms[i]);
    kb_samples_free(&smp);
    return rc < 0 ? -1 : fprintf(out, "\n");
}

static int answer(const kb_partner_server *s, const char *line, FILE *out, int *open, kb_err *err) {
    int rc;
    if (starts_with_word(line, "case"))
        rc = answer_case(s, rest_of(line), out, open, err);
    else if (starts_with_word(line, "round"))
        rc = answer_round(s, rest_of(line), out, *open, err);
    else if (strcmp(line, "end") == 0) {
        if (*open) s->close(s->ctx);
        *open = 0;
        rc = fprintf(out, "ended\n");
    } else
        return kb_fail(err, "A/B partner: unknown command '%.200s'", line);
    if (rc < 0 && !*err->msg) kb_fail(err, "A/B partner: cannot answer the head");
    return rc < 0 || fflush(out) != 0 ? -1 : 0;
}

int kb_partner_serve(const kb_partner_server *s, const char *kernel, FILE *in, FILE *out,
                     kb_err *err) {
    if (fprintf(out, "kbench-partner %d %s\n", KB_PARTNER_VERSION, kernel) < 0 || fflush(out) != 0)
        return kb_fail(err, "A/B partner: cannot greet the head");
    char *line = NULL;
    size_t cap = 0;
    int open = 0, rc = 0;
    while (rc == 0 && read_line(in, &line, &cap) >= 0 && strcmp(line, "quit") != 0)
        rc = answer(s, line, out, &open, err);
    if (open) s->close(s->ctx);
    free(line);
    return rc;
}
