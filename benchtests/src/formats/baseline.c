#define _GNU_SOURCE
#include "formats/baseline.h"

#include "base/atomicfile.h"
#include "base/buildopt.h"
#include "base/pathname.h"
#include "formats/case.h"
#include "formats/json_read.h"
#include "formats/json_write.h"
#include "formats/vocab.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

void kb_baseline_key(char *out, size_t size, const char *backend, const char *precision,
                     const char *variant, const char *case_name, int threads) {
    if (threads > 1)
        snprintf(out, size, "%s.%s.%s" KB_KEY_SUFFIX_THREADS "%d.%s", backend, precision, variant,
                 threads, case_name);
    else
        snprintf(out, size, "%s.%s.%s.%s", backend, precision, variant, case_name);
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A time: a positive (finite, as every number read) count of milliseconds. */
static int check_ms(const cJSON *v, const char *path, const char *field, kb_err *err) {
    double ms;
    if (kb_json_number_value(v, &ms, path, field, err) != 0) return -1;
    if (!(ms > 0.0))
        return kb_fail(err, "%s: field '%s': must be positive (a time in ms), got %g", path, field,
                       ms);
    return 0;
}

/* The members that hold every sample or round rather than one figure. */
static int is_series(const char *key) {
    return strcmp(key, "samples_ms") == 0 || strcmp(key, "round_medians_ms") == 0;
}

/* Every member whose key ends in _ms (median_ms, p90_ms, samples_ms, ...):
 * a time, or for a series a non-empty array of times. */
static int check_times(const cJSON *entry, const char *path, const char *field, kb_err *err) {
    for (const cJSON *it = entry->child; it; it = it->next) {
        if (!ends_with(it->string, "_ms")) continue;
        char at[KB_BASELINE_KEY_MAX + 64];
        snprintf(at, sizeof at, "%s.%.40s", field, it->string);
        if (!is_series(it->string)) {
            if (check_ms(it, path, at, err) != 0) return -1;
            continue;
        }
        if (!cJSON_IsArray(it) || !it->child)
            return kb_fail(err, "%s: field '%s': expected a non-empty array of times", path, at);
        int i = 0;
        for (const cJSON *v = it->child; v; v = v->next, ++i) {
            char elem[KB_BASELINE_KEY_MAX + 80];
            snprintf(elem, sizeof elem, "%s[%d]", at, i);
            if (check_ms(v, path, elem, err) != 0) return -1;
        }
    }
    return 0;
}

/* The machine model's fields (machine/model.h): optional, each probe figure a
 * positive finite number, the bound one of its names, intensity and
 * balance finite and not negative. */
static int check_model(const cJSON *entry, const char *path, const char *field, kb_err *err) {
    for (int k = 0; k < KB_PROBE_N; ++k) {
        const char *key = kb_probe_key((kb_probe_kind)k);
        double v = 1.0;
        if (kb_json_number(entry, key, 0, &v, path, field, err) != 0) return -1;
        if (!(v > 0.0 && isfinite(v)))
            return kb_fail(err, "%s: field '%s.%s': must be a positive finite number", path, field,
                           key);
    }
    static const char *const ratios[] = {"intensity", "balance"};
    for (int i = 0; i < 2; ++i) {
        double v = 0.0;
        if (kb_json_number(entry, ratios[i], 0, &v, path, field, err) != 0) return -1;
        if (!(v >= 0.0 && isfinite(v)))
            return kb_fail(err, "%s: field '%s.%s': must be a finite number, not negative", path,
                           field, ratios[i]);
    }
    const cJSON *bound = cJSON_GetObjectItemCaseSensitive(entry, "bound");
    kb_bound b;
    if (bound && (!cJSON_IsString(bound) || kb_bound_parse(bound->valuestring, &b) != 0))
        return kb_fail(err, "%s: field '%s.bound': expected \"memory\", \"compute\" or \"unknown\"",
                       path, field);
    const cJSON *timing = cJSON_GetObjectItemCaseSensitive(entry, "timing");
    kb_timing t;
    if (timing && (!cJSON_IsString(timing) || kb_timing_parse(timing->valuestring, &t) != 0))
        return kb_fail(err,
                       "%s: field '%s.timing': expected \"host\", \"held\", \"unheld\" or "
                       "\"mixed\"",
                       path, field);
    return 0;
}

/* Cuts a "+t<threads>" qualifier off the end of a key's variant part:
 * 0 when there is none, 1 when it was cut, -1 when it is not a thread
 * count from 2 to KB_MAX_THREADS written as kb_baseline_key writes it. */
static int cut_threads(char *variant) {
    const size_t k = strlen(KB_KEY_SUFFIX_THREADS);
    char *plus = strrchr(variant, KB_KEY_SUFFIX_THREADS[0]);
    if (!plus || strncmp(plus, KB_KEY_SUFFIX_THREADS, k) != 0) return 0;
    const char *digits = plus + k;
    if (!(digits[0] >= '0' && digits[0] <= '9')) return 0;
    char *end;
    const long t = strtol(digits, &end, 10);
    if (*end || digits[0] == '0' || t < 2 || t > KB_MAX_THREADS) return -1;
    *plus = '\0';
    return 1;
}

/* "<backend>.<precision>.<variant>.<case>": the parts the driver looks
 * entries up by. NULL when the key has that form, else what is wrong
 * (in `buf` where the words depend on the table of backends). */
static const char *key_problem(const char *key, char *buf, size_t size) {
    char copy[KB_BASELINE_KEY_MAX + 1];
    snprintf(copy, sizeof copy, "%s", key);
    char *variant_dot = NULL, *backend = copy, *prec = strchr(copy, '.');
    if (prec) *prec++ = '\0';
    char *variant = prec ? strchr(prec, '.') : NULL;
    if (variant) *variant++ = '\0';
    char *name = variant ? strchr(variant, '.') : NULL;
    if (name) *name++ = '\0';
    if (!name) return "is not <backend>.<precision>.<variant>.<case>";
    if (!kb_backend_known(backend)) {
        char expected[128];
        kb_backend_expected(expected, sizeof expected);
        snprintf(buf, size, "names an unknown backend (expected %s)", expected);
        return buf;
    }
    if (kb_prec_parse(prec) < 0) return "names an unknown precision";
    if (cut_threads(variant) < 0)
        return "names a thread count that is not a whole number from 2 to 1024 (+t<threads>)";
    if ((variant_dot = strchr(variant, KB_KEY_SUFFIX_COLD[0])) != NULL &&
        strcmp(variant_dot, KB_KEY_SUFFIX_COLD) == 0)
        *variant_dot = '\0';
    if (kb_identifier_problem(variant, 64)) return "names a variant that is not an identifier";
    if (kb_case_name_problem(name)) return "names a case that is not a valid case name";
    return NULL;
}

static int check_median(const cJSON *entry, const char *path, const char *field, kb_err *err) {
    double median = 0.0, rmse = 0.0, min = 0.0;
    if (kb_json_number(entry, "median_ms", 1, &median, path, field, err) != 0 ||
        kb_json_number(entry, "rmse", 1, &rmse, path, field, err) != 0)
        return -1;
    if (rmse < 0.0)
        return kb_fail(err, "%s: field '%s.rmse': must not be negative, got %g", path, field, rmse);
    if (kb_json_number(entry, "min_ms", 0, &min, path, field, err) != 0) return -1;
    if (min > median)
        return kb_fail(err, "%s: field '%s.min_ms': %g is above median_ms %g", path, field, min,
                       median);
    return 0;
}

static int check_entry(const cJSON *entry, const char *path, kb_err *err) {
    if (strlen(entry->string) > KB_BASELINE_KEY_MAX)
        return kb_fail(err, "%s: field 'entries.%.40s...': key longer than %d characters", path,
                       entry->string, KB_BASELINE_KEY_MAX);
    char field[KB_BASELINE_KEY_MAX + 16], env_field[KB_BASELINE_KEY_MAX + 32];
    snprintf(field, sizeof field, "entries.%s", entry->string);
    snprintf(env_field, sizeof env_field, "%s.environment", field);
    char problem[192];
    const char *why = key_problem(entry->string, problem, sizeof problem);
    if (why) return kb_fail(err, "%s: field '%s': the key %s", path, field, why);
    if (!cJSON_IsObject(entry))
        return kb_fail(err, "%s: field '%s': expected an object", path, field);
    if (check_times(entry, path, field, err) != 0 || check_median(entry, path, field, err) != 0 ||
        check_model(entry, path, field, err) != 0)
        return -1;
    /* read into an entry's own field, so it is never cut short later */
    char at[sizeof((kb_baseline_entry *)0)->recorded_at];
    if (kb_json_string(entry, "recorded_at", 0, at, sizeof at, path, field, err) != 0) return -1;
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(entry, "environment");
    if (!cJSON_IsObject(env))
        return kb_fail(err, "%s: field '%s.environment': expected an object", path, field);
    char hw[512];
    if (kb_json_string(env, "hardware_id", 1, hw, sizeof hw, path, env_field, err) != 0) return -1;
    const char *flags = NULL;
    return kb_json_text(env, "c_flags", 0, &flags, path, env_field, err);
}

/* "kernel" and "profile" name the file's place (<profile>/<kernel>.json);
 * when the caller says which it reads, they must be those. */
static int check_identity(const cJSON *root, const char *path, const char *kernel,
                          const char *profile, kb_err *err) {
    char file_kernel[64], file_profile[256];
    if (kb_json_string(root, "kernel", 1, file_kernel, sizeof file_kernel, path, "", err) != 0 ||
        kb_json_string(root, "profile", 1, file_profile, sizeof file_profile, path, "", err) != 0)
        return -1;
    if (kb_identifier_problem(file_kernel, sizeof file_kernel))
        return kb_fail(err, "%s: field 'kernel': '%s' %s", path, file_kernel,
                       kb_identifier_problem(file_kernel, sizeof file_kernel));
    /* the rule --profile is checked by (kb_check_name): what was recorded reads back */
    if (kb_name_problem(file_profile))
        return kb_fail(err, "%s: field 'profile': '%s' %s", path, file_profile,
                       kb_name_problem(file_profile));
    if (kernel && strcmp(kernel, file_kernel) != 0)
        return kb_fail(err,
                       "%s: field 'kernel': the file holds the baseline of kernel '%s', not of "
                       "'%s' (the kernel it is read for)",
                       path, file_kernel, kernel);
    if (profile && strcmp(profile, file_profile) != 0)
        return kb_fail(err,
                       "%s: field 'profile': the file holds the baseline of profile '%s', not "
                       "of '%s' (the profile it is read for)",
                       path, file_profile, profile);
    return 0;
}

int kb_baseline_validate(const cJSON *root, const char *path, const char *kernel,
                         const char *profile, kb_err *err) {
    if (!cJSON_IsObject(root)) return kb_fail(err, "%s: expected a JSON object", path);
    char format[64];
    if (kb_json_string(root, "format", 1, format, sizeof format, path, "", err) != 0) return -1;
    if (strcmp(format, KB_BASELINE_FORMAT) != 0)
        return kb_fail(err, "%s: field 'format': '%s' is not '%s'", path, format,
                       KB_BASELINE_FORMAT);
    if (check_identity(root, path, kernel, profile, err) != 0) return -1;
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(root, "entries");
    if (!cJSON_IsObject(entries))
        return kb_fail(err, "%s: field 'entries': expected an object", path);
    for (const cJSON *e = entries->child; e; e = e->next)
        if (check_entry(e, path, err) != 0) return -1;
    return 0;
}

int kb_baseline_open_for(kb_baseline *b, const char *path, const char *kernel, const char *profile,
                         kb_err *err) {
    memset(b, 0, sizeof *b);
    if (strlen(path) >= sizeof b->path)
        return kb_fail(err, "%s: path longer than %zu characters", path, sizeof b->path - 1);
    memcpy(b->path, path, strlen(path) + 1);
    if (access(path, F_OK) != 0 && errno == ENOENT) return 0;
    b->root = kb_json_read_file(path, err);
    if (!b->root) return -1;
    if (kb_baseline_validate(b->root, path, kernel, profile, err) != 0) {
        kb_baseline_close(b);
        return -1;
    }
    return 0;
}

int kb_baseline_open(kb_baseline *b, const char *path, kb_err *err) {
    return kb_baseline_open_for(b, path, NULL, NULL, err);
}

void kb_baseline_close(kb_baseline *b) {
    cJSON_Delete(b->root);
    b->root = NULL;
}

static double number_or(const cJSON *obj, const char *key, double fallback) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNumber(v) ? v->valuedouble : fallback;
}

