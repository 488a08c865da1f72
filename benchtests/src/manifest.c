#include "manifest.h"

#include "expr.h"
#include "jsonutil.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

static const char *const known_backends[] = {"cpu", "cuda", "hip"};

static int load_backends(kb_manifest *m, const cJSON *root, kb_err *err) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "backends");
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0)
        return kb_fail(err, "%s: field 'backends': expected a non-empty array of names", m->path);
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        int known = 0;
        for (size_t k = 0; k < sizeof known_backends / sizeof *known_backends; ++k)
            known |= cJSON_IsString(it) && strcmp(it->valuestring, known_backends[k]) == 0;
        if (!known)
            return kb_fail(err,
                           "%s: field 'backends[%d]': unknown backend %s%s%s "
                           "(expected cpu, cuda or hip)",
                           m->path, i, cJSON_IsString(it) ? "'" : "",
                           cJSON_IsString(it) ? it->valuestring : "(not a string)",
                           cJSON_IsString(it) ? "'" : "");
        if (m->n_backends == KB_MAX_BACKENDS)
            return kb_fail(err, "%s: field 'backends': too many entries", m->path);
        snprintf(m->backends[m->n_backends++], sizeof m->backends[0], "%s", it->valuestring);
        ++i;
    }
    return 0;
}

static int load_precisions(kb_manifest *m, const cJSON *root, kb_err *err) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "precisions");
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0)
        return kb_fail(err, "%s: field 'precisions': expected a non-empty array of names", m->path);
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        int p = cJSON_IsString(it) ? kb_prec_parse(it->valuestring) : -1;
        if (p < 0)
            return kb_fail(err,
                           "%s: field 'precisions[%d]': unknown precision '%s' "
                           "(expected fp64, fp32, fp16 or bf16)",
                           m->path, i, cJSON_IsString(it) ? it->valuestring : "(not a string)");
        m->precisions |= 1u << p;
        ++i;
    }
    return 0;
}

static int load_tolerance(kb_manifest *m, const cJSON *root, kb_err *err) {
    const cJSON *tol = cJSON_GetObjectItemCaseSensitive(root, "tolerance");
    if (!cJSON_IsObject(tol))
        return kb_fail(err, "%s: field 'tolerance': expected an object keyed by precision",
                       m->path);
    const cJSON *it;
    cJSON_ArrayForEach(it, tol) {
        int p = kb_prec_parse(it->string);
        if (p < 0)
            return kb_fail(err, "%s: field 'tolerance.%s': unknown precision", m->path, it->string);
        char field[64];
        snprintf(field, sizeof field, "tolerance.%s", it->string);
        kb_tolerance *t = &m->tol[p];
        if (kb_json_number(it, "rmse", 1, &t->rmse, m->path, field, err) != 0) return -1;
        t->max_abs = -1.0;
        if (kb_json_number(it, "max_abs", 0, &t->max_abs, m->path, field, err) != 0) return -1;
        if (t->rmse < 0.0)
            return kb_fail(err, "%s: field '%s.rmse': must not be negative", m->path, field);
        t->present = 1;
    }
    for (int p = 0; p < KB_PREC_COUNT; ++p)
        if ((m->precisions & (1u << p)) && !m->tol[p].present)
            return kb_fail(err,
                           "%s: field 'tolerance.%s': missing (the kernel lists %s in "
                           "'precisions')",
                           m->path, kb_prec_name((kb_prec)p), kb_prec_name((kb_prec)p));
    return 0;
}

static int add_dim(kb_manifest *m, kb_case *c, const char *name, const cJSON *v, const char *field,
                   kb_err *err) {
    if (!cJSON_IsNumber(v) || v->valuedouble < 1 ||
        v->valuedouble != (double)(int64_t)v->valuedouble)
        return kb_fail(err, "%s: field '%s.%s': expected a positive integer", m->path, field, name);
    if (c->n_dims == KB_MAX_DIMS)
        return kb_fail(err, "%s: field '%s': more than %d dims", m->path, field, KB_MAX_DIMS);
    if (strlen(name) >= sizeof c->dim_names[0])
        return kb_fail(err, "%s: field '%s.%s': dim name too long", m->path, field, name);
    strcpy(c->dim_names[c->n_dims], name);
    c->dims[c->n_dims++] = (int64_t)v->valuedouble;
    return 0;
}

