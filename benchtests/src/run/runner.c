#include "run/runner.h"

#include "base/affinity.h"
#include "base/clock.h"
#include "base/rng.h"
#include "formats/case.h"
#include "guard/watchdog.h"
#include "measure/probe.h"
#include "measure/refcache.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Buffers of one case: host copies in the run's precision and the backend's
 * own, plus the double-precision reference outputs. */
typedef struct buffers {
    kb_layout layout;
    void *dev_in[KB_MAX_TENSORS], *dev_out[KB_MAX_TENSORS];
    void *host_out[KB_MAX_TENSORS];
    double *ref_out[KB_MAX_TENSORS];
    int ref_lent; /* ref_out is the run's reference cache's (refcache.h) */
    kb_args args;
} buffers;

static int case_error(kb_case_result *r, const char *msg) {
    snprintf(r->error_msg, sizeof r->error_msg, "%s", msg);
    r->error = 1;
    return -1;
}

/* The elements of every input and output tensor of the layout. */
static double layout_elements(const kb_layout *l) {
    double n = 0.0;
    for (int i = 0; i < l->n_in; ++i) n += (double)l->in[i].count;
    for (int i = 0; i < l->n_out; ++i) n += (double)l->out[i].count;
    return n;
}

/* Host bytes a case holds at once, roughly: per element of every tensor
 * the fp64 values (inputs) or reference (outputs), a host copy in the run's
 * precision, and the buffer the kernel uses (on the CPU backend, host
 * memory too); and the workspace. */
static double host_bytes(const kb_layout *l, size_t elem) {
    return (double)l->workspace_bytes + (8.0 + 2.0 * (double)elem) * layout_elements(l);
}

/* A case that needs more than the machine's memory fails before anything is
 * allocated: a large allocation may succeed (overcommit) and the process be
 * killed when it is touched, with nothing reported. */
static int check_host_memory(const kb_run_ctx *ctx, const kb_case *c, const kb_layout *l,
                             kb_case_result *r) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double need = host_bytes(l, kb_prec_size(ctx->prec));
    double have = pages > 0 && page > 0 ? (double)pages * (double)page : 0.0;
    if (have == 0.0 || need <= have) return 0;
    kb_err err;
    kb_fail(&err,
            "%s: case '%s' would run out of host memory: its buffers and reference need "
            "%.3g GiB, this machine has %.3g GiB",
            ctx->manifest->path, c->name, need / 1073741824.0, have / 1073741824.0);
    return case_error(r, err.msg);
}

/* Element counts the buffers below can hold without their byte sizes
 * (count x 8 for the fp64 reference) wrapping: a kernel computes them from
 * the case's dims, which the manifest bounds one by one. */
static int check_layout(const kb_run_ctx *ctx, const kb_case *c, const kb_layout *l,
                        kb_case_result *r) {
    const kb_tensor_spec *t[2 * KB_MAX_TENSORS];
    int n = 0;
    for (int i = 0; i < l->n_in; ++i) t[n++] = &l->in[i];
    for (int i = 0; i < l->n_out; ++i) t[n++] = &l->out[i];
    for (int i = 0; i < n; ++i) {
        if (t[i]->count <= (size_t)KB_CASE_MAX_ELEMENTS) continue;
        kb_err err;
        kb_fail(&err,
                "%s: case '%s': tensor '%s' of kernel '%s' would hold %zu elements, more "
                "than %lld",
                ctx->manifest->path, c->name, t[i]->name, ctx->kernel_name, t[i]->count,
                (long long)KB_CASE_MAX_ELEMENTS);
        return case_error(r, err.msg);
    }
    return check_host_memory(ctx, c, l, r);
}

static int describe_layout(const kb_run_ctx *ctx, const kb_case *c, buffers *bf,
                           kb_case_result *r) {
    kb_case local = *c;
    kb_case_miss miss = {{0}};
    local.miss = &miss;
    ctx->kernel->layout(&local, &bf->layout);
    if (miss.dim[0]) {
        kb_err err;
        kb_fail(&err, "%s: case '%s': no dim '%s' (kernel '%s' needs it)", ctx->manifest->path,
                c->name, miss.dim, ctx->kernel_name);
        return case_error(r, err.msg);
    }
    r->footprint = layout_elements(&bf->layout) * (double)kb_prec_size(ctx->prec);
    return check_layout(ctx, c, &bf->layout, r);
}

/* Generates one input, rounds it to the run's precision, uploads it, and
 * leaves the rounded values in `values` for the reference. */
static int make_input(const kb_run_ctx *ctx, const kb_tensor_spec *t, double *values, void **dev,
                      kb_err *err) {
    size_t elem = kb_prec_size(ctx->prec), bytes = t->count * elem;
    kb_rng_fill(values, t->count, t, ctx->settings->seed);
    void *host = malloc(bytes ? bytes : 1);
    if (!host) return kb_fail(err, "out of host memory for input '%s'", t->name);
    for (size_t i = 0; i < t->count; ++i) {
        kb_store_f64(host, ctx->prec, i, values[i]);
        values[i] = kb_load_f64(host, ctx->prec, i);
    }
    *dev = ctx->backend->alloc(bytes, err);
    int rc = *dev ? ctx->backend->upload(*dev, host, bytes, err) : -1;
    free(host);
    return rc;
}

/* The reference outputs of case c on the inputs in values: lent by the
 * cache when an earlier variant of the case computed them. */
