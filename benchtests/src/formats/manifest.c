/* Reading a manifest: its top-level fields, each checked where it is read,
 * and the checks that need all of them (unique case names, counts that
 * evaluate for every case). The cases are read by manifest_cases.c, the
 * counts evaluated by manifest_counts.c. */
#include "formats/manifest.h"

#include "formats/json_read.h"
#include "formats/manifest_cases.h"
#include "formats/vocab.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

static const char *const known_libraries[] = {"openblas", "onednn", "cublas", "cudnn", NULL};
static const char *const root_keys[] = {
    "name",    "description",     "backends", "precisions", "tolerance", "flops",  "bytes",
    "cases",   "sweep",           "full",     "variants",   "libraries", "labels", "calibration",
    "timeout", "transcendentals", "threads",  NULL};

/* ---- arrays of names ----------------------------------------------------- */

/* Whether s is one of the NULL-terminated list. */
static int one_of(const char *s, const char *const *list) {
    for (; *list; ++list)
        if (strcmp(s, *list) == 0) return 1;
    return 0;
}

/* Element i of arr as a string that no earlier element repeats. */
static int unique_string(const kb_manifest *m, const cJSON *arr, const cJSON *it, const char *field,
                         int i, kb_err *err) {
    if (!cJSON_IsString(it))
        return kb_fail(err, "%s: field '%s[%d]': expected a string", m->path, field, i);
    for (const cJSON *prev = arr->child; prev != it; prev = prev->next)
        if (strcmp(prev->valuestring, it->valuestring) == 0)
            return kb_fail(err, "%s: field '%s[%d]': '%s' is listed twice", m->path, field, i,
                           it->valuestring);
    return 0;
}

/* root[key]: an array of unique strings, non-empty when `required`. */
static int string_array(const kb_manifest *m, const cJSON *root, const char *key, int required,
                        const cJSON **out, kb_err *err) {
    *out = cJSON_GetObjectItemCaseSensitive(root, key);
    if (!*out && !required) return 0;
    if (!cJSON_IsArray(*out) || cJSON_GetArraySize(*out) == 0)
        return kb_fail(err, "%s: field '%s': expected a non-empty array of names", m->path, key);
    int i = 0;
    for (const cJSON *it = (*out)->child; it; it = it->next, ++i)
        if (unique_string(m, *out, it, key, i, err) != 0) return -1;
    return 0;
}

static int load_backends(kb_manifest *m, const cJSON *root, kb_err *err) {
    const cJSON *arr;
    if (string_array(m, root, "backends", 1, &arr, err) != 0) return -1;
    int i = 0;
    for (const cJSON *it = arr->child; it; it = it->next, ++i) {
        if (!kb_backend_known(it->valuestring)) {
            char expected[128];
            kb_backend_expected(expected, sizeof expected);
            return kb_fail(err, "%s: field 'backends[%d]': unknown backend '%s' (expected %s)",
                           m->path, i, it->valuestring, expected);
        }
        snprintf(m->backends[m->n_backends++], sizeof m->backends[0], "%s", it->valuestring);
    }
    return 0;
}

static int load_precisions(kb_manifest *m, const cJSON *root, kb_err *err) {
    const cJSON *arr;
    if (string_array(m, root, "precisions", 1, &arr, err) != 0) return -1;
    int i = 0;
    for (const cJSON *it = arr->child; it; it = it->next, ++i) {
        int p = kb_prec_parse(it->valuestring);
        if (p < 0)
            return kb_fail(err,
                           "%s: field 'precisions[%d]': unknown precision '%s' "
                           "(expected fp64, fp32, fp16 or bf16)",
                           m->path, i, it->valuestring);
        m->precisions |= 1u << p;
    }
    return 0;
}

