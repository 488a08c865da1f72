#include "run/speedup.h"

#include <string.h>

static int measured(const kb_case_result *r) {
    return !r->error && !r->skipped && r->measured.stats.median > 0.0;
}

static const kb_case_result *partner(const kb_case_result *res, int n, const kb_case_result *r,
                                     const char *variant) {
    for (int i = 0; i < n; ++i)
        if (res[i].c == r->c && strcmp(res[i].impl_variant, variant) == 0 && measured(&res[i]))
            return &res[i];
    return NULL;
}

void kb_compare_variants(const kb_manifest *m, kb_case_result *res, int n) {
    for (int i = 0; i < n; ++i) {
        kb_case_result *r = &res[i];
        const kb_variant_spec *v = kb_manifest_variant(m, r->impl_variant);
        if (!v || !*v->compare_to || !measured(r)) continue;
        const kb_case_result *o = partner(res, n, r, v->compare_to);
        if (!o) continue;
        r->measured.cmp.with = o->impl_variant;
        r->measured.cmp.speedup = o->measured.stats.median / r->measured.stats.median;
        r->measured.cmp.with_bytes = o->bytes;
        r->measured.cmp.bytes_saved = o->bytes > 0.0 ? 1.0 - r->bytes / o->bytes : 0.0;
    }
}

void kb_compare_vendor(kb_case_result *res, int n) {
    for (int i = 0; i < n; ++i) {
        kb_case_result *r = &res[i];
        r->measured.vendor_speedup = -1.0;
        if (strcmp(r->impl_variant, KB_VENDOR_VARIANT) == 0 || !measured(r)) continue;
        const kb_case_result *v = partner(res, n, r, KB_VENDOR_VARIANT);
        if (v) r->measured.vendor_speedup = v->measured.stats.median / r->measured.stats.median;
    }
}