/* A malloc'ed copy of a validated array of numbers (NULL when absent). */
static double *copy_array(const cJSON *entry, const char *key, int *n) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(entry, key);
    int size = cJSON_GetArraySize(arr);
    double *out = size > 0 ? malloc((size_t)size * sizeof *out) : NULL;
    *n = 0;
    const cJSON *v;
    if (out) cJSON_ArrayForEach(v, arr) out[(*n)++] = v->valuedouble;
    return out;
}

int kb_baseline_get(const kb_baseline *b, const char *key, kb_baseline_entry *e) {
    memset(e, 0, sizeof *e);
    if (!b->root) return 0;
    const cJSON *entries = cJSON_GetObjectItemCaseSensitive(b->root, "entries");
    const cJSON *entry = cJSON_GetObjectItemCaseSensitive(entries, key);
    if (!entry) return 0;
    /* kb_baseline_validate checked the types when the file was opened */
    e->median_ms = number_or(entry, "median_ms", 0.0);
    e->min_ms = number_or(entry, "min_ms", e->median_ms);
    e->rmse = number_or(entry, "rmse", 0.0);
    for (int k = 0; k < KB_PROBE_N; ++k)
        e->probe.v[k] = number_or(entry, kb_probe_key((kb_probe_kind)k), 0.0);
    const cJSON *bound = cJSON_GetObjectItemCaseSensitive(entry, "bound");
    e->bound = KB_BOUND_UNKNOWN;
    if (cJSON_IsString(bound)) (void)kb_bound_parse(bound->valuestring, &e->bound);
    const cJSON *timing = cJSON_GetObjectItemCaseSensitive(entry, "timing");
    e->timing = KB_TIMING_UNKNOWN;
    if (cJSON_IsString(timing)) (void)kb_timing_parse(timing->valuestring, &e->timing);
    e->intensity = number_or(entry, "intensity", 0.0);
    e->balance = number_or(entry, "balance", 0.0);
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(entry, "environment");
    snprintf(e->hardware_id, sizeof e->hardware_id, "%s",
             cJSON_GetObjectItemCaseSensitive(env, "hardware_id")->valuestring);
    const cJSON *flags = cJSON_GetObjectItemCaseSensitive(env, "c_flags");
    e->build_opt[0] = '\0';
    if (cJSON_IsString(flags)) kb_build_opt(flags->valuestring, e->build_opt, sizeof e->build_opt);
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(entry, "recorded_at");
    snprintf(e->recorded_at, sizeof e->recorded_at, "%s",
             cJSON_IsString(at) ? at->valuestring : "");
    e->samples_ms = copy_array(entry, "samples_ms", &e->n_samples);
    e->round_medians_ms = copy_array(entry, "round_medians_ms", &e->n_rounds);
    return 1;
}

