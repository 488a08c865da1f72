#define _GNU_SOURCE
#include "run/calibration.h"

#include "base/atomicfile.h"
#include "base/buildinfo.h"
#include "base/clock.h"
#include "base/hash.h"
#include "formats/json_read.h"
#include "formats/json_write.h"
#include "kb_config.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((format(printf, 2, 3))) static int absent(kb_calibration *cal, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cal->note, sizeof cal->note, fmt, ap);
    va_end(ap);
    return 0;
}

/* The fields every calibration file holds, checked; the backend must be
 * the one being run (the file is <results>/calibration/<backend>.json). */
static int read_fields(kb_calibration *cal, const cJSON *root, const char *path,
                       const char *backend, char *file_hw, size_t hw_size, kb_err *err) {
    char file_backend[16];
    if (!cJSON_IsObject(root)) return kb_fail(err, "%s: expected a JSON object", path);
    if (kb_json_string(root, "backend", 1, file_backend, sizeof file_backend, path, "", err) != 0 ||
        kb_json_string(root, "hardware_id", 1, file_hw, hw_size, path, "", err) != 0 ||
        kb_json_string(root, "measured_at", 1, cal->measured_at, sizeof cal->measured_at, path, "",
                       err) != 0 ||
        kb_json_number(root, "peak_gbps", 1, &cal->peak_gbps, path, "", err) != 0)
        return -1;
    if (!(cal->peak_gbps > 0.0))
        return kb_fail(err, "%s: field 'peak_gbps': expected a positive number, got %g", path,
                       cal->peak_gbps);
    if (strcmp(file_backend, backend) != 0)
        return kb_fail(err,
                       "%s: field 'backend': the file holds the calibration of backend '%s', not "
                       "'%s' (the backend being run)",
                       path, file_backend, backend);
    const cJSON *cases;
    return kb_json_array(root, "cases", 0, &cases, path, "", err);
}

static int positive(double v, const char *path, const char *field, kb_err *err) {
    return v > 0.0
               ? 0
               : kb_fail(err, "%s: field '%s': expected a positive number, got %g", path, field, v);
}

/* A number member that must be positive (and, as every number read, finite). */
static int read_positive(const cJSON *o, const char *key, double *out, const char *path,
                         const char *field, kb_err *err) {
    char full[96];
    snprintf(full, sizeof full, "%.60s.%.30s", field, key);
    if (kb_json_number(o, key, 1, out, path, field, err) != 0) return -1;
    return positive(*out, path, full, err);
}

static int read_level(const cJSON *o, kb_level_roof *l, const char *path, const char *field,
                      kb_err *err) {
    static const char *const known[] = {"name", "capacity_bytes", "gbps", "how", NULL};
    char full[96];
    snprintf(full, sizeof full, "%.60s.capacity_bytes", field);
    if (!cJSON_IsObject(o)) return kb_fail(err, "%s: field '%s': expected an object", path, field);
    if (kb_json_known_keys(o, known, path, field, err) != 0 ||
        kb_json_string(o, "name", 1, l->level.name, sizeof l->level.name, path, field, err) != 0 ||
        kb_json_number(o, "capacity_bytes", 1, &l->level.capacity, path, field, err) != 0 ||
        read_positive(o, "gbps", &l->gbps, path, field, err) != 0 ||
        kb_json_string(o, "how", 1, l->how, sizeof l->how, path, field, err) != 0)
        return -1;
    if (!l->level.name[0]) return kb_fail(err, "%s: field '%s.name': empty", path, field);
    return l->level.capacity >= 0.0
               ? 0
               : kb_fail(err, "%s: field '%s': expected 0 or a positive number, got %g", path, full,
                         l->level.capacity);
}

static int read_levels(const cJSON *root, kb_roofs *r, const char *path, kb_err *err) {
    const cJSON *levels;
    if (kb_json_array(root, "levels", 0, &levels, path, "", err) != 0) return -1;
    if (!levels) return 0;
    int n = cJSON_GetArraySize(levels);
    if (n < 1 || n > KB_MAX_MEM_LEVELS)
        return kb_fail(err, "%s: field 'levels': expected 1 to %d levels, got %d", path,
                       KB_MAX_MEM_LEVELS, n);
    kb_mem_level check[KB_MAX_MEM_LEVELS];
    for (int i = 0; i < n; ++i) {
        char field[32];
        snprintf(field, sizeof field, "levels[%d]", i);
        if (read_level(cJSON_GetArrayItem(levels, i), &r->levels[i], path, field, err) != 0)
            return -1;
        check[i] = r->levels[i].level;
    }
    const char *problem = kb_levels_problem(check, n);
    if (problem) return kb_fail(err, "%s: field 'levels': %s", path, problem);
    r->n_levels = n;
    return 0;
}

