/* Setting a case up for timing and timing it one round at a time. The
 * runner, A/B mode and a partner process all time cases through these
 * calls, so a round means the same on every side of a comparison: the
 * same checked run before it, the same pinning, the same fresh buffers. */
#include "run/case_session.h"

#include "formats/case.h"
#include "guard/watchdog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inputs, reference and one checked run; accuracy goes into r. Returns 0
 * when the case can be timed, 1 when the implementation declined it. */
static int prepare(const kb_run_ctx *ctx, const kb_case *c, const kb_impl *impl,
                   kb_case_buffers *bf, kb_case_result *r, kb_err *err) {
    if (kb_case_buffers_make(ctx, c, bf, err) != 0) return -1;
    kb_watchdog_stage(KB_STAGE_CHECK);
    int rc = impl->run(&bf->args);
    if (rc == KB_UNSUPPORTED) {
        r->skipped = 1;
        snprintf(r->skip_why, sizeof r->skip_why, "%s", kb_unsupported_reason());
        return 1;
    }
    if (rc != 0) return kb_fail(err, "the implementation reported an error");
    if (kb_case_buffers_check(ctx, bf, &r->measured.acc, err) != 0) return -1;
    r->measured.device_mem_mib = -1.0;
    if (ctx->backend->memory_used_mib)
        (void)ctx->backend->memory_used_mib(&r->measured.device_mem_mib);
    return 0;
}

int kb_case_too_many_threads(const kb_case *c, kb_case_result *r) {
    const kb_affinity *a = kb_affinity_start();
    const int t = kb_case_threads(c);
    if (a->n == 0 || t <= a->n) return 0;
    char cpus[128];
    kb_affinity_format(a->cpu, a->n, cpus, sizeof cpus);
    r->skipped = 1;
    snprintf(r->skip_why, sizeof r->skip_why,
             "case '%s' runs %d threads, but this process may use only %d CPU%s (CPU%s %.100s: "
             "its affinity mask at start, which taskset, CTest's PROCESSOR_AFFINITY or a cgroup "
             "can narrow); a case is never run on fewer CPUs than threads",
             c->name, t, a->n, a->n == 1 ? "" : "s", a->n == 1 ? "" : "s", cpus);
    return 1;
}

kb_case_session *kb_case_open(const kb_run_ctx *ctx, const kb_case *c, const kb_impl *impl,
                              kb_case_result *r) {
    if (kb_case_too_many_threads(c, r)) return NULL;
    kb_case_session *s = calloc(1, sizeof *s);
    if (!s) {
        kb_case_error(r, "out of host memory");
        return NULL;
    }
    s->ctx = ctx;
    /* A multithreaded case runs on the first of its CPU sets from the
     * start: its checked run too, so that the threads the kernel starts
     * for it (an OpenMP pool) begin there. */
    kb_case_timing tc = {.ctx = ctx, .impl = impl, .bf = &s->bf, .probe = &s->probe};
    tc.cpus = *kb_affinity_start();
    tc.threads = kb_case_threads(c);
    tc.set_first = -1;
    s->threads = tc.threads;
    if (tc.threads > 1) kb_case_timing_pin(&tc, tc.cpus.cpu[0]);
    kb_err err = {{0}};
    int rc = 1;
    if (kb_case_buffers_layout(ctx, c, &s->bf, &r->footprint, &r->written, &err) != 0)
        kb_case_error(r, err.msg);
    else
        rc = prepare(ctx, c, impl, &s->bf, r, &err);
    if (rc < 0) kb_case_error(r, err.msg);
    if (rc != 0) {
        kb_case_close(s);
        return NULL;
    }
    kb_probe_init(&s->probe, ctx->backend, r->bytes);
    s->tc = tc;
    return s;
}

int kb_case_round(kb_case_session *s, int cpu, int move, const kb_sampling *cfg, kb_samples *out,
                  kb_err *err) {
    memset(out, 0, sizeof *out);
    if (cpu >= 0) kb_case_timing_pin(&s->tc, cpu);
    if (s->rounds++ > 0 && move && kb_case_buffers_move(s->ctx, &s->bf, err) != 0) return -1;
    s->tc.sampling = 0; /* s->tc.timing gathers every round's samples */
    kb_case_range_push(s->ctx->backend, "round %d", s->rounds);
    int rc = kb_sample_marked(cfg, kb_case_time_reps, kb_case_samples_begin, &s->tc, out);
    kb_case_range_pop(s->ctx->backend);
    return rc == 0 ? 0 : kb_fail(err, "the implementation failed while timed");
}

void kb_case_close(kb_case_session *s) {
    if (!s) return;
    if (s->threads > 1)
        kb_affinity_restore_all(kb_affinity_start());
    else if (s->tc.ctx)
        kb_affinity_restore(&s->tc.cpus);
    kb_probe_free(&s->probe);
    kb_case_buffers_free(s->ctx, &s->bf);
    free(s);
}