void kb_baseline_add_probe(cJSON *o, const kb_probe_reading *p) {
    for (int k = 0; k < KB_PROBE_N; ++k)
        if (p->v[k] > 0.0) cJSON_AddNumberToObject(o, kb_probe_key((kb_probe_kind)k), p->v[k]);
}

void kb_baseline_entry_free(kb_baseline_entry *e) {
    free(e->samples_ms);
    free(e->round_medians_ms);
    e->samples_ms = e->round_medians_ms = NULL;
    e->n_samples = e->n_rounds = 0;
}

/* Holds an exclusive flock on the directory for the read-merge-write, so two
 * processes updating the same file never lose each other's entries. */
static int lock_dir(const char *path, kb_err *err) {
    char copy[KB_PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    const char *dir = dirname(copy);
    if (kb_mkdir_p(dir, err) != 0) return -1;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return kb_fail(err, "%s: cannot open: %s", dir, strerror(errno));
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            close(fd);
            return kb_fail(err, "%s: cannot lock: %s", dir, strerror(errno));
        }
    }
    return fd;
}

static cJSON *new_root(const char *kernel, const char *profile) {
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "format", KB_BASELINE_FORMAT);
    cJSON_AddStringToObject(root, "kernel", kernel);
    cJSON_AddStringToObject(root, "profile", profile);
    cJSON_AddObjectToObject(root, "entries");
    return root;
}