/* "compute" or "matrix": {"<precision>": {"gflops", "how"}}. */
static int read_compute(const cJSON *root, const char *key, kb_compute_roof *roofs,
                        const char *path, kb_err *err) {
    const cJSON *obj;
    if (kb_json_object(root, key, 0, &obj, path, "", err) != 0) return -1;
    static const char *const known[] = {"gflops", "how", NULL};
    for (const cJSON *e = obj ? obj->child : NULL; e; e = e->next) {
        char field[96];
        snprintf(field, sizeof field, "%s.%.40s", key, e->string);
        int p = kb_prec_parse(e->string);
        if (p < 0) return kb_fail(err, "%s: field '%s': not a precision", path, field);
        if (!cJSON_IsObject(e))
            return kb_fail(err, "%s: field '%s': expected an object", path, field);
        if (kb_json_known_keys(e, known, path, field, err) != 0 ||
            read_positive(e, "gflops", &roofs[p].gflops, path, field, err) != 0 ||
            kb_json_string(e, "how", 1, roofs[p].how, sizeof roofs[p].how, path, field, err) != 0)
            return -1;
    }
    return 0;
}

static int read_sweep(const cJSON *root, kb_roofs *r, const char *path, kb_err *err) {
    const cJSON *sweep;
    if (kb_json_array(root, "sweep", 0, &sweep, path, "", err) != 0) return -1;
    if (!sweep) return 0;
    int n = cJSON_GetArraySize(sweep);
    if (n > KB_MAX_SWEEP)
        return kb_fail(err, "%s: field 'sweep': more than %d points (%d)", path, KB_MAX_SWEEP, n);
    static const char *const known[] = {"working_set_bytes", "gbps", NULL};
    for (int i = 0; i < n; ++i) {
        const cJSON *o = cJSON_GetArrayItem(sweep, i);
        char field[32];
        snprintf(field, sizeof field, "sweep[%d]", i);
        if (!cJSON_IsObject(o))
            return kb_fail(err, "%s: field '%s': expected an object", path, field);
        if (kb_json_known_keys(o, known, path, field, err) != 0 ||
            read_positive(o, "working_set_bytes", &r->sweep[i].working_set_bytes, path, field,
                          err) != 0 ||
            read_positive(o, "gbps", &r->sweep[i].gbps, path, field, err) != 0)
            return -1;
    }
    r->n_sweep = n;
    return 0;
}

static int read_roofs(kb_calibration *cal, const cJSON *root, const char *path, kb_err *err) {
    kb_roofs *r = &cal->roofs;
    if (read_levels(root, r, path, err) != 0 ||
        read_compute(root, "compute", r->fma, path, err) != 0 ||
        read_compute(root, "matrix", r->matrix, path, err) != 0 ||
        read_sweep(root, r, path, err) != 0)
        return -1;
    if (r->n_levels == 0)
        snprintf(cal->roof_note, sizeof cal->roof_note,
                 "no roofline: %s has no 'levels' (written before the roofline; the calibration "
                 "test writes them)",
                 path);
    return 0;
}

/* kb_calibration_read, keeping the parsed file in *keep when it is present
 * (the caller deletes it). */
