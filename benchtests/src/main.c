/* The driver every kernel shares: kbench-<kernel> links this main with the
 * kernel's sources. One invocation = one CTest test = one kernel on one
 * backend in one precision, over all of the manifest's cases. */
#define _GNU_SOURCE
#include "atomicfile.h"
#include "backend.h"
#include "baseline.h"
#include "calibration.h"
#include "compare.h"
#include "envinfo.h"
#include "jsonw.h"
#include "kb_config.h"
#include "manifest.h"
#include "options.h"
#include "partner.h"
#include "report.h"
#include "runner.h"
#include "timer.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_PASS = 0, EXIT_FAILED = 1, EXIT_ERROR = 2, EXIT_SKIP = 77 };

typedef struct driver {
    kb_options opt;
    kb_manifest manifest;
    kb_run_ctx ctx;
    kb_baseline baseline;
    char profile[256], hardware_id[512], baseline_path[4096], test_name[256];
    char calibration_path[4096];
    kb_calibration cal;
    const kb_impl *impls[KB_MAX_IMPLS];
    int n_impls;
    kb_ab_setup ab;
    char ab_note[1024];
} driver;

static int error_exit(const char *msg) {
    fprintf(stderr, "kbench: error: %s\n", msg);
    return EXIT_ERROR;
}

/* Whether case c runs in this invocation: its set, --case, and in
 * calibration mode the manifest's calibration list. */
static int selected(const driver *d, const kb_case *c) {
    if (d->opt.case_name) return strcmp(c->name, d->opt.case_name) == 0;
    if (!d->opt.calibrate) return c->full == d->opt.full;
    for (int i = 0; i < d->manifest.n_calibration; ++i)
        if (d->manifest.calibration[i] == c) return 1;
    return 0;
}

static void list_cases(const driver *d, kb_prec prec) {
    printf("%s (%s): %s cases\n", d->manifest.name, d->manifest.path,
           d->opt.calibrate ? "calibration"
           : d->opt.full    ? "full"
                            : "default");
    for (int i = 0; i < d->manifest.n_cases; ++i) {
        const kb_case *c = &d->manifest.cases[i];
        if (!selected(d, c)) continue;
        double flops = 0, bytes = 0;
        kb_manifest_counts(&d->manifest, c, prec, NULL, &flops, &bytes, NULL);
        printf("  %-24s", c->name);
        for (int j = 0; j < c->n_dims; ++j)
            printf(" %s=%lld", c->dim_names[j], (long long)c->dims[j]);
        printf("  (%s: %.3g MB, %.3g MFLOP)\n", kb_prec_name(prec), bytes * 1e-6, flops * 1e-6);
    }
}

/* Under KBENCH_GPU_PARALLEL, ctest sets KBENCH_REQUIRE_RESOURCE_SPEC=1 for
 * GPU tests, which then run side by side: without a resource spec they
 * would share device 0 and time each other. */
static int needs_resource_spec(void) {
    const char *required = getenv("KBENCH_REQUIRE_RESOURCE_SPEC");
    return required && strcmp(required, "1") == 0 && !getenv("CTEST_RESOURCE_GROUP_COUNT");
}

/* The kernel's own implementations, then those registered from its GPU
 * source; NULL past the last. */
static const kb_impl *implementation(const kb_kernel *k, int i) {
    int own = 0;
    while (own < KB_MAX_IMPLS && k->impls[own].run) own++;
    return i < own ? &k->impls[i] : kb_registered_impl(i - own);
}

/* Precision, backend and implementations for this run, checked against the
 * manifest and what the driver was built with. */
