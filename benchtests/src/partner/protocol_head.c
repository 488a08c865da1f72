/* The head's side of the partner protocol (protocol.h): starting a partner
 * process, sending it commands and reading its answers, each within a time
 * limit, and stopping it. A base that hangs, dies or answers something else
 * is named in the error, killed with what it started, and every later
 * command to it fails at once saying why. */
#define _GNU_SOURCE
#include "partner/protocol.h"

#include "base/buildinfo.h"
#include "base/clock.h"
#include "guard/watchdog.h"
#include "partner/protocol_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* How long a base may take to exit once asked to, or once its output
 * ended (then killed). */
#define PARTNER_EXIT_S 5.0

kb_partner_waits kb_partner_wait = {30.0, 30.0, 10.0};

/* A wait ends this long before the test's time limit: time for the case to
 * be reported naming the base before the watchdog ends the run. */
#define BEFORE_TEST_LIMIT_S 1.0

/* Until when the head waits for an answer that may take limit_s: then, or
 * shortly before the test's time limit when that comes first (*by_test). */
static double deadline_of(double limit_s, int *by_test) {
    const double test_s = kb_watchdog_left_s() - BEFORE_TEST_LIMIT_S;
    *by_test = test_s < limit_s;
    return kb_now_s() + (*by_test ? (test_s > 0.0 ? test_s : 0.0) : limit_s);
}

/* Reads one line of the base's output by `deadline`, without its newline,
 * into *line (in p->buf, good until the next read). Returns its length, or
 * KB_LINE_EOF at the end of the output, KB_LINE_CUT for a last line without its
 * newline (the base died mid-line), KB_LINE_TOO_LONG past max bytes, KB_LINE_NUL
 * for a line holding a NUL byte, KB_LINE_SILENT when the deadline passed first
 * (what came of the line stays in p->buf). */
static ssize_t read_answer(kb_partner *p, double deadline, size_t max, const char **line) {
    if (p->taken) {
        memmove(p->buf, p->buf + p->taken, p->have - p->taken);
        p->have -= p->taken;
        p->taken = 0;
    }
    for (;;) {
        char *nl = p->have ? memchr(p->buf, '\n', p->have) : NULL;
        if (nl) {
            const size_t len = (size_t)(nl - p->buf);
            *nl = '\0';
            p->taken = len + 1;
            *line = p->buf;
            return len >= max                  ? KB_LINE_TOO_LONG
                   : memchr(p->buf, '\0', len) ? KB_LINE_NUL
                                               : (ssize_t)len;
        }
        if (p->have >= max) return KB_LINE_TOO_LONG;
        if (p->have + 4096 > p->cap) {
            size_t grown = p->cap ? 2 * p->cap : 65536;
            char *b = realloc(p->buf, grown);
            if (!b) return KB_LINE_TOO_LONG;
            p->buf = b;
            p->cap = grown;
        }
        const double left_ms = 1000.0 * (deadline - kb_now_s());
        if (p->from < 0) return KB_LINE_EOF;
        if (left_ms <= 0.0) return KB_LINE_SILENT;
        struct pollfd pfd = {p->from, POLLIN, 0};
        if (poll(&pfd, 1, left_ms > 1e9 ? 1000000000 : (int)ceil(left_ms)) <= 0) continue;
        ssize_t n = read(p->from, p->buf + p->have, p->cap - p->have);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) return p->have ? KB_LINE_CUT : KB_LINE_EOF;
        p->have += (size_t)n;
    }
}

/* Waits for the base to end until `until` (kb_now_s): a base that closed
 * its output but does not exit must not hang the head. Returns pid once it
 * ended, else 0. */
static pid_t wait_until(pid_t pid, int *status, double until) {
    const struct timespec tick = {0, 10 * 1000 * 1000};
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r != 0 || kb_now_s() >= until) return r;
        nanosleep(&tick, NULL);
    }
}

double kb_partner_exit_deadline(void) {
    int by_test;
    return deadline_of(PARTNER_EXIT_S, &by_test);
}

/* Kills the base and what it started (its process group) if it still runs,
 * and reaps it (a few seconds at most: one stuck in the kernel is left). */
static void end_base(kb_partner *p, int *status) {
    if (p->pid <= 0) return;
    if (waitpid(p->pid, status, WNOHANG) == 0) {
        kill(-p->pid, SIGKILL);
        kill(p->pid, SIGKILL);
        (void)wait_until(p->pid, status, kb_now_s() + PARTNER_EXIT_S);
    }
    p->pid = -1;
}