static kb_case *new_case(kb_manifest *m, int full, kb_err *err) {
    if (m->n_cases == KB_MAX_CASES) {
        kb_fail(err, "%s: more than %d cases", m->path, KB_MAX_CASES);
        return NULL;
    }
    kb_case *c = &m->cases[m->n_cases++];
    memset(c, 0, sizeof *c);
    c->full = full;
    return c;
}

/* prefix: "" for the default set, "full." for the full one. */
static int load_case_list(kb_manifest *m, const cJSON *arr, const char *prefix, int full,
                          kb_err *err) {
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        char field[64];
        snprintf(field, sizeof field, "%scases[%d]", prefix, i++);
        kb_case *c = new_case(m, full, err);
        if (!c) return -1;
        if (kb_json_string(it, "name", 1, c->name, sizeof c->name, m->path, field, err) != 0)
            return -1;
        const cJSON *dims = cJSON_GetObjectItemCaseSensitive(it, "dims");
        if (!cJSON_IsObject(dims) || !dims->child)
            return kb_fail(err, "%s: field '%s.dims': expected an object of integer dims", m->path,
                           field);
        strcat(field, ".dims");
        const cJSON *d;
        cJSON_ArrayForEach(d, dims) if (add_dim(m, c, d->string, d, field, err) != 0) return -1;
    }
    return 0;
}

/* "sweep": {"batch": [16, 32], "seq": [256]} -> the cartesian product, each
 * case named like batch16_seq256. */
static int load_sweep(kb_manifest *m, const cJSON *sweep, const char *prefix, int full,
                      kb_err *err) {
    const cJSON *axes[KB_MAX_DIMS];
    int n_axes = 0, idx[KB_MAX_DIMS] = {0};
    char field[64];
    snprintf(field, sizeof field, "%ssweep", prefix);
    const cJSON *ax;
    cJSON_ArrayForEach(ax, sweep) {
        if (!cJSON_IsArray(ax) || cJSON_GetArraySize(ax) == 0)
            return kb_fail(err, "%s: field '%s.%s': expected a non-empty array of integers",
                           m->path, field, ax->string);
        if (n_axes == KB_MAX_DIMS)
            return kb_fail(err, "%s: field '%s': more than %d dims", m->path, field, KB_MAX_DIMS);
        axes[n_axes++] = ax;
    }
    if (n_axes == 0) return kb_fail(err, "%s: field '%s': no dims", m->path, field);
    for (;;) {
        kb_case *c = new_case(m, full, err);
        if (!c) return -1;
        size_t len = 0;
        for (int a = 0; a < n_axes; ++a) {
            const cJSON *v = cJSON_GetArrayItem(axes[a], idx[a]);
            if (add_dim(m, c, axes[a]->string, v, field, err) != 0) return -1;
            len += (size_t)snprintf(c->name + len, sizeof c->name - len, "%s%s%lld", a ? "_" : "",
                                    axes[a]->string, (long long)c->dims[a]);
            if (len >= sizeof c->name) return kb_fail(err, "%s: sweep case name too long", m->path);
        }
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
        return kb_fail(err, "%s: no cases: give 'cases' (a list) or 'sweep'", m->path);
    const cJSON *full = cJSON_GetObjectItemCaseSensitive(root, "full");
    if (!full) return 0;
    if (!cJSON_IsObject(full))
        return kb_fail(err, "%s: field 'full': expected an object with 'cases' and/or 'sweep'",
                       m->path);
    return load_case_set(m, full, "full.", 1, err);
}

/* "variants": {"fused": {"bytes": "...", "flops": "...", "compare_to": "unfused"}} */
static int load_variant(kb_manifest *m, const cJSON *it, kb_err *err) {
    if (m->n_variants == KB_MAX_IMPLS)
        return kb_fail(err, "%s: field 'variants': more than %d", m->path, KB_MAX_IMPLS);
    kb_variant_spec *v = &m->variants[m->n_variants++];
    char field[96];
    snprintf(field, sizeof field, "variants.%s", it->string);
    if (!cJSON_IsObject(it))
        return kb_fail(err, "%s: field '%s': expected an object", m->path, field);
    if (strlen(it->string) == 0 || strlen(it->string) >= sizeof v->name)
        return kb_fail(err, "%s: field '%s': name empty or too long", m->path, field);
    snprintf(v->name, sizeof v->name, "%s", it->string);
    if (kb_json_string(it, "flops", 0, v->flops, sizeof v->flops, m->path, field, err) != 0 ||
        kb_json_string(it, "bytes", 0, v->bytes, sizeof v->bytes, m->path, field, err) != 0 ||
        kb_json_string(it, "compare_to", 0, v->compare_to, sizeof v->compare_to, m->path, field,
                       err) != 0)
        return -1;
    return 0;
}

static int load_variants(kb_manifest *m, const cJSON *root, kb_err *err) {
    const cJSON *variants = cJSON_GetObjectItemCaseSensitive(root, "variants");
    if (!variants) return 0;
    if (!cJSON_IsObject(variants))
        return kb_fail(err, "%s: field 'variants': expected an object keyed by variant", m->path);
    const cJSON *it;
    cJSON_ArrayForEach(it, variants) if (load_variant(m, it, err) != 0) return -1;
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

/* "calibration": ["copy_n16M", ...]: default-set cases whose GB/s is the
 * backend's attainable bandwidth (docs/calibration.md). */
static int load_calibration(kb_manifest *m, const cJSON *root, kb_err *err) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "calibration");
    if (!arr) return 0;
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) == 0)
        return kb_fail(err, "%s: field 'calibration': expected a non-empty array of case names",
                       m->path);
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        const kb_case *c = cJSON_IsString(it) ? kb_manifest_find_case(m, it->valuestring) : NULL;
        if (!c || c->full)
            return kb_fail(err, "%s: field 'calibration[%d]': not a case of the default set",
                           m->path, i);
        m->calibration[m->n_calibration++] = c;
        ++i;
    }
    return 0;
}

