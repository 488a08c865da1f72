/* Reading the result JSONs into the model: output/report_json.c writes
 * them, both sides naming the keys by base/result_keys.h. A result that
 * does not have the fields the report needs, or holds what the driver
 * never writes, is an error naming the file and the field. Each result is
 * read in one pass (jsonstream.h): its cases one at a time, each copied
 * into the model and freed, its samples checked as they come and, for
 * gbench, put in the run's spool. */
#define _GNU_SOURCE
#include "base/clock.h"
#include "base/result_keys.h"
#include "decide/verdict.h"
#include "formats/json_read.h"
#include "jsonstream.h"
#include "summary.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const cJSON *member(const cJSON *o, const char *key) {
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* obj[key] as a string pointing into the JSON ("" when absent and optional). */
static int text(const cJSON *o, const char *key, int required, const char **out, const char *file,
                const char *field, kb_err *err) {
    *out = "";
    return kb_json_text(o, key, required, out, file, field, err);
}

/* obj[key] as a number; NAN when absent or null and optional. */
static int number(const cJSON *o, const char *key, int required, double *out, const char *file,
                  const char *field, kb_err *err) {
    *out = NAN;
    if (!required && cJSON_IsNull(member(o, key))) return 0;
    return kb_json_number(o, key, required, out, file, field, err);
}

/* number() for a figure that cannot be negative (a time, a rate, an error,
 * a ratio of two of them); `hi` bounds it too when finite (a p-value). */
static int figure(const cJSON *o, const char *key, int required, double *out, double hi,
                  const char *file, const char *field, kb_err *err) {
    if (number(o, key, required, out, file, field, err) != 0) return -1;
    if (isnan(*out) || (*out >= 0 && !(*out > hi))) return 0;
    if (isinf(hi))
        return kb_fail(err, "%s: field '%s%s%s': %g is negative", file, field, *field ? "." : "",
                       key, *out);
    return kb_fail(err, "%s: field '%s%s%s': %g is not from 0 to %g", file, field,
                   *field ? "." : "", key, *out, hi);
}

/* An error figure: null is one too large for a double (the writer's JSON
 * holds no infinity), read as infinite. */
static int error_figure(const cJSON *o, const char *key, int required, double *out,
                        const char *file, const char *field, kb_err *err) {
    if (cJSON_IsNull(member(o, key))) {
        *out = INFINITY;
        return 0;
    }
    return figure(o, key, required, out, INFINITY, file, field, err);
}

static int load_accuracy(const cJSON *c, kb_sum_case *k, const char *file, const char *field,
                         kb_err *err) {
    const cJSON *acc;
    char path[64];
    snprintf(path, sizeof path, "%s." KB_KEY_ACCURACY, field);
    if (kb_json_object(c, KB_KEY_ACCURACY, 1, &acc, file, field, err) != 0 ||
        error_figure(acc, KB_KEY_RMSE, 1, &k->rmse, file, path, err) != 0 ||
        error_figure(acc, KB_KEY_MAX_ABS_ERR, 0, &k->max_abs, file, path, err) != 0)
        return -1;
    return text(acc, KB_KEY_FAILURES, 0, &k->acc_failures, file, path, err);
}

/* A/B mode: the interval of the pair ratios and how many pairs made it. */
static int load_ab(const cJSON *lat, kb_sum_case *k, const char *file, const char *field,
                   kb_err *err) {
    const cJSON *ab;
    char path[80];
    snprintf(path, sizeof path, "%s." KB_KEY_AB, field);
    if (kb_json_object(lat, KB_KEY_AB, 0, &ab, file, field, err) != 0) return -1;
    if (!ab) return 0;
    if (figure(ab, KB_KEY_CI_LO, 0, &k->ab_lo, INFINITY, file, path, err) != 0 ||
        figure(ab, KB_KEY_CI_HI, 0, &k->ab_hi, INFINITY, file, path, err) != 0)
        return -1;
    return figure(ab, KB_KEY_N_PAIRS, 0, &k->ab_pairs, INFINITY, file, path, err);
}

