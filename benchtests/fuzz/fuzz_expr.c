/* libFuzzer harness: kb_expr_eval, the manifest's flops/bytes expressions,
 * on arbitrary text, with the names a manifest's expressions see (a few
 * dims, elem, acc); every other name is unknown. */
#include "formats/expr.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int lookup(void *ctx, const char *name, double *value) {
    (void)ctx;
    static const struct {
        const char *name;
        double value;
    } names[] = {{"n", 4096},   {"rows", 1024},
                 {"cols", 256}, {"batch", 16},
                 {"seq", 256},  {"hidden", 768},
                 {"elem", 2},   {"acc", 4},
                 {"zero", 0},   {"big", 9.2233720368547758e18}};
    for (size_t i = 0; i < sizeof names / sizeof *names; ++i)
        if (strcmp(name, names[i].name) == 0) {
            *value = names[i].value;
            return 0;
        }
    return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* The manifest hands the reader a NUL-terminated string. */
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    double v = 0.0;
    kb_err err = {{0}};
    (void)kb_expr_eval(text, lookup, NULL, &v, &err);
    free(text);
    return 0;
}
