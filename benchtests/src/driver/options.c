/* The command line: the table of options and its usage text, each option
 * applied over the defaults and the environment (options_env.c), and the
 * checks of the options against each other that no single one can make. */
#define _GNU_SOURCE
#include "driver/options.h"

#include "base/buildinfo.h"
#include "driver/options_read.h"
#include "partner/workers.h"
#include "run/calibration.h"

#include <getopt.h>
#include <string.h>

enum {
    OPT_SEED = 256,
    OPT_MIN_SAMPLES,
    OPT_MAX_SAMPLES,
    OPT_MIN_TIME,
    OPT_MAX_TIME,
    OPT_WARMUP,
    OPT_TARGET_CI,
    OPT_CONFIRM_ROUNDS,
    OPT_LAT_TOL,
    OPT_ACC_DRIFT,
    OPT_BASELINE,
    OPT_BASELINE_DIR,
    OPT_PROFILE,
    OPT_RESULTS_DIR,
    OPT_TEST_NAME,
    OPT_MANIFEST,
    OPT_UPDATE,
    OPT_PRINT_PROFILE,
    OPT_COLD_CACHE,
    OPT_SET,
    OPT_CALIBRATE,
    OPT_CALIBRATION,
    OPT_AB_BASE,
    OPT_AB_SOURCE,
    OPT_AB_REF,
    OPT_AB_MIN_PAIRS,
    OPT_AB_MAX_PAIRS,
    OPT_AB_MAX_TIME,
    OPT_AB_PROCESSES,
    OPT_RECORD_PROCESSES,
    OPT_PARTNER,
    OPT_TIMEOUT,
    OPT_REQUIRE_DEVICE,
    OPT_PROFILE_WITH,
    OPT_PROFILED_BY,
};

static const struct option long_options[] = {
    {"backend", required_argument, NULL, 'b'},
    {"precision", required_argument, NULL, 'p'},
    {"variant", required_argument, NULL, 'v'},
    {"case", required_argument, NULL, 'c'},
    {"list", no_argument, NULL, 'l'},
    {"help", no_argument, NULL, 'h'},
    {"seed", required_argument, NULL, OPT_SEED},
    {"min-samples", required_argument, NULL, OPT_MIN_SAMPLES},
    {"max-samples", required_argument, NULL, OPT_MAX_SAMPLES},
    {"min-time", required_argument, NULL, OPT_MIN_TIME},
    {"max-time", required_argument, NULL, OPT_MAX_TIME},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"target-ci", required_argument, NULL, OPT_TARGET_CI},
    {"confirm-rounds", required_argument, NULL, OPT_CONFIRM_ROUNDS},
    {"latency-tolerance", required_argument, NULL, OPT_LAT_TOL},
    {"accuracy-drift", required_argument, NULL, OPT_ACC_DRIFT},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"baseline-dir", required_argument, NULL, OPT_BASELINE_DIR},
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"results-dir", required_argument, NULL, OPT_RESULTS_DIR},
    {"test-name", required_argument, NULL, OPT_TEST_NAME},
    {"manifest", required_argument, NULL, OPT_MANIFEST},
    {"update-baselines", no_argument, NULL, OPT_UPDATE},
    {"print-profile", no_argument, NULL, OPT_PRINT_PROFILE},
    {"cold-cache", no_argument, NULL, OPT_COLD_CACHE},
    {"set", required_argument, NULL, OPT_SET},
    {"calibrate", no_argument, NULL, OPT_CALIBRATE},
    {"calibration", required_argument, NULL, OPT_CALIBRATION},
    {"ab-base", required_argument, NULL, OPT_AB_BASE},
    {"ab-source", required_argument, NULL, OPT_AB_SOURCE},
    {"ab-ref", required_argument, NULL, OPT_AB_REF},
    {"ab-min-pairs", required_argument, NULL, OPT_AB_MIN_PAIRS},
    {"ab-max-pairs", required_argument, NULL, OPT_AB_MAX_PAIRS},
    {"ab-max-time", required_argument, NULL, OPT_AB_MAX_TIME},
    {"ab-processes", required_argument, NULL, OPT_AB_PROCESSES},
    {"record-processes", required_argument, NULL, OPT_RECORD_PROCESSES},
    {"partner", no_argument, NULL, OPT_PARTNER},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"require-device", no_argument, NULL, OPT_REQUIRE_DEVICE},
    {"profile-with", required_argument, NULL, OPT_PROFILE_WITH},
    {"profiled-by", required_argument, NULL, OPT_PROFILED_BY},
    {NULL, 0, NULL, 0},
};