static int make_reference(const kb_run_ctx *ctx, const kb_case *c, buffers *bf,
                          double *const *values, kb_err *err) {
    if (kb_ref_cache_lend(ctx->refs, c, &bf->layout, bf->ref_out)) {
        bf->ref_lent = 1;
        return 0;
    }
    kb_ref_cache_drop_idle(ctx->refs); /* the previous case's, before this one's */
    for (int i = 0; i < bf->layout.n_out; ++i) {
        size_t n = bf->layout.out[i].count ? bf->layout.out[i].count : 1;
        bf->ref_out[i] = malloc(n * sizeof(double));
        if (!bf->ref_out[i]) return kb_fail(err, "out of host memory for the reference");
    }
    kb_watchdog_stage(KB_STAGE_REFERENCE);
    ctx->reference(c, (const double *const *)values, bf->ref_out);
    kb_watchdog_stage(KB_STAGE_SETUP);
    bf->ref_lent = kb_ref_cache_offer(ctx->refs, c, &bf->layout, bf->ref_out);
    return 0;
}

static int make_inputs_and_reference(const kb_run_ctx *ctx, const kb_case *c, buffers *bf,
                                     kb_err *err) {
    double *values[KB_MAX_TENSORS] = {0};
    int rc = 0;
    for (int i = 0; i < bf->layout.n_in && rc == 0; ++i) {
        const kb_tensor_spec *t = &bf->layout.in[i];
        values[i] = malloc((t->count ? t->count : 1) * sizeof(double));
        rc = values[i] ? make_input(ctx, t, values[i], &bf->dev_in[i], err)
                       : kb_fail(err, "out of host memory for input '%s'", t->name);
        bf->args.in[i] = bf->dev_in[i];
    }
    if (rc == 0) rc = make_reference(ctx, c, bf, values, err);
    for (int i = 0; i < bf->layout.n_in; ++i) free(values[i]);
    return rc;
}

static int make_outputs(const kb_run_ctx *ctx, buffers *bf, kb_err *err) {
    size_t elem = kb_prec_size(ctx->prec);
    for (int i = 0; i < bf->layout.n_out; ++i) {
        size_t bytes = bf->layout.out[i].count * elem;
        bf->host_out[i] = malloc(bytes ? bytes : 1);
        if (!bf->host_out[i]) return kb_fail(err, "out of host memory for an output");
        kb_poison(bf->host_out[i], ctx->prec, bf->layout.out[i].count);
        bf->dev_out[i] = ctx->backend->alloc(bytes, err);
        if (!bf->dev_out[i] || ctx->backend->upload(bf->dev_out[i], bf->host_out[i], bytes, err))
            return -1;
        bf->args.out[i] = bf->dev_out[i];
    }
    return 0;
}

static int make_workspace(const kb_run_ctx *ctx, buffers *bf, kb_err *err) {
    bf->args.workspace_bytes = bf->layout.workspace_bytes;
    if (bf->layout.workspace_bytes == 0) return 0;
    bf->args.workspace = ctx->backend->alloc(bf->layout.workspace_bytes, err);
    return bf->args.workspace ? 0 : -1;
}

/* The accuracy rules: the manifest's tolerance, and the drift from the
 * baseline's or the A/B base's RMSE when there is one. */
static void judge_accuracy(const kb_run_ctx *ctx, kb_case_result *r) {
    r->acc_fired = kb_gate_accuracy(&ctx->settings->gate, &ctx->manifest->tol[ctx->prec], &r->acc,
                                    r->has_base && !ctx->settings->update ? &r->base : NULL,
                                    r->acc_why, sizeof r->acc_why);
}

static int check_outputs(const kb_run_ctx *ctx, buffers *bf, kb_case_result *r, kb_err *err) {
    size_t elem = kb_prec_size(ctx->prec);
    memset(&r->acc, 0, sizeof r->acc);
    for (int i = 0; i < bf->layout.n_out; ++i) {
        size_t n = bf->layout.out[i].count;
        if (ctx->backend->download(bf->host_out[i], bf->dev_out[i], n * elem, err) != 0) return -1;
        kb_accuracy_add(&r->acc, bf->host_out[i], ctx->prec, bf->ref_out[i], n);
    }
    kb_accuracy_finish(&r->acc);
    if (!ctx->ab) judge_accuracy(ctx, r); /* A/B: once the base's RMSE is in (kb_run_case) */
    return 0;
}

static void free_buffers(const kb_run_ctx *ctx, buffers *bf) {
    for (int i = 0; i < KB_MAX_TENSORS; ++i) {
        if (bf->dev_in[i]) ctx->backend->release(bf->dev_in[i]);
        if (bf->dev_out[i]) ctx->backend->release(bf->dev_out[i]);
        free(bf->host_out[i]);
        if (!bf->ref_lent) free(bf->ref_out[i]);
    }
    if (bf->ref_lent) kb_ref_cache_release(ctx->refs);
    if (bf->args.workspace) ctx->backend->release(bf->args.workspace);
}

typedef struct timing_ctx {
    const kb_run_ctx *ctx;
    const kb_impl *impl;
    buffers *bf;
    kb_probe *probe;
    kb_affinity cpus;      /* the CPUs the process may use (kb_affinity_start) */
    int threads;           /* the case's (kb_case_threads) */
    int set_first;         /* threads > 1: the first CPU of the set the case runs on now */
    long long calls;       /* timed or warm-up calls made so far */
    double round_t0;       /* when the round began (kb_now_s) */
    kb_stage round_stage;  /* the round's stage once its warm-up is over */
    int clocks_checked;    /* the backend answered a clock-limit query */
    unsigned clock_limits; /* every limit it reported */
    int sampling;          /* the round's warm-up is over (kb_sample_marked) */
    kb_timing timing;      /* how its undisturbed samples were timed (machine/timing_mode.h) */
} timing_ctx;

