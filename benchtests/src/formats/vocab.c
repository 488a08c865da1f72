/* Lookups in vocab.h's table of backends, and a variant's key. */
#include "formats/vocab.h"

#include <stdio.h>
#include <string.h>

typedef struct backend_row {
    const char *name;
    int gpu;
} backend_row;

#define KB__BACKEND_ROW(id, name, gpu) {name, gpu},
static const backend_row rows[KB_BACKEND_N] = {KB_BACKEND_LIST(KB__BACKEND_ROW)};
#undef KB__BACKEND_ROW

static const backend_row *find(const char *name) {
    for (int i = 0; i < KB_BACKEND_N; ++i)
        if (strcmp(name, rows[i].name) == 0) return &rows[i];
    return NULL;
}

const char *kb_backend_name(kb_backend_id id) {
    return (unsigned)id < KB_BACKEND_N ? rows[id].name : "?";
}

int kb_backend_known(const char *name) {
    return find(name) != NULL;
}

int kb_backend_gpu(const char *name) {
    const backend_row *r = find(name);
    return r && r->gpu;
}

void kb_backend_expected(char *out, size_t size) {
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < KB_BACKEND_N && len < size; ++i) {
        const char *sep = i == 0 ? "" : i + 1 < KB_BACKEND_N ? ", " : " or ";
        len += (size_t)snprintf(out + len, size - len, "%s%s", sep, rows[i].name);
    }
}

void kb_variant_key(char *out, size_t size, const char *variant, int cold_cache) {
    snprintf(out, size, "%s%s", variant, cold_cache ? KB_KEY_SUFFIX_COLD : "");
}