static int load_latency(const cJSON *c, kb_sum_case *k, const char *file, const char *field,
                        kb_err *err) {
    const cJSON *lat;
    char path[64];
    snprintf(path, sizeof path, "%s." KB_KEY_LATENCY, field);
    if (kb_json_object(c, KB_KEY_LATENCY, 1, &lat, file, field, err) != 0 ||
        text(lat, KB_KEY_VERDICT, 1, &k->verdict, file, path, err) != 0)
        return -1;
    /* it is written into summary.md as it is: only the driver's words */
    kb_latency_verdict v;
    if (kb_latency_verdict_parse(k->verdict, &v) != 0)
        return kb_fail(err, "%s: field '%s.verdict': '%.64s' is not a latency verdict (%s)", file,
                       path, k->verdict, kb_latency_verdict_names());
    static const char *const keys[] = {
        KB_KEY_RATIO,   KB_KEY_FIRST_RATIO, KB_KEY_BASELINE_MEDIAN_MS, KB_KEY_BASELINE_RMSE,
        KB_KEY_P_VALUE, KB_KEY_NOISE,       KB_KEY_MACHINE_DRIFT};
    double *outs[] = {&k->ratio,   &k->first_ratio, &k->base_ms, &k->base_rmse,
                      &k->p_value, &k->noise,       &k->drift};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; ++i)
        if (figure(lat, keys[i], 0, outs[i], outs[i] == &k->p_value ? 1.0 : INFINITY, file, path,
                   err) != 0)
            return -1;
    if (text(lat, KB_KEY_DRIFT_PROBE, 0, &k->drift_probe, file, path, err) != 0 ||
        figure(lat, KB_KEY_RECORD_NOISE, 0, &k->record_noise, INFINITY, file, path, err) != 0 ||
        figure(lat, KB_KEY_RECORD_DRIFT, 0, &k->record_drift, INFINITY, file, path, err) != 0 ||
        figure(lat, KB_KEY_TOLERANCE, 0, &k->tolerance, INFINITY, file, path, err) != 0)
        return -1;
    return load_ab(lat, k, file, path, err);
}

static int load_comparison(const cJSON *c, kb_sum_case *k, const char *file, const char *field,
                           kb_err *err) {
    const cJSON *cmp;
    char path[64];
    snprintf(path, sizeof path, "%s." KB_KEY_COMPARISON, field);
    if (kb_json_object(c, KB_KEY_COMPARISON, 0, &cmp, file, field, err) != 0) return -1;
    if (!cmp) return 0;
    if (text(cmp, KB_KEY_WITH, 1, &k->compare_to, file, path, err) != 0 ||
        figure(cmp, KB_KEY_SPEEDUP, 1, &k->speedup, INFINITY, file, path, err) != 0)
        return -1;
    return number(cmp, KB_KEY_BYTES_SAVED, 0, &k->bytes_saved, file, path, err);
}

/* The case's roofline (null or absent: none). A present one is checked as
 * strictly as the other figures: the chart places the case by it. */
static int load_roofline(const cJSON *c, kb_sum_case *k, const char *file, const char *field,
                         kb_err *err) {
    const cJSON *roof = member(c, KB_KEY_ROOFLINE);
    char path[64];
    snprintf(path, sizeof path, "%s." KB_KEY_ROOFLINE, field);
    if (figure(c, KB_KEY_PCT_ROOFLINE, 0, &k->pct_roofline, INFINITY, file, field, err) != 0 ||
        figure(c, KB_KEY_VENDOR_SPEEDUP, 0, &k->vendor_speedup, INFINITY, file, field, err) != 0)
        return -1;
    if (!roof || cJSON_IsNull(roof)) return 0;
    if (!cJSON_IsObject(roof))
        return kb_fail(err, "%s: field '%s': expected an object or null", file, path);
    static const char *const keys[] = {KB_KEY_INTENSITY, KB_KEY_FOOTPRINT_BYTES, KB_KEY_ROOF_GBPS,
                                       KB_KEY_COMPUTE_GFLOPS, KB_KEY_ATTAINABLE_GFLOPS};
    double *outs[] = {&k->intensity, &k->footprint_bytes, &k->roof_gbps, &k->compute_gflops,
                      &k->attainable_gflops};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; ++i)
        if (figure(roof, keys[i], i == 0, outs[i], INFINITY, file, path, err) != 0) return -1;
    if (text(roof, KB_KEY_LEVEL, 0, &k->level, file, path, err) != 0 ||
        text(roof, KB_KEY_BOUND, 1, &k->bound, file, path, err) != 0)
        return -1;
    /* memory's ceiling by the case's read/write mix; absent in results
     * written before it, null where the level's figure is the roof */
    if (figure(roof, KB_KEY_WRITE_FRACTION, 0, &k->write_fraction, 1.0, file, path, err) != 0)
        return -1;
    if (cJSON_IsNull(member(roof, KB_KEY_PATTERN))) return 0;
    return text(roof, KB_KEY_PATTERN, 0, &k->pattern, file, path, err);
}

/* The figures of a case that ran (one that failed with an error or was
 * skipped has none). */