/* Unique names, and counts that evaluate for every case and variant. */
static int check_cases(kb_manifest *m, kb_err *err) {
    for (int i = 0; i < m->n_cases; ++i) {
        for (int j = 0; j < i; ++j)
            if (strcmp(m->cases[i].name, m->cases[j].name) == 0)
                return kb_fail(err, "%s: case name '%s' appears twice", m->path, m->cases[i].name);
        double f, b;
        if (kb_manifest_counts(m, &m->cases[i], KB_FP32, NULL, &f, &b, err) != 0) return -1;
        for (int v = 0; v < m->n_variants; ++v)
            if (kb_manifest_counts(m, &m->cases[i], KB_FP32, m->variants[v].name, &f, &b, err) != 0)
                return -1;
    }
    return 0;
}

static int load_root(kb_manifest *m, const cJSON *root, kb_err *err) {
    if (!cJSON_IsObject(root)) return kb_fail(err, "%s: expected a JSON object", m->path);
    if (kb_json_string(root, "name", 1, m->name, sizeof m->name, m->path, "", err) != 0 ||
        kb_json_string(root, "description", 0, m->description, sizeof m->description, m->path, "",
                       err) != 0 ||
        kb_json_string(root, "flops", 1, m->flops, sizeof m->flops, m->path, "", err) != 0 ||
        kb_json_string(root, "bytes", 1, m->bytes, sizeof m->bytes, m->path, "", err) != 0)
        return -1;
    if (load_backends(m, root, err) != 0 || load_precisions(m, root, err) != 0 ||
        load_tolerance(m, root, err) != 0 || load_variants(m, root, err) != 0 ||
        load_cases(m, root, err) != 0 || load_calibration(m, root, err) != 0)
        return -1;
    return check_cases(m, err);
}

int kb_manifest_load(kb_manifest *m, const char *path, kb_err *err) {
    memset(m, 0, sizeof *m);
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

static int eval_count(const kb_manifest *m, const kb_case *c, kb_prec prec, const char *expr,
                      const char *field, double *out, kb_err *err) {
    count_ctx cc = {c, (double)kb_prec_size(prec)};
    kb_err e;
    if (kb_expr_eval(expr, lookup_dim, &cc, out, &e) != 0)
        return kb_fail(err, "%s: field '%s' for case '%s': %s", m->path, field, c->name, e.msg);
    return 0;
}

int kb_manifest_counts(const kb_manifest *m, const kb_case *c, kb_prec prec, const char *variant,
                       double *flops, double *bytes, kb_err *err) {
    const kb_variant_spec *v = kb_manifest_variant(m, variant);
    char flops_field[96] = "flops", bytes_field[96] = "bytes";
    const char *f = m->flops, *b = m->bytes;
    if (v && *v->flops) {
        f = v->flops;
        snprintf(flops_field, sizeof flops_field, "variants.%s.flops", v->name);
    }
    if (v && *v->bytes) {
        b = v->bytes;
        snprintf(bytes_field, sizeof bytes_field, "variants.%s.bytes", v->name);
    }
    return eval_count(m, c, prec, f, flops_field, flops, err) ||
                   eval_count(m, c, prec, b, bytes_field, bytes, err)
               ? -1
               : 0;
}