static void close_pipes(kb_partner *p) {
    if (p->to >= 0) close(p->to);
    if (p->from >= 0) close(p->from);
    p->to = p->from = -1;
}

/* How the base ended, for messages: "exited with status 2", "killed by
 * signal 11", or "still running: killed" after a few seconds. */
static void describe_exit(kb_partner *p, char *out, size_t size) {
    int status = 0;
    if (p->pid <= 0) {
        snprintf(out, size, "ended before");
        return;
    }
    pid_t r = wait_until(p->pid, &status, kb_partner_exit_deadline());
    if (r == p->pid) {
        p->pid = -1;
        if (WIFEXITED(status))
            snprintf(out, size, "exited with status %d", WEXITSTATUS(status));
        else
            snprintf(out, size, "killed by signal %d", WTERMSIG(status));
        return;
    }
    snprintf(out, size, "still running: killed");
    end_base(p, &status);
}

/* The base is gone or stopped: the message, kept for every later command. */
static int stop_with(kb_partner *p, kb_err *err) {
    close_pipes(p);
    return kb_fail(err, "base driver %s %s", p->exe, p->stopped);
}

/* What the base sent of a line it did not end, for messages ("" when
 * nothing): printable characters only. */
static void partial_line(const kb_partner *p, char *out, size_t size) {
    const size_t n = p->have - p->taken < 200 ? p->have - p->taken : 200;
    char text[256];
    for (size_t i = 0; i < n; ++i) {
        const unsigned char ch = (unsigned char)p->buf[p->taken + i];
        text[i] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
    }
    text[n] = '\0';
    if (n)
        snprintf(out, size, " (it sent '%s%s' without ending the line)", text,
                 p->have - p->taken > n ? "..." : "");
    else
        *out = '\0';
}

/* The base did not do `what` ("greet", "answer 'end'") by the deadline
 * set `waited_s` before: it is killed with its process group. */
static int give_up(kb_partner *p, const char *what, double waited_s, int by_test, kb_err *err) {
    char partial[320];
    int status;
    partial_line(p, partial, sizeof partial);
    end_base(p, &status);
    snprintf(
        p->stopped, sizeof p->stopped, "did not %.300s within %.0f s%s%s: killed", what, waited_s,
        by_test ? " (the test's time limit, --timeout or KBENCH_TIMEOUT, is near)" : "", partial);
    return stop_with(p, err);
}

static int lost(kb_partner *p, const char *during, kb_err *err) {
    char how[64];
    describe_exit(p, how, sizeof how);
    snprintf(p->stopped, sizeof p->stopped,
             "stopped answering %.300s (%s; its own output is above)", during, how);
    return stop_with(p, err);
}

/* The base was stopped earlier: every later command fails at once, saying
 * why. */
static int stopped_before(const kb_partner *p, kb_err *err) {
    if (!*p->stopped) return kb_fail(err, "base driver %s is no longer running", p->exe);
    return kb_fail(err, "base driver %s was stopped earlier: it %s", p->exe, p->stopped);
}

/* Reads the answer to `command` (`what` in messages), which may take
 * limit_s, into *line. */
static int receive(kb_partner *p, const char *command, const char *what, double limit_s,
                   const char **line, kb_err *err) {
    int by_test;
    const double t0 = kb_now_s(), deadline = deadline_of(limit_s, &by_test);
    if (*p->stopped || p->from < 0) return stopped_before(p, err);
    ssize_t len = read_answer(p, deadline, KB_WIRE_ANSWER_MAX, line);
    if (len == KB_LINE_SILENT) return give_up(p, what, deadline - t0, by_test, err);
    if (len == KB_LINE_EOF || len == KB_LINE_CUT) return lost(p, command, err);
    if (len == KB_LINE_TOO_LONG)
        return kb_fail(err, "base driver %s answered a line longer than %zu bytes to '%s'", p->exe,
                       KB_WIRE_ANSWER_MAX, command);
    if (len == KB_LINE_NUL)
        return kb_fail(err, "base driver %s answered a line holding a NUL byte to '%s'", p->exe,
                       command);
    if (kb_wire_starts_with(*line, "error"))
        return kb_fail(err, "base driver %s: %s", p->exe, kb_wire_rest(*line));
    return 0;
}

/* Sends one command line, waiting for room in the pipe no longer than for
 * an answer. */
