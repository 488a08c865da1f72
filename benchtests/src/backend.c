#include "backend.h"

#include <string.h>

extern const kb_backend kb_backend_cpu;

static const kb_backend *const backends[] = {&kb_backend_cpu};

const kb_backend *kb_backend_find(const char *name) {
    for (size_t i = 0; i < sizeof backends / sizeof *backends; ++i)
        if (strcmp(backends[i]->name, name) == 0) return backends[i];
    return kb__backend_registered(name);
}
