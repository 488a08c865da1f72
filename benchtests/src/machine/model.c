#include "machine/model.h"

#include <string.h>

static const char *const probe_names[KB_PROBE_N] = {"scale", "copy", "madd", "chain"};
static const char *const probe_keys[KB_PROBE_N] = {"probe_gbps", "probe_copy_gbps",
                                                   "probe_madd_gflops", "probe_chain_gsteps"};
static const char *const probe_units[KB_PROBE_N] = {"GB/s", "GB/s", "GFLOP/s", "Gstep/s"};
static const char *const bound_names[] = {"unknown", "memory", "compute"};

const char *kb_probe_name(kb_probe_kind k) {
    return (unsigned)k < KB_PROBE_N ? probe_names[k] : "?";
}

const char *kb_probe_key(kb_probe_kind k) {
    return (unsigned)k < KB_PROBE_N ? probe_keys[k] : "?";
}

const char *kb_probe_unit(kb_probe_kind k) {
    return (unsigned)k < KB_PROBE_N ? probe_units[k] : "?";
}

void kb_probe_keep_best(kb_probe_reading *best, const kb_probe_reading *r) {
    for (int k = 0; k < KB_PROBE_N; ++k)
        if (r->v[k] > best->v[k]) best->v[k] = r->v[k];
}

void kb_probe_best(const kb_probe_reading *readings, int n, kb_probe_reading *best) {
    memset(best, 0, sizeof *best);
    for (int i = 0; i < n; ++i) kb_probe_keep_best(best, &readings[i]);
}

const char *kb_bound_name(kb_bound b) {
    return (unsigned)b < sizeof bound_names / sizeof *bound_names ? bound_names[b] : "?";
}

int kb_bound_parse(const char *name, kb_bound *b) {
    for (unsigned i = 0; i < sizeof bound_names / sizeof *bound_names; ++i)
        if (strcmp(name, bound_names[i]) == 0) {
            *b = (kb_bound)i;
            return 0;
        }
    return -1;
}

kb_bound kb_bound_of(double bytes, double flops, const kb_probe_reading *r, double *intensity,
                     double *balance) {
    const double bw = r->v[KB_PROBE_SCALE], madd = r->v[KB_PROBE_MADD];
    *intensity = bytes > 0.0 && flops >= 0.0 ? flops / bytes : 0.0;
    *balance = bw > 0.0 && madd > 0.0 ? madd / bw : 0.0;
    if (!(bytes > 0.0) || *balance <= 0.0) return KB_BOUND_UNKNOWN;
    return *intensity > *balance ? KB_BOUND_COMPUTE : KB_BOUND_MEMORY;
}

int kb_near_ridge(double intensity, double balance) {
    return intensity > 0.0 && balance > 0.0 && intensity < balance * KB_RIDGE_FACTOR &&
           intensity * KB_RIDGE_FACTOR > balance;
}

int kb_drift_figures(kb_bound b, int near_ridge, kb_probe_kind out[KB_PROBE_N]) {
    if (near_ridge && b != KB_BOUND_UNKNOWN) {
        for (int k = 0; k < KB_PROBE_N; ++k) out[k] = (kb_probe_kind)k;
        return KB_PROBE_N;
    }
    out[0] = b == KB_BOUND_COMPUTE ? KB_PROBE_MADD : KB_PROBE_SCALE;
    out[1] = b == KB_BOUND_COMPUTE ? KB_PROBE_CHAIN : KB_PROBE_COPY;
    return 2;
}

double kb_machine_drift(kb_bound b, int near_ridge, const kb_probe_reading *base,
                        const kb_probe_reading *now, kb_probe_kind *which) {
    kb_probe_kind figs[KB_PROBE_N];
    const int n = kb_drift_figures(b, near_ridge, figs);
    double drift = 1.0;
    *which = KB_PROBE_N;
    for (int i = 0; i < n; ++i) {
        const double was = base->v[figs[i]], is = now->v[figs[i]];
        if (!(was > 0.0 && is > 0.0)) continue;
        if (*which == KB_PROBE_N || was / is > drift) {
            drift = was / is;
            *which = figs[i];
        }
    }
    return drift;
}