static int select_run(driver *d, kb_err *err) {
    const kb_manifest *m = &d->manifest;
    int p = kb_prec_parse(d->opt.precision);
    if (p < 0) return kb_fail(err, "--precision: unknown precision '%s'", d->opt.precision);
    if (!(m->precisions & (1u << p)))
        return kb_fail(err, "%s: kernel '%s' does not declare precision %s", m->path, m->name,
                       d->opt.precision);
    d->ctx.prec = (kb_prec)p;
    if (!kb_manifest_has_backend(m, d->opt.backend))
        return kb_fail(err, "%s: kernel '%s' does not declare backend '%s'", m->path, m->name,
                       d->opt.backend);
    d->ctx.backend = kb_backend_find(d->opt.backend);
    if (!d->ctx.backend)
        return kb_fail(err, "backend '%s' is not built into this driver", d->opt.backend);
    const kb_impl *impl;
    for (int i = 0; d->n_impls < KB_MAX_IMPLS && (impl = implementation(d->ctx.kernel, i)); ++i) {
        if (strcmp(impl->backend, d->opt.backend) != 0) continue;
        if (d->opt.variant && strcmp(impl->variant, d->opt.variant) != 0) continue;
        d->impls[d->n_impls++] = impl;
    }
    if (d->n_impls == 0)
        return kb_fail(err, "kernel '%s' has no %s implementation%s%s", m->name, d->opt.backend,
                       d->opt.variant ? " of variant " : "", d->opt.variant ? d->opt.variant : "");
    if (d->opt.cold_cache && !d->ctx.backend->flush_caches)
        return kb_fail(err, "--cold-cache: backend '%s' cannot flush its caches", d->opt.backend);
    if (d->opt.case_name && !kb_manifest_find_case(m, d->opt.case_name))
        return kb_fail(err, "%s: no case '%s' (--list shows them)", m->path, d->opt.case_name);
    if (d->opt.calibrate && m->n_calibration == 0)
        return kb_fail(err, "--calibrate: %s has no 'calibration' cases", m->path);
    if (d->opt.calibrate) d->opt.update = 0; /* measures the machine, records no baseline */
    return 0;
}

static void resolve_names(driver *d) {
    char detected[256];
    d->ctx.backend->identify(detected, sizeof detected, d->hardware_id, sizeof d->hardware_id);
    const char *p = d->opt.profile;
    snprintf(d->profile, sizeof d->profile, "%s", p && *p && strcmp(p, "auto") ? p : detected);
    if (d->opt.baseline_file)
        snprintf(d->baseline_path, sizeof d->baseline_path, "%s", d->opt.baseline_file);
    else
        snprintf(d->baseline_path, sizeof d->baseline_path, "%s/%s/%s.json", d->opt.baseline_dir,
                 d->profile, d->manifest.name);
    if (d->opt.test_name)
        snprintf(d->test_name, sizeof d->test_name, "%s", d->opt.test_name);
    else if (d->opt.calibrate)
        snprintf(d->test_name, sizeof d->test_name, "kbench.calibrate.%s", d->ctx.backend->name);
    else
        snprintf(d->test_name, sizeof d->test_name, "%s.%s.%s%s", d->manifest.name,
                 d->ctx.backend->name, kb_prec_name(d->ctx.prec), d->opt.full ? ".full" : "");
    if (d->opt.calibration)
        snprintf(d->calibration_path, sizeof d->calibration_path, "%s", d->opt.calibration);
    else
        snprintf(d->calibration_path, sizeof d->calibration_path, "%s/calibration/%s.json",
                 *d->opt.results_dir ? d->opt.results_dir : ".", d->ctx.backend->name);
}

static int setup(driver *d, int argc, char **argv, kb_err *err) {
    if (kb_options_parse(&d->opt, argc, argv, err) != 0) return -1;
    if (d->opt.help) return 0;
    d->ctx.kernel = kb_this_kernel();
    char default_manifest[4096];
    snprintf(default_manifest, sizeof default_manifest, "%s/kernels/%s/kernel.json", KB_SOURCE_DIR,
             d->ctx.kernel->name);
    const char *path = d->opt.manifest ? d->opt.manifest : default_manifest;
    if (kb_manifest_load(&d->manifest, path, err) != 0) return -1;
    if (strcmp(d->manifest.name, d->ctx.kernel->name) != 0)
        return kb_fail(err, "%s: field 'name': '%s' but this driver runs kernel '%s'", path,
                       d->manifest.name, d->ctx.kernel->name);
    d->ctx.opt = &d->opt;
    d->ctx.manifest = &d->manifest;
    return select_run(d, err);
}