/* "libraries" and "labels": read by configure, checked here the same way. */
static int load_build_fields(kb_manifest *m, const cJSON *root, kb_err *err) {
    const cJSON *arr;
    int i = 0;
    if (string_array(m, root, "libraries", 0, &arr, err) != 0) return -1;
    for (const cJSON *it = arr ? arr->child : NULL; it; it = it->next, ++i)
        if (!one_of(it->valuestring, known_libraries))
            return kb_fail(err,
                           "%s: field 'libraries[%d]': unknown library '%s' (expected openblas, "
                           "onednn, cublas or cudnn)",
                           m->path, i, it->valuestring);
    if (string_array(m, root, "labels", 0, &arr, err) != 0) return -1;
    i = 0;
    for (const cJSON *it = arr ? arr->child : NULL; it; it = it->next, ++i)
        if (kb_case_name_problem(it->valuestring))
            return kb_fail(err, "%s: field 'labels[%d]': label '%s' %s", m->path, i,
                           it->valuestring, kb_case_name_problem(it->valuestring));
    int64_t timeout;
    return kb_json_int(root, "timeout", 0, 1, 7 * 24 * 3600, &timeout, m->path, "", err);
}

/* ---- tolerances ---------------------------------------------------------- */

static int load_one_tolerance(kb_manifest *m, const cJSON *it, kb_err *err) {
    char field[64];
    snprintf(field, sizeof field, "tolerance.%.40s", it->string);
    int p = kb_prec_parse(it->string);
    if (p < 0)
        return kb_fail(err, "%s: field '%s': unknown precision (expected fp64, fp32, fp16, bf16)",
                       m->path, field);
    if (!cJSON_IsObject(it))
        return kb_fail(err, "%s: field '%s': expected an object with 'rmse' and 'max_abs'", m->path,
                       field);
    static const char *const keys[] = {"rmse", "max_abs", NULL};
    kb_tolerance *t = &m->tol[p];
    t->max_abs = -1.0;
    if (kb_json_known_keys(it, keys, m->path, field, err) != 0 ||
        kb_json_number(it, "rmse", 1, &t->rmse, m->path, field, err) != 0 ||
        kb_json_number(it, "max_abs", 0, &t->max_abs, m->path, field, err) != 0)
        return -1;
    if (t->rmse < 0.0)
        return kb_fail(err, "%s: field '%s.rmse': must not be negative", m->path, field);
    /* absent is -1 (not checked); a given bound must be a bound */
    if (cJSON_GetObjectItemCaseSensitive(it, "max_abs") && t->max_abs < 0.0)
        return kb_fail(err,
                       "%s: field '%s.max_abs': %g is negative (leave the field out to not check "
                       "the largest error)",
                       m->path, field, t->max_abs);
    t->present = 1;
    return 0;
}

static int load_tolerance(kb_manifest *m, const cJSON *root, kb_err *err) {
    const cJSON *tol = cJSON_GetObjectItemCaseSensitive(root, "tolerance");
    if (!cJSON_IsObject(tol))
        return kb_fail(err, "%s: field 'tolerance': expected an object keyed by precision",
                       m->path);
    for (const cJSON *it = tol->child; it; it = it->next)
        if (load_one_tolerance(m, it, err) != 0) return -1;
    for (int p = 0; p < KB_PREC_COUNT; ++p)
        if ((m->precisions & (1u << p)) && !m->tol[p].present)
            return kb_fail(err,
                           "%s: field 'tolerance.%s': missing (the kernel lists %s in "
                           "'precisions')",
                           m->path, kb_prec_name((kb_prec)p), kb_prec_name((kb_prec)p));
    return 0;
}

/* ---- transcendentals ----------------------------------------------------- */

/* obj["transcendentals"] into t; absent leaves t->count empty. `field` is
 * obj's path: "" for the root, "variants.<v>" for a variant. */