static int read_calibration(kb_calibration *cal, const char *path, const char *backend,
                            const char *hardware_id, cJSON **keep, kb_err *err) {
    memset(cal, 0, sizeof *cal);
    snprintf(cal->file, sizeof cal->file, "%s", path);
    cal->age_s = -1.0;
    cal->reused = -1;
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return absent(cal, "no calibration at %s (the kbench.calibrate.%s test writes it)", path,
                      backend);
    cJSON *root = kb_json_read_file(path, err);
    if (!root) return -1;
    char file_hw[512] = "";
    int rc = read_fields(cal, root, path, backend, file_hw, sizeof file_hw, err);
    if (rc == 0) rc = read_roofs(cal, root, path, err);
    if (rc != 0) {
        cJSON_Delete(root);
        cal->peak_gbps = 0.0;
        memset(&cal->roofs, 0, sizeof cal->roofs);
        return -1;
    }
    if (strcmp(file_hw, hardware_id) != 0) {
        cJSON_Delete(root);
        memset(&cal->roofs, 0, sizeof cal->roofs);
        return absent(cal, "%s was measured on other hardware (%s)", path, file_hw);
    }
    cal->present = 1;
    /* the age is for the record: a time that is not one, or one to come,
     * leaves it unknown */
    const double t = kb_calibration_time(cal->measured_at), now = (double)time(NULL);
    if (t >= 0.0 && now >= t) cal->age_s = now - t;
    if (keep)
        *keep = root;
    else
        cJSON_Delete(root);
    return 0;
}

int kb_calibration_read(kb_calibration *cal, const char *path, const char *backend,
                        const char *hardware_id, kb_err *err) {
    return read_calibration(cal, path, backend, hardware_id, NULL, err);
}

int kb_calibration_measured(kb_calibration *cal, const char *path, const char *backend,
                            const char *hardware_id, kb_err *err) {
    char why[sizeof cal->why_measured];
    snprintf(why, sizeof why, "%s", cal->why_measured);
    if (kb_calibration_read(cal, path, backend, hardware_id, err) != 0) return -1;
    if (!cal->present) return kb_fail(err, "%s: not read back after writing: %s", path, cal->note);
    cal->reused = 0;
    snprintf(cal->why_measured, sizeof cal->why_measured, "%s", why);
    return 0;
}

/* ---- when a calibration is reused ---- */

double kb_calibration_time(const char *measured_at) {
    static const char form[] = "dddd-dd-ddTdd:dd:ddZ";
    if (strlen(measured_at) != sizeof form - 1) return -1.0;
    for (size_t i = 0; form[i]; ++i)
        if (form[i] == 'd' ? !isdigit((unsigned char)measured_at[i]) : measured_at[i] != form[i])
            return -1.0;
    struct tm tm = {0}, back;
    if (sscanf(measured_at, "%4d-%2d-%2dT%2d:%2d:%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
               &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
        return -1.0;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    const struct tm given = tm;
    time_t t = timegm(&tm);
    /* timegm normalizes: 2026-02-30 would become March 2nd */
    if (t < 0 || !gmtime_r(&t, &back) || back.tm_year != given.tm_year ||
        back.tm_mon != given.tm_mon || back.tm_mday != given.tm_mday ||
        back.tm_hour != given.tm_hour || back.tm_min != given.tm_min || back.tm_sec != given.tm_sec)
        return -1.0;
    return (double)t;
}

void kb_calibration_age_text(double age_s, char *out, size_t size) {
    if (age_s < 90.0)
        snprintf(out, size, "%.0f s", age_s);
    else if (age_s < 90.0 * 60.0)
        snprintf(out, size, "%.0f min", age_s / 60.0);
    else if (age_s < 48.0 * 3600.0)
        snprintf(out, size, "%.1f h", age_s / 3600.0);
    else
        snprintf(out, size, "%.1f days", age_s / 86400.0);
}

__attribute__((format(printf, 2, 3))) static void unknown(kb_calibration_stamp *s, const char *fmt,
                                                          ...) {
    if (*s->unknown) return; /* the first reason is enough */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->unknown, sizeof s->unknown, fmt, ap);
    va_end(ap);
}

static void read_boot_id(kb_calibration_stamp *s) {
    static const char file[] = "/proc/sys/kernel/random/boot_id";
    FILE *f = fopen(file, "r");
    if (!f) {
        unknown(s, "this machine's boot is unknown (%s: %s)", file, strerror(errno));
        return;
    }
    if (!fgets(s->boot_id, sizeof s->boot_id, f)) s->boot_id[0] = '\0';
    fclose(f);
    s->boot_id[strcspn(s->boot_id, "\n")] = '\0';
    if (!s->boot_id[0]) unknown(s, "this machine's boot is unknown (%s is empty)", file);
}

/* FNV-1a over the driver's executable: what it measures with (the harness
 * and backend are linked in statically) and how it was compiled. */
static void digest_executable(kb_calibration_stamp *s) {
    static const char exe[] = "/proc/self/exe";
    FILE *f = fopen(exe, "rb");
    if (!f) {
        unknown(s, "this driver's build is unknown (%s: %s)", exe, strerror(errno));
        return;
    }
    static unsigned char buf[1 << 16];
    uint64_t h = KB_FNV1A64_INIT;
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) h = kb_fnv1a64(h, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad)
        unknown(s, "this driver's build is unknown (%s could not be read)", exe);
    else
        snprintf(s->executable, sizeof s->executable, "fnv1a64:%016llx", (unsigned long long)h);
}

