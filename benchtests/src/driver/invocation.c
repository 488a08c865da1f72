/* What every mode of the driver needs before it does anything: the options,
 * the manifest of the kernel this driver was built for, and what of it this
 * invocation runs (precision, backend, implementations, cases), checked
 * against the manifest and the build, so that a mistake is reported before
 * a device is touched. */
#define _GNU_SOURCE
#include "backend/backend.h"
#include "base/affinity.h"
#include "base/buildinfo.h"
#include "driver/driver.h"
#include "formats/variantcheck.h"
#include "kb/build.h"

#include <string.h>

/* Whether case c runs in this invocation: its set, --case, and in
 * calibration mode the manifest's calibration list. */
int kb_driver_selected(const kb_driver *d, const kb_case *c) {
    if (d->opt.case_name) return strcmp(c->name, d->opt.case_name) == 0;
    if (!d->opt.calibrate) return c->full == d->opt.full;
    for (int i = 0; i < d->manifest.n_calibration; ++i)
        if (d->manifest.calibration[i] == c) return 1;
    return 0;
}

static int count_selected(const kb_driver *d) {
    int n = 0;
    for (int i = 0; i < d->manifest.n_cases; ++i) n += kb_driver_selected(d, &d->manifest.cases[i]);
    return n;
}

/* The set of cases this invocation measures, as reports name it. */
static const char *case_set(const kb_options *o) {
    return o->calibrate ? "calibration" : o->full ? "full" : "default";
}

/* What the runner takes of the options (run_settings.h). */
static kb_run_settings run_settings(const kb_options *o) {
    return (kb_run_settings){.seed = o->seed,
                             .sampling = o->sampling,
                             .gate = o->gate,
                             .update = o->update,
                             .record_rounds = o->record_rounds,
                             .confirm_pause_s = o->confirm_pause_s,
                             .cold_cache = o->cold_cache};
}

/* The kernel's own implementations, then those registered from its GPU
 * source; NULL past the last. */
static const kb_impl *implementation(const kb_kernel *k, int i) {
    int own = 0;
    while (own < KB_MAX_IMPLS && k->impls[own].run) own++;
    return i < own ? &k->impls[i] : kb_registered_impl(i - own);
}

/* The manifest's variants against every implementation linked in, whatever
 * --backend and --variant select (variantcheck.h). */
static int check_variants(const kb_driver *d, kb_err *err) {
    const kb_impl *all[2 * KB_MAX_IMPLS]; /* the kernel's own, then as many registered */
    int n = 0;
    while (n < 2 * KB_MAX_IMPLS && (all[n] = implementation(d->ctx.kernel, n))) n++;
    return kb_check_variants(&d->manifest, d->opt.backend, all, n, err);
}

/* Precision, backend and implementations for this run, checked against the
 * manifest and what the driver was built with. */
static int select_run(kb_driver *d, kb_err *err) {
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
    if (d->n_impls == 0 && d->opt.variant)
        return kb_fail(err, "--variant: kernel '%s' has no %s implementation of variant '%s'",
                       m->name, d->opt.backend, d->opt.variant);
    if (d->n_impls == 0)
        return kb_fail(err, "kernel '%s' has no %s implementation", m->name, d->opt.backend);
    if (check_variants(d, err) != 0) return -1;
    if (d->opt.cold_cache && !d->ctx.backend->flush_caches)
        return kb_fail(err, "--cold-cache: backend '%s' cannot flush its caches", d->opt.backend);
    if (d->opt.case_name && !kb_manifest_find_case(m, d->opt.case_name))
        return kb_fail(err, "%s: no case '%s' (--list shows them)", m->path, d->opt.case_name);
    if (d->opt.calibrate && m->n_calibration == 0)
        return kb_fail(err, "--calibrate: %s has no 'calibration' cases", m->path);
    if (d->opt.calibrate) d->opt.update = 0; /* measures the machine, records no baseline */
    return count_selected(d) > 0 ? 0
                                 : kb_fail(err, "%s: no %s cases to run: the manifest has none",
                                           m->path, d->opt.full ? "'full'" : "default");
}

/* From the options alone (and the kernel this driver runs), so that it is
 * known before the manifest is read: --test-name, or the kernel, backend and
 * precision as given (select_run checks them later). */
int kb_driver_resolve_test_name(kb_driver *d, kb_err *err) {
    const kb_options *o = &d->opt;
    const char *what = o->test_name ? "--test-name" : "the test name (from --backend, --precision)";
    int rc = o->test_name
                 ? kb_path_format(d->test_name, sizeof d->test_name, err, what, "%s", o->test_name)
             : o->calibrate ? kb_path_format(d->test_name, sizeof d->test_name, err, what,
                                             "kbench.calibrate.%s", o->backend)
                            : kb_path_format(d->test_name, sizeof d->test_name, err, what,
                                             "%s.%s.%s%s", d->ctx.kernel_name, o->backend,
                                             o->precision, o->full ? ".full" : "");
    return rc == 0 ? kb_check_name(d->test_name, what, err) : -1;
}

int kb_driver_prepare(kb_driver *d, int argc, char **argv, kb_err *err) {
    kb_build_use(&kb_build); /* the defaults below and the environment's record */
    /* the CPUs the process may use ("threads": "all"), read before anything is pinned */
    (void)kb_affinity_start();
    if (kb_options_parse(&d->opt, argc, argv, err) != 0) return -1;
    if (d->opt.help) return 0;
    d->ctx.kernel = kb_this_kernel();
    d->ctx.kernel_name = kb_build.kernel;
    d->ctx.reference = kb_this_reference();
    d->ctx.refs = &d->refs;
    if (kb_driver_start_result_file(d, err) != 0) return -1;
    const char *path = d->opt.manifest ? d->opt.manifest : kb_build.manifest;
    if (kb_manifest_load(&d->manifest, path, err) != 0) return -1;
    if (strcmp(d->manifest.name, d->ctx.kernel_name) != 0)
        return kb_fail(err, "%s: field 'name': '%s' but this driver was built for kernel '%s'",
                       path, d->manifest.name, d->ctx.kernel_name);
    d->ctx.manifest = &d->manifest;
    if (select_run(d, err) != 0) return -1;
    /* after select_run, which settles the mode */
    d->settings = run_settings(&d->opt);
    d->ctx.settings = &d->settings;
    d->ctx.case_set = case_set(&d->opt);
    return 0;
}
