#include "formats/manifest.h"

#include "base/affinity.h"
#include "formats/expr.h"
#include "formats/json_read.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The largest FLOP count of one call: finite, and exact as an int64. */
#define MAX_FLOPS 9.2e18

static const char *const known_backends[] = {"cpu", "cuda", "hip", NULL};
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
        if (!one_of(it->valuestring, known_backends))
            return kb_fail(err,
                           "%s: field 'backends[%d]': unknown backend '%s' (expected cpu, cuda "
                           "or hip)",
                           m->path, i, it->valuestring);
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

/* ---- threads ------------------------------------------------------------- */

/* What a thread count may be, for messages. */
#define THREADS_EXPECTED "a whole number from 1 to 1024, or \"all\": every CPU the process may use"

/* One value of "threads" at `field`: a count or "all" (KB_THREADS_ALL). */
static int thread_value(const kb_manifest *m, const cJSON *v, const char *field, int *out,
                        kb_err *err) {
    if (cJSON_IsString(v) && strcmp(v->valuestring, "all") == 0) {
        *out = KB_THREADS_ALL;
        return 0;
    }
    if (cJSON_IsString(v))
        return kb_fail(err, "%s: field '%s': \"%.60s\" is not a thread count (expected %s)",
                       m->path, field, v->valuestring, THREADS_EXPECTED);
    const double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!(d >= 1.0 && d <= KB_MAX_THREADS && d == floor(d))) {
        if (cJSON_IsNumber(v))
            return kb_fail(err, "%s: field '%s': %.17g is not a thread count (expected %s)",
                           m->path, field, d, THREADS_EXPECTED);
        return kb_fail(err, "%s: field '%s': expected a thread count (%s)", m->path, field,
                       THREADS_EXPECTED);
    }
    *out = (int)d;
    return 0;
}

/* obj["threads"] into *spec, which stays as it is when obj has none: one
 * value, or a list of up to KB_MAX_THREAD_VALUES values, none twice.
 * `field` is obj's path ("" for the root, "cases[2]" for a case). */
static int load_threads(const kb_manifest *m, const cJSON *obj, const char *field,
                        kb_threads_spec *spec, kb_err *err) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "threads");
    if (!v) return 0;
    char at[96];
    snprintf(at, sizeof at, "%s%sthreads", field, *field ? "." : "");
    kb_threads_spec s = {0};
    if (!cJSON_IsArray(v)) {
        s.n = 1;
        if (thread_value(m, v, at, &s.value[0], err) != 0) return -1;
        *spec = s;
        return 0;
    }
    if (cJSON_GetArraySize(v) == 0)
        return kb_fail(err, "%s: field '%s': an empty list (give one or more thread counts)",
                       m->path, at);
    if (cJSON_GetArraySize(v) > KB_MAX_THREAD_VALUES)
        return kb_fail(err, "%s: field '%s': %d thread counts, more than %d", m->path, at,
                       cJSON_GetArraySize(v), KB_MAX_THREAD_VALUES);
    for (const cJSON *it = v->child; it; it = it->next, ++s.n) {
        char elem[112];
        snprintf(elem, sizeof elem, "%s[%d]", at, s.n);
        if (thread_value(m, it, elem, &s.value[s.n], err) != 0) return -1;
        for (int j = 0; j < s.n; ++j)
            if (s.value[j] == s.value[s.n]) {
                char what[16] = "\"all\"";
                if (s.value[j] != KB_THREADS_ALL) snprintf(what, sizeof what, "%d", s.value[j]);
                return kb_fail(err, "%s: field '%s': %s is listed twice (also as '%s[%d]')",
                               m->path, elem, what, at, j);
            }
    }
    *spec = s;
    return 0;
}

/* The count "all" stands for: the CPUs the process was allowed when it
 * started, or, where the platform cannot tell, the CPUs online. */
static int all_cpus(void) {
    const int n = kb_affinity_start()->n;
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : online > 0 && online <= KB_MAX_THREADS ? (int)online : 1;
}

/* ---- cases --------------------------------------------------------------- */

static int add_dim(kb_manifest *m, kb_case *c, const char *name, const cJSON *v, const char *field,
                   kb_err *err) {
    char full[160];
    snprintf(full, sizeof full, "%s.%.60s", field, name);
    const char *why = kb_identifier_problem(name, sizeof c->dim_names[0]);
    if (!why && (strcmp(name, "elem") == 0 || strcmp(name, "acc") == 0))
        why = "is reserved for the expressions ('elem' and 'acc' are the precision's sizes)";
    if (why) return kb_fail(err, "%s: field '%s': dim name '%s' %s", m->path, full, name, why);
    if (c->n_dims == KB_MAX_DIMS)
        return kb_fail(err, "%s: field '%s': more than %d dims", m->path, field, KB_MAX_DIMS);
    int64_t value;
    if (kb_json_int_value(v, 1, KB_CASE_MAX_ELEMENTS, &value, m->path, full, err) != 0) return -1;
    strcpy(c->dim_names[c->n_dims], name);
    c->dims[c->n_dims++] = value;
    return 0;
}

