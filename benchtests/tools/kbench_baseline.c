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
               "       kbench-baseline shift-rmse DELTA IN OUT  add DELTA to every rmse\n");
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

/* Applies the edit to every member named like the target, at any depth. */
static void edit(cJSON *node, int scale_ms, double value) {
    for (cJSON *it = node->child; it; it = it->next) {
        if (it->string && scale_ms && ends_with(it->string, "_ms"))
            scale(it, value);
        else if (it->string && !scale_ms && strcmp(it->string, "rmse") == 0 && cJSON_IsNumber(it))
            cJSON_SetNumberValue(it, it->valuedouble + value);
        else
            edit(it, scale_ms, value);
    }
}

static int derive(int scale_ms, const char *arg, const char *in, const char *out) {
    char *end;
    errno = 0;
    double value = strtod(arg, &end);
    if (errno || end == arg || *end || !isfinite(value)) {
        fprintf(stderr, "kbench-baseline: '%s' is not a number\n", arg);
        return 2;
    }
    kb_err err;
    kb_baseline check;
    if (kb_baseline_open(&check, in, &err) != 0 || !check.root) {
        fprintf(stderr, "kbench-baseline: %s\n", check.root ? err.msg : "no such file");
        return 2;
    }
    edit(check.root, scale_ms, value);
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
    if (argc == 5 && strcmp(argv[1], "scale-ms") == 0) return derive(1, argv[2], argv[3], argv[4]);
    if (argc == 5 && strcmp(argv[1], "shift-rmse") == 0)
        return derive(0, argv[2], argv[3], argv[4]);
    return usage(stderr);
}