static int load_transcendentals(const kb_manifest *m, const cJSON *obj, const char *field,
                                kb_transcendentals *t, kb_err *err) {
    static const char *const keys[] = {"count", "flops_each", NULL};
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, "transcendentals");
    if (!it) return 0;
    char at[128];
    snprintf(at, sizeof at, "%s%stranscendentals", field, *field ? "." : "");
    if (!cJSON_IsObject(it))
        return kb_fail(err, "%s: field '%s': expected an object with 'count' and 'flops_each'",
                       m->path, at);
    if (kb_json_known_keys(it, keys, m->path, at, err) != 0 ||
        kb_json_string(it, "count", 1, t->count, sizeof t->count, m->path, at, err) != 0 ||
        kb_json_number(it, "flops_each", 1, &t->flops_each, m->path, at, err) != 0)
        return -1;
    if (!*t->count)
        return kb_fail(err, "%s: field '%s.count': empty (an expression such as \"rows*cols\")",
                       m->path, at);
    if (t->flops_each < 0.0)
        return kb_fail(err, "%s: field '%s.flops_each': %g is negative (the flops one call takes)",
                       m->path, at, t->flops_each);
    return 0;
}

/* ---- variants ------------------------------------------------------------ */

/* "variants": {"fused": {"bytes": "...", "flops": "...", "compare_to": "unfused"}} */
static int load_variant(kb_manifest *m, const cJSON *it, kb_err *err) {
    static const char *const keys[] = {"flops", "bytes", "compare_to", "transcendentals", NULL};
    static const char *const strings[] = {"flops", "bytes", "compare_to", NULL};
    char field[96];
    snprintf(field, sizeof field, "variants.%.60s", it->string);
    if (m->n_variants == KB_MAX_IMPLS)
        return kb_fail(err, "%s: field '%s': more than %d variants", m->path, field, KB_MAX_IMPLS);
    kb_variant_spec *v = &m->variants[m->n_variants++];
    const char *why = kb_identifier_problem(it->string, sizeof v->name);
    if (why) return kb_fail(err, "%s: field '%s': variant name %s", m->path, field, why);
    if (!cJSON_IsObject(it))
        return kb_fail(err, "%s: field '%s': expected an object", m->path, field);
    snprintf(v->name, sizeof v->name, "%s", it->string);
    if (kb_json_known_keys(it, keys, m->path, field, err) != 0 ||
        kb_json_string(it, "flops", 0, v->flops, sizeof v->flops, m->path, field, err) != 0 ||
        kb_json_string(it, "bytes", 0, v->bytes, sizeof v->bytes, m->path, field, err) != 0 ||
        kb_json_string(it, "compare_to", 0, v->compare_to, sizeof v->compare_to, m->path, field,
                       err) != 0 ||
        load_transcendentals(m, it, field, &v->transc, err) != 0)
        return -1;
    /* "" means "the kernel's" inside the struct: a given string must say more */
    for (int k = 0; strings[k]; ++k) {
        const cJSON *given = cJSON_GetObjectItemCaseSensitive(it, strings[k]);
        if (given && !*given->valuestring)
            return kb_fail(err, "%s: field '%s.%s': empty (leave the field out instead)", m->path,
                           field, strings[k]);
    }
    return 0;
}

static int load_variants(kb_manifest *m, const cJSON *root, kb_err *err) {
    const cJSON *variants;
    if (kb_json_object(root, "variants", 0, &variants, m->path, "", err) != 0) return -1;
    if (!variants) return 0;
    for (const cJSON *it = variants->child; it; it = it->next)
        if (load_variant(m, it, err) != 0) return -1;
    for (int i = 0; i < m->n_variants; ++i) {
        const char *to = m->variants[i].compare_to;
        if (!*to) continue;
        if (!kb_manifest_variant(m, to) || strcmp(to, m->variants[i].name) == 0)
            return kb_fail(err,
                           "%s: field 'variants.%s.compare_to': '%s' is not another variant "
                           "listed in 'variants'",
                           m->path, m->variants[i].name, to);
    }
    return 0;
}

/* ---- calibration --------------------------------------------------------- */

/* "calibration": ["copy_n16M", ...]: default-set cases whose GB/s is the
 * backend's attainable bandwidth (docs/calibration.md), each listed once. */
static int load_calibration(kb_manifest *m, const cJSON *root, kb_err *err) {
    const cJSON *arr;
    if (string_array(m, root, "calibration", 0, &arr, err) != 0) return -1;
    int i = 0;
    for (const cJSON *it = arr ? arr->child : NULL; it; it = it->next, ++i) {
        const kb_case *c = kb_manifest_find_case(m, it->valuestring);
        if (!c || c->full)
            return kb_fail(err,
                           "%s: field 'calibration[%d]': '%s' is not a case of the default set",
                           m->path, i, it->valuestring);
        /* unique names of existing cases: never more than KB_MAX_CASES */
        m->calibration[m->n_calibration++] = c;
    }
    return 0;
}

