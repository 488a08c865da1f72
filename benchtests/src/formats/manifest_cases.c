/* A manifest's cases: "cases" lists them, "sweep" spans the cartesian
 * product of its dims, "full" holds the opt-in set, and "threads" runs
 * each case once per thread count. Kept apart from the root's fields
 * (manifest.c) because expanding cases is its own job with its own
 * limits: dims, names and the case count. */
#include "formats/manifest_cases.h"

#include "base/affinity.h"
#include "formats/json_read.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

int kb_manifest_load_cases(kb_manifest *m, const cJSON *root, kb_err *err) {
    if (load_threads(m, root, "", &m->threads, err) != 0 || load_case_set(m, root, "", 0, err) != 0)
        return -1;
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
