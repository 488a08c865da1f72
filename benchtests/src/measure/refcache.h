/* The double-precision reference of the case last prepared, kept for the
 * case's other variants.
 *
 * Every variant of a case runs on the same inputs (the layout depends on the
 * case alone, the values on the seed), so their reference is the same: the
 * runner computes it for the first variant and lends it to the others. The
 * reference is most of a case's setup (long double libm in the elementwise
 * references, an O(n^3) loop in GEMM), and a variant that declines the case
 * (a vendor without the precision) would otherwise pay it for nothing. */
#ifndef KB_REFCACHE_H
#define KB_REFCACHE_H

#include "kb/kernel.h"

#include <stddef.h>

typedef struct kb_ref_cache {
    const kb_case *c; /* the case whose reference is held; NULL: none */
    int n_out;
    size_t count[KB_MAX_TENSORS];
    double *out[KB_MAX_TENSORS];
    int users; /* sessions reading it now */
} kb_ref_cache;

/* Lends the held reference into out[] when it is case c's with these output
 * counts (1; the caller is a user until kb_ref_cache_release), else 0. */
int kb_ref_cache_lend(kb_ref_cache *rc, const kb_case *c, const kb_layout *l, double **out);

/* Offers case c's freshly computed reference: taken (1; the caller is now a
 * user, and must not free out[]) unless the held one is still in use (0). */
int kb_ref_cache_offer(kb_ref_cache *rc, const kb_case *c, const kb_layout *l, double **out);

/* Frees the held reference unless a session reads it: called before a new
 * case's reference is allocated, so that two never coexist for nothing. */
void kb_ref_cache_drop_idle(kb_ref_cache *rc);

/* A user is done with the reference it was given or gave. */
void kb_ref_cache_release(kb_ref_cache *rc);

/* Frees the held reference (no user may be left). */
void kb_ref_cache_clear(kb_ref_cache *rc);

#endif