/* ---- checks over the whole manifest -------------------------------------- */

/* Unique names, and counts that evaluate to a sensible figure for every
 * case, precision and variant. */
static int check_cases(const kb_manifest *m, kb_err *err) {
    for (int i = 0; i < m->n_cases; ++i) {
        const kb_case *c = &m->cases[i];
        for (int j = 0; j < i; ++j)
            if (strcmp(c->name, m->cases[j].name) == 0)
                return kb_fail(err, "%s: field '%scases': case name '%s' appears twice", m->path,
                               c->full ? "full." : "", c->name);
        for (int p = 0; p < KB_PREC_COUNT; ++p) {
            if (!(m->precisions & (1u << p))) continue;
            double f, b;
            if (kb_manifest_counts(m, c, (kb_prec)p, NULL, &f, &b, err) != 0) return -1;
            for (int v = 0; v < m->n_variants; ++v)
                if (kb_manifest_counts(m, c, (kb_prec)p, m->variants[v].name, &f, &b, err) != 0)
                    return -1;
        }
    }
    return 0;
}

static int load_root(kb_manifest *m, const cJSON *root, kb_err *err) {
    if (!cJSON_IsObject(root)) return kb_fail(err, "%s: expected a JSON object", m->path);
    if (kb_json_known_keys(root, root_keys, m->path, "", err) != 0 ||
        kb_json_string(root, "name", 1, m->name, sizeof m->name, m->path, "", err) != 0)
        return -1;
    const char *why = kb_identifier_problem(m->name, sizeof m->name);
    if (why) return kb_fail(err, "%s: field 'name': kernel name '%s' %s", m->path, m->name, why);
    if (kb_json_string(root, "description", 0, m->description, sizeof m->description, m->path, "",
                       err) != 0 ||
        kb_json_string(root, "flops", 1, m->flops, sizeof m->flops, m->path, "", err) != 0 ||
        kb_json_string(root, "bytes", 1, m->bytes, sizeof m->bytes, m->path, "", err) != 0 ||
        load_transcendentals(m, root, "", &m->transc, err) != 0)
        return -1;
    if (load_backends(m, root, err) != 0 || load_precisions(m, root, err) != 0 ||
        load_tolerance(m, root, err) != 0 || load_build_fields(m, root, err) != 0 ||
        load_variants(m, root, err) != 0 || kb_manifest_load_cases(m, root, err) != 0 ||
        load_calibration(m, root, err) != 0)
        return -1;
    return check_cases(m, err);
}

int kb_manifest_load(kb_manifest *m, const char *path, kb_err *err) {
    memset(m, 0, sizeof *m);
    if (strlen(path) >= sizeof m->path)
        return kb_fail(err, "%s: path longer than %zu characters", path, sizeof m->path - 1);
    snprintf(m->path, sizeof m->path, "%s", path);
    cJSON *root = kb_json_read_file(path, err);
    if (!root) return -1;
    int rc = load_root(m, root, err);
    cJSON_Delete(root);
    return rc;
}

int kb_manifest_has_backend(const kb_manifest *m, const char *backend) {
    for (int i = 0; i < m->n_backends; ++i)
        if (strcmp(m->backends[i], backend) == 0) return 1;
    return 0;
}

const kb_case *kb_manifest_find_case(const kb_manifest *m, const char *name) {
    for (int i = 0; i < m->n_cases; ++i)
        if (strcmp(m->cases[i].name, name) == 0) return &m->cases[i];
    return NULL;
}

const kb_variant_spec *kb_manifest_variant(const kb_manifest *m, const char *variant) {
    for (int i = 0; variant && i < m->n_variants; ++i)
        if (strcmp(m->variants[i].name, variant) == 0) return &m->variants[i];
    return NULL;
}
