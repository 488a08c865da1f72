/* The options' values before the command line: the defaults configured
 * into the build, then the KBENCH_* variables over them, which is how CTest
 * and the scripts around it set a whole run up (the command line still has
 * the last word: options.c). */
#define _GNU_SOURCE
#include "base/buildinfo.h"
#include "driver/options_read.h"
#include "formats/vocab.h"
#include "partner/workers.h"

#include <stdlib.h>
#include <string.h>

void kb_options_defaults(kb_options *o) {
    memset(o, 0, sizeof *o);
    o->backend = kb_backend_name(KB_BACKEND_CPU);
    o->precision = "fp32";
    o->profile = kb_build_current()->profile;
    o->baseline_dir = kb_build_current()->baseline_dir;
    o->results_dir = kb_build_current()->results_dir;
    o->seed = 1234;
    o->sampling = kb_sampling_defaults();
    o->gate = kb_gate_defaults();
    o->record_rounds = 5;
    o->record_processes = 3;
    o->confirm_pause_s = 0.25;
}

static const char *env(const char *name) {
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* A 0/1 switch from the environment; unset leaves *out as it is. */
static int env_switch(const char *name, int *out, kb_err *err) {
    const char *v = env(name);
    if (!v) return 0;
    if (strcmp(v, "1") != 0 && strcmp(v, "0") != 0)
        return kb_fail(err, "%s: '%s' is not 0 or 1", name, v);
    *out = strcmp(v, "1") == 0;
    return 0;
}

static int read_env_paths(kb_options *o, kb_err *err) {
    const char *v;
    if ((v = env("KBENCH_PROFILE")) && kb_opt_name(&o->profile, v, "KBENCH_PROFILE", err) != 0)
        return -1;
    if ((v = env("KBENCH_BASELINE_DIR")) &&
        kb_opt_path(&o->baseline_dir, v, "KBENCH_BASELINE_DIR", err) != 0)
        return -1;
    if ((v = env("KBENCH_RESULTS_DIR")) &&
        kb_opt_path(&o->results_dir, v, "KBENCH_RESULTS_DIR", err) != 0)
        return -1;
    if ((v = env("KBENCH_AB_BASE")) && kb_opt_path(&o->ab_base, v, "KBENCH_AB_BASE", err) != 0)
        return -1;
    if ((v = env("KBENCH_AB_SOURCE")) &&
        kb_opt_path(&o->ab_source, v, "KBENCH_AB_SOURCE", err) != 0)
        return -1;
    return 0;
}

int kb_options_read_env(kb_options *o, kb_err *err) {
    const char *v;
    if (read_env_paths(o, err) != 0) return -1;
    if (env_switch("KBENCH_UPDATE_BASELINES", &o->update, err) != 0 ||
        env_switch("KBENCH_COLD_CACHE", &o->cold_cache, err) != 0 ||
        env_switch("KBENCH_REQUIRE_DEVICE", &o->require_device, err) != 0)
        return -1;
    if ((v = env("KBENCH_TIMEOUT")) &&
        kb_opt_double(v, 0.0, KB_TIMEOUT_MAX_S, &o->timeout_s, "KBENCH_TIMEOUT", err) != 0)
        return -1;
    if ((v = env("KBENCH_LATENCY_TOLERANCE")) &&
        kb_opt_double(v, 0.0, 10.0, &o->gate.latency_tol, "KBENCH_LATENCY_TOLERANCE", err) != 0)
        return -1;
    if ((v = env("KBENCH_ACCURACY_DRIFT")) &&
        kb_gate_parse_drift(v, &o->gate.accuracy_drift, &o->gate.accuracy_drift_rel,
                            "KBENCH_ACCURACY_DRIFT", err) != 0)
        return -1;
    if ((v = env("KBENCH_SEED")) && kb_opt_seed(v, &o->seed, "KBENCH_SEED", err) != 0) return -1;
    if ((v = env("KBENCH_AB_REF"))) o->ab_ref = v;
    if ((v = env("KBENCH_AB_PROCESSES")) &&
        kb_opt_int(v, 1, KB_MAX_WORKERS, &o->gate.ab_processes, "KBENCH_AB_PROCESSES", err) != 0)
        return -1;
    if ((v = env("KBENCH_RECORD_PROCESSES")) &&
        kb_opt_int(v, 1, KB_MAX_WORKERS, &o->record_processes, "KBENCH_RECORD_PROCESSES", err) != 0)
        return -1;
    return 0;
}
