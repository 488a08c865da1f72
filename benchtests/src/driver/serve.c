#define _GNU_SOURCE
#include "driver/serve.h"

#include "partner/protocol.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

typedef struct server {
    const kb_run_ctx *ctx;
    const kb_impl *const *impls;
    int n_impls;
    kb_case_result r;
    kb_case_session *session;
} server;

static const kb_impl *impl_of(const server *s, const char *variant) {
    for (int i = 0; i < s->n_impls; ++i)
        if (strcmp(s->impls[i]->variant, variant) == 0) return s->impls[i];
    return NULL;
}

static int serve_open(void *p, const char *variant, const char *case_name, kb_partner_case *status,
                      double *rmse, double *max_abs, char *why, size_t why_size, kb_err *err) {
    server *s = p;
    const kb_case *c = kb_manifest_find_case(s->ctx->manifest, case_name);
    const kb_impl *impl = impl_of(s, variant);
    *status = KB_PARTNER_ABSENT;
    if (!c || !impl) return 0;
    kb_case_result_free(&s->r);
    memset(&s->r, 0, sizeof s->r);
    s->r.c = c;
    if (kb_manifest_counts(s->ctx->manifest, c, s->ctx->prec, variant, &s->r.flops, &s->r.bytes,
                           err) != 0)
        return -1;
    s->session = kb_case_open(s->ctx, c, impl, &s->r);
    if (!s->session && s->r.error) return kb_fail(err, "%s", s->r.error_msg);
    *status = s->session ? KB_PARTNER_READY : KB_PARTNER_SKIP;
    snprintf(why, why_size, "%s", s->r.skip_why);
    *rmse = s->r.measured.acc.rmse;
    *max_abs = s->r.measured.acc.max_abs;
    return 0;
}

static int serve_round(void *p, int cpu, int move, const kb_sampling *cfg, kb_samples *out,
                       kb_err *err) {
    return kb_case_round(((server *)p)->session, cpu, move, cfg, out, err);
}

static void serve_close(void *p) {
    server *s = p;
    kb_case_close(s->session);
    s->session = NULL;
}

/* The protocol goes over the real stdout; everything else the driver or a
 * kernel prints goes to stderr, so it cannot corrupt a message. The base
 * ends with its head. */
int kb_serve(const kb_run_ctx *ctx, const kb_impl *const *impls, int n_impls, kb_err *err) {
    int fd = dup(STDOUT_FILENO);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        return kb_fail(err, "--partner: cannot set up the protocol stream");
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
    static server s;
    s.ctx = ctx;
    s.impls = impls;
    s.n_impls = n_impls;
    kb_partner_server srv = {&s, serve_open, serve_round, serve_close};
    int rc = kb_partner_serve(&srv, ctx->manifest->name, stdin, out, err);
    kb_case_result_free(&s.r);
    fclose(out);
    return rc;
}