static int load_figures(const cJSON *c, kb_sum_case *k, const char *file, const char *field,
                        kb_err *err) {
    if (figure(c, KB_KEY_MEDIAN_MS, 1, &k->median_ms, INFINITY, file, field, err) != 0 ||
        figure(c, KB_KEY_GBPS, 1, &k->gbps, INFINITY, file, field, err) != 0 ||
        figure(c, KB_KEY_GFLOPS, 1, &k->gflops, INFINITY, file, field, err) != 0 ||
        figure(c, KB_KEY_PCT_PEAK_BW, 0, &k->pct_peak, INFINITY, file, field, err) != 0)
        return -1;
    if (load_accuracy(c, k, file, field, err) != 0 || load_latency(c, k, file, field, err) != 0 ||
        load_roofline(c, k, file, field, err) != 0)
        return -1;
    return load_comparison(c, k, file, field, err);
}

static void clear_case(kb_sum_case *k) {
    memset(k, 0, sizeof *k);
    k->name = k->variant = k->verdict = k->error = k->acc_failures = k->compare_to = "";
    k->drift_probe = k->level = k->bound = k->pattern = "";
    double *figures[] = {&k->median_ms,
                         &k->gbps,
                         &k->gflops,
                         &k->pct_peak,
                         &k->rmse,
                         &k->max_abs,
                         &k->ratio,
                         &k->first_ratio,
                         &k->base_ms,
                         &k->base_rmse,
                         &k->p_value,
                         &k->noise,
                         &k->drift,
                         &k->speedup,
                         &k->bytes_saved,
                         &k->ab_lo,
                         &k->ab_hi,
                         &k->ab_pairs,
                         &k->record_noise,
                         &k->record_drift,
                         &k->tolerance,
                         &k->pct_roofline,
                         &k->vendor_speedup,
                         &k->intensity,
                         &k->footprint_bytes,
                         &k->roof_gbps,
                         &k->write_fraction,
                         &k->compute_gflops,
                         &k->attainable_gflops,
                         &k->mean_ms,
                         &k->stddev_ms,
                         &k->cv};
    for (size_t i = 0; i < sizeof figures / sizeof *figures; ++i) *figures[i] = NAN;
    k->samples = (kb_sum_samples){0, 0, NAN, -1};
}

/* What the reading saw of one round's samples_ms (the array itself is not
 * kept in the case's JSON). */
typedef struct round_seen {
    int present; /* the round has a samples_ms array */
    int n;       /* its length */
    int bad;     /* the first sample that is not a positive finite time; -1 none */
    long at;     /* its first sample's place in the spool */
} round_seen;

/* The state of reading one result. */
typedef struct reading {
    kb_sum_run *run;
    kb_sum_test *t;
    round_seen *rounds; /* the rounds of the case being read, by index */
    int n_rounds, cap_rounds;
    long spool_at; /* the spool's count when the current samples_ms began */
} reading;

/* The case's own mean, stddev and cv: NAN when absent, else not negative. */
static int case_stats(const cJSON *c, kb_sum_case *k, const char *file, const char *field,
                      kb_err *err) {
    if (figure(c, KB_KEY_MEAN_MS, 0, &k->mean_ms, INFINITY, file, field, err) != 0 ||
        figure(c, KB_KEY_STDDEV_MS, 0, &k->stddev_ms, INFINITY, file, field, err) != 0)
        return -1;
    return figure(c, KB_KEY_CV, 0, &k->cv, INFINITY, file, field, err);
}

/* The samples of the round whose median is the case's (the round the gate
 * used), else of the first: positive finite times, at least one. A case
 * without rounds (a result written by hand or trimmed) has none. */