void kb_calibration_stamp_init(kb_calibration_stamp *s, const char *hardware_id, const char *device,
                               const char *kernel, const char *precision) {
    memset(s, 0, sizeof *s);
    const kb_build_info *b = kb_build_current();
    snprintf(s->hardware_id, sizeof s->hardware_id, "%s", hardware_id);
    snprintf(s->device, sizeof s->device, "%s", device);
    snprintf(s->kbench_version, sizeof s->kbench_version, "%s", KB_VERSION);
    snprintf(s->compiler, sizeof s->compiler, "%s", b->compiler);
    snprintf(s->c_flags, sizeof s->c_flags, "%s", b->c_flags);
    snprintf(s->build_type, sizeof s->build_type, "%s", b->build_type);
    snprintf(s->kernel, sizeof s->kernel, "%s", kernel);
    snprintf(s->precision, sizeof s->precision, "%s", precision);
    read_boot_id(s);
    digest_executable(s);
}

/* One case as the stamp lists it; the bytes say its size in the precision. */
static int case_key(char *out, size_t size, const char *name, const char *variant, double bytes) {
    return snprintf(out, size, "%s %s %.0f", name, variant, bytes);
}

/* Appends `item` to a "; "-separated list; 0 when it does not fit. */
static int append(char *list, size_t size, const char *item) {
    size_t len = strlen(list);
    int n = snprintf(list + len, size - len, "%s%s", len ? "; " : "", item);
    if (n < 0 || (size_t)n >= size - len) {
        list[len] = '\0';
        return 0;
    }
    return 1;
}

void kb_calibration_stamp_case(kb_calibration_stamp *s, const char *name, const char *variant,
                               double bytes) {
    char key[256];
    case_key(key, sizeof key, name, variant, bytes);
    if (!append(s->cases, sizeof s->cases, key))
        unknown(s, "too many calibration cases to compare with a calibration file's");
}

int kb_calibration_policy_env(kb_calibration_policy *p, kb_err *err) {
    p->max_age_s = KB_CALIBRATION_MAX_AGE_S;
    p->forced = 0;
    const char *v = getenv("KBENCH_RECALIBRATE");
    if (v && *v) {
        if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
            return kb_fail(err, "KBENCH_RECALIBRATE: '%s' is not 0 or 1", v);
        p->forced = strcmp(v, "1") == 0;
    }
    v = getenv("KBENCH_CALIBRATION_MAX_AGE");
    if (v && *v) {
        char *end;
        errno = 0;
        double age = strtod(v, &end);
        if (errno || end == v || *end || !isfinite(age) || age < 0.0)
            return kb_fail(err,
                           "KBENCH_CALIBRATION_MAX_AGE: '%s' is not a number of seconds, 0 or "
                           "more (0 measures every run)",
                           v);
        p->max_age_s = age;
    }
    return 0;
}

/* The calibration is measured: why goes to cal->why_measured (formatted
 * before cal is cleared, since the arguments may point into it), and
 * nothing read is kept. */
__attribute__((format(printf, 2, 3))) static int measure(kb_calibration *cal, const char *fmt,
                                                         ...) {
    char why[sizeof cal->why_measured], file[sizeof cal->file];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(file, sizeof file, "%s", cal->file);
    memset(cal, 0, sizeof *cal);
    snprintf(cal->file, sizeof cal->file, "%s", file);
    snprintf(cal->why_measured, sizeof cal->why_measured, "%s", why);
    cal->age_s = -1.0;
    return 0;
}

/* A string member the stamp compares, required: a file without it cannot
 * be told to be fresh. */
static int stamp_string(const cJSON *o, const char *key, char *out, size_t size, const char *path,
                        const char *field, kb_err *err) {
    return kb_json_string(o, key, 1, out, size, path, field, err);
}

