#include "measure/refcache.h"

#include <stdlib.h>
#include <string.h>

static int holds(const kb_ref_cache *rc, const kb_case *c, const kb_layout *l) {
    if (rc->c != c || rc->n_out != l->n_out) return 0;
    for (int i = 0; i < l->n_out; ++i)
        if (rc->count[i] != l->out[i].count) return 0;
    return 1;
}

int kb_ref_cache_lend(kb_ref_cache *rc, const kb_case *c, const kb_layout *l, double **out) {
    if (!rc || !c || !holds(rc, c, l)) return 0;
    for (int i = 0; i < l->n_out; ++i) out[i] = rc->out[i];
    rc->users++;
    return 1;
}

int kb_ref_cache_offer(kb_ref_cache *rc, const kb_case *c, const kb_layout *l, double **out) {
    if (!rc || !c || rc->users > 0) return 0;
    kb_ref_cache_clear(rc);
    rc->c = c;
    rc->n_out = l->n_out;
    for (int i = 0; i < l->n_out; ++i) {
        rc->count[i] = l->out[i].count;
        rc->out[i] = out[i];
    }
    rc->users = 1;
    return 1;
}

void kb_ref_cache_drop_idle(kb_ref_cache *rc) {
    if (rc && rc->users == 0) kb_ref_cache_clear(rc);
}

void kb_ref_cache_release(kb_ref_cache *rc) {
    if (rc && rc->users > 0) rc->users--;
}

void kb_ref_cache_clear(kb_ref_cache *rc) {
    if (!rc) return;
    for (int i = 0; i < rc->n_out; ++i) free(rc->out[i]);
    memset(rc, 0, sizeof *rc);
}