static int pick_samples(const reading *rd, const cJSON *c, kb_sum_case *k, const char *field,
                        kb_err *err) {
    const char *file = rd->t->file;
    const cJSON *rounds, *r;
    if (kb_json_array(c, KB_KEY_ROUNDS, 0, &rounds, file, field, err) != 0) return -1;
    if (!rounds) return 0;
    if (!rounds->child)
        return kb_fail(err, "%s: field '%s.rounds': empty: a case that ran has at least one round",
                       file, field);
    const cJSON *pick = rounds->child;
    int at = 0, i = 0;
    cJSON_ArrayForEach(r, rounds) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(r, KB_KEY_MEDIAN_MS);
        if (cJSON_IsNumber(m) && m->valuedouble == k->median_ms) {
            pick = r;
            at = i;
            break;
        }
        ++i;
    }
    char path[96];
    snprintf(path, sizeof path, "%s." KB_KEY_ROUNDS "[%d]", field, at);
    const cJSON *ms;
    int64_t reps;
    if (!cJSON_IsObject(pick))
        return kb_fail(err, "%s: field '%s': expected an object", file, path);
    if (kb_json_array(pick, KB_KEY_SAMPLES_MS, 1, &ms, file, path, err) != 0 ||
        kb_json_int(pick, KB_KEY_REPS, 1, 1, INT64_MAX, &reps, file, path, err) != 0)
        return -1;
    const round_seen *seen = at < rd->n_rounds ? &rd->rounds[at] : NULL;
    if (!seen || !seen->present)
        return kb_fail(err, "%s: field '%s.samples_ms': not read", file, path);
    if (seen->bad >= 0)
        return kb_fail(err, "%s: field '%s.samples_ms[%d]': expected a positive time in ms", file,
                       path, seen->bad);
    if (seen->n == 0)
        return kb_fail(err,
                       "%s: field '%s.samples_ms': empty: a round has at least one sample (the "
                       "case's series would be empty)",
                       file, path);
    k->samples = (kb_sum_samples){seen->n, at, (double)reps, rd->run->samples.f ? seen->at : -1};
    return 0;
}

/* The case's strings, copied out of its JSON (freed once it is read). */
static int own_strings(kb_sum_run *run, kb_sum_case *k) {
    const char **strings[] = {&k->name,         &k->variant,    &k->verdict,     &k->error,
                              &k->acc_failures, &k->compare_to, &k->drift_probe, &k->level,
                              &k->bound,        &k->pattern};
    for (size_t i = 0; i < sizeof strings / sizeof *strings; ++i)
        if (!(*strings[i] = kb_strpool_copy(&run->strings, *strings[i]))) return -1;
    return 0;
}

static int load_case(const reading *rd, const cJSON *c, int i, kb_sum_case *k, kb_err *err) {
    const char *file = rd->t->file;
    char field[32];
    snprintf(field, sizeof field, KB_KEY_CASES "[%d]", i);
    clear_case(k);
    if (!cJSON_IsObject(c)) return kb_fail(err, "%s: field '%s': expected an object", file, field);
    if (text(c, KB_KEY_CASE, 1, &k->name, file, field, err) != 0 ||
        text(c, KB_KEY_VARIANT, 1, &k->variant, file, field, err) != 0)
        return -1;
    const cJSON *passed = member(c, KB_KEY_PASSED);
    if (!cJSON_IsBool(passed))
        return kb_fail(err, "%s: field '%s.passed': %s", file, field,
                       passed ? "expected true or false" : "missing");
    k->passed = cJSON_IsTrue(passed);
    const char *skipped;
    if (text(c, KB_KEY_ERROR, 0, &k->error, file, field, err) != 0 ||
        text(c, KB_KEY_SKIPPED, 0, &skipped, file, field, err) != 0)
        return -1;
    if (member(c, KB_KEY_ERROR) || member(c, KB_KEY_SKIPPED)) {
        k->verdict = member(c, KB_KEY_ERROR) ? "error" : "skipped";
        if (!*k->error) k->error = skipped;
    } else if (load_figures(c, k, file, field, err) != 0 ||
               case_stats(c, k, file, field, err) != 0 || pick_samples(rd, c, k, field, err) != 0) {
        return -1;
    }
    return own_strings(rd->run, k) == 0 ? 0 : kb_fail(err, "%s: out of memory", file);
}

/* ---- the reading's hooks (jsonstream.h) ------------------------------------ */

#define CASES   KB_KEY_CASES
#define SAMPLES KB_KEY_CASES "[]." KB_KEY_ROUNDS "[]." KB_KEY_SAMPLES_MS
/* A/B: every pair; the report reads none */
#define PAIRS KB_KEY_CASES "[]." KB_KEY_LATENCY "." KB_KEY_AB "." KB_KEY_PAIRS

static int claims(void *ctx, const char *path) {
    (void)ctx;
    return strcmp(path, CASES) == 0 || kb_js_path_is(path, SAMPLES) || kb_js_path_is(path, PAIRS);
}

/* The record of round `r` of the case being read. */
static round_seen *round_at(reading *rd, int r) {
    if (r >= rd->cap_rounds) {
        int cap = r + 16;
        round_seen *grown = realloc(rd->rounds, (size_t)cap * sizeof *grown);
        if (!grown) return NULL;
        rd->rounds = grown;
        rd->cap_rounds = cap;
    }
    for (; rd->n_rounds <= r; ++rd->n_rounds) rd->rounds[rd->n_rounds] = (round_seen){0, 0, -1, 0};
    return &rd->rounds[r];
}