/* The file's calibration cases, as kb_calibration_stamp_case lists them. */
static int file_cases(const cJSON *root, char *out, size_t size, const char *path, kb_err *err) {
    const cJSON *cases;
    out[0] = '\0';
    if (kb_json_array(root, "cases", 1, &cases, path, "", err) != 0) return -1;
    int i = 0;
    for (const cJSON *e = cases->child; e; e = e->next, ++i) {
        char field[32], name[128], variant[128], key[300];
        double bytes;
        snprintf(field, sizeof field, "cases[%d]", i);
        if (!cJSON_IsObject(e))
            return kb_fail(err, "%s: field '%s': expected an object", path, field);
        if (kb_json_string(e, "case", 1, name, sizeof name, path, field, err) != 0 ||
            kb_json_string(e, "variant", 1, variant, sizeof variant, path, field, err) != 0 ||
            kb_json_number(e, "bytes", 1, &bytes, path, field, err) != 0)
            return -1;
        case_key(key, sizeof key, name, variant, bytes);
        if (!append(out, size, key))
            return kb_fail(err, "%s: field 'cases': more cases than this run could compare", path);
    }
    return 0;
}

/* The build members compared, in the order a difference is reported. */
static int check_build(kb_calibration *cal, const cJSON *root, const char *path,
                       const kb_calibration_stamp *s) {
    const struct {
        const char *key, *now;
    } parts[] = {{"kbench_version", s->kbench_version},
                 {"compiler", s->compiler},
                 {"c_flags", s->c_flags},
                 {"build_type", s->build_type},
                 {"executable", s->executable}};
    kb_err err;
    const cJSON *build;
    if (kb_json_object(root, "build", 1, &build, path, "", &err) != 0)
        return measure(cal, "%s", err.msg);
    for (size_t i = 0; i < sizeof parts / sizeof *parts; ++i) {
        char was[sizeof s->c_flags];
        if (stamp_string(build, parts[i].key, was, sizeof was, path, "build", &err) != 0)
            return measure(cal, "%s", err.msg);
        if (strcmp(was, parts[i].now) != 0)
            return measure(cal,
                           "%s was measured by another build of the driver (build.%s '%s', "
                           "this build's '%s')",
                           path, parts[i].key, was, parts[i].now);
    }
    return 1;
}

/* Everything but the hardware (checked as the file was read) and the time. */
static int check_stamp(kb_calibration *cal, const cJSON *root, const char *path,
                       const kb_calibration_stamp *s) {
    kb_err err;
    char boot[64], device[sizeof s->device], kernel[64], prec[16], cases[sizeof s->cases];
    if (!cJSON_GetObjectItemCaseSensitive(root, "boot_id"))
        return measure(cal, "%s has no 'boot_id': it cannot be told to be of this boot", path);
    if (stamp_string(root, "boot_id", boot, sizeof boot, path, "", &err) != 0)
        return measure(cal, "%s", err.msg);
    if (strcmp(boot, s->boot_id) != 0)
        return measure(cal,
                       "%s was measured in another boot (its boot_id '%s', this machine's "
                       "'%s')",
                       path, boot, s->boot_id);
    if (stamp_string(root, "device", device, sizeof device, path, "", &err) != 0)
        return measure(cal, "%s", err.msg);
    if (strcmp(device, s->device) != 0)
        return measure(cal, "%s was measured on another device ('%s', this run's '%s')", path,
                       device, s->device);
    int rc = check_build(cal, root, path, s);
    if (rc != 1) return rc;
    if (stamp_string(root, "kernel", kernel, sizeof kernel, path, "", &err) != 0 ||
        stamp_string(root, "precision", prec, sizeof prec, path, "", &err) != 0 ||
        file_cases(root, cases, sizeof cases, path, &err) != 0)
        return measure(cal, "%s", err.msg);
    if (strcmp(kernel, s->kernel) != 0 || strcmp(prec, s->precision) != 0 ||
        strcmp(cases, s->cases) != 0)
        return measure(cal, "%s holds other calibration cases (%s %s: %s; this run's %s %s: %s)",
                       path, kernel, prec, cases, s->kernel, s->precision, s->cases);
    return 1;
}