static int record(driver *d, kb_case_result *res, int n, const cJSON *env, kb_err *err) {
    char now[40];
    kb_utc_now(now, sizeof now);
    cJSON *entries = cJSON_CreateObject();
    int recorded = 0;
    for (int i = 0; i < n; ++i) {
        /* a wrong result is never a baseline, nor is a case that did not run */
        if (!kb_case_passed(&res[i]) || res[i].skipped) continue;
        char key[512];
        kb_baseline_key(key, sizeof key, d->ctx.backend->name, kb_prec_name(d->ctx.prec),
                        res[i].variant, res[i].c->name);
        cJSON_AddItemToObject(entries, key, kb_report_baseline_entry(&res[i], env, now));
        ++recorded;
    }
    /* nothing to record leaves the file as it is (not even rewritten) */
    if (recorded == 0)
        cJSON_Delete(entries);
    else if (kb_baseline_merge(d->baseline_path, d->manifest.name, d->profile, entries, err) != 0)
        return -1;
    printf("recorded %d of %d cases into %s\n", recorded, n, d->baseline_path);
    return 0;
}

static int write_result(const driver *d, const kb_report *rep, const char *status, cJSON *env,
                        kb_err *err) {
    if (!d->opt.results_dir || !*d->opt.results_dir) {
        cJSON_Delete(env);
        return 0;
    }
    cJSON *json = kb_report_json(rep, status, env);
    char *text = kb_json_print(json);
    cJSON_Delete(json);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.json", d->opt.results_dir, d->test_name);
    int rc = !text                                      ? kb_fail(err, "%s: out of memory", path)
             : kb_mkdir_p(d->opt.results_dir, err) != 0 ? -1
                                                        : kb_write_file_atomic(path, text, err);
    free(text);
    return rc;
}

static const char *baseline_note(const driver *d, const kb_case_result *res, int n) {
    static char note[1200];
    if (d->opt.calibrate) return "calibration run: latency not gated";
    if (d->ctx.ab) return d->ab_note;
    if (!d->baseline.root) return "no baseline file: latency not gated";
    for (int i = 0; i < n; ++i) {
        if (res[i].lat.verdict != KB_LAT_OTHER_HARDWARE) continue;
        snprintf(
            note, sizeof note,
            "recorded on other hardware, latency not gated\n     baseline: %s\n     here:     %s",
            res[i].base.hardware_id, d->hardware_id);
        return note;
    }
    return NULL;
}

static void run_all(driver *d, kb_case_result *res, int *n) {
    for (int i = 0; i < d->manifest.n_cases; ++i) {
        const kb_case *c = &d->manifest.cases[i];
        if (!selected(d, c)) continue;
        for (int j = 0; j < d->n_impls; ++j) kb_run_case(&d->ctx, c, d->impls[j], &res[(*n)++]);
    }
    kb_compare_variants(&d->manifest, res, *n);
    for (int i = 0; i < *n; ++i) res[i].pct_peak_bw = kb_calibration_pct(&d->cal, &res[i]);
}

/* Cases their implementation declined (kb_unsupported). */
static int count_skipped(const kb_case_result *res, int n) {
    int skipped = 0;
    for (int i = 0; i < n; ++i) skipped += res[i].skipped;
    return skipped;
}

static int skip(const char *why) {
    printf("SKIP: %s\n", why);
    return EXIT_SKIP;
}