/* The dims of a complete case: their product bounds what its tensors hold. */
static int check_elements(const kb_manifest *m, const kb_case *c, const char *field, kb_err *err) {
    int64_t product;
    if (kb_case_elements(c, &product) == 0) return 0;
    char dims[256];
    kb_case_format_dims(c, dims, sizeof dims);
    return kb_fail(err,
                   "%s: field '%s': case '%s': dims %s: their product exceeds %lld elements "
                   "(2^53), more than any buffer can hold",
                   m->path, field, c->name, dims, (long long)KB_CASE_MAX_ELEMENTS);
}

static kb_case *new_case(kb_manifest *m, int full, const char *field, kb_err *err) {
    if (m->n_cases == KB_MAX_CASES) {
        kb_fail(err, "%s: field '%s': more than %d cases in all", m->path, field, KB_MAX_CASES);
        return NULL;
    }
    kb_case *c = &m->cases[m->n_cases++];
    memset(c, 0, sizeof *c);
    c->full = full;
    return c;
}

/* The case just added (the last one), once per thread count of spec:
 * under its own name when there is one count, else as <name>_t<count>
 * (<name>_tall for "all"), so that the name says which it runs. */
static int expand_threads(kb_manifest *m, const kb_threads_spec *spec, const char *field,
                          kb_err *err) {
    const kb_case base = m->cases[m->n_cases - 1];
    const int n = spec->n > 0 ? spec->n : 1;
    for (int i = 0; i < n; ++i) {
        kb_case *c = i == 0 ? &m->cases[m->n_cases - 1] : new_case(m, base.full, field, err);
        if (!c) return -1;
        *c = base;
        const int v = spec->n > 0 ? spec->value[i] : 1;
        c->threads_all = v == KB_THREADS_ALL;
        c->threads = c->threads_all ? all_cpus() : v;
        if (n == 1) continue;
        char suffix[16];
        if (c->threads_all)
            snprintf(suffix, sizeof suffix, "_tall");
        else
            snprintf(suffix, sizeof suffix, "_t%d", v);
        const size_t len = strlen(base.name);
        if (len + strlen(suffix) >= sizeof c->name)
            return kb_fail(err,
                           "%s: field '%s': case '%s' with its thread count ('%s') makes a name "
                           "longer than %zu characters",
                           m->path, field, base.name, suffix, sizeof c->name - 1);
        memcpy(c->name + len, suffix, strlen(suffix) + 1);
    }
    return 0;
}

static int load_case(kb_manifest *m, const cJSON *it, const char *field, int full, kb_err *err) {
    static const char *const keys[] = {"name", "dims", "threads", NULL};
    if (!cJSON_IsObject(it))
        return kb_fail(err, "%s: field '%s': expected an object with 'name' and 'dims'", m->path,
                       field);
    kb_case *c = new_case(m, full, field, err);
    if (!c || kb_json_known_keys(it, keys, m->path, field, err) != 0 ||
        kb_json_string(it, "name", 1, c->name, sizeof c->name, m->path, field, err) != 0)
        return -1;
    const char *why = kb_case_name_problem(c->name);
    if (why)
        return kb_fail(err, "%s: field '%s.name': case name '%s' %s", m->path, field, c->name, why);
    const cJSON *dims = cJSON_GetObjectItemCaseSensitive(it, "dims");
    if (!cJSON_IsObject(dims) || !dims->child)
        return kb_fail(err, "%s: field '%s.dims' (case '%s'): expected an object of integer dims",
                       m->path, field, c->name);
    char dims_field[96];
    snprintf(dims_field, sizeof dims_field, "%s.dims", field);
    for (const cJSON *d = dims->child; d; d = d->next)
        if (add_dim(m, c, d->string, d, dims_field, err) != 0)
            return kb_fail(err, "%s (case '%s')", err ? err->msg : "", c->name);
    /* the case's own "threads" replaces the kernel's */
    kb_threads_spec threads = m->threads;
    if (check_elements(m, c, dims_field, err) != 0 ||
        load_threads(m, it, field, &threads, err) != 0)
        return -1;
    return expand_threads(m, &threads, field, err);
}

