#define _GNU_SOURCE
#include "partner.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- lines -------------------------------------------------------------- */

/* What read_line found besides a line. */
enum { LINE_EOF = -1, LINE_TOO_LONG = -2, LINE_CUT = -3, LINE_NUL = -4, LINE_SILENT = -5 };

/* The longest command a head sends (names are at most 127 + 255 bytes). */
#define COMMAND_MAX 1024
/* The longest answer a base sends: a round's samples at 26 bytes each. */
#define ANSWER_MAX ((size_t)64 << 20)
/* How long a base may take to exit once asked to (10 ms ticks). */
#define PARTNER_WAIT_TICKS 500

/* Reads one line without its newline into *line (getline's buffer).
 * Returns its length, or LINE_EOF at end of input, LINE_CUT for a last
 * line without its newline (the writer died mid-line), LINE_TOO_LONG past
 * max bytes (the rest is not read: the stream is abandoned), LINE_NUL for
 * a line holding a NUL byte. */
static ssize_t read_line(FILE *f, char **line, size_t *cap, size_t max) {
    size_t len = 0;
    int ch = 0;
    while ((ch = getc_unlocked(f)) != EOF && ch != '\n') {
        if (len + 1 >= max) return LINE_TOO_LONG;
        if (len + 1 >= *cap) {
            size_t grown = *cap ? 2 * *cap : 128;
            char *p = realloc(*line, grown);
            if (!p) return LINE_TOO_LONG;
            *line = p;
            *cap = grown;
        }
        (*line)[len++] = (char)ch;
    }
    if (ch == EOF) return len == 0 ? LINE_EOF : LINE_CUT;
    if (!*line && !(*line = malloc(*cap = 1))) return LINE_TOO_LONG;
    (*line)[len] = '\0';
    return memchr(*line, '\0', len) ? LINE_NUL : (ssize_t)len;
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

/* One whole number in [lo, hi] at *p, after exactly one space; advances *p. */
static int next_long(const char **p, long lo, long hi, long *out) {
    char *end;
    if (**p != ' ' || (*p)[1] == ' ' || (*p)[1] == '\0') return -1;
    errno = 0;
    long v = strtol(*p + 1, &end, 10);
    if (end == *p + 1 || errno != 0 || v < lo || v > hi) return -1;
    *p = end;
    *out = v;
    return 0;
}

/* One finite number in [lo, hi] at *p, after exactly one space; advances *p. */
static int next_double(const char **p, double lo, double hi, double *out) {
    char *end;
    if (**p != ' ' || (*p)[1] == ' ' || (*p)[1] == '\0') return -1;
    double v = strtod(*p + 1, &end);
    if (end == *p + 1 || !(v >= lo && v <= hi)) return -1;
    *p = end;
    *out = v;
    return 0;
}

/* "samples <disturbed> <kept> <reps> <n> <ms>..." into out: at most max_n
 * samples (what the round asked for), each a finite time above zero. */
static int parse_samples(const char *line, int max_n, kb_samples *out) {
    const char *p = line + strlen("samples");
    long v[4];
    memset(out, 0, sizeof *out);
    for (int i = 0; i < 4; ++i)
        if (next_long(&p, i == 2 || i == 3 ? 1 : 0, i == 3 ? max_n : 100000000, &v[i]) != 0)
            return -1;
    out->disturbed = (int)v[0];
    out->disturbed_kept = (int)v[1];
    out->reps = (int)v[2];
    out->ms = malloc((size_t)v[3] * sizeof *out->ms);
    if (!out->ms) return -1;
    out->cap = (int)v[3];
    for (out->n = 0; out->n < (int)v[3]; ++out->n)
        if (next_double(&p, DBL_MIN, 1e12, &out->ms[out->n]) != 0) return -1;
    return *p == '\0' ? 0 : -1;
}

/* ---- the head's side ---------------------------------------------------- */

/* Waits for the base to end, for a few seconds at most: a base that
 * closed its output but does not exit must not hang the head. Returns
 * pid once it ended, else 0. */
static pid_t wait_a_while(pid_t pid, int *status) {
    const struct timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; i < PARTNER_WAIT_TICKS; ++i) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r != 0) return r;
        nanosleep(&tick, NULL);
    }
    return 0;
}

/* How the base ended, for messages: "exited with status 2", "killed by
 * signal 11", or "still running". */
