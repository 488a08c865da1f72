/* Implementations and backends that other files of a driver add at load
 * time: a kernel's GPU source registers its implementations, a GPU backend
 * registers itself. Both happen before main() and from one thread. */
#include "backend/backend.h"
#include "kb/kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BACKENDS 4

extern const kb_backend kb_backend_cpu;

static kb_impl impls[KB_MAX_IMPLS];
static int n_impls;
static const kb_backend *backends[MAX_BACKENDS] = {&kb_backend_cpu}; /* always built in */
static int n_backends = 1;

int kb_register_impl(const char *backend, const char *variant, kb_impl_fn fn) {
    if (n_impls == KB_MAX_IMPLS) return -1;
    impls[n_impls++] = (kb_impl){backend, variant, fn};
    return 0;
}

/* Runs before main(), where no error can be returned: a registration that
 * does not fit stops the driver instead of dropping the implementation. */
void kb__register_or_exit(const char *backend, const char *variant, kb_impl_fn fn,
                          const char *name) {
    if (kb_register_impl(backend, variant, fn) == 0) return;
    fprintf(stderr,
            "kbench: cannot register %s implementation '%s' (%s): the driver already has %d "
            "registered implementations (KB_MAX_IMPLS)\n",
            backend, variant, name, KB_MAX_IMPLS);
    exit(2);
}

const kb_impl *kb_registered_impl(int i) {
    return i >= 0 && i < n_impls ? &impls[i] : NULL;
}

int kb_backend_register(const kb_backend *b) {
    if (n_backends == MAX_BACKENDS) return -1;
    backends[n_backends++] = b;
    return 0;
}

const kb_backend *kb_backend_find(const char *name) {
    for (int i = 0; i < n_backends; ++i)
        if (strcmp(backends[i]->name, name) == 0) return backends[i];
    return NULL;
}