/* The age against the policy: 1 young enough, else 0 (measure). */
static int check_age(kb_calibration *cal, const char *path, const kb_calibration_policy *p,
                     double now) {
    const double t = kb_calibration_time(cal->measured_at);
    if (t < 0.0)
        return measure(cal,
                       "%s: field 'measured_at': '%s' is not a UTC time such as "
                       "2026-01-31T12:00:00Z",
                       path, cal->measured_at);
    const double age = now - t;
    char text[32], limit[32];
    if (age < 0.0)
        return measure(cal, "%s was measured at %s, %.0f s ahead of this machine's clock", path,
                       cal->measured_at, -age);
    if (age > p->max_age_s) {
        kb_calibration_age_text(age, text, sizeof text);
        kb_calibration_age_text(p->max_age_s, limit, sizeof limit);
        return measure(cal,
                       "%s was measured %s ago, longer ago than KBENCH_CALIBRATION_MAX_AGE "
                       "allows (%s)",
                       path, text, limit);
    }
    cal->age_s = age;
    return 1;
}

int kb_calibration_reusable(kb_calibration *cal, const char *path, const char *backend,
                            const kb_calibration_stamp *stamp, const kb_calibration_policy *p,
                            double now) {
    memset(cal, 0, sizeof *cal);
    snprintf(cal->file, sizeof cal->file, "%s", path);
    if (p->forced) return measure(cal, "KBENCH_RECALIBRATE=1");
    if (!(p->max_age_s > 0.0)) return measure(cal, "KBENCH_CALIBRATION_MAX_AGE=0");
    if (*stamp->unknown) return measure(cal, "%s", stamp->unknown);
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return measure(cal, "no calibration at %s yet", path);
    kb_err err;
    cJSON *root = NULL;
    if (read_calibration(cal, path, backend, stamp->hardware_id, &root, &err) != 0)
        return measure(cal, "%s", err.msg);
    if (!cal->present) return measure(cal, "%s", cal->note);
    int rc = check_stamp(cal, root, path, stamp);
    cJSON_Delete(root);
    if (rc == 1) rc = check_age(cal, path, p, now);
    if (rc == 1) cal->reused = 1;
    return rc;
}

static cJSON *case_entry(const kb_case_result *r) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "case", r->c->name);
    cJSON_AddStringToObject(o, "variant", r->variant);
    cJSON_AddNumberToObject(o, "median_ms", r->stats.median);
    cJSON_AddNumberToObject(o, "bytes", r->bytes);
    cJSON_AddNumberToObject(o, "gbps", r->gbps);
    return o;
}

double kb_calibration_cases_best(const kb_case_result *res, int n, char *how, size_t how_size) {
    double best = 0.0;
    size_t len = 0;
    how[0] = '\0';
    for (int i = 0; i < n; ++i) {
        if (res[i].error || res[i].skipped) continue;
        best = fmax(best, res[i].gbps);
        if (len < how_size)
            len += (size_t)snprintf(how + len, how_size - len, "%s%s %.2f GB/s", len ? ", " : "",
                                    res[i].c->name, res[i].gbps);
    }
    return best;
}

static cJSON *figure_json(double value, const char *key, const char *how) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, key, value);
    cJSON_AddStringToObject(o, "how", how);
    return o;
}

static cJSON *compute_json(const kb_compute_roof *roofs) {
    cJSON *o = cJSON_CreateObject();
    for (int p = 0; p < KB_PREC_COUNT; ++p)
        if (roofs[p].gflops > 0.0)
            cJSON_AddItemToObject(o, kb_prec_name((kb_prec)p),
                                  figure_json(roofs[p].gflops, "gflops", roofs[p].how));
    return o;
}

void kb_calibration_add_roofs(cJSON *o, const kb_roofs *roofs, int sweep) {
    cJSON *levels = cJSON_AddArrayToObject(o, "levels");
    for (int i = 0; i < roofs->n_levels; ++i) {
        const kb_level_roof *l = &roofs->levels[i];
        cJSON *e = figure_json(l->gbps, "gbps", l->how);
        cJSON_AddStringToObject(e, "name", l->level.name);
        cJSON_AddNumberToObject(e, "capacity_bytes", l->level.capacity);
        cJSON_AddItemToArray(levels, e);
    }
    cJSON_AddItemToObject(o, "compute", compute_json(roofs->fma));
    cJSON_AddItemToObject(o, "matrix", compute_json(roofs->matrix));
    if (!sweep) return;
    cJSON *points = cJSON_AddArrayToObject(o, "sweep");
    for (int i = 0; i < roofs->n_sweep; ++i) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "working_set_bytes", roofs->sweep[i].working_set_bytes);
        cJSON_AddNumberToObject(e, "gbps", roofs->sweep[i].gbps);
        cJSON_AddItemToArray(points, e);
    }
}

