/* Whether a calibration run may reuse the calibration file instead of
 * measuring again: what this run is measured under (the stamp: hardware,
 * boot, build, cases), compared with what the file was measured under, and
 * its age against the policy. Every mismatch says why in one line, which
 * the run's result keeps. */
#define _GNU_SOURCE
#include "measure/calibration_reuse.h"

#include "base/buildinfo.h"
#include "base/hash.h"
#include "formats/json_read.h"
#include "kb_config.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    if (kb_calibration_read_json(cal, path, backend, stamp->hardware_id, &root, &err) != 0)
        return measure(cal, "%s", err.msg);
    if (!cal->present) return measure(cal, "%s", cal->note);
    int rc = check_stamp(cal, root, path, stamp);
    cJSON_Delete(root);
    if (rc == 1) rc = check_age(cal, path, p, now);
    if (rc == 1) cal->reused = 1;
    return rc;
}
