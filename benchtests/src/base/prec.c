#include "kb/prec.h"

#include <string.h>

static const char *const names[KB_PREC_COUNT] = {"fp64", "fp32", "fp16", "bf16"};
static const size_t sizes[KB_PREC_COUNT] = {8, 4, 2, 2};

const char *kb_prec_name(kb_prec p) {
    return (unsigned)p < KB_PREC_COUNT ? names[p] : NULL;
}

int kb_prec_parse(const char *name) {
    for (int i = 0; i < KB_PREC_COUNT; ++i)
        if (name && strcmp(name, names[i]) == 0) return i;
    return -1;
}

size_t kb_prec_size(kb_prec p) {
    return (unsigned)p < KB_PREC_COUNT ? sizes[p] : 0;
}