static int finish(driver *d, kb_case_result *res, int n, int skipped, kb_err *err) {
    kb_report rep = {d->test_name, &d->ctx, d->profile, d->baseline_path, baseline_note(d, res, n),
                     &d->cal,      res,     n};
    kb_report_table(stdout, &rep);
    int failed = kb_report_failures(stdout, &rep);
    cJSON *env = kb_env_describe(d->hardware_id, d->profile);
    d->ctx.backend->describe(env);
    cJSON_AddNumberToObject(env, "peak_rss_mib", kb_env_peak_rss_mib());
    int rc = d->opt.update ? record(d, res, n, env, err) : 0;
    if (rc == 0 && d->opt.calibrate && !failed)
        rc = kb_calibration_write(d->calibration_path, &d->ctx, d->profile, res, n, err);
    const char *status = rc != 0 ? "error" : failed ? "failed" : "passed";
    if (write_result(d, &rep, status, env, err) != 0) rc = -1;
    if (rc != 0) fprintf(stderr, "kbench: error: %s\n", err->msg);
    printf("peak host memory %.1f MiB\n%s: %s (%d of %d cases failed, %d skipped)\n",
           kb_env_peak_rss_mib(), d->test_name, status, failed, n, skipped);
    fflush(stdout);
    kb_report_measurements(stdout, &rep);
    return rc != 0 ? EXIT_ERROR : failed ? EXIT_FAILED : EXIT_PASS;
}

/* ---- A/B mode: the head starts the base's driver as its partner -------- */

/* The name this driver was started under (kbench-<kernel>[-cuda|-hip]):
 * the base build's driver of the same kernel and backend has it too. */
static void own_name(const char *argv0, char *out, size_t size) {
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n > 0)
        path[n] = '\0';
    else
        snprintf(path, sizeof path, "%s", argv0);
    const char *slash = strrchr(path, '/');
    snprintf(out, size, "%s", slash ? slash + 1 : path);
}

/* The base's manifest: this one's path moved from this build's source tree
 * onto the base's; a manifest outside the tree is the same file for both. */
static void base_manifest(const driver *d, char *out, size_t size) {
    size_t n = strlen(KB_SOURCE_DIR);
    const char *m = d->manifest.path;
    if (d->opt.ab_source && strncmp(m, KB_SOURCE_DIR, n) == 0 && m[n] == '/')
        snprintf(out, size, "%s%s", d->opt.ab_source, m + n);
    else
        snprintf(out, size, "%s", m);
}

static int start_ab(driver *d, const char *argv0, kb_err *err) {
    char name[4096], manifest[4096], seed[32];
    own_name(argv0, name, sizeof name);
    snprintf(d->ab.exe, sizeof d->ab.exe, "%.2000s/%.2000s", d->opt.ab_base, name);
    d->ab.ref = d->opt.ab_ref ? d->opt.ab_ref : d->opt.ab_base;
    d->ctx.ab = &d->ab;
    base_manifest(d, manifest, sizeof manifest);
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)d->opt.seed);
    const char *why = access(d->ab.exe, X_OK) != 0  ? "the base build has no such driver"
                      : access(manifest, R_OK) != 0 ? "the base has no such manifest"
                                                    : NULL;
    snprintf(d->ab_note, sizeof d->ab_note, "A/B against %.300s (%.600s)%s%s", d->ab.ref, d->ab.exe,
             why ? ": every case new, " : "", why ? why : "");
    if (why) return 0;
    char *args[16] = {d->ab.exe,     "--partner",
                      "--backend",   (char *)d->opt.backend,
                      "--precision", (char *)d->opt.precision,
                      "--manifest",  manifest,
                      "--seed",      seed};
    int n = 10;
    if (d->opt.full) args[n++] = "--set", args[n++] = "full";
    if (d->opt.cold_cache) args[n++] = "--cold-cache";
    args[n] = NULL;
    if (kb_partner_start(&d->ab.partner, d->ab.exe, args, err) != 0) return -1;
    d->ab.has_partner = 1;
    return 0;
}

/* ---- the base's side: serve an A/B head ---------------------------------- */

typedef struct server {
    driver *d;
    kb_case_result r;
    kb_case_session *session;
} server;

static const kb_impl *impl_of(const driver *d, const char *variant) {
    for (int i = 0; i < d->n_impls; ++i)
        if (strcmp(d->impls[i]->variant, variant) == 0) return d->impls[i];
    return NULL;
}

