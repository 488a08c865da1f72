/* The A/B partner protocol (partner/protocol.h) against bad input on both ends: a
 * base fed garbage commands, a head fed garbage answers, and a base process
 * that stops answering but does not exit. */
#define _GNU_SOURCE
#include "guard/watchdog.h"
#include "kb_test.h"
#include "partner/protocol.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the base's side ----------------------------------------------------- */

static int opened, closed;

static int fake_open(void *ctx, const char *variant, const char *case_name, kb_partner_case *status,
                     double *rmse, double *max_abs, char *why, size_t why_size, kb_err *err) {
    (void)ctx;
    if (strcmp(case_name, "fail") == 0) return kb_fail(err, "first line\nsecond line");
    if (strcmp(case_name, "skip") == 0) {
        *status = KB_PARTNER_SKIP;
        snprintf(why, why_size, "declined\nfor two reasons");
        return 0;
    }
    *status = strcmp(variant, "default") == 0 && strcmp(case_name, "c") == 0 ? KB_PARTNER_READY
                                                                             : KB_PARTNER_ABSENT;
    *rmse = *max_abs = 0.0;
    opened += *status == KB_PARTNER_READY;
    return 0;
}

static int fake_round(void *ctx, int cpu, int move, const kb_sampling *cfg, kb_samples *out,
                      kb_err *err) {
    (void)ctx, (void)cpu, (void)move, (void)cfg, (void)err;
    out->ms = malloc(sizeof *out->ms);
    out->ms[0] = 1.5;
    out->n = out->cap = out->reps = 1;
    return 0;
}

static void fake_close(void *ctx) {
    (void)ctx;
    ++closed;
}

/* Serves `input` (len bytes); returns the exit of kb_partner_serve, the
 * answers in `answers` and the error in err. */
static int serve(const char *input, size_t len, char *answers, size_t size, kb_err *err) {
    FILE *in = fmemopen((void *)input, len, "r");
    FILE *out = fmemopen(answers, size, "w");
    memset(answers, 0, size);
    memset(err, 0, sizeof *err);
    opened = closed = 0;
    kb_partner_server srv = {NULL, fake_open, fake_round, fake_close};
    int rc = kb_partner_serve(&srv, "t", in, out, err);
    fclose(in);
    fclose(out);
    return rc;
}

static int serve_text(const char *input, kb_err *err) {
    static char answers[4096];
    return serve(input, strlen(input), answers, sizeof answers, err);
}

static void test_serve_good_session(void) {
    char answers[4096];
    kb_err err;
    const char *in = "case default c\nround 0 1 2 16 0.1 0.1 0 0.01 0\nend\nquit\n";
    ASSERT_INT_EQ(serve(in, strlen(in), answers, sizeof answers, &err), 0);
    ASSERT_STR_CONTAINS(answers, "kbench-partner 3 t\nready 0 0\nsamples 0 0 1 1 1.5\nended\n");
    ASSERT_INT_EQ(opened, 1);
    ASSERT_INT_EQ(closed, 1);
    /* end of input between commands, no case set up: done */
    ASSERT_INT_EQ(serve_text("case default nosuch\n", &err), 0);
    ASSERT_INT_EQ(serve_text("", &err), 0);
}

/* A many-line message goes as one line, or the head would take its second
 * line for the answer to its next command. */
static void test_serve_sends_messages_on_one_line(void) {
    char answers[4096];
    kb_err err;
    const char *in = "case default fail\ncase default skip\nend\n";
    ASSERT_INT_EQ(serve(in, strlen(in), answers, sizeof answers, &err), 0);
    ASSERT_STR_CONTAINS(answers, "\nerror first line second line\nskip declined for two "
                                 "reasons\nended\n");
}

