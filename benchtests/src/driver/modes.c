/* The modes that run no test of the cases, so write no result: --list
 * (reads the manifest), --profile-with (runs this driver again under a
 * profiler), --partner (serves an A/B head its base's side) and
 * --print-profile (names the machine). The last two set the backend up the
 * same way a run does (backend_setup.c). */
#define _GNU_SOURCE
#include "driver/driver.h"
#include "driver/profile.h"
#include "driver/serve.h"
#include "partner/protocol.h"

#include <stdio.h>

int kb_driver_list(const kb_driver *d) {
    const kb_prec prec = d->ctx.prec;
    printf("%s (%s): %s cases\n", d->manifest.name, d->manifest.path, d->ctx.case_set);
    for (int i = 0; i < d->manifest.n_cases; ++i) {
        const kb_case *c = &d->manifest.cases[i];
        if (!kb_driver_selected(d, c)) continue;
        double flops = 0, bytes = 0;
        kb_manifest_counts(&d->manifest, c, prec, NULL, &flops, &bytes, NULL);
        printf("  %-24s", c->name);
        for (int j = 0; j < c->n_dims; ++j)
            printf(" %s=%lld", c->dim_names[j], (long long)c->dims[j]);
        if (kb_case_threads(c) > 1) printf(" threads=%d", kb_case_threads(c));
        printf("  (%s: %.3g MB, %.3g MFLOP)\n", kb_prec_name(prec), bytes * 1e-6, flops * 1e-6);
    }
    return KB_EXIT_PASS;
}

static int selected_case(const void *d, const kb_case *c) {
    return kb_driver_selected(d, c);
}

int kb_driver_profile(kb_driver *d, int argc, char **argv) {
    kb_err err = {{0}};
    kb_profile_job job = {&d->opt, &d->manifest, d->test_name, d->impls, d->n_impls, selected_case,
                          d,       argc,         argv};
    return kb_driver_resolve_test_name(d, &err) != 0 ? kb_driver_error(err.msg)
                                                     : kb_profile_run(&job);
}

/* The A/B partner: it serves only once its backend is set up; one that
 * cannot be declines with one protocol line the head reports (partner/protocol.h). */
int kb_driver_serve(kb_driver *d) {
    kb_err err = {{0}};
    char why[512] = "";
    int rc = kb_driver_set_up_backend(d, why, sizeof why, &err);
    if (rc != 0) {
        kb_partner_decline(stdout, rc > 0 ? why : err.msg);
        return kb_driver_error(rc > 0 ? why : err.msg);
    }
    int served = kb_serve(&d->ctx, d->impls, d->n_impls, &err);
    kb_ref_cache_clear(&d->refs);
    return served == 0 ? KB_EXIT_PASS : kb_driver_error(err.msg);
}

/* Run after the backend is set up: the profile may be the hardware's. */
int kb_driver_print_profile(kb_driver *d) {
    kb_err err = {{0}};
    if (kb_driver_resolve_names(d, &err) != 0) return kb_driver_error(err.msg);
    printf("profile: %s\nhardware: %s\n", d->profile, d->hardware_id);
    return KB_EXIT_PASS;
}