static int send_line(kb_partner *p, const char *command, kb_err *err) {
    char line[KB_WIRE_COMMAND_MAX + 2];
    const size_t len = (size_t)snprintf(line, sizeof line, "%s\n", command);
    int by_test;
    const double t0 = kb_now_s(), deadline = deadline_of(kb_partner_wait.floor_s, &by_test);
    if (*p->stopped || p->to < 0) return stopped_before(p, err);
    for (size_t off = 0; off < len;) {
        const double left_ms = 1000.0 * (deadline - kb_now_s());
        struct pollfd pfd = {p->to, POLLOUT, 0};
        if (left_ms <= 0.0) return give_up(p, "read its input", deadline - t0, by_test, err);
        if (poll(&pfd, 1, left_ms > 1e9 ? 1000000000 : (int)ceil(left_ms)) <= 0) continue;
        ssize_t n = write(p->to, line + off, len - off);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) return lost(p, command, err);
        off += (size_t)n;
    }
    return 0;
}

/* The larger of the floor and `factor` times the work's own time. */
static double limit_for(double work_s) {
    const double scaled = kb_partner_wait.factor * work_s;
    return scaled > kb_partner_wait.floor_s ? scaled : kb_partner_wait.floor_s;
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
    /* a group of its own: what a base starts ends with it when it is killed */
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    int rc = posix_spawn(&p->pid, p->exe, &fa, &attr, args, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    close(down[0]);
    close(up[1]);
    if (rc != 0) {
        close(down[1]);
        close(up[0]);
        p->pid = -1;
        return kb_fail(err, "cannot start base driver %s: %s", p->exe, strerror(rc));
    }
    p->to = down[1];
    p->from = up[0];
    return 0;
}

int kb_partner_spawn(kb_partner *p, const char *exe, char *const args[], kb_err *err) {
    memset(p, 0, sizeof *p);
    p->pid = -1;
    p->to = p->from = -1;
    snprintf(p->exe, sizeof p->exe, "%s", exe);
    /* A base that dies mid-write must give an error here, not kill us. */
    signal(SIGPIPE, SIG_IGN);
    return spawn(p, args, err);
}

/* A base that ended without greeting: how, and what it sent of a line. */
static int no_greeting(kb_partner *p, kb_err *err) {
    char how[64], partial[320];
    partial_line(p, partial, sizeof partial);
    describe_exit(p, how, sizeof how);
    char doc[KB_PATH_MAX];
    kb_doc_path(doc, sizeof doc, "ab.md");
    return kb_fail(err,
                   "base driver %s does not speak the A/B partner protocol: it ended without a "
                   "greeting (%s%s; its own output is above), as a build older than A/B mode "
                   "does, or one that failed to start; rebuild the base (%s)",
                   p->exe, how, partial, doc);
}

int kb_partner_greet(kb_partner *p, kb_err *err) {
    const char *line = "";
    int by_test, version = 0, rc = 0, declined = 0;
    char kernel[128] = "";
    const double t0 = kb_now_s(), deadline = deadline_of(kb_partner_wait.greeting_s, &by_test);
    ssize_t len = read_answer(p, deadline, KB_WIRE_COMMAND_MAX, &line);
    if (len == KB_LINE_SILENT) {
        rc = give_up(p, "greet", deadline - t0, by_test, err);
    } else if (len == KB_LINE_EOF || len == KB_LINE_CUT) {
        rc = no_greeting(p, err);
    } else if (len >= 0 && kb_wire_starts_with(line, "error")) {
        declined = 1;
        rc = kb_fail(err, "base driver %s cannot serve this test: %.600s", p->exe,
                     kb_wire_rest(line));
    } else if (len < 0 || kb_wire_parse_greeting(line, &version, kernel) != 0) {
        char doc[KB_PATH_MAX];
        kb_doc_path(doc, sizeof doc, "ab.md");
        rc = kb_fail(err,
                     "base driver %s does not speak the A/B partner protocol: it greeted with "
                     "'%.200s', not 'kbench-partner <version> <kernel>'; rebuild the base (%s)",
                     p->exe, len < 0 ? "(a line too long or holding a NUL byte)" : line, doc);
    } else if (version != KB_PARTNER_VERSION) {
        rc = kb_fail(err,
                     "base driver %s speaks A/B partner protocol version %d, this driver "
                     "version %d: the harness changed between base and head in a way A/B "
                     "cannot bridge; compare with a base at or after that change",
                     p->exe, version, KB_PARTNER_VERSION);
    }
    snprintf(p->kernel, sizeof p->kernel, "%s", kernel);
    /* one that declined ends by itself, saying why; any other is not
     * following the protocol, so a quit would not reach it */
    if (rc != 0) {
        kb_partner_hang_up(p);
        kb_partner_reap(p, declined ? kb_partner_exit_deadline() : 0.0);
    }
    return rc;
}

int kb_partner_start(kb_partner *p, const char *exe, char *const args[], kb_err *err) {
    return kb_partner_spawn(p, exe, args, err) != 0 ? -1 : kb_partner_greet(p, err);
}

int kb_partner_case_send(kb_partner *p, const char *variant, const char *case_name, kb_err *err) {
    if (!kb_wire_is_word(variant) || !kb_wire_is_word(case_name))
        return kb_fail(err, "A/B: case '%s' variant '%s': names with spaces cannot be sent",
                       case_name, variant);
    kb_wire_case_command(p->pending, sizeof p->pending, variant, case_name);
    p->sent_s = kb_now_s();
    return send_line(p, p->pending, err);
}

/* The base sets the case up while the head sets up its own side, and the
 * head reads the answer once done: the head's time since sending is what
 * the same set-up took it. */
int kb_partner_case_reply(kb_partner *p, kb_partner_case *status, double *rmse, double *max_abs,
                          char *why, size_t why_size, kb_err *err) {
    const char *line;
    char what[600];
    snprintf(what, sizeof what, "answer '%s'", p->pending);
    int rc = receive(p, p->pending, what, limit_for(kb_now_s() - p->sent_s), &line, err);
    p->case_s = kb_now_s() - p->sent_s;
    if (rc == 0 && kb_wire_starts_with(line, "ready") &&
        kb_wire_parse_ready(line, rmse, max_abs) == 0)
        *status = KB_PARTNER_READY;
    else if (rc == 0 && strcmp(line, "absent") == 0)
        *status = KB_PARTNER_ABSENT;
    else if (rc == 0 && kb_wire_starts_with(line, "skip")) {
        *status = KB_PARTNER_SKIP;
        snprintf(why, why_size, "%s", kb_wire_rest(line));
    } else if (rc == 0)
        rc = kb_fail(err, "base driver %s answered '%.200s' to '%s'", p->exe, line, p->pending);
    return rc;
}

int kb_partner_round(kb_partner *p, int cpu, int move, const kb_sampling *cfg, kb_samples *out,
                     kb_err *err) {
    char command[512];
    const char *line;
    kb_wire_round_command(command, sizeof command, cpu, move, cfg);
    /* a round: its warm-up, its time, one more sample, and calls as long as
     * the case's set-up (which ran the kernel) */
    const double work_s = cfg->warmup_s + cfg->max_time_s + cfg->sample_min_s + p->case_s;
    int rc = send_line(p, command, err) != 0
                 ? -1
                 : receive(p, command, "answer 'round' (a round of samples)", limit_for(work_s),
                           &line, err);
    if (rc == 0 && (!kb_wire_starts_with(line, "samples") ||
                    kb_wire_parse_samples(line, cfg->max_samples, out) != 0)) {
        kb_samples_free(out);
        rc = kb_fail(err, "base driver %s answered '%.200s' to a round", p->exe, line);
    }
    return rc;
}

int kb_partner_case_close(kb_partner *p, kb_err *err) {
    const char *line;
    int rc = send_line(p, "end", err) != 0
                 ? -1
                 : receive(p, "end", "answer 'end'", kb_partner_wait.floor_s, &line, err);
    if (rc == 0 && strcmp(line, "ended") != 0)
        rc = kb_fail(err, "base driver %s answered '%.200s' to 'end'", p->exe, line);
    return rc;
}

void kb_partner_hang_up(kb_partner *p) {
    if (!*p->exe) return; /* never started */
    struct pollfd pfd = {p->to, POLLOUT, 0};
    if (p->to >= 0 && poll(&pfd, 1, 0) == 1 && write(p->to, "quit\n", 5) < 0) {
        /* gone already: kb_partner_reap sees it */
    }
    close_pipes(p);
    free(p->buf);
    p->buf = NULL;
    p->have = p->cap = p->taken = 0;
}

void kb_partner_reap(kb_partner *p, double until) {
    int status;
    if (p->pid > 0 && wait_until(p->pid, &status, until) == p->pid) p->pid = -1;
    end_base(p, &status);
}

void kb_partner_stop(kb_partner *p) {
    kb_partner_hang_up(p);
    kb_partner_reap(p, kb_partner_exit_deadline());
}
