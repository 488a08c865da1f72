/* kb_options_parse: defaults, every option, the KBENCH_* environment
 * variables (overridden by options), and errors that name the culprit. */
#define _POSIX_C_SOURCE 200809L
#include "base/pathname.h"
#include "driver/options.h"
#include "kb_test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const env_vars[] = {"KBENCH_PROFILE",
                                       "KBENCH_BASELINE_DIR",
                                       "KBENCH_UPDATE_BASELINES",
                                       "KBENCH_LATENCY_TOLERANCE",
                                       "KBENCH_ACCURACY_DRIFT",
                                       "KBENCH_SEED",
                                       "KBENCH_RESULTS_DIR",
                                       "KBENCH_COLD_CACHE",
                                       "KBENCH_TIMEOUT",
                                       "KBENCH_REQUIRE_DEVICE",
                                       "KBENCH_AB_BASE",
                                       "KBENCH_AB_SOURCE",
                                       "KBENCH_AB_REF"};

static void clear_env(void) {
    for (size_t i = 0; i < sizeof env_vars / sizeof *env_vars; ++i) unsetenv(env_vars[i]);
}

/* Parses "kbench" followed by the NULL-terminated arguments. */
static int parse(kb_options *o, kb_err *err, ...) {
    static char *argv[64];
    int argc = 0;
    va_list ap;
    va_start(ap, err);
    argv[argc++] = (char *)"kbench";
    for (const char *a; (a = va_arg(ap, const char *)) != NULL && argc < 63;)
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    snprintf(err->msg, sizeof err->msg, "(no message)");
    return kb_options_parse(o, argc, argv, err);
}

static int str_is(const char *s, const char *want) {
    return s && strcmp(s, want) == 0;
}

static void test_defaults(void) {
    kb_options o;
    kb_err err;
    clear_env();
    ASSERT_INT_EQ(parse(&o, &err, NULL), 0);
    ASSERT(str_is(o.backend, "cpu"));
    ASSERT(str_is(o.precision, "fp32"));
    ASSERT(o.manifest == NULL && o.variant == NULL && o.case_name == NULL);
    ASSERT(o.test_name == NULL && o.baseline_file == NULL);
    ASSERT(o.profile != NULL && o.baseline_dir != NULL && o.results_dir != NULL);
    ASSERT_INT_EQ(o.update, 0);
    ASSERT_INT_EQ(o.list + o.help + o.print_profile, 0);
    ASSERT_INT_EQ(o.seed, 1234);
    kb_sampling s = kb_sampling_defaults();
    ASSERT_INT_EQ(o.sampling.min_samples, s.min_samples);
    ASSERT_INT_EQ(o.sampling.max_samples, s.max_samples);
    ASSERT_NEAR(o.sampling.min_time_s, s.min_time_s, 0);
    ASSERT_NEAR(o.sampling.max_time_s, s.max_time_s, 0);
    ASSERT_NEAR(o.sampling.target_rel_ci, s.target_rel_ci, 0);
    ASSERT_NEAR(o.sampling.warmup_s, s.warmup_s, 0);
    ASSERT_NEAR(o.sampling.sample_min_s, s.sample_min_s, 0);
    kb_gate_cfg g = kb_gate_defaults(); /* compared field by field: the struct has padding */
    ASSERT_NEAR(o.gate.latency_tol, g.latency_tol, 0);
    ASSERT_NEAR(o.gate.accuracy_drift, g.accuracy_drift, 0);
    ASSERT_NEAR(o.gate.accuracy_drift, 1e-3, 0);
    ASSERT(o.gate.accuracy_drift_rel < 0.0); /* absolute only, as before */
    ASSERT_INT_EQ(o.gate.confirm_rounds, g.confirm_rounds);
    ASSERT_NEAR(o.gate.alpha, g.alpha, 0);
    ASSERT_INT_EQ(o.record_rounds, 5);
    ASSERT_NEAR(o.confirm_pause_s, 0.25, 0);
}