static int add_case(reading *rd, const cJSON *item, int i, kb_err *err) {
    kb_sum_test *t = rd->t;
    if (t->n_cases == t->cap_cases) {
        int cap = t->cap_cases ? 2 * t->cap_cases : 16;
        kb_sum_case *grown = realloc(t->cases, (size_t)cap * sizeof *grown);
        if (!grown) return kb_fail(err, "%s: out of memory", t->file);
        t->cases = grown;
        t->cap_cases = cap;
    }
    int rc = load_case(rd, item, i, &t->cases[t->n_cases], err);
    rd->n_rounds = 0; /* the next case's rounds */
    if (rc == 0) t->n_cases++;
    return rc;
}

static int sample(reading *rd, const kb_js_at *at, int i, const cJSON *v, kb_err *err) {
    round_seen *r = at->n_index == 2 ? round_at(rd, at->index[1]) : NULL;
    if (!r) return kb_fail(err, "%s: out of memory", rd->t->file);
    if (i == 0) rd->spool_at = rd->run->samples.n;
    const int ok = cJSON_IsNumber(v) && v->valuedouble > 0 && isfinite(v->valuedouble);
    if (!ok && r->bad < 0) r->bad = i;
    if (rd->run->samples.f && kb_spool_put(&rd->run->samples, ok ? v->valuedouble : 0, err) != 0)
        return -1;
    return 0;
}

static int element(void *ctx, const kb_js_at *at, int i, const cJSON *item, kb_err *err) {
    reading *rd = ctx;
    if (strcmp(at->path, CASES) == 0) return add_case(rd, item, i, err);
    if (kb_js_path_is(at->path, SAMPLES)) return sample(rd, at, i, item, err);
    return 0; /* an A/B pair */
}

static int end(void *ctx, const kb_js_at *at, int n, kb_err *err) {
    reading *rd = ctx;
    if (!kb_js_path_is(at->path, SAMPLES)) return 0;
    round_seen *r = at->n_index == 2 ? round_at(rd, at->index[1]) : NULL;
    if (!r) return kb_fail(err, "%s: out of memory", rd->t->file);
    r->present = 1;
    r->n = n;
    r->at = n ? rd->spool_at : rd->run->samples.n;
    return 0;
}

/* A case measured twice in one test would be two rows of one name
 * (gbench, the leaderboard): the driver runs each case and variant once. */
static int by_case(const void *a, const void *b) {
    const kb_sum_case *x = *(const kb_sum_case *const *)a, *y = *(const kb_sum_case *const *)b;
    int d = strcmp(x->name, y->name);
    if (!d) d = strcmp(x->variant, y->variant);
    return d ? d : (x < y ? -1 : 1);
}

static int check_repeats(const kb_sum_test *t, kb_err *err) {
    if (t->n_cases < 2) return 0;
    const kb_sum_case **sorted = malloc((size_t)t->n_cases * sizeof *sorted);
    if (!sorted) return kb_fail(err, "%s: out of memory", t->file);
    for (int i = 0; i < t->n_cases; ++i) sorted[i] = &t->cases[i];
    qsort(sorted, (size_t)t->n_cases, sizeof *sorted, by_case);
    int rc = 0;
    for (int i = 1; i < t->n_cases && rc == 0; ++i)
        if (strcmp(sorted[i - 1]->name, sorted[i]->name) == 0 &&
            strcmp(sorted[i - 1]->variant, sorted[i]->variant) == 0)
            rc = kb_fail(err,
                         "%s: field 'cases[%d]': case '%.100s' of variant '%.100s' is also "
                         "cases[%d]: a test measures each case and variant once",
                         t->file, (int)(sorted[i] - t->cases), sorted[i]->name, sorted[i]->variant,
                         (int)(sorted[i - 1] - t->cases));
    free(sorted);
    return rc;
}

/* The driver's final statuses, and those of a result it left unfinished
 * (guard/progress.h): "running" (killed), "timeout" and "crashed", each
 * with the case it stopped in as a failed case. Any status but "passed"
 * makes the test failed (digest.c). */
static int known_status(const char *status) {
    static const char *const known[] = {"passed",  "failed",  "error",
                                        "running", "timeout", "crashed"};
    for (size_t i = 0; i < sizeof known / sizeof *known; ++i)
        if (strcmp(status, known[i]) == 0) return 1;
    return 0;
}

/* text() for a calibration's "how", which may be null (not said). */
static int how_text(const cJSON *o, const char **out, const char *file, const char *field,
                    kb_err *err) {
    *out = "";
    return cJSON_IsNull(member(o, KB_KEY_HOW)) ? 0 : text(o, KB_KEY_HOW, 0, out, file, field, err);
}