static int merge_locked(const char *path, const char *kernel, const char *profile, cJSON *entries,
                        kb_err *err) {
    kb_baseline b;
    if (kb_baseline_open_for(&b, path, kernel, profile, err) != 0) return -1;
    cJSON *root = b.root ? b.root : new_root(kernel, profile);
    cJSON *dst = cJSON_GetObjectItemCaseSensitive(root, "entries");
    while (entries->child) {
        cJSON *e = cJSON_DetachItemViaPointer(entries, entries->child);
        /* cJSON frees the item's own key while re-keying it: pass a copy. */
        char key[KB_BASELINE_KEY_MAX + 1];
        if (strlen(e->string) > KB_BASELINE_KEY_MAX) {
            cJSON_Delete(e);
            cJSON_Delete(root);
            return kb_fail(err, "%s: entry key longer than %d characters", path,
                           KB_BASELINE_KEY_MAX);
        }
        snprintf(key, sizeof key, "%s", e->string);
        cJSON_DeleteItemFromObjectCaseSensitive(dst, key);
        cJSON_AddItemToObject(dst, key, e);
    }
    char *text = kb_json_print(root);
    cJSON_Delete(root);
    if (!text) return kb_fail(err, "%s: out of memory", path);
    int rc = kb_write_file_atomic(path, text, err);
    free(text);
    return rc;
}

int kb_baseline_merge(const char *path, const char *kernel, const char *profile, cJSON *entries,
                      kb_err *err) {
    int fd = lock_dir(path, err);
    int rc = fd < 0 ? -1 : merge_locked(path, kernel, profile, entries, err);
    if (fd >= 0) close(fd);
    cJSON_Delete(entries);
    return rc;
}