/* prefix: "" for the default set, "full." for the full one. */
static int load_case_list(kb_manifest *m, const cJSON *arr, const char *prefix, int full,
                          kb_err *err) {
    int i = 0;
    for (const cJSON *it = arr->child; it; it = it->next) {
        char field[64];
        snprintf(field, sizeof field, "%scases[%d]", prefix, i++);
        if (load_case(m, it, field, full, err) != 0) return -1;
    }
    return 0;
}

/* One case of a sweep: the values at idx of every axis, named like
 * batch16_seq256. */
static int sweep_case(kb_manifest *m, const cJSON *const *axes, const int *idx, int n_axes,
                      const char *field, int full, kb_err *err) {
    kb_case *c = new_case(m, full, field, err);
    if (!c) return -1;
    size_t len = 0;
    for (int a = 0; a < n_axes; ++a) {
        char at[128]; /* field is at most 63 characters */
        snprintf(at, sizeof at, "%.63s.%.40s[%d]", field, axes[a]->string, idx[a]);
        if (add_dim(m, c, axes[a]->string, cJSON_GetArrayItem(axes[a], idx[a]), field, err) != 0)
            return -1;
        len += (size_t)snprintf(c->name + len, sizeof c->name - len, "%s%s%lld", a ? "_" : "",
                                axes[a]->string, (long long)c->dims[a]);
        if (len >= sizeof c->name)
            return kb_fail(err, "%s: field '%s': sweep case name longer than %zu characters",
                           m->path, at, sizeof c->name - 1);
    }
    if (check_elements(m, c, field, err) != 0) return -1;
    return expand_threads(m, &m->threads, field, err);
}

/* "sweep": {"batch": [16, 32], "seq": [256]} -> the cartesian product. */
static int load_sweep(kb_manifest *m, const cJSON *sweep, const char *prefix, int full,
                      kb_err *err) {
    const cJSON *axes[KB_MAX_DIMS];
    int n_axes = 0, idx[KB_MAX_DIMS] = {0};
    char field[64];
    snprintf(field, sizeof field, "%ssweep", prefix);
    for (const cJSON *ax = sweep->child; ax; ax = ax->next) {
        if (!cJSON_IsArray(ax) || cJSON_GetArraySize(ax) == 0)
            return kb_fail(err, "%s: field '%s.%s': expected a non-empty array of integers",
                           m->path, field, ax->string);
        if (n_axes == KB_MAX_DIMS)
            return kb_fail(err, "%s: field '%s': more than %d dims", m->path, field, KB_MAX_DIMS);
        axes[n_axes++] = ax;
    }
    if (n_axes == 0) return kb_fail(err, "%s: field '%s': no dims", m->path, field);
    for (;;) {
        if (sweep_case(m, axes, idx, n_axes, field, full, err) != 0) return -1;
        int a = n_axes - 1;
        while (a >= 0 && ++idx[a] == cJSON_GetArraySize(axes[a])) idx[a--] = 0;
        if (a < 0) return 0;
    }
}

/* The cases of one set: "cases" (a list) and/or "sweep" of `obj`. */
static int load_case_set(kb_manifest *m, const cJSON *obj, const char *prefix, int full,
                         kb_err *err) {
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(obj, "cases");
    const cJSON *sweep = cJSON_GetObjectItemCaseSensitive(obj, "sweep");
    if (cases && !cJSON_IsArray(cases))
        return kb_fail(err, "%s: field '%scases': expected an array", m->path, prefix);
    if (sweep && !cJSON_IsObject(sweep))
        return kb_fail(err, "%s: field '%ssweep': expected an object of arrays", m->path, prefix);
    if (!cases && !sweep)
        return kb_fail(err, "%s: no cases%s%s: give '%scases' (a list) or '%ssweep'", m->path,
                       full ? " in " : "", full ? "'full'" : "", prefix, prefix);
    if (cases && load_case_list(m, cases, prefix, full, err) != 0) return -1;
    return sweep ? load_sweep(m, sweep, prefix, full, err) : 0;
}

static int load_cases(kb_manifest *m, const cJSON *root, kb_err *err) {
    if (load_case_set(m, root, "", 0, err) != 0) return -1;
    if (m->n_cases == 0)
        return kb_fail(err, "%s: field 'cases': no cases: give 'cases' (a list) or 'sweep'",
                       m->path);
    const cJSON *full = cJSON_GetObjectItemCaseSensitive(root, "full");
    if (!full) return 0;
    static const char *const keys[] = {"cases", "sweep", NULL};
    if (!cJSON_IsObject(full))
        return kb_fail(err, "%s: field 'full': expected an object with 'cases' and/or 'sweep'",
                       m->path);
    if (kb_json_known_keys(full, keys, m->path, "full", err) != 0) return -1;
    return load_case_set(m, full, "full.", 1, err);
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
        load_variants(m, root, err) != 0 || load_threads(m, root, "", &m->threads, err) != 0 ||
        load_cases(m, root, err) != 0 || load_calibration(m, root, err) != 0)
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