/* The notes on figures not measured, one string each. */
static cJSON *notes_json(const kb_roofs *roofs) {
    cJSON *arr = cJSON_CreateArray();
    for (int i = 0; i < roofs->n_notes; ++i)
        cJSON_AddItemToArray(arr, cJSON_CreateString(roofs->notes[i]));
    return arr;
}

/* The memory level's figure, or without levels the cases' best. */
static double memory_gbps(const kb_roofs *roofs, double cases_best) {
    return roofs && roofs->n_levels > 0 ? roofs->levels[roofs->n_levels - 1].gbps : cases_best;
}

/* What the calibration was measured under (kb_calibration_reusable). */
static void add_stamp(cJSON *root, const kb_calibration_stamp *s) {
    cJSON_AddStringToObject(root, "boot_id", s->boot_id);
    cJSON_AddStringToObject(root, "device", s->device);
    cJSON *b = cJSON_AddObjectToObject(root, "build");
    cJSON_AddStringToObject(b, "kbench_version", s->kbench_version);
    cJSON_AddStringToObject(b, "compiler", s->compiler);
    cJSON_AddStringToObject(b, "c_flags", s->c_flags);
    cJSON_AddStringToObject(b, "build_type", s->build_type);
    cJSON_AddStringToObject(b, "executable", s->executable);
}

int kb_calibration_write(const char *path, const kb_run_ctx *ctx, const char *profile,
                         const kb_case_result *res, int n, const kb_roofs *roofs,
                         const kb_calibration_stamp *stamp, kb_err *err) {
    double peak = 0.0;
    cJSON *root = cJSON_CreateObject();
    cJSON *cases = cJSON_CreateArray();
    for (int i = 0; i < n; ++i) {
        if (!kb_case_passed(&res[i]) || res[i].skipped) {
            cJSON_Delete(root);
            cJSON_Delete(cases);
            return kb_fail(err, "calibration case '%s' (%s) did not pass: %s not written",
                           res[i].c->name, res[i].variant, path);
        }
        if (res[i].gbps > peak) peak = res[i].gbps;
        cJSON_AddItemToArray(cases, case_entry(&res[i]));
    }
    char now[40];
    kb_utc_now(now, sizeof now);
    cJSON_AddStringToObject(root, "backend", ctx->backend->name);
    cJSON_AddStringToObject(root, "hardware_id", ctx->hardware_id);
    cJSON_AddStringToObject(root, "profile", profile);
    cJSON_AddStringToObject(root, "kernel", ctx->kernel_name);
    cJSON_AddStringToObject(root, "precision", kb_prec_name(ctx->prec));
    cJSON_AddStringToObject(root, "measured_at", now);
    if (stamp) add_stamp(root, stamp);
    peak = memory_gbps(roofs, peak);
    cJSON_AddNumberToObject(root, "peak_gbps", peak);
    cJSON_AddItemToObject(root, "cases", cases);
    if (roofs) {
        kb_calibration_add_roofs(root, roofs, 1);
        cJSON_AddItemToObject(root, "notes", notes_json(roofs));
    }
    char *text = kb_json_print(root);
    cJSON_Delete(root);
    if (!text) return kb_fail(err, "%s: out of memory", path);
    char dir[KB_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    int rc = 0;
    if (slash && slash != dir) {
        *slash = '\0';
        rc = kb_mkdir_p(dir, err);
    }
    if (rc == 0) rc = kb_write_file_atomic(path, text, err);
    free(text);
    if (rc == 0) printf("calibration: %.2f GB/s peak written to %s\n", peak, path);
    return rc;
}

double kb_calibration_pct(const kb_calibration *cal, const kb_case_result *r) {
    return cal && cal->present && r->gbps > 0.0 ? 100.0 * r->gbps / cal->peak_gbps : -1.0;
}