/* Copies a buffer's contents into another of the backend's buffers: with
 * the backend's own copy where it has one (memcpy on the CPU), else through
 * the host. Returns 0, 1 when host memory for that is short, -1 on error. */
static int copy_buffer(const kb_run_ctx *ctx, void *dst, const void *src, size_t bytes,
                       kb_err *err) {
    double ms;
    if (ctx->backend->time_copy)
        return ctx->backend->time_copy(dst, src, bytes, 1, &ms) == 0
                   ? 0
                   : kb_fail(err, "copying a buffer to fresh memory failed");
    void *host = malloc(bytes ? bytes : 1);
    if (!host) return 1;
    int rc = ctx->backend->download(host, src, bytes, err) == 0 &&
                     ctx->backend->upload(dst, host, bytes, err) == 0
                 ? 0
                 : -1;
    free(host);
    return rc;
}

/* Gives one buffer a fresh allocation, with the same contents when `keep`
 * (the workspace's are undefined on entry: nothing to copy). The new one is
 * made before the old one is released, so it lands on other pages; when
 * memory is too short for both, the buffer stays where it is. */
static int move_buffer(const kb_run_ctx *ctx, void **dev, size_t bytes, int keep, kb_err *err) {
    kb_err ignored;
    void *fresh = ctx->backend->alloc(bytes, &ignored);
    if (!fresh) return 0;
    int rc = keep ? copy_buffer(ctx, fresh, *dev, bytes, err) : 0;
    ctx->backend->release(rc == 0 ? *dev : fresh);
    if (rc == 0) *dev = fresh;
    return rc < 0 ? -1 : 0;
}

/* Moves every buffer of the case, so that a round does not inherit the
 * previous round's placement in memory (cache sets, pages, NUMA node). */
static int relocate(const kb_run_ctx *ctx, buffers *bf, kb_err *err) {
    size_t elem = kb_prec_size(ctx->prec);
    for (int i = 0; i < bf->layout.n_in; ++i) {
        if (move_buffer(ctx, &bf->dev_in[i], bf->layout.in[i].count * elem, 1, err) != 0) return -1;
        bf->args.in[i] = bf->dev_in[i];
    }
    for (int i = 0; i < bf->layout.n_out; ++i) {
        if (move_buffer(ctx, &bf->dev_out[i], bf->layout.out[i].count * elem, 1, err) != 0)
            return -1;
        bf->args.out[i] = bf->dev_out[i];
    }
    if (bf->args.workspace)
        return move_buffer(ctx, &bf->args.workspace, bf->args.workspace_bytes, 0, err);
    return 0;
}

/* Puts the case's next calls on `cpu`: a single-threaded case's thread
 * there; a case of t threads, every thread of the process on the t CPUs
 * from `cpu` on (kb_affinity_window), which the threads the kernel starts
 * inherit. A CPU the process may not use is left to the scheduler. */
static void pin_round(timing_ctx *tc, int cpu) {
    int set[KB_MAX_CPUS];
    if (tc->threads <= 1) {
        (void)kb_affinity_pin(cpu);
    } else if (kb_affinity_window(&tc->cpus, cpu, tc->threads, set) == tc->threads &&
               kb_affinity_pin_all(set, tc->threads) == 0) {
        tc->set_first = set[0];
    }
}

/* Every round after the first runs on the next CPU the process may use (a
 * multithreaded case: on the set of CPUs moved on by one), on buffers first
 * touched from there: a slower kernel is slower everywhere, a busy
 * neighbour or an unlucky placement is not (docs/gate.md, rule 3). */
static int place_round(const kb_run_ctx *ctx, timing_ctx *tc, const kb_case_result *r,
                       kb_err *err) {
    int cpu = kb_affinity_next(&tc->cpus, r->round_cpu[0], r->n_rounds);
    if (cpu >= 0) pin_round(tc, cpu);
    return relocate(ctx, tc->bf, err);
}

/* Whether the device's clocks were held down when the sample ended: such a
 * sample measures the limit, not the kernel, and the sampler drops it. */
static int clock_suspect(timing_ctx *t) {
    unsigned reasons = 0;
    const kb_backend *b = t->ctx->backend;
    if (!b->clock_limits || b->clock_limits(&reasons) != 0) return 0;
    t->clocks_checked = 1;
    t->clock_limits |= reasons;
    return reasons ? KB_SAMPLE_SUSPECT : 0;
}

/* The sampler warms up for warmup_s before its first sample (sampler.c):
 * the calls that begin before then are the round's warm-up. */
static void end_warm_up(const timing_ctx *t) {
    if (kb_watchdog_current() == KB_STAGE_WARMUP &&
        kb_now_s() - t->round_t0 >= t->ctx->settings->sampling.warmup_s)
        kb_watchdog_stage(t->round_stage);
}

/* How the backend times the implementation's calls now: the host clock, or
 * device events with the calls held or not (a hold that gives up on an
 * implementation does so for good, so the state after a sample is how its
 * last calls were timed). */
static kb_timing timed_as(const timing_ctx *t) {
    const kb_backend *b = t->ctx->backend;
    if (!b->times_held) return KB_TIMING_HOST;
    return b->times_held(t->impl->run) ? KB_TIMING_HELD : KB_TIMING_UNHELD;
}