/* calibration.levels: [{"name", "capacity_bytes", "gbps", "how"}...]; a
 * level whose gbps is null was not measured and is left out. */
static int load_levels(kb_sum_test *t, const cJSON *cal, kb_err *err) {
    const cJSON *levels = member(cal, KB_KEY_LEVELS), *l;
    if (!levels || cJSON_IsNull(levels)) return 0;
    if (!cJSON_IsArray(levels))
        return kb_fail(err, "%s: field 'calibration.levels': expected an array or null", t->file);
    cJSON_ArrayForEach(l, levels) {
        char path[64];
        snprintf(path, sizeof path, KB_KEY_CALIBRATION "." KB_KEY_LEVELS "[%d]", t->n_levels);
        if (t->n_levels == KB_SUM_MAX_CEILINGS)
            return kb_fail(err, "%s: field '%s': more than %d levels", t->file, path,
                           KB_SUM_MAX_CEILINGS);
        kb_sum_ceiling *c = &t->levels[t->n_levels++];
        c->gflops = NAN;
        if (!cJSON_IsObject(l))
            return kb_fail(err, "%s: field '%s': expected an object", t->file, path);
        if (text(l, KB_KEY_NAME, 1, &c->name, t->file, path, err) != 0 ||
            figure(l, KB_KEY_CAPACITY_BYTES, 0, &c->capacity_bytes, INFINITY, t->file, path, err) !=
                0 ||
            figure(l, KB_KEY_GBPS, !cJSON_IsNull(member(l, KB_KEY_GBPS)), &c->gbps, INFINITY,
                   t->file, path, err) != 0 ||
            how_text(l, &c->how, t->file, path, err) != 0)
            return -1;
        if (isnan(c->gbps)) t->n_levels--;
    }
    return 0;
}

/* calibration.compute / .matrix: {"<prec>": {"gflops", "how"}}; a null
 * gflops is left out. */
static int load_peaks(kb_sum_test *t, const cJSON *cal, const char *key, kb_sum_ceiling *out,
                      int *n, kb_err *err) {
    const cJSON *peaks = member(cal, key), *p;
    char path[96];
    snprintf(path, sizeof path, KB_KEY_CALIBRATION ".%s", key);
    if (!peaks || cJSON_IsNull(peaks)) return 0;
    if (!cJSON_IsObject(peaks))
        return kb_fail(err, "%s: field '%s': expected an object or null", t->file, path);
    cJSON_ArrayForEach(p, peaks) {
        snprintf(path, sizeof path, KB_KEY_CALIBRATION ".%s.%.40s", key, p->string);
        if (*n == KB_SUM_MAX_CEILINGS)
            return kb_fail(err, "%s: field '%s': more than %d precisions", t->file, path,
                           KB_SUM_MAX_CEILINGS);
        kb_sum_ceiling *c = &out[(*n)++];
        c->name = p->string;
        c->capacity_bytes = c->gbps = NAN;
        if (!cJSON_IsObject(p))
            return kb_fail(err, "%s: field '%s': expected an object", t->file, path);
        if (figure(p, KB_KEY_GFLOPS, !cJSON_IsNull(member(p, KB_KEY_GFLOPS)), &c->gflops, INFINITY,
                   t->file, path, err) != 0 ||
            how_text(p, &c->how, t->file, path, err) != 0)
            return -1;
        if (isnan(c->gflops)) (*n)--; /* not measured */
    }
    return 0;
}

/* The machine's ceilings, from the result's "calibration" object (absent
 * in older results, and its parts absent when nothing was measured). */
static int load_calibration(kb_sum_test *t, kb_err *err) {
    const cJSON *cal;
    t->calibration_file = t->calibrated_at = "";
    t->calibration_age_s = NAN;
    t->calibration_reused = -1;
    if (kb_json_object(t->root, KB_KEY_CALIBRATION, 0, &cal, t->file, "", err) != 0) return -1;
    if (!cal) return 0;
    const cJSON *reused = member(cal, KB_KEY_REUSED);
    if (reused && !cJSON_IsBool(reused))
        return kb_fail(err, "%s: field 'calibration.reused': expected true or false", t->file);
    if (reused) t->calibration_reused = cJSON_IsTrue(reused);
    if (text(cal, KB_KEY_FILE, 0, &t->calibration_file, t->file, KB_KEY_CALIBRATION, err) != 0 ||
        text(cal, KB_KEY_MEASURED_AT, 0, &t->calibrated_at, t->file, KB_KEY_CALIBRATION, err) !=
            0 ||
        figure(cal, KB_KEY_AGE_S, 0, &t->calibration_age_s, INFINITY, t->file, KB_KEY_CALIBRATION,
               err) != 0 ||
        load_levels(t, cal, err) != 0)
        return -1;
    if (load_peaks(t, cal, KB_KEY_COMPUTE, t->compute, &t->n_compute, err) != 0) return -1;
    return load_peaks(t, cal, KB_KEY_MATRIX, t->matrix, &t->n_matrix, err);
}

