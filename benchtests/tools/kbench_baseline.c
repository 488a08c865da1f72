/* kbench-baseline: checks baseline files and derives modified copies, the
 * latter for the gate's self-tests and its measurement script
 * (benchtests/tools/gate_targets.sh). */
#include "atomicfile.h"
#include "baseline.h"
#include "jsonutil.h"
#include "jsonw.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(FILE *f) {
    fprintf(f, "usage: kbench-baseline check FILE...\n"
               "       kbench-baseline scale-ms FACTOR IN OUT   multiply every *_ms value\n"
               "       kbench-baseline shift-rmse DELTA IN OUT  add DELTA to every rmse\n"
               "       kbench-baseline scale-probe FACTOR IN OUT\n"
               "                                 multiply every probe_* figure (the machine\n"
               "                                 probe at recording)\n");
    return f == stderr ? 2 : 0;
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void scale(cJSON *v, double factor) {
    if (cJSON_IsNumber(v)) {
        cJSON_SetNumberValue(v, v->valuedouble * factor);
        return;
    }
    for (cJSON *it = v->child; it; it = it->next) scale(it, factor);
}

typedef enum edit_kind { SCALE_MS, SHIFT_RMSE, SCALE_PROBE } edit_kind;

/* Whether member `it` is the target of the edit. */
static int targeted(const cJSON *it, edit_kind kind) {
    if (!it->string) return 0;
    switch (kind) {
    case SCALE_MS: return ends_with(it->string, "_ms");
    case SHIFT_RMSE: return strcmp(it->string, "rmse") == 0 && cJSON_IsNumber(it);
    case SCALE_PROBE: return strncmp(it->string, "probe_", 6) == 0 && cJSON_IsNumber(it);
    }
    return 0;
}

/* Applies the edit to every member named like the target, at any depth. */
static void edit(cJSON *node, edit_kind kind, double value) {
    for (cJSON *it = node->child; it; it = it->next) {
        if (!targeted(it, kind))
            edit(it, kind, value);
        else if (kind == SHIFT_RMSE)
            cJSON_SetNumberValue(it, it->valuedouble + value);
        else
            scale(it, value);
    }
}

static int derive(edit_kind kind, const char *arg, const char *in, const char *out) {
    char *end;
    errno = 0;
    double value = strtod(arg, &end);
    if (errno || end == arg || *end || !isfinite(value)) {
        fprintf(stderr, "kbench-baseline: '%s' is not a number\n", arg);
        return 2;
    }
    kb_err err;
    kb_baseline check;
    int opened = kb_baseline_open(&check, in, &err);
    if (opened != 0 || !check.root) {
        fprintf(stderr, "kbench-baseline: %s\n", opened != 0 ? err.msg : "no such file");
        return 2;
    }
    edit(check.root, kind, value);
    char *text = kb_json_print(check.root);
    kb_baseline_close(&check);
    int rc = text ? kb_write_file_atomic(out, text, &err) : kb_fail(&err, "out of memory");
    free(text);
    if (rc != 0) fprintf(stderr, "kbench-baseline: %s\n", err.msg);
    return rc != 0 ? 2 : 0;
}

static int check_files(int n, char **paths) {
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        kb_err err;
        kb_baseline b;
        if (kb_baseline_open(&b, paths[i], &err) != 0) {
            fprintf(stderr, "%s\n", err.msg);
            ++bad;
        } else if (!b.root) {
            fprintf(stderr, "%s: no such file\n", paths[i]);
            ++bad;
        } else {
            printf("%s: ok (%d entries)\n", paths[i],
                   cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(b.root, "entries")));
        }
        kb_baseline_close(&b);
    }
    return bad ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))
        return usage(stdout);
    if (argc >= 3 && strcmp(argv[1], "check") == 0) return check_files(argc - 2, argv + 2);
    static const struct {
        const char *name;
        edit_kind kind;
    } edits[] = {{"scale-ms", SCALE_MS}, {"shift-rmse", SHIFT_RMSE}, {"scale-probe", SCALE_PROBE}};
    for (size_t i = 0; argc == 5 && i < sizeof edits / sizeof *edits; ++i)
        if (strcmp(argv[1], edits[i].name) == 0)
            return derive(edits[i].kind, argv[2], argv[3], argv[4]);
    return usage(stderr);
}
