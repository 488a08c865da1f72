#include "formats/variantcheck.h"

#include "formats/vocab.h"

#include <stdio.h>
#include <string.h>

/* The implementations of declared backends, as "cpu fused, cpu unfused". */
static void implemented(const kb_manifest *m, const kb_impl *const *impls, int n, char *out,
                        size_t size) {
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n && len < size; ++i)
        if (kb_manifest_has_backend(m, impls[i]->backend))
            len += (size_t)snprintf(out + len, size - len, "%s%s %s", len ? ", " : "",
                                    impls[i]->backend, impls[i]->variant);
    if (!out[0]) snprintf(out, size, "none");
}

static void listed(const kb_manifest *m, char *out, size_t size) {
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < m->n_variants && len < size; ++i)
        len += (size_t)snprintf(out + len, size - len, "%s%s", i ? ", " : "", m->variants[i].name);
}

/* Whether every implementation of `b` is in this driver: the kernel's C
 * implementations are in each of its drivers, a GPU source only in the
 * driver of its backend, which registered its implementations. */
static int linked(const char *b, const char *backend, const kb_impl *const *impls, int n) {
    if (!kb_backend_gpu(b) || strcmp(b, backend) == 0) return 1;
    for (int i = 0; i < n; ++i)
        if (strcmp(impls[i]->backend, b) == 0) return 1;
    return 0;
}

static int all_backends_linked(const kb_manifest *m, const char *backend,
                               const kb_impl *const *impls, int n) {
    for (int b = 0; b < m->n_backends; ++b)
        if (!linked(m->backends[b], backend, impls, n)) return 0;
    return 1;
}

static int has_variant(const kb_manifest *m, const kb_impl *const *impls, int n,
                       const char *variant) {
    for (int i = 0; i < n; ++i)
        if (kb_manifest_has_backend(m, impls[i]->backend) &&
            strcmp(impls[i]->variant, variant) == 0)
            return 1;
    return 0;
}

int kb_check_variants(const kb_manifest *m, const char *backend, const kb_impl *const *impls,
                      int n_impls, kb_err *err) {
    if (m->n_variants == 0) return 0; /* nothing to override, nothing to lose */
    char have[512], names[512];       /* for the messages only */
    /* An implementation without an entry runs with the kernel's counts and
     * no comparison: the entry meant for it is misspelt or missing. */
    for (int i = 0; i < n_impls; ++i)
        if (kb_manifest_has_backend(m, impls[i]->backend) &&
            !kb_manifest_variant(m, impls[i]->variant)) {
            implemented(m, impls, n_impls, have, sizeof have);
            listed(m, names, sizeof names);
            return kb_fail(err,
                           "%s: field 'variants.%s': missing: the %s implementation has this "
                           "variant, and 'variants' names every variant when given "
                           "(implemented: %s; listed: %s; a misspelt name?)",
                           m->path, impls[i]->variant, impls[i]->backend, have, names);
        }
    /* An entry no implementation has: certain only when every declared
     * backend's implementations are here to ask. */
    if (!all_backends_linked(m, backend, impls, n_impls)) return 0;
    for (int v = 0; v < m->n_variants; ++v)
        if (!has_variant(m, impls, n_impls, m->variants[v].name)) {
            implemented(m, impls, n_impls, have, sizeof have);
            return kb_fail(err,
                           "%s: field 'variants.%s': no implementation has this variant "
                           "(implemented: %s; a misspelt name?)",
                           m->path, m->variants[v].name, have);
        }
    return 0;
}