/* "optimisation": {"build": "...", "baseline": "..." or null}; absent in
 * older results. */
static int load_optimisation(kb_sum_test *t, kb_err *err) {
    const cJSON *o = NULL;
    t->opt_build = t->opt_baseline = "";
    if (kb_json_object(t->root, KB_KEY_OPTIMISATION, 0, &o, t->file, "", err) != 0) return -1;
    if (!o) return 0;
    if (text(o, KB_KEY_BUILD, 1, &t->opt_build, t->file, KB_KEY_OPTIMISATION, err) != 0) return -1;
    if (cJSON_IsNull(member(o, KB_KEY_BASELINE))) return 0;
    return text(o, KB_KEY_BASELINE, 1, &t->opt_baseline, t->file, KB_KEY_OPTIMISATION, err);
}

static int load_test_fields(kb_sum_test *t, kb_err *err) {
    const cJSON *r = t->root;
    const char *f = t->file;
    if (!cJSON_IsObject(r)) return kb_fail(err, "%s: expected a JSON object (a kbench result)", f);
    if (text(r, KB_KEY_TEST, 1, &t->name, f, "", err) != 0 ||
        text(r, KB_KEY_KERNEL, 1, &t->kernel, f, "", err) != 0 ||
        text(r, KB_KEY_BACKEND, 1, &t->backend, f, "", err) != 0 ||
        text(r, KB_KEY_PRECISION, 1, &t->precision, f, "", err) != 0 ||
        text(r, KB_KEY_STATUS, 1, &t->status, f, "", err) != 0 ||
        text(r, KB_KEY_PROFILE, 1, &t->profile, f, "", err) != 0 ||
        text(r, KB_KEY_CASE_SET, 0, &t->case_set, f, "", err) != 0 ||
        text(r, KB_KEY_MODE, 0, &t->mode, f, "", err) != 0 ||
        text(r, KB_KEY_AB_BASE, 0, &t->ab_base, f, "", err) != 0 ||
        text(r, KB_KEY_BASELINE_FILE, 0, &t->baseline_file, f, "", err) != 0 ||
        text(r, KB_KEY_DOCS_DIR, 0, &t->docs_dir, f, "", err) != 0 ||
        figure(r, KB_KEY_LATENCY_TOLERANCE, 1, &t->latency_tol, 10.0, f, "", err) != 0 ||
        figure(r, KB_KEY_ACCURACY_DRIFT, 0, &t->accuracy_drift, INFINITY, f, "", err) != 0 ||
        text(r, KB_KEY_ERROR, 0, &t->error, f, "", err) != 0 ||
        kb_json_object(r, KB_KEY_ENVIRONMENT, 0, &t->env, f, "", err) != 0 ||
        load_optimisation(t, err) != 0)
        return -1;
    if (!*t->name) return kb_fail(err, "%s: field 'test': empty (the test's name)", f);
    if (!known_status(t->status))
        return kb_fail(err,
                       "%s: field 'status': '%s' is not 'passed', 'failed', 'error', 'running', "
                       "'timeout' or 'crashed'",
                       f, t->status);
    const cJSON *cases = member(r, KB_KEY_CASES);
    if (!cJSON_IsArray(cases))
        return kb_fail(err, "%s: field 'cases': %s", f, cases ? "expected an array" : "missing");
    if (load_calibration(t, err) != 0) return -1;
    /* a test that passed ran something, but for a calibration run that
     * reused a fresh calibration (docs/calibration.md); one that did not may
     * have stopped first */
    if (t->n_cases == 0 && strcmp(t->status, "passed") == 0 &&
        !(t->calibration_reused == 1 && strcmp(t->case_set, "calibration") == 0))
        return kb_fail(err,
                       "%s: field 'cases': empty, yet the status is 'passed': a test passes by "
                       "running its cases",
                       f);
    return check_repeats(t, err);
}

static int load_test(kb_sum_run *run, kb_sum_test *t, const char *name, kb_err *err) {
    memset(t, 0, sizeof *t);
    if (asprintf(&t->file, "%s/%s", run->results_dir, name) < 0) {
        t->file = NULL;
        return kb_fail(err, "out of memory");
    }
    reading rd = {.run = run, .t = t};
    const kb_js_hooks hooks = {&rd, claims, element, end};
    t->root = kb_js_read_file(t->file, &hooks, "a kbench result", err);
    free(rd.rounds);
    return t->root ? load_test_fields(t, err) : -1;
}