void kb_options_usage(FILE *f, const char *prog) {
    fprintf(f,
            "usage: %s [options]\n"
            "Runs one kernel's cases on one backend and precision, checks them against the\n"
            "double-precision reference, times them and gates on the baseline.\n\n"
            "  -b, --backend NAME         cpu, cuda or hip (default cpu)\n"
            "  -p, --precision P          fp64, fp32, fp16 or bf16 (default fp32)\n"
            "  -v, --variant NAME         only this variant (default: all)\n"
            "  -c, --case NAME            only this case (default: all)\n"
            "      --set default|full     the manifest's default cases or its \"full\" sweep\n"
            "  -l, --list                 list the cases with their sizes and exit\n"
            "      --seed N               input seed (env KBENCH_SEED, default 1234)\n"
            "      --min-samples N        sampling limits (default 15 .. 400 samples,\n"
            "      --max-samples N          0.05 .. 1.0 s per round, stop when the\n"
            "      --min-time S             median's 95%% CI half-width is below\n"
            "      --max-time S             --target-ci of the median, default 0.005)\n"
            "      --target-ci F\n"
            "      --warmup S             untimed calls before each round (default 0.03 s)\n"
            "      --cold-cache           env KBENCH_COLD_CACHE=1: evict the caches before\n"
            "                             every timed call (one call per sample; baseline\n"
            "                             entries of variant <variant>+cold)\n"
            "      --confirm-rounds N     re-measurements confirming a slowdown (default 3)\n"
            "      --latency-tolerance F  env KBENCH_LATENCY_TOLERANCE (default 0.10; 1 or more\n"
            "                             is taken with a warning: latency all but unchecked)\n"
            "      --accuracy-drift D     env KBENCH_ACCURACY_DRIFT: the |rmse - baseline rmse|\n"
            "                             allowed: absolute (default 1e-3; 1 or more is taken\n"
            "                             with a warning), a share of the baseline's rmse\n"
            "                             (rel:0.5 or 50%%), or one of each (1e-20,rel:0.5:\n"
            "                             a drift fails only beyond both)\n"
            "      --baseline FILE        compare with this baseline file\n"
            "      --baseline-dir DIR     env KBENCH_BASELINE_DIR (configured: %s)\n"
            "      --profile SLUG         env KBENCH_PROFILE (configured: %s)\n"
            "      --update-baselines     env KBENCH_UPDATE_BASELINES=1: record, do not gate\n"
            "      --record-processes N   env KBENCH_RECORD_PROCESSES: processes a recording's\n"
            "                             rounds are spread over, 1 to 5 (default 3)\n"
            "      --results-dir DIR      env KBENCH_RESULTS_DIR: where <test>.json is written\n"
            "                             (configured: %s)\n"
            "      --test-name NAME       name used in reports (default kernel.backend.prec)\n"
            "      --manifest FILE        the kernel's kernel.json\n"
            "      --print-profile        print the detected profile and hardware id, exit\n"
            "      --calibrate            measure the manifest's calibration cases (no gate),\n"
            "                             or reuse the last calibration while it is fresh\n"
            "                             (env KBENCH_CALIBRATION_MAX_AGE, seconds, default\n"
            "                             %g; KBENCH_RECALIBRATE=1 measures anyway)\n"
            "                             and write the backend's attainable bandwidth\n"
            "      --calibration FILE     the calibration file read for %% of peak bandwidth\n"
            "                             (default <results dir>/calibration/<backend>.json)\n"
            "      --timeout S            env KBENCH_TIMEOUT: the test's time limit (CTest's\n"
            "                             TIMEOUT); a case still running shortly before it\n"
            "                             ends is stopped, its result written with status\n"
            "                             \"timeout\", exit 2 (default 0: no limit)\n"
            "      --require-device       env KBENCH_REQUIRE_DEVICE=1: a backend without a\n"
            "                             usable device or driver is an error (exit 2), not\n"
            "                             a skip (exit 77)\n"
            "      --profile-with TOOL    nsys, ncu (cuda) or perf: re-run the one selected\n"
            "                             case (--case, --variant) under the tool, not gated,\n"
            "                             its output beside the result:\n"
            "                             <results dir>/<test>.<case>.<variant>.nsys-rep,\n"
            "                             .ncu-rep or .perf.data (docs/profiling.md); the\n"
            "                             tool is killed at --timeout (an hour without)\n"
            "      --profiled-by TOOL     set by --profile-with on the run it starts\n"
            "A/B mode (build/bin/kbench-ab sets these; docs/ab.md):\n"
            "      --ab-base DIR          env KBENCH_AB_BASE: compare with the driver of the\n"
            "                             same name in DIR, measured interleaved, not with\n"
            "                             the baseline; DIR and the driver must exist (a\n"
            "                             kernel or backend the base's source lacks is new)\n"
            "      --ab-source DIR        env KBENCH_AB_SOURCE: the base's source tree; a\n"
            "                             --manifest inside this build's source maps onto it\n"
            "      --ab-ref REF           env KBENCH_AB_REF: the base's name in reports\n"
            "      --ab-min-pairs N       pairs of rounds at least (default 10), at most\n"
            "      --ab-max-pairs N         (default 30; both %d to %d: with fewer no verdict\n"
            "      --ab-max-time S          can be reached), and no pair begun after S\n"
            "                             seconds on one case (default 4)\n"
            "      --ab-processes N       env KBENCH_AB_PROCESSES: processes each side's rounds\n"
            "                             are spread over, 1 to 8 (default 3)\n"
            "      --partner              serve as the base of an A/B head on stdin/stdout\n"
            "  -h, --help                 this text\n\n"
            "Exit status: 0 passed, 1 a check failed, 2 bad input or error, 77 skipped.\n",
            prog, kb_build_current()->baseline_dir, kb_build_current()->profile,
            kb_build_current()->results_dir, KB_CALIBRATION_MAX_AGE_S, kb_gate_ab_fewest_pairs(),
            KB_AB_MAX_PAIRS);
}