static void describe_exit(kb_partner *p, char *out, size_t size) {
    int status = 0;
    if (p->pid <= 0) {
        snprintf(out, size, "ended before");
        return;
    }
    pid_t r = wait_a_while(p->pid, &status);
    if (r != p->pid && kill(p->pid, SIGKILL) == 0)
        snprintf(out, size, "still running: killed");
    else if (r != p->pid)
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
    ssize_t len = read_line(p->from, line, cap, ANSWER_MAX);
    if (len == LINE_EOF || len == LINE_CUT) return lost(p, command, err);
    if (len == LINE_TOO_LONG)
        return kb_fail(err, "base driver %s answered a line longer than %zu bytes to '%s'", p->exe,
                       ANSWER_MAX, command);
    if (len == LINE_NUL)
        return kb_fail(err, "base driver %s answered a line holding a NUL byte to '%s'", p->exe,
                       command);
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
    if (pipe2(down, O_CLOEXEC) != 0) return kb_fail(err, "pipe: %s", strerror(errno));
    if (pipe2(up, O_CLOEXEC) != 0) {
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

int kb_partner_greeting_wait_ms = 120 * 1000;

int kb_partner_spawn(kb_partner *p, const char *exe, char *const args[], kb_err *err) {
    memset(p, 0, sizeof *p);
    p->pid = -1;
    snprintf(p->exe, sizeof p->exe, "%s", exe);
    /* A base that dies mid-write must give an error here, not kill us. */
    signal(SIGPIPE, SIG_IGN);
    return spawn(p, args, err);
}

int kb_partner_greet(kb_partner *p, kb_err *err) {
    char *line = NULL;
    size_t cap = 0;
    int version = 0;
    char kernel[128] = "";
    int rc = 0;
    struct pollfd pfd = {fileno(p->from), POLLIN, 0};
    ssize_t len = poll(&pfd, 1, kb_partner_greeting_wait_ms) == 1
                      ? read_line(p->from, &line, &cap, COMMAND_MAX)
                      : LINE_SILENT;
    if (len == LINE_SILENT) {
        rc = kb_fail(err,
                     "base driver %s did not greet within %d s (a base build that hangs on start?)",
                     p->exe, kb_partner_greeting_wait_ms / 1000);
    } else if (len == LINE_EOF || len == LINE_CUT) {
        char how[64];
        describe_exit(p, how, sizeof how);
        rc = kb_fail(err,
                     "base driver %s did not answer the A/B partner protocol (%s): it predates "
                     "A/B mode or failed to start; build a base that has it (docs/ab.md)",
                     p->exe, how);
    } else if (len >= 0 && starts_with_word(line, "error")) {
        rc = kb_fail(err, "base driver %s cannot serve this test: %.600s", p->exe, rest_of(line));
    } else if (len < 0 || sscanf(line, "kbench-partner %d %127s", &version, kernel) != 2) {
        rc = kb_fail(err, "base driver %s greeted with '%.200s', not 'kbench-partner <version>'",
                     p->exe, len < 0 ? "(a line too long or holding a NUL byte)" : line);
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

int kb_partner_start(kb_partner *p, const char *exe, char *const args[], kb_err *err) {
    return kb_partner_spawn(p, exe, args, err) != 0 ? -1 : kb_partner_greet(p, err);
}

int kb_partner_case_send(kb_partner *p, const char *variant, const char *case_name, kb_err *err) {
    if (!is_word(variant) || !is_word(case_name))
        return kb_fail(err, "A/B: case '%s' variant '%s': names with spaces cannot be sent",
                       case_name, variant);
    snprintf(p->pending, sizeof p->pending, "case %s %s", variant, case_name);
    return send_line(p, p->pending, err);
}

/* "ready <rmse> <max_abs>": two finite errors, not negative. */
static int parse_ready(const char *line, double *rmse, double *max_abs) {
    const char *p = line + strlen("ready");
    if (next_double(&p, 0.0, DBL_MAX, rmse) != 0 || next_double(&p, 0.0, DBL_MAX, max_abs) != 0)
        return -1;
    return *p == '\0' ? 0 : -1;
}

int kb_partner_case_reply(kb_partner *p, kb_partner_case *status, double *rmse, double *max_abs,
                          char *why, size_t why_size, kb_err *err) {
    char *line = NULL;
    size_t cap = 0;
    int rc = receive(p, p->pending, &line, &cap, err);
    if (rc == 0 && starts_with_word(line, "ready") && parse_ready(line, rmse, max_abs) == 0)
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
    if (rc == 0 &&
        (!starts_with_word(line, "samples") || parse_samples(line, cfg->max_samples, out) != 0)) {
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
    int status;
    if (p->pid > 0 && wait_a_while(p->pid, &status) == 0) {
        kill(p->pid, SIGKILL);
        waitpid(p->pid, NULL, 0);
    }
    p->pid = -1;
}

/* ---- the base's side ---------------------------------------------------- */

/* A message sent as the rest of one line: its line breaks (and any other
 * control character) become spaces, or the head would read the rest of a
 * many-line message as its next answers. */
static const char *one_line(char *msg) {
    for (char *p = msg; *p; ++p)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = ' ';
    return msg;
}

void kb_partner_decline(FILE *out, const char *why) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", why);
    fprintf(out, "error %s\n", one_line(msg));
    fflush(out);
}

/* "<variant> <case>": two words, of at most 127 and 255 bytes. */
static int case_words(const char *args, char *variant, char *name) {
    const char *sp = strchr(args, ' ');
    if (!sp || sp == args || sp - args > 127 || strlen(sp + 1) > 255) return -1;
    memcpy(variant, args, (size_t)(sp - args));
    variant[sp - args] = '\0';
    strcpy(name, sp + 1);
    return is_word(variant) && is_word(name) ? 0 : -1;
}

static int answer_case(const kb_partner_server *s, const char *args, FILE *out, int *open,
                       kb_err *err) {
    char variant[128], name[256];
    if (case_words(args, variant, name) != 0)
        return kb_fail(
            err, "A/B partner: bad 'case' command '%.200s' (expected 'case <variant> <case>')",
            args);
    if (*open) s->close(s->ctx);
    *open = 0;
    kb_partner_case status;
    double rmse = 0.0, max_abs = 0.0;
    char why[512] = "";
    kb_err local = {{0}};
    if (s->open(s->ctx, variant, name, &status, &rmse, &max_abs, why, sizeof why, &local) != 0)
        return fprintf(out, "error %s\n", one_line(local.msg)) < 0 ? -1 : 0;
    *open = status == KB_PARTNER_READY;
    if (status == KB_PARTNER_READY) return fprintf(out, "ready %.17g %.17g\n", rmse, max_abs);
    if (status == KB_PARTNER_SKIP) return fprintf(out, "skip %s\n", one_line(why));
    return fprintf(out, "absent\n");
}

/* "<cpu> <move> <min_samples> <max_samples> <min_time_s> <max_time_s>
 * <target_rel_ci> <warmup_s> <sample_min_s>", each within what a head sends. */
static int round_args(const char *args, int *cpu, int *move, kb_sampling *c) {
    char buf[COMMAND_MAX + 2];
    snprintf(buf, sizeof buf, " %s", args);
    const char *p = buf;
    long v[4];
    static const long lo[4] = {-1, 0, 1, 1}, hi[4] = {CPU_SETSIZE - 1, 1, 1000000, 1000000};
    for (int i = 0; i < 4; ++i)
        if (next_long(&p, lo[i], hi[i], &v[i]) != 0) return -1;
    *cpu = (int)v[0];
    *move = (int)v[1];
    c->min_samples = (int)v[2];
    c->max_samples = (int)v[3];
    if (next_double(&p, 0.0, 3600.0, &c->min_time_s) != 0 ||
        next_double(&p, 0.0, 3600.0, &c->max_time_s) != 0 ||
        next_double(&p, 0.0, 1.0, &c->target_rel_ci) != 0 ||
        next_double(&p, 0.0, 3600.0, &c->warmup_s) != 0 ||
        next_double(&p, 0.0, 3600.0, &c->sample_min_s) != 0 || *p != '\0')
        return -1;
    return c->max_samples >= c->min_samples && c->max_time_s >= c->min_time_s ? 0 : -1;
}

static int answer_round(const kb_partner_server *s, const char *args, FILE *out, int open,
                        kb_err *err) {
    int cpu, move;
    kb_sampling c;
    memset(&c, 0, sizeof c);
    if (round_args(args, &cpu, &move, &c) != 0)
        return kb_fail(err, "A/B partner: bad 'round' command '%.200s' (docs/ab.md)", args);
    if (!open) return fprintf(out, "error no case is set up for this round\n");
    kb_samples smp = {0};
    kb_err local = {{0}};
    if (s->round(s->ctx, cpu, move, &c, &smp, &local) != 0) {
        kb_samples_free(&smp);
        return fprintf(out, "error %s\n", one_line(local.msg));
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

/* The next command into *line; 0 at 'quit' or at the end of input between
 * commands, 1 for a command, -1 for input that is not a command line. */
static int next_command(FILE *in, char **line, size_t *cap, int open, kb_err *err) {
    ssize_t len = read_line(in, line, cap, COMMAND_MAX);
    if (len == LINE_EOF && open)
        return kb_fail(err,
                       "A/B partner: input ended with a case still set up (no 'end' or 'quit')");
    if (len == LINE_EOF) return 0;
    if (len == LINE_CUT)
        return kb_fail(err, "A/B partner: input ended inside a command (no newline after it)");
    if (len == LINE_TOO_LONG)
        return kb_fail(err, "A/B partner: a command longer than %d bytes", COMMAND_MAX);
    if (len == LINE_NUL) return kb_fail(err, "A/B partner: a command holding a NUL byte");
    return strcmp(*line, "quit") != 0;
}

int kb_partner_serve(const kb_partner_server *s, const char *kernel, FILE *in, FILE *out,
                     kb_err *err) {
    if (fprintf(out, "kbench-partner %d %s\n", KB_PARTNER_VERSION, kernel) < 0 || fflush(out) != 0)
        return kb_fail(err, "A/B partner: cannot greet the head");
    char *line = NULL;
    size_t cap = 0;
    int open = 0, rc = 0, more;
    while (rc == 0 && (more = next_command(in, &line, &cap, open, err)) != 0)
        rc = more < 0 ? -1 : answer(s, line, out, &open, err);
    if (open) s->close(s->ctx);
    free(line);
    return rc;
}
