/* A case of a manifest and the kernel's declared tensors for it. */
#ifndef KB_CASE_H
#define KB_CASE_H

#include "kb/kernel.h"

/* Where kb_case_dim records the first dimension a kernel asked for but the
 * case does not define. */
typedef struct kb_case_miss {
    char dim[32];
} kb_case_miss;

struct kb_case {
    char name[64];
    int full; /* from the manifest's "full" set (opt-in, label full) */
    int n_dims;
    char dim_names[KB_MAX_DIMS][32];
    int64_t dims[KB_MAX_DIMS];
    kb_case_miss *miss; /* may be NULL */
};

/* Looks a dimension up without recording a miss; -1 when absent. */
int kb_case_find_dim(const kb_case *c, const char *name, int64_t *value);

#endif