/* A pair limit (--ab-min-pairs, --ab-max-pairs): at least the fewest pairs
 * on which A/B can reach a verdict (gate.h), or no case could fail. */
static int parse_pairs(const char *s, int *out, const char *what, kb_err *err) {
    if (kb_opt_int(s, 1, KB_AB_MAX_PAIRS, out, what, err) != 0) return -1;
    const int fewest = kb_gate_ab_fewest_pairs();
    if (*out < fewest)
        return kb_fail(err,
                       "%s %d: below %d, the fewest pairs whose sign-test 95 %% interval is "
                       "finite; with fewer no case could reach a verdict, and none could fail",
                       what, *out, fewest);
    return 0;
}

/* One of the profilers --profile-with knows. */
static int set_tool(const char **field, const char *v, const char *what, kb_err *err) {
    static const char *const tools[] = {"nsys", "ncu", "perf"};
    for (size_t i = 0; i < sizeof tools / sizeof *tools; ++i)
        if (strcmp(v, tools[i]) == 0) {
            *field = tools[i];
            return 0;
        }
    return kb_fail(err, "%s: unknown tool '%s' (" KB_PROFILE_TOOLS ")", what, v);
}

/* What --profile-with cannot be combined with: it re-runs one case of the
 * kernel, measured under the tool, and records nothing. */
static int check_profile(const kb_options *o, kb_err *err) {
    const char *clash = o->calibrate     ? "--calibrate (profile a kernel's case, not the machine)"
                        : o->update      ? "recording baselines (--update-baselines or "
                                           "KBENCH_UPDATE_BASELINES=1): timings under a profiler "
                                           "are not a baseline"
                        : o->ab_base     ? "A/B mode (--ab-base or KBENCH_AB_BASE)"
                        : o->partner     ? "--partner"
                        : o->profiled_by ? "--profiled-by"
                                         : NULL;
    if (o->profile_with && clash)
        return kb_fail(err, "--profile-with %s: not with %s", o->profile_with, clash);
    return 0;
}