typedef struct count_ctx {
    const kb_case *c;
    double elem;
} count_ctx;

static int lookup_dim(void *ctx, const char *name, double *value) {
    const count_ctx *cc = ctx;
    int64_t v;
    if (strcmp(name, "elem") == 0 || strcmp(name, "acc") == 0) {
        *value = strcmp(name, "elem") == 0 ? cc->elem : cc->elem == 8.0 ? 8.0 : 4.0;
        return 0;
    }
    if (kb_case_find_dim(cc->c, name, &v) != 0) return -1;
    *value = (double)v;
    return 0;
}

const kb_variant_spec *kb_manifest_variant(const kb_manifest *m, const char *variant) {
    for (int i = 0; variant && i < m->n_variants; ++i)
        if (strcmp(m->variants[i].name, variant) == 0) return &m->variants[i];
    return NULL;
}

/* A count of case c: finite and in [min, max] (min exclusive when
 * `positive`): bytes are positive, flops may be 0 (a copy does no
 * arithmetic), neither is negative, NaN or inf. */
static int eval_count(const kb_manifest *m, const kb_case *c, kb_prec prec, const char *expr,
                      const char *field, int positive, double max, double *out, kb_err *err) {
    count_ctx cc = {c, (double)kb_prec_size(prec)};
    kb_err e;
    if (kb_expr_eval(expr, lookup_dim, &cc, out, &e) != 0)
        return kb_fail(err, "%s: field '%s' for case '%s' (%s): %s", m->path, field, c->name,
                       kb_prec_name(prec), e.msg);
    if ((positive ? *out > 0.0 : *out >= 0.0) && *out <= max) return 0;
    return kb_fail(err,
                   "%s: field '%s' for case '%s' (%s): \"%s\" evaluates to %g; expected a count "
                   "%s 0 and at most %g",
                   m->path, field, c->name, kb_prec_name(prec), expr, *out,
                   positive ? "above" : "of at least", max);
}

int kb_manifest_case_counts(const kb_manifest *m, const kb_case *c, kb_prec prec,
                            const char *variant, kb_counts *out, kb_err *err) {
    const kb_variant_spec *v = kb_manifest_variant(m, variant);
    char flops_field[96] = "flops", bytes_field[96] = "bytes", tr_field[96] = "transcendentals";
    const char *f = m->flops, *b = m->bytes;
    const kb_transcendentals *tr = &m->transc;
    if (v && *v->flops) {
        f = v->flops;
        snprintf(flops_field, sizeof flops_field, "variants.%s.flops", v->name);
    }
    if (v && *v->bytes) {
        b = v->bytes;
        snprintf(bytes_field, sizeof bytes_field, "variants.%s.bytes", v->name);
    }
    if (v && *v->transc.count) {
        tr = &v->transc;
        snprintf(tr_field, sizeof tr_field, "variants.%s.transcendentals", v->name);
    }
    memset(out, 0, sizeof *out);
    if (eval_count(m, c, prec, f, flops_field, 0, MAX_FLOPS, &out->flops_arith, err) != 0 ||
        eval_count(m, c, prec, b, bytes_field, 1, (double)KB_CASE_MAX_ELEMENTS, &out->bytes, err) !=
            0)
        return -1;
    out->flops = out->flops_arith;
    if (!*tr->count) return 0;
    char count_field[112];
    snprintf(count_field, sizeof count_field, "%s.count", tr_field);
    if (eval_count(m, c, prec, tr->count, count_field, 0, MAX_FLOPS, &out->transcendentals, err) !=
        0)
        return -1;
    out->has_transcendentals = 1;
    out->flops_each = tr->flops_each;
    out->flops = out->flops_arith + out->transcendentals * tr->flops_each;
    if (out->flops <= MAX_FLOPS) return 0;
    return kb_fail(err,
                   "%s: field '%s' for case '%s' (%s): %g flops + %g calls x %g flops each is "
                   "%g; expected at most %g",
                   m->path, tr_field, c->name, kb_prec_name(prec), out->flops_arith,
                   out->transcendentals, tr->flops_each, out->flops, MAX_FLOPS);
}

int kb_manifest_counts(const kb_manifest *m, const kb_case *c, kb_prec prec, const char *variant,
                       double *flops, double *bytes, kb_err *err) {
    kb_counts k;
    if (kb_manifest_case_counts(m, c, prec, variant, &k, err) != 0) return -1;
    *flops = k.flops;
    *bytes = k.bytes;
    return 0;
}