/* kb_sample_marked's mark: the calls timed from now on are samples. */
static void samples_begin(void *p) {
    ((timing_ctx *)p)->sampling = 1;
}

/* How the samples so far were timed. With none undisturbed, how the calls
 * are timed now, but not "held": every sample lost time, as one does whose
 * hold ran out, so some of its calls waited on the host (mixed). */
static kb_timing samples_timing(const timing_ctx *t) {
    if (t->timing != KB_TIMING_UNKNOWN) return t->timing;
    const kb_timing now = timed_as(t);
    return now == KB_TIMING_HELD ? KB_TIMING_MIXED : now;
}

static int time_reps(void *p, int reps, double *ms) {
    timing_ctx *t = p;
    const kb_backend *b = t->ctx->backend;
    if (t->ctx->settings->cold_cache && b->flush_caches() != 0) return -1;
    int rc = b->time_calls(t->impl->run, &t->bf->args, reps, ms);
    if (rc < 0) return -1;
    t->calls += reps;
    if (t->sampling && rc != KB_TIMED_DISTURBED) t->timing = kb_timing_join(t->timing, timed_as(t));
    end_warm_up(t);
    int suspect = clock_suspect(t);
    return rc == KB_TIMED_DISTURBED ? KB_SAMPLE_DISTURBED : suspect;
}

static int read_energy(const kb_backend *b, double *joules) {
    return b->energy_j && b->energy_j(joules) == 0 ? 0 : -1;
}

/* A profiler range (NVTX, ROCTX) where the backend has them: one around
 * each case, one around each timed round, for a profiler's timeline. */