static int apply(kb_options *o, int opt, const char *arg, kb_err *err) {
    kb_sampling *s = &o->sampling;
    switch (opt) {
    case 'b': o->backend = arg; return 0;
    case 'p': o->precision = arg; return 0;
    case 'v': o->variant = arg; return 0;
    case 'c': o->case_name = arg; return 0;
    case 'l': o->list = 1; return 0;
    case 'h': o->help = 1; return 0;
    case OPT_SEED: return kb_opt_seed(arg, &o->seed, "--seed", err);
    case OPT_MIN_SAMPLES: return kb_opt_int(arg, 1, 1000000, &s->min_samples, "--min-samples", err);
    case OPT_MAX_SAMPLES: return kb_opt_int(arg, 1, 1000000, &s->max_samples, "--max-samples", err);
    case OPT_MIN_TIME: return kb_opt_double(arg, 0.0, 3600.0, &s->min_time_s, "--min-time", err);
    case OPT_MAX_TIME: return kb_opt_double(arg, 0.0, 3600.0, &s->max_time_s, "--max-time", err);
    case OPT_WARMUP: return kb_opt_double(arg, 0.0, 3600.0, &s->warmup_s, "--warmup", err);
    case OPT_TARGET_CI: return kb_opt_double(arg, 0.0, 1.0, &s->target_rel_ci, "--target-ci", err);
    case OPT_CONFIRM_ROUNDS:
        return kb_opt_int(arg, 0, KB_MAX_ROUNDS - 1, &o->gate.confirm_rounds, "--confirm-rounds",
                          err);
    case OPT_LAT_TOL:
        return kb_opt_double(arg, 0.0, 10.0, &o->gate.latency_tol, "--latency-tolerance", err);
    case OPT_ACC_DRIFT:
        return kb_gate_parse_drift(arg, &o->gate.accuracy_drift, &o->gate.accuracy_drift_rel,
                                   "--accuracy-drift", err);
    case OPT_BASELINE: return kb_opt_path(&o->baseline_file, arg, "--baseline", err);
    case OPT_BASELINE_DIR: return kb_opt_path(&o->baseline_dir, arg, "--baseline-dir", err);
    case OPT_PROFILE: return kb_opt_name(&o->profile, arg, "--profile", err);
    case OPT_RESULTS_DIR: return kb_opt_path(&o->results_dir, arg, "--results-dir", err);
    case OPT_TEST_NAME: return kb_opt_name(&o->test_name, arg, "--test-name", err);
    case OPT_MANIFEST: return kb_opt_path(&o->manifest, arg, "--manifest", err);
    case OPT_UPDATE: o->update = 1; return 0;
    case OPT_PRINT_PROFILE: o->print_profile = 1; return 0;
    case OPT_COLD_CACHE: o->cold_cache = 1; return 0;
    case OPT_SET:
        if (strcmp(arg, "default") != 0 && strcmp(arg, "full") != 0)
            return kb_fail(err, "--set: '%s' is not 'default' or 'full'", arg);
        o->full = strcmp(arg, "full") == 0;
        return 0;
    case OPT_CALIBRATE: o->calibrate = 1; return 0;
    case OPT_CALIBRATION: return kb_opt_path(&o->calibration, arg, "--calibration", err);
    case OPT_AB_BASE: return kb_opt_path(&o->ab_base, arg, "--ab-base", err);
    case OPT_AB_SOURCE: return kb_opt_path(&o->ab_source, arg, "--ab-source", err);
    case OPT_AB_REF: o->ab_ref = arg; return *arg ? 0 : kb_fail(err, "--ab-ref: the name is empty");
    case OPT_AB_MIN_PAIRS: return parse_pairs(arg, &o->gate.ab_min_pairs, "--ab-min-pairs", err);
    case OPT_AB_MAX_PAIRS: return parse_pairs(arg, &o->gate.ab_max_pairs, "--ab-max-pairs", err);
    case OPT_AB_MAX_TIME:
        return kb_opt_double(arg, 0.0, 3600.0, &o->gate.ab_max_time_s, "--ab-max-time", err);
    case OPT_AB_PROCESSES:
        return kb_opt_int(arg, 1, KB_MAX_WORKERS, &o->gate.ab_processes, "--ab-processes", err);
    case OPT_RECORD_PROCESSES:
        return kb_opt_int(arg, 1, KB_MAX_WORKERS, &o->record_processes, "--record-processes", err);
    case OPT_PARTNER: o->partner = 1; return 0;
    case OPT_TIMEOUT:
        return kb_opt_double(arg, 0.0, KB_TIMEOUT_MAX_S, &o->timeout_s, "--timeout", err);
    case OPT_REQUIRE_DEVICE: o->require_device = 1; return 0;
    case OPT_PROFILE_WITH: return set_tool(&o->profile_with, arg, "--profile-with", err);
    case OPT_PROFILED_BY: return set_tool(&o->profiled_by, arg, "--profiled-by", err);
    default: return kb_fail(err, "unknown option (see --help)");
    }
}