static void test_serve_rejects_garbage(void) {
    static const struct {
        const char *input, *says;
    } bad[] = {
        {"hello\n", "unknown command 'hello'"},
        {"case default\n", "bad 'case' command 'default'"},
        {"case default c extra\n", "bad 'case' command 'default c extra'"},
        {"case  c\n", "bad 'case' command"},
        {"round 0 0 1 2 0 0.01 0 0\n", "bad 'round' command"},
        {"round 0 0 1 2 0 0.01 0 0 0 7\n", "bad 'round' command"},
        {"round 99999999999 0 1 2 0 0.01 0 0 0\n", "bad 'round' command"},
        {"round 5000 0 1 2 0 0.01 0 0 0\n", "bad 'round' command"},
        {"round -2 0 1 2 0 0.01 0 0 0\n", "bad 'round' command"},
        {"round 0 0 1 2 0 nan 0 0 0\n", "bad 'round' command"},
        {"round 0 0 3 2 0 0.01 0 0 0\n", "bad 'round' command"},
        {"round 0  0 1 2 0 0.01 0 0 0\n", "bad 'round' command"},
        {"case default c", "input ended inside a command"},
        {"case default c\n", "input ended with a case still set up"},
        {"case default c\nround 0 0 1 2 0 0.01 0 0 0\n", "input ended with a case still set up"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        kb_err err;
        ASSERT_INT_EQ(serve_text(bad[i].input, &err), -1);
        ASSERT_STR_CONTAINS(err.msg, "A/B partner:");
        ASSERT_STR_CONTAINS(err.msg, bad[i].says);
    }
}

static void test_serve_rejects_nul_and_huge_lines(void) {
    char answers[256];
    kb_err err;
    ASSERT_INT_EQ(serve("case\0 x\n", 8, answers, sizeof answers, &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "NUL byte");
    size_t n = (size_t)8 << 20; /* 8 MiB without a newline: refused, not read */
    char *huge = malloc(n);
    memset(huge, 'a', n);
    ASSERT_INT_EQ(serve(huge, n, answers, sizeof answers, &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "a command longer than 1024 bytes");
    free(huge);
}

/* ---- the head's side ----------------------------------------------------- */

/* A head whose base answered `answers` (greeting aside) and then closed
 * its output; what the head sends goes nowhere. */
static void head_on(kb_partner *p, const char *answers) {
    int fds[2];
    memset(p, 0, sizeof *p);
    p->pid = -1;
    snprintf(p->exe, sizeof p->exe, "base-x");
    ASSERT_INT_EQ(pipe(fds), 0);
    ASSERT(write(fds[1], answers, strlen(answers)) == (ssize_t)strlen(answers));
    close(fds[1]);
    p->from = fds[0];
    p->to = open("/dev/null", O_WRONLY);
}

static int reply_to_case(const char *answers, kb_partner_case *status, kb_err *err) {
    kb_partner p;
    double rmse, max_abs;
    char why[64];
    head_on(&p, answers);
    memset(err, 0, sizeof *err);
    int rc = kb_partner_case_send(&p, "default", "c", err);
    if (rc == 0) rc = kb_partner_case_reply(&p, status, &rmse, &max_abs, why, sizeof why, err);
    kb_partner_stop(&p);
    return rc;
}

static void test_head_rejects_bad_ready(void) {
    kb_partner_case status;
    kb_err err;
    ASSERT_INT_EQ(reply_to_case("ready 1e-7 2e-6\n", &status, &err), 0);
    ASSERT_INT_EQ(status, KB_PARTNER_READY);
    static const char *bad[] = {"ready nan nan\n", "ready inf 0\n",    "ready -1 0\n",
                                "ready 0\n",       "ready 0 0 junk\n", "ready 0  0\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        ASSERT_INT_EQ(reply_to_case(bad[i], &status, &err), -1);
        ASSERT_STR_CONTAINS(err.msg, "base driver base-x answered 'ready");
    }
    ASSERT_INT_EQ(reply_to_case("ready 0 0", &status, &err), -1); /* cut: the base died */
    ASSERT_STR_CONTAINS(err.msg, "stopped answering case default c");
}

static int round_answer(const char *answer, kb_err *err) {
    kb_partner p;
    kb_samples s = {0};
    kb_sampling cfg = {.min_samples = 2, .max_samples = 16, .max_time_s = 0.1};
    head_on(&p, answer);
    memset(err, 0, sizeof *err);
    int rc = kb_partner_round(&p, 0, 1, &cfg, &s, err);
    kb_samples_free(&s);
    kb_partner_stop(&p);
    return rc;
}

static void test_head_rejects_bad_samples(void) {
    kb_err err;
    ASSERT_INT_EQ(round_answer("samples 0 0 1 2 4.5 4.25\n", &err), 0);
    static const char *bad[] = {
        "samples 0 0 1 1 0\n",   /* a zero time: the ratio would be infinite */
        "samples 0 0 1 1 inf\n", /* an infinite one: a ratio of 0 */
        "samples 0 0 1 1 nan\n",
        "samples 0 0 1 1 -1\n",
        "samples 0 0 1 17 1 1 1 1 1\n", /* more than the round's max_samples */
        "samples 0 0 1 100000000\n",
        "samples 0 0 0 1 1\n",
        "samples 0 0 1 2 1\n",
        "samples 0 0 1 1 1 2\n",
        "samples 0 0 1 99999999999999999999 1\n",
        "samples\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        ASSERT_INT_EQ(round_answer(bad[i], &err), -1);
        ASSERT_STR_CONTAINS(err.msg, "base driver base-x answered 'samples");
    }
}

/* ---- a base process ------------------------------------------------------ */

/* A base that greets, then closes its output without exiting: the head
 * reports it (killing it) instead of waiting for it forever. */
static void test_head_does_not_hang_on_a_silent_base(void) {
    char exe[4096];
    kb_test_join(exe, sizeof exe, kb_test_tmpdir("partner"), "silent-base");
    kb_test_write(exe, "#!/bin/sh\necho 'kbench-partner 3 t'\nexec >&-\nexec sleep 300\n");
    chmod(exe, 0700);
    char *args[] = {exe, "--partner", NULL};
    kb_partner p;
    kb_err err = {{0}};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ASSERT_INT_EQ(kb_partner_start(&p, exe, args, &err), 0);
    ASSERT_STR_CONTAINS(p.kernel, "t");
    kb_partner_case status;
    double rmse, max_abs;
    char why[64];
    ASSERT_INT_EQ(kb_partner_case_send(&p, "default", "c", &err), 0);
    ASSERT_INT_EQ(kb_partner_case_reply(&p, &status, &rmse, &max_abs, why, sizeof why, &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "stopped answering case default c (still running: killed");
    kb_partner_stop(&p);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ASSERT(t1.tv_sec - t0.tv_sec < 60);
}

/* A base that greets with garbage and keeps running: an error naming the
 * greeting, and the base stopped. */
static void test_head_stops_a_garbage_base(void) {
    char exe[4096];
    kb_test_join(exe, sizeof exe, kb_test_tmpdir("partner-garbage"), "garbage-base");
    kb_test_write(exe, "#!/bin/sh\necho 'hello there'\nexec sleep 300\n");
    chmod(exe, 0700);
    char *args[] = {exe, "--partner", NULL};
    kb_partner p;
    kb_err err = {{0}};
    ASSERT_INT_EQ(kb_partner_start(&p, exe, args, &err), -1);
    ASSERT_STR_CONTAINS(err.msg, "greeted with 'hello there'");
    ASSERT_INT_EQ(p.pid, -1);
}

/* A base that never greets (hangs on start): an error after the wait, the
 * base stopped. */
static void test_head_does_not_wait_forever_for_a_greeting(void) {
    char exe[4096];
    kb_test_join(exe, sizeof exe, kb_test_tmpdir("partner-mute"), "mute-base");
    kb_test_write(exe, "#!/bin/sh\nexec sleep 300\n");
    chmod(exe, 0700);
    char *args[] = {exe, "--partner", NULL};
    kb_partner p;
    kb_err err = {{0}};
    const kb_partner_waits saved = kb_partner_wait;
    kb_partner_wait.greeting_s = 1.0;
    ASSERT_INT_EQ(kb_partner_start(&p, exe, args, &err), -1);
    kb_partner_wait = saved;
    ASSERT_STR_CONTAINS(err.msg, "did not greet within 1 s");
    ASSERT_STR_CONTAINS(err.msg, exe);
    ASSERT_INT_EQ(p.pid, -1);
}

/* A fake base from a shell script's body, started as the head starts one. */
static void start_fake(kb_partner *p, const char *name, const char *body, char *exe, size_t size,
                       int expect_rc, kb_err *err) {
    char text[4096];
    kb_test_join(exe, size, kb_test_tmpdir(name), "base");
    snprintf(text, sizeof text, "#!/bin/sh\n%s\n", body);
    kb_test_write(exe, text);
    chmod(exe, 0700);
    char *args[] = {exe, "--partner", NULL};
    memset(err, 0, sizeof *err);
    ASSERT_INT_EQ(kb_partner_start(p, exe, args, err), expect_rc);
}

static double seconds_since(const struct timespec *t0) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0->tv_nsec);
}

/* A greeting without its newline is no greeting: the head does not wait
 * for the rest of the line past the greeting's limit. */
static void test_head_does_not_wait_for_the_end_of_a_greeting(void) {
    char exe[4096];
    kb_partner p;
    kb_err err;
    struct timespec t0;
    const kb_partner_waits saved = kb_partner_wait;
    kb_partner_wait.greeting_s = 1.0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    start_fake(&p, "partner-no-newline", "printf 'kbench-partner 3 t'\nexec sleep 300", exe,
               sizeof exe, -1, &err);
    kb_partner_wait = saved;
    ASSERT(seconds_since(&t0) < 10.0);
    ASSERT_STR_CONTAINS(err.msg, exe);
    ASSERT_STR_CONTAINS(err.msg, "did not greet within 1 s");
    ASSERT_STR_CONTAINS(err.msg, "it sent 'kbench-partner 3 t' without ending the line");
    ASSERT_INT_EQ(p.pid, -1);
}

/* A base that greets and then never answers a case or a round: each wait
 * ends at its limit, the base is killed, and a later command fails at once
 * saying why. */
static void test_head_gives_up_on_a_base_that_does_not_answer(void) {
    static const struct {
        const char *body, *says;
    } bases[] = {
        {"echo 'kbench-partner 3 t'\nexec sleep 300", "did not answer 'case default c' within 1 s"},
        {"echo 'kbench-partner 3 t'\nread line\necho 'ready 0 0'\nexec sleep 300",
         "did not answer 'round' (a round of samples) within 1 s"},
        {"echo 'kbench-partner 3 t'\nread line\nprintf 'rea'\nexec sleep 300",
         "it sent 'rea' without ending the line"},
    };
    const kb_partner_waits saved = kb_partner_wait;
    kb_partner_wait.floor_s = 1.0;
    kb_partner_wait.factor = 0.0;
    for (size_t i = 0; i < sizeof bases / sizeof *bases; ++i) {
        char exe[4096];
        kb_partner p;
        kb_err err;
        kb_partner_case status = 0;
        double rmse, max_abs;
        char why[64];
        kb_samples s = {0};
        kb_sampling cfg = {.min_samples = 1, .max_samples = 2, .max_time_s = 0.01};
        struct timespec t0;
        start_fake(&p, "partner-mute-later", bases[i].body, exe, sizeof exe, 0, &err);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        ASSERT_INT_EQ(kb_partner_case_send(&p, "default", "c", &err), 0);
        int rc = kb_partner_case_reply(&p, &status, &rmse, &max_abs, why, sizeof why, &err);
        if (rc == 0) {
            ASSERT_INT_EQ(status, KB_PARTNER_READY);
            rc = kb_partner_round(&p, -1, 0, &cfg, &s, &err);
        }
        ASSERT_INT_EQ(rc, -1);
        ASSERT(seconds_since(&t0) < 10.0);
        ASSERT_STR_CONTAINS(err.msg, exe);
        ASSERT_STR_CONTAINS(err.msg, bases[i].says);
        ASSERT_STR_CONTAINS(err.msg, ": killed");
        ASSERT_INT_EQ(p.pid, -1);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        ASSERT_INT_EQ(kb_partner_case_close(&p, &err), -1);
        ASSERT_STR_CONTAINS(err.msg, "was stopped earlier: it did not");
        ASSERT(seconds_since(&t0) < 1.0);
        kb_samples_free(&s);
        kb_partner_stop(&p);
    }
    kb_partner_wait = saved;
}

/* What a base started goes with it: its process group is killed. */
static void test_head_kills_what_a_base_started(void) {
    char exe[4096], pidfile[4096], body[8192];
    kb_partner p;
    kb_err err;
    kb_test_join(pidfile, sizeof pidfile, kb_test_tmpdir("partner-group"), "child.pid");
    snprintf(body, sizeof body,
             "sleep 300 &\necho $! > '%s'\necho 'kbench-partner 3 t'\nwhile :; do sleep 1; done",
             pidfile);
    const kb_partner_waits saved = kb_partner_wait;
    kb_partner_wait.floor_s = 1.0;
    kb_partner_wait.factor = 0.0;
    start_fake(&p, "partner-group", body, exe, sizeof exe, 0, &err);
    FILE *f = fopen(pidfile, "r");
    int child = 0;
    ASSERT(f && fscanf(f, "%d", &child) == 1 && child > 0);
    if (f) fclose(f);
    ASSERT_INT_EQ(kb_partner_case_send(&p, "default", "c", &err), 0);
    kb_partner_case status;
    double rmse, max_abs;
    char why[64];
    ASSERT_INT_EQ(kb_partner_case_reply(&p, &status, &rmse, &max_abs, why, sizeof why, &err), -1);
    kb_partner_wait = saved;
    /* the sleep was the shell's child: killed, reaped by init */
    int gone = 0;
    for (int i = 0; i < 200 && !gone; ++i) {
        gone = child > 0 && kill(child, 0) != 0;
        if (!gone) nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    ASSERT(gone);
    kb_partner_stop(&p);
}

/* Every wait ends shortly before the test's own time limit, naming the
 * base, when that comes before the wait's own limit. */
static void test_head_waits_end_before_the_test_limit(void) {
    char exe[4096];
    kb_partner p;
    kb_err err;
    struct timespec t0;
    start_fake(&p, "partner-test-limit", "echo 'kbench-partner 3 t'\nexec sleep 300", exe,
               sizeof exe, 0, &err);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ASSERT_INT_EQ(kb_watchdog_start(4.0, &err), 0); /* fires at 3.5 s */
    ASSERT_INT_EQ(kb_partner_case_send(&p, "default", "c", &err), 0);
    kb_partner_case status;
    double rmse, max_abs;
    char why[64];
    ASSERT_INT_EQ(kb_partner_case_reply(&p, &status, &rmse, &max_abs, why, sizeof why, &err), -1);
    kb_watchdog_stop();
    ASSERT(seconds_since(&t0) < 3.5);
    ASSERT_STR_CONTAINS(err.msg,
                        "did not answer 'case default c' within 2 s (the test's time limit");
    kb_partner_stop(&p);
}

int main(void) {
    RUN_TEST(test_serve_good_session);
    RUN_TEST(test_serve_sends_messages_on_one_line);
    RUN_TEST(test_serve_rejects_garbage);
    RUN_TEST(test_serve_rejects_nul_and_huge_lines);
    RUN_TEST(test_head_rejects_bad_ready);
    RUN_TEST(test_head_rejects_bad_samples);
    RUN_TEST(test_head_does_not_hang_on_a_silent_base);
    RUN_TEST(test_head_stops_a_garbage_base);
    RUN_TEST(test_head_does_not_wait_forever_for_a_greeting);
    RUN_TEST(test_head_does_not_wait_for_the_end_of_a_greeting);
    RUN_TEST(test_head_gives_up_on_a_base_that_does_not_answer);
    RUN_TEST(test_head_kills_what_a_base_started);
    RUN_TEST(test_head_waits_end_before_the_test_limit);
    return kb_test_summary();
}