static void test_every_long_option(void) {
    kb_options o;
    kb_err err;
    clear_env();
    int rc = parse(&o, &err, "--backend", "cuda", "--precision", "fp16", "--variant", "avx2",
                   "--case", "small", "--list", "--help", "--seed", "99", "--min-samples", "5",
                   "--max-samples", "50", "--min-time", "0.5", "--max-time", "2", "--target-ci",
                   "0.01", "--confirm-rounds", "2", "--latency-tolerance", "0.2",
                   "--accuracy-drift", "0.01", "--baseline", "b.json", "--baseline-dir", "bdir",
                   "--profile", "prof", "--results-dir", "rdir", "--test-name", "tname",
                   "--manifest", "m.json", "--update-baselines", "--print-profile", NULL);
    ASSERT_INT_EQ(rc, 0);
    if (rc != 0) printf("%s\n", err.msg);
    ASSERT(str_is(o.backend, "cuda"));
    ASSERT(str_is(o.precision, "fp16"));
    ASSERT(str_is(o.variant, "avx2"));
    ASSERT(str_is(o.case_name, "small"));
    ASSERT(o.list && o.help && o.update && o.print_profile);
    ASSERT_INT_EQ(o.seed, 99);
    ASSERT_INT_EQ(o.sampling.min_samples, 5);
    ASSERT_INT_EQ(o.sampling.max_samples, 50);
    ASSERT_NEAR(o.sampling.min_time_s, 0.5, 0);
    ASSERT_NEAR(o.sampling.max_time_s, 2, 0);
    ASSERT_NEAR(o.sampling.target_rel_ci, 0.01, 0);
    ASSERT_INT_EQ(o.gate.confirm_rounds, 2);
    ASSERT_NEAR(o.gate.latency_tol, 0.2, 0);
    ASSERT_NEAR(o.gate.accuracy_drift, 0.01, 0);
    ASSERT(str_is(o.baseline_file, "b.json"));
    ASSERT(str_is(o.baseline_dir, "bdir"));
    ASSERT(str_is(o.profile, "prof"));
    ASSERT(str_is(o.results_dir, "rdir"));
    ASSERT(str_is(o.test_name, "tname"));
    ASSERT(str_is(o.manifest, "m.json"));
}

static void test_short_options_and_forms(void) {
    kb_options o;
    kb_err err;
    clear_env();
    ASSERT_INT_EQ(parse(&o, &err, "-b", "hip", "-pbf16", "-v", "ref", "-c", "large", "-lh", NULL),
                  0);
    ASSERT(str_is(o.backend, "hip"));
    ASSERT(str_is(o.precision, "bf16"));
    ASSERT(str_is(o.variant, "ref"));
    ASSERT(str_is(o.case_name, "large"));
    ASSERT(o.list && o.help);
    ASSERT_INT_EQ(parse(&o, &err, "--seed=0x10", "--results-dir=r", NULL), 0);
    ASSERT_INT_EQ(o.seed, 16);
    ASSERT(str_is(o.results_dir, "r"));
}

static void test_environment(void) {
    kb_options o;
    kb_err err;
    clear_env();
    setenv("KBENCH_PROFILE", "env-prof", 1);
    setenv("KBENCH_BASELINE_DIR", "/env/baselines", 1);
    setenv("KBENCH_UPDATE_BASELINES", "1", 1);
    setenv("KBENCH_LATENCY_TOLERANCE", "0.25", 1);
    setenv("KBENCH_ACCURACY_DRIFT", "2e-3", 1);
    setenv("KBENCH_SEED", "777", 1);
    ASSERT_INT_EQ(parse(&o, &err, NULL), 0);
    ASSERT(str_is(o.profile, "env-prof"));
    ASSERT(str_is(o.baseline_dir, "/env/baselines"));
    ASSERT_INT_EQ(o.update, 1);
    ASSERT_NEAR(o.gate.latency_tol, 0.25, 0);
    ASSERT_NEAR(o.gate.accuracy_drift, 2e-3, 0);
    ASSERT_INT_EQ(o.seed, 777);
    setenv("KBENCH_UPDATE_BASELINES", "0", 1);
    ASSERT_INT_EQ(parse(&o, &err, NULL), 0);
    ASSERT_INT_EQ(o.update, 0);
    clear_env();
}