/* getopt_long rejected an option: optopt is 0 for an unknown long option,
 * the option's code for a long option given a value it does not take, and
 * the character for an unknown short option. */
static int option_error(const char *arg, kb_err *err) {
    if (optopt == 0) return kb_fail(err, "unknown option '%.*s'", (int)strcspn(arg, "="), arg);
    for (const struct option *lo = long_options; lo->name; ++lo)
        if (lo->val == optopt && lo->has_arg == no_argument && strncmp(arg, "--", 2) == 0)
            return kb_fail(err, "option '--%s' takes no value", lo->name);
    return kb_fail(err, "unknown option '-%c'", optopt);
}

/* Values accepted but so large that a check all but stops checking: said
 * in o->warning, which the driver prints. */
static void warn_if_unchecked(kb_options *o) {
    const double tol = o->gate.latency_tol, drift = o->gate.accuracy_drift;
    size_t n = 0;
    if (tol >= 1.0)
        n += (size_t)snprintf(o->warning, sizeof o->warning,
                              "latency tolerance %g (--latency-tolerance, "
                              "KBENCH_LATENCY_TOLERANCE): a case %g times as slow as its baseline "
                              "(or A/B base) passes, and a recording keeps rounds that noisy; "
                              "latency is all but unchecked.",
                              tol, 1.0 + tol);
    if (drift >= 1.0 && n < sizeof o->warning)
        snprintf(o->warning + n, sizeof o->warning - n,
                 "%saccuracy drift %g (--accuracy-drift, KBENCH_ACCURACY_DRIFT): an RMSE may move "
                 "that far from the baseline's (or A/B base's) unnoticed; only the manifest's "
                 "tolerance still checks accuracy.",
                 n ? " " : "", drift);
}

int kb_options_parse(kb_options *o, int argc, char **argv, kb_err *err) {
    kb_options_defaults(o);
    if (kb_options_read_env(o, err) != 0) return -1;
    opterr = 0;
    optind = 0; /* glibc: 0 also resets the scan inside a group of short options */
    int opt;
    while ((opt = getopt_long(argc, argv, ":b:p:v:c:lh", long_options, NULL)) != -1) {
        if (opt == '?') {
            return option_error(argv[optind - 1], err);
        }
        if (opt == ':') return kb_fail(err, "option '%s' needs a value", argv[optind - 1]);
        if (apply(o, opt, optarg, err) != 0) return -1;
    }
    if (optind < argc) return kb_fail(err, "unexpected argument '%s'", argv[optind]);
    if (o->sampling.min_samples > o->sampling.max_samples)
        return kb_fail(err, "--min-samples %d is above --max-samples %d", o->sampling.min_samples,
                       o->sampling.max_samples);
    if (o->sampling.min_time_s > o->sampling.max_time_s)
        return kb_fail(err, "--min-time is above --max-time");
    if (o->gate.ab_min_pairs > o->gate.ab_max_pairs)
        return kb_fail(err, "--ab-min-pairs %d is above --ab-max-pairs %d", o->gate.ab_min_pairs,
                       o->gate.ab_max_pairs);
    if (o->record_processes > o->record_rounds)
        return kb_fail(err,
                       "--record-processes %d (or KBENCH_RECORD_PROCESSES): more processes than "
                       "the %d rounds a recording measures",
                       o->record_processes, o->record_rounds);
    if (o->ab_source && !o->ab_base)
        return kb_fail(err,
                       "--ab-source (KBENCH_AB_SOURCE) %s: given without --ab-base "
                       "(KBENCH_AB_BASE), so there is no base build to compare with",
                       o->ab_source);
    if (o->profiled_by) o->update = 0; /* a run under a profiler records nothing */
    warn_if_unchecked(o);
    return check_profile(o, err);
}
