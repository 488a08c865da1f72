#include "formats/case.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kb_case_find_dim(const kb_case *c, const char *name, int64_t *value) {
    for (int i = 0; i < c->n_dims; ++i) {
        if (strcmp(c->dim_names[i], name) == 0) {
            *value = c->dims[i];
            return 0;
        }
    }
    return -1;
}

static int name_char(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '_';
}

const char *kb_case_name_problem(const char *name) {
    size_t n = strlen(name);
    if (n == 0) return "is empty";
    if (n >= sizeof((kb_case *)0)->name) return "is longer than 63 characters";
    if (name[0] == '.' || name[0] == '-') return "starts with '.' or '-'";
    if (strstr(name, "..")) return "contains '..'";
    for (const char *p = name; *p; ++p)
        if (!name_char(*p) && *p != '.' && *p != '-')
            return "contains a character other than letters, digits, '_', '.' and '-' (no '/', "
                   "whitespace or control characters)";
    return NULL;
}

const char *kb_identifier_problem(const char *name, size_t size) {
    size_t n = strlen(name);
    if (n == 0) return "is empty";
    if (n >= size) return "is too long";
    if (name[0] >= '0' && name[0] <= '9') return "starts with a digit";
    for (const char *p = name; *p; ++p)
        if (!name_char(*p)) return "is not a plain identifier (letters, digits and '_')";
    return NULL;
}

int kb_case_elements(const kb_case *c, int64_t *product) {
    int64_t p = 1;
    for (int i = 0; i < c->n_dims; ++i) {
        /* dims are >= 1, so p stays >= 1 and the division is safe */
        if (c->dims[i] < 1 || c->dims[i] > KB_CASE_MAX_ELEMENTS / p) return -1;
        p *= c->dims[i];
    }
    *product = p;
    return 0;
}

void kb_case_format_dims(const kb_case *c, char *out, size_t size) {
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < c->n_dims && len < size; ++i)
        len += (size_t)snprintf(out + len, size - len, "%s%s=%lld", i ? " " : "", c->dim_names[i],
                                (long long)c->dims[i]);
}

int64_t kb_case_dim(const kb_case *c, const char *name) {
    int64_t v;
    if (kb_case_find_dim(c, name, &v) == 0) return v;
    if (c->miss && c->miss->dim[0] == '\0') snprintf(c->miss->dim, sizeof c->miss->dim, "%s", name);
    return 1;
}

const char *kb_case_name(const kb_case *c) {
    return c->name;
}

int kb_case_threads(const kb_case *c) {
    return c->threads > 1 ? c->threads : 1;
}

static void add_tensor(kb_tensor_spec *t, int *n, const char *name, size_t count, kb_dist dist,
                       double a, double b) {
    if (*n >= KB_MAX_TENSORS) {
        /* A kernel declaring more tensors than the harness supports is a
         * programming error in the kernel: stop loudly. */
        fprintf(stderr, "kbench: kernel declares more than %d tensors (at '%s')\n", KB_MAX_TENSORS,
                name);
        abort();
    }
    t[*n] = (kb_tensor_spec){name, count, dist, a, b};
    ++*n;
}

void kb_layout_input(kb_layout *l, const char *name, size_t count, kb_dist dist, double a,
                     double b) {
    add_tensor(l->in, &l->n_in, name, count, dist, a, b);
}

void kb_layout_output(kb_layout *l, const char *name, size_t count) {
    add_tensor(l->out, &l->n_out, name, count, KB_DIST_NORMAL, 0.0, 0.0);
}

void kb_layout_workspace(kb_layout *l, size_t bytes) {
    l->workspace_bytes = bytes;
}

static char unsupported_reason[512];

int kb_unsupported(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(unsupported_reason, sizeof unsupported_reason, fmt, ap);
    va_end(ap);
    return KB_UNSUPPORTED;
}

const char *kb_unsupported_reason(void) {
    return unsupported_reason;
}
