/* libFuzzer harness: the A/B partner protocol (partner/protocol.h) on arbitrary
 * bytes, both ends, without processes, and through them every reader of the
 * wire format (partner/protocol_wire.h). The first byte picks the end:
 *  - even: the base's side, kb_partner_serve reading the head's commands
 *    from the rest of the input, with a stand-in server (case "c" of
 *    variant "default" is ready, "skip" declines, "fail" errs, others are
 *    absent) whose rounds return up to max_samples (at most 8) samples;
 *  - odd: the head's side, reading the base's answers from the rest of the
 *    input (greeting aside: a head that kb_partner_start spawned) through
 *    case, two rounds and end, as kb_ab_* call them. */
#define _GNU_SOURCE
#include "partner/protocol.h"

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fake_open(void *ctx, const char *variant, const char *case_name, kb_partner_case *status,
                     double *rmse, double *max_abs, char *why, size_t why_size, kb_err *err) {
    (void)ctx;
    *status = KB_PARTNER_ABSENT;
    if (strcmp(variant, "default") != 0) return 0;
    if (strcmp(case_name, "fail") == 0) return kb_fail(err, "case %s failed", case_name);
    if (strcmp(case_name, "skip") == 0) {
        *status = KB_PARTNER_SKIP;
        snprintf(why, why_size, "declined");
    } else if (strcmp(case_name, "c") == 0) {
        *status = KB_PARTNER_READY;
        *rmse = 1e-7;
        *max_abs = 1e-6;
    }
    return 0;
}

static int fake_round(void *ctx, int cpu, int move, const kb_sampling *cfg, kb_samples *out,
                      kb_err *err) {
    (void)ctx;
    (void)move;
    if (cpu > 1000) return kb_fail(err, "no cpu %d", cpu);
    int n = cfg->max_samples < 8 ? cfg->max_samples : 8;
    out->ms = malloc((size_t)n * sizeof *out->ms);
    if (!out->ms) return kb_fail(err, "out of memory");
    out->cap = out->n = n;
    out->reps = 1;
    for (int i = 0; i < n; ++i) out->ms[i] = 0.5 + i;
    return 0;
}

static void fake_close(void *ctx) {
    (void)ctx;
}

static void serve(const uint8_t *data, size_t size, FILE *sink) {
    FILE *in = fmemopen((void *)data, size, "r");
    if (!in) return;
    kb_partner_server srv = {NULL, fake_open, fake_round, fake_close};
    kb_err err = {{0}};
    (void)kb_partner_serve(&srv, "fuzz", in, sink, &err);
    fclose(in);
}

/* The base's answers come from a file in memory holding the input; what
 * the head sends goes to /dev/null. */
static void head(const uint8_t *data, size_t size) {
    static kb_partner p;
    memset(&p, 0, sizeof p);
    p.pid = -1;
    snprintf(p.exe, sizeof p.exe, "fuzz-base");
    p.from = memfd_create("fuzz-answers", MFD_CLOEXEC);
    p.to = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (p.from < 0 || p.to < 0 || write(p.from, data, size) != (ssize_t)size ||
        lseek(p.from, 0, SEEK_SET) != 0) {
        kb_partner_stop(&p);
        return;
    }
    kb_err err = {{0}};
    kb_partner_case status;
    double rmse, max_abs;
    char why[512];
    kb_sampling cfg = {.min_samples = 2, .max_samples = 16, .max_time_s = 0.1};
    if (kb_partner_case_send(&p, "default", "c", &err) == 0 &&
        kb_partner_case_reply(&p, &status, &rmse, &max_abs, why, sizeof why, &err) == 0 &&
        status == KB_PARTNER_READY) {
        for (int i = 0; i < 2; ++i) {
            kb_samples s = {0};
            int rc = kb_partner_round(&p, 0, 1, &cfg, &s, &err);
            kb_samples_free(&s);
            if (rc != 0) break;
        }
        (void)kb_partner_case_close(&p, &err);
    }
    kb_partner_stop(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static FILE *sink;
    if (!sink) sink = fopen("/dev/null", "w");
    if (size < 2 || !sink) return 0;
    if (data[0] % 2 == 0)
        serve(data + 1, size - 1, sink);
    else
        head(data + 1, size - 1);
    return 0;
}