__attribute__((format(printf, 2, 3))) static void range_push(const kb_backend *b, const char *fmt,
                                                             ...) {
    if (!b->range_push) return;
    char name[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(name, sizeof name, fmt, ap);
    va_end(ap);
    b->range_push(name);
}

static void range_pop(const kb_backend *b) {
    if (b->range_pop) b->range_pop();
}

/* One round of samples, with the device's power and energy per call over
 * it where the backend has an energy counter. */
static int measure_round(const kb_run_ctx *ctx, timing_ctx *tc, kb_case_result *r) {
    const int i = r->n_rounds;
    kb_samples *s = &r->rounds[i];
    memset(s, 0, sizeof *s);
    r->round_cpu[i] = tc->threads > 1 ? tc->set_first : kb_affinity_current();
    kb_sampling cfg = ctx->settings->sampling;
    if (ctx->settings->cold_cache) cfg.sample_min_s = 0.0; /* one call per flush */
    double e0 = 0.0, e1 = 0.0, t0 = kb_now_s();
    const long long calls0 = tc->calls;
    const int metered = read_energy(ctx->backend, &e0) == 0;
    tc->round_t0 = t0;
    tc->sampling = 0;
    tc->timing = KB_TIMING_UNKNOWN;
    tc->round_stage = i == 0                  ? KB_STAGE_MEASUREMENT
                      : ctx->settings->update ? KB_STAGE_RECORDING
                                              : KB_STAGE_CONFIRMATION;
    kb_watchdog_stage(KB_STAGE_WARMUP);
    range_push(ctx->backend, "round %d", i + 1);
    int rc = kb_sample_marked(&cfg, time_reps, samples_begin, tc, s);
    range_pop(ctx->backend);
    if (rc != 0) return -1;
    r->round_timing[i] = samples_timing(tc);
    r->timing = kb_timing_join(r->timing, r->round_timing[i]);
    const double wall = kb_now_s() - t0;
    if (metered && read_energy(ctx->backend, &e1) == 0 && e1 >= e0 && wall > 0.0) {
        r->power_w[i] = (e1 - e0) / wall;
        r->energy_mj[i] = (e1 - e0) * 1e3 / (double)(tc->calls - calls0);
    }
    r->n_rounds++;
    return 0;
}

/* The rounds measured so far, as the gate takes them. */
static void gate_rounds(const kb_case_result *r, kb_round *rounds) {
    for (int i = 0; i < r->n_rounds; ++i)
        rounds[i] = (kb_round){r->rounds[i].ms,
                               r->rounds[i].n,
                               r->rounds[i].median,
                               r->probe[i],
                               r->rounds[i].disturbed_kept,
                               r->round_timing[i]};
}

static kb_latency_decision decide(const kb_run_ctx *ctx, kb_case_result *r) {
    kb_round rounds[KB_MAX_ROUNDS];
    gate_rounds(r, rounds);
    return kb_gate_latency(&ctx->settings->gate, rounds, r->n_rounds, r->has_base ? &r->base : NULL,
                           ctx->hardware_id);
}

/* The machine is probed after every recorded round and after
 * every round of a suspected slowdown; a case within tolerance costs none. */
static int needs_probe(const kb_run_ctx *ctx, const kb_case_result *r) {
    return ctx->settings->update || kb_latency_verdict_probe(r->lat.verdict);
}

/* Which process measures round i of a recording: the rounds go round this
 * process (0) and its recording workers, so that the baseline's round
 * medians hold the spread between processes (workers.h) and the gate's
 * noise grants it. */
static int recorder_of(const kb_run_ctx *ctx, int i) {
    const kb_workers *w = ctx->recorders;
    return ctx->settings->update && w && w->open ? i % (w->n + 1) : 0;
}

/* A round measured by worker `w` (1-based) of `set`, on the CPU this
 * process's next round would take; its samples were timed as this
 * process's first round was (the same build on the same backend). */
static int measure_worker_round(const kb_run_ctx *ctx, kb_workers *set, timing_ctx *tc,
                                kb_case_result *r, int w, kb_err *err) {
    const int i = r->n_rounds;
    kb_samples *s = &r->rounds[i];
    kb_sampling cfg = ctx->settings->sampling;
    if (ctx->settings->cold_cache) cfg.sample_min_s = 0.0; /* one call per flush */
    const int cpu = kb_affinity_next(&tc->cpus, r->round_cpu[0], i);
    kb_watchdog_stage(ctx->settings->update ? KB_STAGE_RECORDING : KB_STAGE_CONFIRMATION);
    if (kb_workers_round(set, w - 1, cpu, &cfg, s, err) != 0) return -1;
    kb_stats st;
    if (kb_stats_compute(s->ms, (size_t)s->n, &st) != 0)
        return kb_fail(err, "worker process %d of %s returned no samples", w, set->exe);
    s->median = st.median;
    s->stop_rule = "measured by another process of this build";
    r->round_cpu[i] = cpu;
    r->round_timing[i] = r->round_timing[0];
    r->n_rounds++;
    return 0;
}

static int measure_and_decide(const kb_run_ctx *ctx, timing_ctx *tc, kb_case_result *r, int w,
                              kb_err *err) {
    r->round_process[r->n_rounds] = w;
    if (w > 0 && measure_worker_round(ctx, ctx->recorders, tc, r, w, err) != 0) return -1;
    if (w == 0 && measure_round(ctx, tc, r) != 0)
        return kb_fail(err, "the implementation failed while timed");
    r->lat = decide(ctx, r);
    if (!needs_probe(ctx, r)) return 0;
    if (kb_probe_measure(tc->probe, &r->probe[r->n_rounds - 1], err) != 0) return -1;
    r->lat = decide(ctx, r);
    return 0;
}

/* The noise of one recording attempt: rounds [first, first + n). */
static double attempt_noise(const kb_case_result *r, int first, int n) {
    kb_round rounds[KB_MAX_ROUNDS];
    gate_rounds(r, rounds);
    int best = kb_gate_record_best(rounds + first, r->round_process + first, n);
    return kb_gate_record_noise(rounds + first, n, best);
}

/* Whether a recording measures another attempt after the one just ended:
 * only when that one was noisier than the tolerance, rounds are left for a
 * whole attempt, and the run has more than half its time limit ahead (the
 * cases after this one need theirs). */
static int another_attempt(const kb_run_ctx *ctx, kb_case_result *r) {
    const int k = ctx->settings->record_rounds;
    const double noise = attempt_noise(r, r->n_rounds - k, k);
    r->attempt_noise[r->record_attempts++] = noise;
    return noise > ctx->settings->gate.latency_tol && r->record_attempts < KB_RECORD_ATTEMPTS &&
           r->n_rounds + k <= KB_MAX_ROUNDS && kb_watchdog_share_left() > 0.5;
}

/* Moves round `from` of the result to index `to` (its samples with it). */
static void move_round(kb_case_result *r, int to, int from) {
    r->rounds[to] = r->rounds[from];
    r->probe[to] = r->probe[from];
    r->round_cpu[to] = r->round_cpu[from];
    r->power_w[to] = r->power_w[from];
    r->energy_mj[to] = r->energy_mj[from];
    r->round_timing[to] = r->round_timing[from];
    r->round_process[to] = r->round_process[from];
}

/* Keeps the steadiest attempt's rounds (the first of equals) as the
 * recording's, and frees the others'. */
static void keep_steadiest(const kb_run_ctx *ctx, kb_case_result *r) {
    const int k = ctx->settings->record_rounds;
    int keep = 0;
    for (int a = 1; a < r->record_attempts; ++a)
        if (r->attempt_noise[a] < r->attempt_noise[keep]) keep = a;
    r->kept_attempt = keep;
    for (int i = 0; i < r->n_rounds; ++i)
        if (i / k != keep) kb_samples_free(&r->rounds[i]);
    for (int i = 0; i < k && keep > 0; ++i) move_round(r, i, keep * k + i);
    r->n_rounds = k;
}

/* The recorded rounds: the machine as the baseline will hold it (each probe
 * figure's best over the rounds), what bounds the case on it, the round
 * kept, the noise the rounds hold and the tolerance the case will therefore
 * gate at (kb_gate_case_tolerance: never finer than the configured one). */
static void judge_recording(const kb_run_ctx *ctx, kb_case_result *r) {
    keep_steadiest(ctx, r);
    kb_probe_best(r->probe, r->n_rounds, &r->recorded_probe);
    r->bound = kb_bound_of(r->bytes, r->flops, &r->recorded_probe, &r->intensity, &r->balance);
    kb_round rounds[KB_MAX_ROUNDS];
    gate_rounds(r, rounds);
    unsigned seen = 0;
    for (int i = 0; i < r->n_rounds; ++i) seen |= 1u << r->round_process[i];
    r->processes = __builtin_popcount(seen);
    r->lat.best = kb_gate_record_best(rounds, r->round_process, r->n_rounds);
    r->record_noise = kb_gate_record_noise(rounds, r->n_rounds, r->lat.best);
    r->record_drift = kb_gate_round_drift(rounds, r->n_rounds);
    const double tol = ctx->settings->gate.latency_tol;
    r->lat.tolerance = r->record_noise > tol ? r->record_noise : tol;
    r->lat.verdict = KB_LAT_RECORDED;
}

/* The answers of this build's worker processes to the case sent: they run
 * the same build on the same inputs, so with `must_be_ready` (this process
 * set the case up) each must have set it up too. */
static int workers_ready(kb_workers *w, int must_be_ready, const char *who, kb_err *err) {
    kb_partner_case status = KB_PARTNER_ABSENT;
    double rmse, max_abs;
    char why[512];
    if (kb_workers_case_reply(w, &status, &rmse, &max_abs, why, sizeof why, err) != 0) return -1;
    if (must_be_ready && status != KB_PARTNER_READY)
        return kb_fail(err, "driver %s: %s could not set the case up where this one did (%s)",
                       w->exe, who, *why ? why : "no such case");
    return 0;
}

/* Gating: a slowdown this process confirmed in every round is measured
 * again by a fresh process of this build before it fails, and fails only
 * if that process confirms it too. A process keeps its placement for life
 * (where its buffers and code landed; a vendor library's speed, which
 * oneDNN picks per process), so the confirmation rounds of one process
 * cannot tell a slower kernel from an unlucky process (docs/gate.md,
 * "Confirmation in a fresh process"). Not confirmed: inconclusive. */
static int confirm_in_fresh_process(const kb_run_ctx *ctx, timing_ctx *tc, kb_case_result *r,
                                    kb_err *err) {
    kb_workers *w = ctx->confirmer;
    const int first = r->n_rounds;
    int k = 1 + ctx->settings->gate.confirm_rounds;
    if (first + k > KB_MAX_ROUNDS) k = KB_MAX_ROUNDS - first;
    if (!w || k < 1) return 0;
    int rc = w->started ? kb_workers_restart(w, err)
                        : kb_workers_start(w, 1, ctx->worker_exe, &ctx->confirmer_run, err);
    if (rc != 0 || kb_workers_case_send(w, r->impl_variant, r->c->name, err) != 0) return -1;
    if (workers_ready(w, 1, "a fresh process", err) != 0) {
        kb_workers_case_close(w, &(kb_err){{0}});
        return -1;
    }
    const kb_latency_decision mine = r->lat;
    double pause = ctx->settings->confirm_pause_s;
    for (int i = 0; i < k && rc == 0; ++i) {
        kb_sleep_s(pause);
        r->round_process[r->n_rounds] = 1;
        rc = measure_worker_round(ctx, w, tc, r, 1, err);
        if (rc == 0) rc = kb_probe_measure(tc->probe, &r->probe[r->n_rounds - 1], err);
    }
    if (kb_workers_case_close(w, rc == 0 ? err : &(kb_err){{0}}) != 0) rc = -1;
    if (rc != 0) return -1;
    kb_round rounds[KB_MAX_ROUNDS];
    gate_rounds(r, rounds);
    r->fresh_first = first;
    r->fresh = kb_gate_latency(&ctx->settings->gate, rounds + first, k, &r->base, ctx->hardware_id);
    r->processes = 2;
    r->lat = mine;
    if (r->fresh.verdict != KB_LAT_REGRESSION) r->lat.verdict = KB_LAT_INCONCLUSIVE;
    return 0;
}

/* Measures rounds until the gate decides. Recording measures record_rounds
 * rounds spaced in time, spread over processes (recorder_of), and keeps the
 * middle process's fastest (kb_gate_record_best; every round's median goes
 * into the baseline too: their spread tells the gate how far the case
 * wanders by itself and from one process to the next); an attempt noisier
 * than the tolerance is measured again after a longer pause
 * (another_attempt). Gating re-measures a suspected slowdown after growing
 * pauses, so a burst of load on the machine can pass. Either way each round
 * after the first runs on the next CPU with its buffers moved. */
static int time_case(const kb_run_ctx *ctx, timing_ctx *tc, kb_case_result *r, kb_err *err) {
    double pause = ctx->settings->confirm_pause_s;
    for (;;) {
        const int w = recorder_of(ctx, r->n_rounds);
        if (w == 0 && r->n_rounds > 0 && place_round(ctx, tc, r, err) != 0) return -1;
        if (measure_and_decide(ctx, tc, r, w, err) != 0) return -1;
        if (ctx->settings->update) {
            if (r->n_rounds % ctx->settings->record_rounds != 0) {
                kb_sleep_s(ctx->settings->confirm_pause_s);
            } else if (another_attempt(ctx, r)) {
                kb_sleep_s(4.0 * ctx->settings->confirm_pause_s * r->record_attempts);
            } else {
                judge_recording(ctx, r);
                return 0;
            }
            continue;
        }
        if (r->lat.verdict == KB_LAT_REGRESSION) return confirm_in_fresh_process(ctx, tc, r, err);
        if (r->lat.verdict != KB_LAT_PENDING || r->n_rounds == KB_MAX_ROUNDS) return 0;
        kb_sleep_s(pause);
        pause *= 2.0;
    }
}

static void summarise(kb_case_result *r) {
    const kb_samples *best = &r->rounds[r->lat.best];
    kb_stats_compute(best->ms, (size_t)best->n, &r->stats);
    double s = r->stats.median * 1e-3;
    r->gbps = s > 0.0 ? r->bytes / s * 1e-9 : 0.0;
    r->gflops = s > 0.0 ? r->flops / s * 1e-9 : 0.0;
}

/* A case set up for timing: its buffers, checked once, and what the
 * timing loop keeps between rounds. */
struct kb_case_session {
    const kb_run_ctx *ctx;
    buffers bf;
    kb_probe probe;
    timing_ctx tc;
    int rounds;  /* rounds measured so far: each after the first moves the buffers */
    int threads; /* the case's: above 1, every thread of the process was pinned */
};

/* The capacity of the backend's largest cache, 0 when it names none; asked
 * once per process (the CPU backend reads it from sysfs), not per case. */
static size_t last_cache_bytes(const kb_backend *b) {
    static const kb_backend *asked;
    static size_t top;
    if (b == asked) return top;
    kb_mem_level levels[KB_MAX_MEM_LEVELS];
    int n = b->memory_levels ? b->memory_levels(levels, KB_MAX_MEM_LEVELS) : 0;
    top = 0;
    for (int i = 0; i < n; ++i)
        if (levels[i].capacity > (double)top) top = (size_t)levels[i].capacity;
    asked = b;
    return top;
}

/* Inputs, reference and one checked run; accuracy goes into r. Returns 0
 * when the case can be timed, 1 when the implementation declined it. */
static int prepare(const kb_run_ctx *ctx, const kb_case *c, const kb_impl *impl, buffers *bf,
                   kb_case_result *r, kb_err *err) {
    if (make_inputs_and_reference(ctx, c, bf, err) != 0 || make_outputs(ctx, bf, err) != 0 ||
        make_workspace(ctx, bf, err) != 0)
        return -1;
    bf->args.c = c;
    bf->args.prec = ctx->prec;
    bf->args.stream = ctx->backend->stream ? ctx->backend->stream() : NULL;
    bf->args.last_cache_bytes = last_cache_bytes(ctx->backend);
    kb_watchdog_stage(KB_STAGE_CHECK);
    int rc = impl->run(&bf->args);
    if (rc == KB_UNSUPPORTED) {
        r->skipped = 1;
        snprintf(r->skip_why, sizeof r->skip_why, "%s", kb_unsupported_reason());
        return 1;
    }
    if (rc != 0) return kb_fail(err, "the implementation reported an error");
    if (check_outputs(ctx, bf, r, err) != 0) return -1;
    r->device_mem_mib = -1.0;
    if (ctx->backend->memory_used_mib) (void)ctx->backend->memory_used_mib(&r->device_mem_mib);
    return 0;
}

/* Sets r up for case c of impl: counts, the baseline entry (none in A/B
 * mode, where the base is measured instead). 0, or -1 with r->error set. */
static int begin_result(const kb_run_ctx *ctx, const kb_case *c, const kb_impl *impl,
                        kb_case_result *r) {
    memset(r, 0, sizeof *r);
    r->c = c;
    r->impl_variant = impl->variant;
    r->pct_peak_bw = -1.0;
    r->pct_roofline = -1.0;
    r->vendor_speedup = -1.0;
    snprintf(r->variant, sizeof r->variant, "%s%s", impl->variant,
             ctx->settings->cold_cache ? "+cold" : "");
    kb_err err = {{0}};
    if (kb_manifest_case_counts(ctx->manifest, c, ctx->prec, impl->variant, &r->counts, &err) != 0)
        return case_error(r, err.msg);
    r->flops = r->counts.flops;
    r->bytes = r->counts.bytes;
    if (ctx->ab) return 0;
    char key[512];
    kb_baseline_key(key, sizeof key, ctx->backend->name, kb_prec_name(ctx->prec), r->variant,
                    c->name, kb_case_threads(c));
    r->has_base = kb_baseline_get(ctx->baseline, key, &r->base);
    return 0;
}

/* A case of more threads than the process may use CPUs is skipped, saying
 * so: run on fewer CPUs, its threads would take turns, and the time would
 * be theirs, not the kernel's. 1 when skipped. */
static int too_many_threads(const kb_case *c, kb_case_result *r) {
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
    if (too_many_threads(c, r)) return NULL;
    kb_case_session *s = calloc(1, sizeof *s);
    if (!s) {
        case_error(r, "out of host memory");
        return NULL;
    }
    s->ctx = ctx;
    /* A multithreaded case runs on the first of its CPU sets from the
     * start: its checked run too, so that the threads the kernel starts
     * for it (an OpenMP pool) begin there. */
    timing_ctx tc = {.ctx = ctx, .impl = impl, .bf = &s->bf, .probe = &s->probe};
    tc.cpus = *kb_affinity_start();
    tc.threads = kb_case_threads(c);
    tc.set_first = -1;
    s->threads = tc.threads;
    if (tc.threads > 1) pin_round(&tc, tc.cpus.cpu[0]);
    kb_err err = {{0}};
    int rc = describe_layout(ctx, c, &s->bf, r) == 0 ? prepare(ctx, c, impl, &s->bf, r, &err) : 1;
    if (rc < 0) case_error(r, err.msg);
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
    if (cpu >= 0) pin_round(&s->tc, cpu);
    if (s->rounds++ > 0 && move && relocate(s->ctx, &s->bf, err) != 0) return -1;
    s->tc.sampling = 0; /* s->tc.timing gathers every round's samples */
    range_push(s->ctx->backend, "round %d", s->rounds);
    int rc = kb_sample_marked(cfg, time_reps, samples_begin, &s->tc, out);
    range_pop(s->ctx->backend);
    return rc == 0 ? 0 : kb_fail(err, "the implementation failed while timed");
}

void kb_case_close(kb_case_session *s) {
    if (!s) return;
    if (s->threads > 1)
        kb_affinity_restore_all(kb_affinity_start());
    else if (s->tc.ctx)
        kb_affinity_restore(&s->tc.cpus);
    kb_probe_free(&s->probe);
    free_buffers(s->ctx, &s->bf);
    free(s);
}

static int ab_head_round(void *s, int cpu, const kb_sampling *cfg, kb_samples *out, kb_err *err) {
    return kb_case_round(s, cpu, 1, cfg, out, err);
}

/* A/B mode: the pairs, every head sample as the case's one round, and the
 * decision and the base's median where the baseline's would be. */
static int ab_measure(kb_case_session *s, kb_case_result *r, kb_err *err) {
    r->n_rounds = 1;
    if (kb_ab_measure(s->ctx->ab, s->ctx->settings, ab_head_round, s, r->impl_variant, r->c->name,
                      &r->ab, &r->rounds[0], err) != 0)
        return -1;
    r->round_cpu[0] = r->ab.pairs[0].cpu;
    r->round_timing[0] = r->timing = samples_timing(&s->tc);
    r->base.median_ms = kb_ab_base_median(&r->ab);
    r->lat = kb_ab_latency(&r->ab);
    return 0;
}

/* A/B mode: the base's answer; a base that measured the case stands in for
 * the baseline (its RMSE, on this hardware, measured now). */
static int ab_open(const kb_run_ctx *ctx, kb_case_result *r, kb_err *err) {
    if (kb_ab_open(ctx->ab, r->impl_variant, r->c->name, &r->ab, err) != 0) return -1;
    if (r->ab.base_status != KB_PARTNER_READY) return 0;
    r->has_base = 1;
    r->base.rmse = r->ab.base_rmse;
    snprintf(r->base.hardware_id, sizeof r->base.hardware_id, "%s", ctx->hardware_id);
    snprintf(r->base.recorded_at, sizeof r->base.recorded_at, "measured now");
    return 0;
}

/* Times an open case by the mode's rule: against the baseline (rounds and
 * confirmations), or A/B against the base (pairs). */
static int time_session(kb_case_session *s, kb_case_result *r, kb_err *err) {
    if (s->ctx->ab && r->has_base) kb_watchdog_stage(KB_STAGE_AB_ROUNDS);
    int rc = s->ctx->ab && r->has_base ? ab_measure(s, r, err) : time_case(s->ctx, &s->tc, r, err);
    r->clocks_checked = s->tc.clocks_checked;
    r->clock_limits = s->tc.clock_limits;
    if (rc != 0) return -1;
    if (s->ctx->ab && !r->has_base) r->lat.verdict = KB_LAT_NEW;
    summarise(r);
    return 0;
}

/* Recording: this build's other processes set the case up while this one
 * does; they must answer as it did (same build, same inputs). */
static int recorders_open(const kb_run_ctx *ctx, const kb_case_session *s, kb_err *err) {
    return workers_ready(ctx->recorders, s != NULL, "a recording process", err);
}

/* In A/B mode the base prepares the case (inputs, reference, checked run)
 * while this side does, and the accuracy is judged again once the base's
 * RMSE is known; a recording's other processes likewise. */
static void run_case(const kb_run_ctx *ctx, const kb_case *c, const kb_impl *impl,
                     kb_case_result *r) {
    kb_watchdog_stage(KB_STAGE_SETUP);
    /* a case of more threads than CPUs is skipped before any other process
     * is asked to set it up */
    if (begin_result(ctx, c, impl, r) != 0 || too_many_threads(c, r)) return;
    kb_err err = {{0}};
    kb_workers *rec =
        ctx->settings->update && ctx->recorders && ctx->recorders->n > 0 ? ctx->recorders : NULL;
    if ((ctx->ab && kb_ab_request(ctx->ab, r->impl_variant, c->name, &r->ab, &err) != 0) ||
        (rec && kb_workers_case_send(rec, r->impl_variant, c->name, &err) != 0)) {
        case_error(r, err.msg);
        return;
    }
    kb_case_session *s = kb_case_open(ctx, c, impl, r);
    /* every answer is read, whatever the others were: an unread one would be
     * taken for the answer to the next command */
    kb_err rec_err = {{0}};
    const int ab_failed = ctx->ab && ab_open(ctx, r, &err) != 0;
    const int rec_failed = rec && recorders_open(ctx, s, &rec_err) != 0;
    if (ab_failed || rec_failed) {
        kb_case_close(s);
        s = NULL;
        case_error(r, ab_failed ? err.msg : rec_err.msg);
    }
    if (s && ctx->ab) judge_accuracy(ctx, r);
    if (s && time_session(s, r, &err) != 0) case_error(r, err.msg);
    kb_case_close(s);
    if (ctx->ab && kb_ab_close(ctx->ab, &r->ab, &err) != 0 && !r->error) case_error(r, err.msg);
    if (rec && kb_workers_case_close(rec, &err) != 0 && !r->error) case_error(r, err.msg);
}

void kb_run_case(const kb_run_ctx *ctx, const kb_case *c, const kb_impl *impl, kb_case_result *r) {
    range_push(ctx->backend, "%s.%s.%s", ctx->kernel_name, c->name, impl->variant);
    run_case(ctx, c, impl, r);
    range_pop(ctx->backend);
}

int kb_case_passed(const kb_case_result *r) {
    return !r->error && r->acc_fired == 0 && !kb_latency_verdict_fails(r->lat.verdict);
}

void kb_case_result_free(kb_case_result *r) {
    for (int i = 0; i < r->n_rounds; ++i) kb_samples_free(&r->rounds[i]);
    kb_baseline_entry_free(&r->base);
}