static int json_file(const struct dirent *de) {
    size_t len = strlen(de->d_name);
    return de->d_name[0] != '.' && len > 5 && strcmp(de->d_name + len - 5, ".json") == 0;
}

static int by_name(const void *a, const void *b) {
    return strcmp(((const kb_sum_test *)a)->name, ((const kb_sum_test *)b)->name);
}

/* The newest modification time of the results, as the run's date. */
static void note_time(kb_sum_run *run, const char *path, time_t *newest) {
    struct stat st;
    if (stat(path, &st) != 0 || st.st_mtime <= *newest) return;
    *newest = st.st_mtime;
    struct tm tm;
    gmtime_r(newest, &tm);
    strftime(run->newest_result_at, sizeof run->newest_result_at, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int load_all(kb_sum_run *run, struct dirent **names, int n, kb_err *err) {
    run->tests = calloc((size_t)n, sizeof *run->tests);
    if (!run->tests) return kb_fail(err, "out of memory");
    time_t newest = 0;
    for (int i = 0; i < n; ++i) {
        kb_sum_test *t = &run->tests[run->n_tests++];
        if (load_test(run, t, names[i]->d_name, err) != 0) return -1;
        note_time(run, t->file, &newest);
    }
    qsort(run->tests, (size_t)run->n_tests, sizeof *run->tests, by_name);
    /* Two results of one test (a copy, a renamed file) would be counted twice. */
    for (int i = 1; i < run->n_tests; ++i)
        if (strcmp(run->tests[i - 1].name, run->tests[i].name) == 0)
            return kb_fail(err, "%s and %s: field 'test': both are results of test '%.200s'",
                           run->tests[i - 1].file, run->tests[i].file, run->tests[i].name);
    return 0;
}

/* Whether `a` was modified before `b`. */
static int older(const struct stat *a, const struct stat *b) {
    return a->st_mtim.tv_sec < b->st_mtim.tv_sec ||
           (a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec < b->st_mtim.tv_nsec);
}

/* Drops the names of results modified before `since` (a file's path):
 * those of earlier runs. Returns how many remain, -1 when `since` cannot
 * be read. */
static int keep_since(const char *dir, const char *since, struct dirent **names, int n,
                      kb_err *err) {
    struct stat mark, st;
    if (stat(since, &mark) != 0) return kb_fail(err, "--since %s: %s", since, strerror(errno));
    int kept = 0;
    for (int i = 0; i < n; ++i) {
        char path[KB_PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (stat(path, &st) == 0 && older(&st, &mark)) {
            free(names[i]);
            continue;
        }
        names[kept++] = names[i];
    }
    return kept;
}

int kb_sum_load(kb_sum_run *run, const char *dir, const char *since, int keep_samples,
                kb_err *err) {
    memset(run, 0, sizeof *run);
    snprintf(run->results_dir, sizeof run->results_dir, "%s", dir);
    if (keep_samples && kb_spool_open(&run->samples, err) != 0) return -1;
    kb_utc_now(run->generated_at, sizeof run->generated_at);
    struct dirent **names = NULL;
    int n = scandir(dir, &names, json_file, alphasort);
    if (n < 0)
        return kb_fail(err, "%s: %s: no results: run ctest first", dir,
                       errno == ENOENT ? "no such directory" : strerror(errno));
    int all = n;
    if (since && n > 0) n = keep_since(dir, since, names, n, err);
    int rc = -1;
    if (n == 0 && since && all > 0)
        rc = kb_fail(err, "%s: no result written since %s: no results of this run", dir, since);
    else if (n == 0)
        rc = kb_fail(err, "%s: no result JSON in it: no results: run ctest first", dir);
    else if (n > 0)
        rc = load_all(run, names, n, err);
    for (int i = 0; i < n; ++i) free(names[i]);
    if (n < 0)
        for (int i = 0; i < all; ++i) free(names[i]);
    free(names);
    return rc;
}

void kb_sum_free(kb_sum_run *run) {
    for (int i = 0; i < run->n_tests; ++i) {
        free(run->tests[i].file);
        free(run->tests[i].cases);
        cJSON_Delete(run->tests[i].root);
    }
    free(run->tests);
    free(run->order);
    kb_strpool_free(&run->strings);
    kb_spool_close(&run->samples);
    memset(run, 0, sizeof *run);
}