static void test_empty_env_is_unset(void) {
    kb_options o, d;
    kb_err err;
    clear_env();
    ASSERT_INT_EQ(parse(&d, &err, NULL), 0);
    setenv("KBENCH_PROFILE", "", 1);
    setenv("KBENCH_SEED", "", 1);
    setenv("KBENCH_UPDATE_BASELINES", "", 1);
    ASSERT_INT_EQ(parse(&o, &err, NULL), 0);
    ASSERT(str_is(o.profile, d.profile));
    ASSERT_INT_EQ(o.seed, 1234);
    ASSERT_INT_EQ(o.update, 0);
    clear_env();
}

/* KBENCH_ACCURACY_DRIFT and --accuracy-drift take a relative limit, an
 * absolute one or both; the option replaces the variable whole. */
static void test_accuracy_drift_forms(void) {
    kb_options o;
    kb_err err;
    clear_env();
    setenv("KBENCH_ACCURACY_DRIFT", "rel:0.5", 1);
    ASSERT_INT_EQ(parse(&o, &err, NULL), 0);
    ASSERT(o.gate.accuracy_drift < 0.0);
    ASSERT_NEAR(o.gate.accuracy_drift_rel, 0.5, 0);
    setenv("KBENCH_ACCURACY_DRIFT", "25%", 1);
    ASSERT_INT_EQ(parse(&o, &err, NULL), 0);
    ASSERT_NEAR(o.gate.accuracy_drift_rel, 0.25, 0);
    setenv("KBENCH_ACCURACY_DRIFT", "1e-20,rel:0.5", 1);
    ASSERT_INT_EQ(parse(&o, &err, NULL), 0);
    ASSERT_NEAR(o.gate.accuracy_drift, 1e-20, 0);
    ASSERT_NEAR(o.gate.accuracy_drift_rel, 0.5, 0);
    ASSERT_INT_EQ(parse(&o, &err, "--accuracy-drift", "2e-3", NULL), 0);
    ASSERT_NEAR(o.gate.accuracy_drift, 2e-3, 0);
    ASSERT(o.gate.accuracy_drift_rel < 0.0);
    /* a relative limit alone warns of nothing: it follows the baseline */
    ASSERT_INT_EQ(parse(&o, &err, "--accuracy-drift", "rel:5", NULL), 0);
    ASSERT_INT_EQ(o.warning[0], '\0');
    setenv("KBENCH_ACCURACY_DRIFT", "rel:0.5,rel:0.1", 1);
    ASSERT_INT_EQ(parse(&o, &err, NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "KBENCH_ACCURACY_DRIFT: 'rel:0.5,rel:0.1' gives two relative");
    clear_env();
}

static void test_option_overrides_env(void) {
    kb_options o;
    kb_err err;
    clear_env();
    setenv("KBENCH_PROFILE", "env-prof", 1);
    setenv("KBENCH_BASELINE_DIR", "/env/baselines", 1);
    setenv("KBENCH_UPDATE_BASELINES", "0", 1);
    setenv("KBENCH_LATENCY_TOLERANCE", "0.25", 1);
    setenv("KBENCH_ACCURACY_DRIFT", "2e-3", 1);
    setenv("KBENCH_SEED", "777", 1);
    ASSERT_INT_EQ(parse(&o, &err, "--profile", "cli-prof", "--baseline-dir", "/cli",
                        "--update-baselines", "--latency-tolerance", "0.05", "--accuracy-drift",
                        "1e-4", "--seed", "5", NULL),
                  0);
    ASSERT(str_is(o.profile, "cli-prof"));
    ASSERT(str_is(o.baseline_dir, "/cli"));
    ASSERT_INT_EQ(o.update, 1);
    ASSERT_NEAR(o.gate.latency_tol, 0.05, 0);
    ASSERT_NEAR(o.gate.accuracy_drift, 1e-4, 0);
    ASSERT_INT_EQ(o.seed, 5);
    clear_env();
}

/* The environment variable `name` set to `value` must make parsing fail with
 * a message naming the variable and the value. */
static void expect_env_error(const char *name, const char *value) {
    kb_options o;
    kb_err err;
    clear_env();
    setenv(name, value, 1);
    ASSERT_INT_EQ(parse(&o, &err, NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, name);
    ASSERT_STR_CONTAINS(err.msg, value);
    clear_env();
}

static void test_invalid_env(void) {
    expect_env_error("KBENCH_LATENCY_TOLERANCE", "abc");
    expect_env_error("KBENCH_LATENCY_TOLERANCE", "-0.1");
    expect_env_error("KBENCH_LATENCY_TOLERANCE", "nan");
    expect_env_error("KBENCH_LATENCY_TOLERANCE", "0.1x");
    expect_env_error("KBENCH_UPDATE_BASELINES", "yes");
    expect_env_error("KBENCH_UPDATE_BASELINES", "true");
    expect_env_error("KBENCH_ACCURACY_DRIFT", "-1");
    expect_env_error("KBENCH_ACCURACY_DRIFT", "rel:-0.5");
    expect_env_error("KBENCH_ACCURACY_DRIFT", "rel:x");
    expect_env_error("KBENCH_ACCURACY_DRIFT", "50 %");
    expect_env_error("KBENCH_ACCURACY_DRIFT", "1e-3,2e-3");
    expect_env_error("KBENCH_ACCURACY_DRIFT", "inf");
    expect_env_error("KBENCH_SEED", "-1");
    expect_env_error("KBENCH_SEED", "12abc");
    expect_env_error("KBENCH_SEED", "99999999999999999999999"); /* over 2^64 */
}

/* Parsing `option value` must fail naming the option and the value. */
static void expect_value_error(const char *option, const char *value, const char *why) {
    kb_options o;
    kb_err err;
    clear_env();
    ASSERT_INT_EQ(parse(&o, &err, option, value, NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, option);
    ASSERT_STR_CONTAINS(err.msg, value);
    ASSERT_STR_CONTAINS(err.msg, why);
}

static void test_invalid_values(void) {
    expect_value_error("--min-samples", "0", "is not a number in [1, 1e+06]");
    expect_value_error("--min-samples", "2.5", "is not a whole number");
    expect_value_error("--max-samples", "many", "is not a number");
    expect_value_error("--seed", "-1", "is not an unsigned integer");
    expect_value_error("--seed", "", "is not an unsigned integer");
    expect_value_error("--max-time", "x", "is not a number");
    expect_value_error("--min-time", "-1", "is not a number");
    expect_value_error("--target-ci", "2", "is not a number in [0, 1]");
    expect_value_error("--confirm-rounds", "16", "is not a number in [0, 15]");
    expect_value_error("--latency-tolerance", "inf", "is not a number");
    expect_value_error("--accuracy-drift", "1e-3e", "is not an accuracy drift");
    expect_value_error("--accuracy-drift", "", "is not an accuracy drift");
    expect_value_error("--ab-ref", "", "the name is empty");
}

/* strtoull skips leading white space and then accepts a minus sign, so
 * " -1" would wrap to 2^64 - 1: the sign check must look past the space. */
static void test_seed_rejects_negative_after_space(void) {
    expect_env_error("KBENCH_SEED", " -1");
    expect_value_error("--seed", " -1", "is not an unsigned integer");
}

/* A profile or test name becomes one path component: anything that could
 * leave its directory, hide the file or be cut is refused, naming the
 * option or variable. */
static void test_names_are_plain(void) {
    static const char *const bad[] = {"../../x", "a/b",  "..",   ".hidden",
                                      "-x",      "a..b", "a\\b", "tab\there"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        expect_value_error("--profile", bad[i], "it names one file or directory");
        expect_value_error("--test-name", bad[i], "it names one file or directory");
        expect_env_error("KBENCH_PROFILE", bad[i]);
    }
    expect_value_error("--profile", "", "is empty");
    char long_name[KB_NAME_MAX + 2];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    expect_value_error("--test-name", long_name, "is too long");
    kb_options o;
    kb_err err;
    clear_env();
    /* XML specials and spaces are plain characters in a file name */
    ASSERT_INT_EQ(parse(&o, &err, "--profile", "nvidia-h100-80gb-hbm3", "--test-name",
                        "pair.<odd & \"name\">", NULL),
                  0);
    long_name[KB_NAME_MAX] = '\0';
    ASSERT_INT_EQ(parse(&o, &err, "--test-name", long_name, NULL), 0);
}

/* Parsing `option value` (or, with option NULL, the variable `env` set to
 * value) must fail naming the option or the variable and saying why. */
static void expect_path_error(const char *option, const char *env, const char *value,
                              const char *why) {
    kb_options o;
    kb_err err;
    clear_env();
    if (env) setenv(env, value, 1);
    int rc = option ? parse(&o, &err, option, value, NULL) : parse(&o, &err, NULL);
    ASSERT_INT_EQ(rc, -1);
    ASSERT(strncmp(err.msg, option ? option : env, strlen(option ? option : env)) == 0);
    ASSERT_STR_CONTAINS(err.msg, why);
    clear_env();
}

/* Paths are not cut: one too long for the harness is an error. */
static void test_paths_checked(void) {
    static char long_path[KB_PATH_MAX + 10];
    memset(long_path, 'p', sizeof long_path - 1);
    long_path[sizeof long_path - 1] = '\0';
    static const char *const options[] = {"--results-dir", "--baseline-dir", "--baseline",
                                          "--calibration", "--manifest",     "--ab-base",
                                          "--ab-source"};
    const char *too_long = "characters long; the longest path accepted is 4095";
    for (size_t i = 0; i < sizeof options / sizeof *options; ++i)
        expect_path_error(options[i], NULL, long_path, too_long);
    expect_path_error(NULL, "KBENCH_RESULTS_DIR", long_path, too_long);
    expect_path_error(NULL, "KBENCH_BASELINE_DIR", long_path, too_long);
    expect_path_error("--baseline-dir", NULL, "", "the path is empty");
    expect_path_error("--manifest", NULL, "", "the path is empty");
    /* no result file at all would be a result lost: "" is not "none" */
    expect_path_error("--results-dir", NULL, "", "the path is empty");
}

static void test_timeout_and_require_device(void) {
    kb_options o;
    kb_err err;
    clear_env();
    ASSERT_INT_EQ(parse(&o, &err, NULL), 0);
    ASSERT_NEAR(o.timeout_s, 0, 0);
    ASSERT_INT_EQ(o.require_device, 0);
    ASSERT_INT_EQ(parse(&o, &err, "--timeout", "300", "--require-device", NULL), 0);
    ASSERT_NEAR(o.timeout_s, 300, 0);
    ASSERT_INT_EQ(o.require_device, 1);
    setenv("KBENCH_TIMEOUT", "1500", 1);
    setenv("KBENCH_REQUIRE_DEVICE", "1", 1);
    ASSERT_INT_EQ(parse(&o, &err, NULL), 0);
    ASSERT_NEAR(o.timeout_s, 1500, 0);
    ASSERT_INT_EQ(o.require_device, 1);
    ASSERT_INT_EQ(parse(&o, &err, "--timeout", "3", NULL), 0); /* the option wins */
    ASSERT_NEAR(o.timeout_s, 3, 0);
    clear_env();
    expect_value_error("--timeout", "-1", "is not a number in [0, 604800]");
    expect_value_error("--timeout", "nan", "is not a number");
    expect_value_error("--timeout", "300s", "is not a number");
    expect_value_error("--timeout", "1e9", "is not a number in [0, 604800]");
    expect_env_error("KBENCH_TIMEOUT", "inf");
    expect_env_error("KBENCH_TIMEOUT", "5 min");
    expect_env_error("KBENCH_REQUIRE_DEVICE", "yes");
}

static void test_unknown_option(void) {
    kb_options o;
    kb_err err;
    clear_env();
    ASSERT_INT_EQ(parse(&o, &err, "--bogus", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "unknown option '--bogus'");
    ASSERT_INT_EQ(parse(&o, &err, "--bogus=1", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "unknown option '--bogus");
    ASSERT_INT_EQ(parse(&o, &err, "-z", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "unknown option '-z'");
    ASSERT_INT_EQ(parse(&o, &err, "--list", "stray", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "unexpected argument 'stray'");
}

static void test_missing_value(void) {
    kb_options o;
    kb_err err;
    clear_env();
    ASSERT_INT_EQ(parse(&o, &err, "--seed", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "option '--seed' needs a value");
    ASSERT_INT_EQ(parse(&o, &err, "--list", "--backend", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "option '--backend' needs a value");
    ASSERT_INT_EQ(parse(&o, &err, "-b", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "option '-b' needs a value");
}

/* A value given to an option that takes none ("--list=3") is neither an
 * unknown option nor may the message print the option's internal code. */
static void test_value_for_flag(void) {
    kb_options o;
    kb_err err;
    clear_env();
    ASSERT_INT_EQ(parse(&o, &err, "--list=3", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "--list");
    ASSERT_INT_EQ(parse(&o, &err, "--update-baselines=1", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "--update-baselines");
}

/* An unknown short option inside a group ("-zl") right after a long option:
 * getopt has not moved past "-zl" yet, so the argument before it is the long
 * option, which must not be blamed. */
static void test_unknown_short_after_long_option(void) {
    kb_options o;
    kb_err err;
    clear_env();
    ASSERT_INT_EQ(parse(&o, &err, "--list", "-zl", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "unknown option '-z'");
    ASSERT_INT_EQ(parse(&o, &err, "--backend=cpu", "-zl", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "unknown option '-z'");
}

/* Each call parses its own argv from scratch: an earlier call that stopped
 * in the middle of a group of short options ("-zl": 'z' is unknown) must
 * not leak the rest of that group ("l") into the next call. */
static void test_reparse_starts_fresh(void) {
    kb_options o;
    kb_err err;
    clear_env();
    ASSERT_INT_EQ(parse(&o, &err, "-zl", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "unknown option '-z'");
    ASSERT_INT_EQ(parse(&o, &err, "--seed", "3", NULL), 0);
    ASSERT_INT_EQ(o.list, 0);
    ASSERT_INT_EQ(o.seed, 3);
}

/* A/B pair limits below the fewest pairs on which the sign test can decide
 * would end every case inconclusive, so that nothing could fail: refused,
 * naming the option and the minimum. With n pairs the 95 % interval is
 * finite once P(all n on one side) = 2^-n <= 0.025: from 6 pairs. */
static void test_ab_pair_limits_that_could_not_fail(void) {
    kb_options o;
    kb_err err;
    clear_env();
    ASSERT_INT_EQ(kb_gate_ab_fewest_pairs(), 6);
    ASSERT_INT_EQ(parse(&o, &err, "--ab-min-pairs", "5", "--ab-max-pairs", "5", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "--ab-min-pairs 5: below 6, the fewest pairs");
    ASSERT_INT_EQ(parse(&o, &err, "--ab-max-pairs", "3", "--ab-min-pairs", "6", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "--ab-max-pairs 3: below 6");
    ASSERT_INT_EQ(parse(&o, &err, "--ab-min-pairs", "6", "--ab-max-pairs", "6", NULL), 0);
    ASSERT_INT_EQ(o.gate.ab_min_pairs, 6);
    ASSERT_INT_EQ(o.gate.ab_max_pairs, 6);
}

/* --ab-source maps the manifest onto the base's source: without a base it
 * names a path nothing reads. */
static void test_ab_source_needs_a_base(void) {
    kb_options o;
    kb_err err;
    clear_env();
    ASSERT_INT_EQ(parse(&o, &err, "--ab-source", "/src", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "--ab-source (KBENCH_AB_SOURCE) /src: given without --ab-base");
    setenv("KBENCH_AB_SOURCE", "/src", 1);
    ASSERT_INT_EQ(parse(&o, &err, NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "KBENCH_AB_SOURCE");
    ASSERT_INT_EQ(parse(&o, &err, "--ab-base", "/base", NULL), 0);
    clear_env();
}

/* Tolerances so large that a check all but stops are taken, and said. */
static void test_huge_tolerances_warn(void) {
    kb_options o;
    kb_err err;
    clear_env();
    ASSERT_INT_EQ(parse(&o, &err, "--latency-tolerance", "0.5", "--accuracy-drift", "0.5", NULL),
                  0);
    ASSERT_INT_EQ(o.warning[0], '\0');
    ASSERT_INT_EQ(parse(&o, &err, "--latency-tolerance", "10", NULL), 0);
    ASSERT_STR_CONTAINS(o.warning, "latency tolerance 10 (--latency-tolerance");
    ASSERT_STR_CONTAINS(o.warning, "11 times as slow");
    setenv("KBENCH_ACCURACY_DRIFT", "1e30", 1);
    ASSERT_INT_EQ(parse(&o, &err, NULL), 0);
    ASSERT_STR_CONTAINS(o.warning,
                        "accuracy drift 1e+30 (--accuracy-drift, KBENCH_ACCURACY_DRIFT)");
    clear_env();
}

static void test_min_above_max(void) {
    kb_options o;
    kb_err err;
    clear_env();
    ASSERT_INT_EQ(parse(&o, &err, "--min-samples", "50", "--max-samples", "10", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "--min-samples 50 is above --max-samples 10");
    /* Against the default maximum (400) too. */
    ASSERT_INT_EQ(parse(&o, &err, "--min-samples", "500", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "--max-samples 400");
    ASSERT_INT_EQ(parse(&o, &err, "--min-time", "2", "--max-time", "1", NULL), -1);
    ASSERT_STR_CONTAINS(err.msg, "--min-time is above --max-time");
    ASSERT_INT_EQ(parse(&o, &err, "--min-samples", "10", "--max-samples", "10", NULL), 0);
}

int main(void) {
    RUN_TEST(test_defaults);
    RUN_TEST(test_every_long_option);
    RUN_TEST(test_short_options_and_forms);
    RUN_TEST(test_environment);
    RUN_TEST(test_empty_env_is_unset);
    RUN_TEST(test_accuracy_drift_forms);
    RUN_TEST(test_option_overrides_env);
    RUN_TEST(test_invalid_env);
    RUN_TEST(test_invalid_values);
    RUN_TEST(test_seed_rejects_negative_after_space);
    RUN_TEST(test_names_are_plain);
    RUN_TEST(test_paths_checked);
    RUN_TEST(test_timeout_and_require_device);
    RUN_TEST(test_unknown_option);
    RUN_TEST(test_missing_value);
    RUN_TEST(test_value_for_flag);
    RUN_TEST(test_unknown_short_after_long_option);
    RUN_TEST(test_min_above_max);
    RUN_TEST(test_ab_pair_limits_that_could_not_fail);
    RUN_TEST(test_ab_source_needs_a_base);
    RUN_TEST(test_huge_tolerances_warn);
    RUN_TEST(test_reparse_starts_fresh); /* last: a failure leaves getopt's state stale */
    return kb_test_summary();
}
