/* A case of a manifest and the kernel's declared tensors for it. */
#ifndef KB_CASE_H
#define KB_CASE_H

#include "kb/kernel.h"

#include <stddef.h>

/* The most elements a case may imply: the product of its dims, and the
 * manifest's byte count of every case, are at most this. It keeps every
 * size_t product a kernel or the harness forms from the dims (elements
 * times 8 bytes, a dim squared within the byte count) far from overflow,
 * and it is exact in a double. */
#define KB_CASE_MAX_ELEMENTS ((int64_t)1 << 53)

/* Where kb_case_dim records the first dimension a kernel asked for but the
 * case does not define. */
typedef struct kb_case_miss {
    char dim[32];
} kb_case_miss;

/* The most thread counts one "threads" list may hold, and the largest
 * count: one per CPU the harness can pin (affinity.h). */
#define KB_MAX_THREAD_VALUES 8
#define KB_MAX_THREADS       1024

struct kb_case {
    char name[64];
    int full;        /* from the manifest's "full" set (opt-in, label full) */
    int threads;     /* the threads it runs with (kb_case_threads); 0 is 1 */
    int threads_all; /* the manifest said "all": every CPU the process may use */
    int n_dims;
    char dim_names[KB_MAX_DIMS][32];
    int64_t dims[KB_MAX_DIMS];
    kb_case_miss *miss; /* may be NULL */
};

/* Looks a dimension up without recording a miss; -1 when absent. */
int kb_case_find_dim(const kb_case *c, const char *name, int64_t *value);

/* Why `name` cannot name a case (NULL when it can): case names become
 * parts of file names, baseline keys and CDash measurement names, so they
 * are 1 to 63 of [A-Za-z0-9_.-], not starting with '.' or '-', without "..".
 * Stricter on purpose than kb_name_problem (pathname.h), the rule for
 * profiles and test names, which allows any printable ASCII but '/' and '\\'. */
const char *kb_case_name_problem(const char *name);

/* Why `name` is not a plain identifier ([A-Za-z_][A-Za-z0-9_]*, shorter
 * than `size`): what kernel, variant and dim names must be. NULL when it is. */
const char *kb_identifier_problem(const char *name, size_t size);

/* The product of the case's dims; -1 when it exceeds KB_CASE_MAX_ELEMENTS. */
int kb_case_elements(const kb_case *c, int64_t *product);

/* "rows=1024 cols=256" into out. */
void kb_case_format_dims(const kb_case *c, char *out, size_t size);

#endif