static int serve_open(void *p, const char *variant, const char *case_name, kb_partner_case *status,
                      double *rmse, double *max_abs, char *why, size_t why_size, kb_err *err) {
    server *s = p;
    const kb_case *c = kb_manifest_find_case(&s->d->manifest, case_name);
    const kb_impl *impl = impl_of(s->d, variant);
    *status = KB_PARTNER_ABSENT;
    if (!c || !impl) return 0;
    kb_case_result_free(&s->r);
    memset(&s->r, 0, sizeof s->r);
    s->r.c = c;
    if (kb_manifest_counts(&s->d->manifest, c, s->d->ctx.prec, variant, &s->r.flops, &s->r.bytes,
                           err) != 0)
        return -1;
    s->session = kb_case_open(&s->d->ctx, c, impl, &s->r);
    if (!s->session && s->r.error) return kb_fail(err, "%s", s->r.error_msg);
    *status = s->session ? KB_PARTNER_READY : KB_PARTNER_SKIP;
    snprintf(why, why_size, "%s", s->r.skip_why);
    *rmse = s->r.acc.rmse;
    *max_abs = s->r.acc.max_abs;
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
static int serve(driver *d) {
    int fd = dup(STDOUT_FILENO);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        return error_exit("--partner: cannot set up the protocol stream");
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
    static server s;
    s.d = d;
    kb_partner_server srv = {&s, serve_open, serve_round, serve_close};
    kb_err err = {{0}};
    int rc = kb_partner_serve(&srv, d->manifest.name, stdin, out, &err);
    kb_case_result_free(&s.r);
    fclose(out);
    return rc == 0 ? EXIT_PASS : error_exit(err.msg);
}

int main(int argc, char **argv) {
    static driver d;
    kb_err err = {{0}};
    if (setup(&d, argc, argv, &err) != 0) {
        int rc = error_exit(err.msg);
        kb_options_usage(stderr, argv[0]);
        return rc;
    }
    if (d.opt.help) {
        kb_options_usage(stdout, argv[0]);
        return EXIT_PASS;
    }
    if (d.opt.list) {
        list_cases(&d, d.ctx.prec);
        return EXIT_PASS;
    }
    if (d.opt.partner) return serve(&d);
    if (needs_resource_spec())
        return error_exit("this build runs GPU tests side by side (KBENCH_GPU_PARALLEL=ON), so "
                          "each needs a GPU of its own: run ctest with --resource-spec-file "
                          "(docs/resource-spec.md)");
    char why[512] = "";
    if (d.ctx.backend->available(why, sizeof why) != 0) return skip(why);
    resolve_names(&d);
    if (d.opt.print_profile) {
        printf("profile: %s\nhardware: %s\n", d.profile, d.hardware_id);
        return EXIT_PASS;
    }
    /* Calibrating measures the machine: no baseline, no calibration to read,
     * nothing to compare with; A/B mode compares with the base, not the
     * baseline. */
    int ab = d.opt.ab_base && !d.opt.calibrate;
    if (ab && d.opt.update)
        return error_exit("A/B mode (--ab-base, KBENCH_AB_BASE) compares builds; it does not "
                          "record baselines (unset KBENCH_UPDATE_BASELINES)");
    if (!d.opt.calibrate && ((!ab && kb_baseline_open(&d.baseline, d.baseline_path, &err) != 0) ||
                             kb_calibration_read(&d.cal, d.calibration_path, d.ctx.backend->name,
                                                 d.hardware_id, &err) != 0 ||
                             (ab && start_ab(&d, argv[0], &err) != 0)))
        return error_exit(err.msg);
    d.ctx.baseline = &d.baseline;
    d.ctx.hardware_id = d.hardware_id;
    static kb_case_result res[KB_MAX_CASES * KB_MAX_IMPLS];
    int n = 0;
    run_all(&d, res, &n);
    /* Every case declined: the test skips with the first reason. */
    int skipped = count_skipped(res, n);
    int rc = n > 0 && skipped == n ? skip(res[0].skip_why) : finish(&d, res, n, skipped, &err);
    for (int i = 0; i < n; ++i) kb_case_result_free(&res[i]);
    kb_baseline_close(&d.baseline);
    if (d.ab.has_partner) kb_partner_stop(&d.ab.partner);
    return rc;
}
