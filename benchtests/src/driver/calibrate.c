/* Calibration mode (docs/calibration.md): the machine's attainable
 * bandwidth and roofs, which the other tests' results are shares of. A
 * calibration fresh enough for this machine, boot, build and cases is
 * reused rather than measured again, since measuring takes minutes;
 * otherwise the calibration cases run and then the roofs are measured. */
#define _GNU_SOURCE
#include "base/clock.h"
#include "driver/driver.h"
#include "formats/vocab.h"
#include "measure/roofs.h"

#include <stdio.h>
#include <time.h>

/* A calibration this machine measured in this boot, with this build of the
 * driver, for the same cases, not long ago, is reused instead of measured
 * again. -1 to measure: d->stamp then says under what. */
int kb_driver_reuse_calibration(kb_driver *d) {
    kb_err err = {{0}};
    kb_calibration_policy policy;
    if (kb_calibration_policy_env(&policy, &err) != 0) return kb_driver_fail(d, err.msg);
    const cJSON *bus = cJSON_GetObjectItemCaseSensitive(d->env, "pci_bus_id");
    kb_calibration_stamp_init(&d->stamp, d->hardware_id,
                              cJSON_IsString(bus) ? bus->valuestring : "", d->ctx.kernel_name,
                              kb_prec_name(d->ctx.prec));
    for (int i = 0; i < d->manifest.n_cases; ++i) {
        const kb_case *c = &d->manifest.cases[i];
        if (!kb_driver_selected(d, c)) continue;
        for (int j = 0; j < d->n_impls; ++j) {
            double flops, bytes;
            char variant[96]; /* as run_one (run.c) names it */
            kb_variant_key(variant, sizeof variant, d->impls[j]->variant, d->opt.cold_cache);
            if (kb_manifest_counts(&d->manifest, c, d->ctx.prec, d->impls[j]->variant, &flops,
                                   &bytes, &err) != 0)
                return kb_driver_fail(d, err.msg);
            kb_calibration_stamp_case(&d->stamp, c->name, variant, bytes);
        }
    }
    if (!kb_calibration_reusable(&d->cal, d->calibration_path, d->ctx.backend->name, &d->stamp,
                                 &policy, (double)time(NULL))) {
        printf("calibration: measuring (%s)\n", d->cal.why_measured);
        return -1;
    }
    char age[32];
    kb_calibration_age_text(d->cal.age_s, age, sizeof age);
    printf("calibration reused: measured %s ago on this machine since its last boot, by this "
           "build, for the same cases (%s); KBENCH_RECALIBRATE=1 re-measures\n",
           age, d->cal.file);
    kb_report_roofs(stdout, &d->cal.roofs);
    kb_report rep = {d->test_name, &d->ctx, d->profile, d->baseline_path, NULL, &d->cal, NULL, 0};
    cJSON *env = d->env;
    d->env = NULL;
    if (kb_driver_write_result(d, &rep, "passed", env, &err) != 0) return kb_driver_error(err.msg);
    printf("%s: passed (calibration reused: %.2f GB/s peak, measured at %s)\n", d->test_name,
           d->cal.peak_gbps, d->cal.measured_at);
    return KB_EXIT_PASS;
}

/* The machine's roofs (roofs.h), measured after the calibration cases
 * passed, and the file with both. */
int kb_driver_calibrate(kb_driver *d, const kb_case_result *res, int n, kb_err *err) {
    static kb_roofs roofs;
    char how[512];
    double cases = kb_calibration_cases_best(res, n, how, sizeof how);
    kb_pattern_cases patterns;
    kb_calibration_cases_patterns(res, n, &patterns);
    double t0 = kb_now_s();
    if (kb_roofs_measure(d->ctx.backend, cases, how, &patterns, &roofs, err) != 0) return -1;
    printf("calibration: roofs measured in %.1f s\n", kb_now_s() - t0);
    kb_report_roofs(stdout, &roofs);
    if (kb_calibration_write(d->calibration_path, &d->ctx, d->profile, res, n, &roofs, &d->stamp,
                             err) != 0)
        return -1;
    /* the result records the calibration written, as a reused one is */
    return kb_calibration_measured(&d->cal, d->calibration_path, d->ctx.backend->name,
                                   d->hardware_id, err);
}
