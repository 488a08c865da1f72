/* kbench-baseline: checks baseline files and derives modified copies, the
 * latter for the gate's self-tests and its measurement script
 * (benchtests/tools/gate_targets.sh). */
#include "base/atomicfile.h"
#include "formats/baseline.h"
#include "formats/json_read.h"
#include "formats/json_write.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(FILE *f) {
    fprintf(f, "usage: kbench-baseline check [--kernel NAME] [--profile NAME] FILE...\n"
               "                                 validate as the driver does; with --kernel or\n"
               "                                 --profile, the file must belong to them\n"
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
    if (errno || end == arg || *end || !isfinite(value) || isspace((unsigned char)*arg)) {
        fprintf(stderr, "kbench-baseline: '%s' is not a number%s\n", arg,
                errno == ERANGE ? " kbench-baseline can use (out of range)" : "");
        return 2;
    }
    if (!*in || !*out) {
        fprintf(stderr, "kbench-baseline: the %s file name is empty\n", !*in ? "IN" : "OUT");
        return 2;
    }
    kb_err err;
    kb_baseline check;
    int opened = kb_baseline_open(&check, in, &err);
    if (opened != 0 || !check.root) {
        if (opened == 0) kb_fail(&err, "%s: no such file", in);
        fprintf(stderr, "kbench-baseline: %s\n", err.msg);
        return 2;
    }
    edit(check.root, kind, value);
    /* What is written must be a baseline the driver accepts. */
    if (kb_baseline_validate(check.root, out, NULL, NULL, &err) != 0) {
        fprintf(stderr, "kbench-baseline: the edited copy would be invalid: %s\n", err.msg);
        kb_baseline_close(&check);
        return 2;
    }
    char *text = kb_json_print(check.root);
    kb_baseline_close(&check);
    int rc = text ? kb_write_file_atomic(out, text, &err) : kb_fail(&err, "out of memory");
    free(text);
    if (rc != 0) fprintf(stderr, "kbench-baseline: %s\n", err.msg);
    return rc != 0 ? 2 : 0;
}

/* One value of --kernel / --profile: given once, not empty. */
static int option_value(const char *opt, const char *value, const char **out) {
    if (!value) {
        fprintf(stderr, "kbench-baseline: check: option %s needs a NAME\n", opt);
        return -1;
    }
    if (*out) {
        fprintf(stderr, "kbench-baseline: check: option %s given twice\n", opt);
        return -1;
    }
    if (!*value) {
        fprintf(stderr, "kbench-baseline: check: option %s: the NAME is empty\n", opt);
        return -1;
    }
    *out = value;
    return 0;
}

/* check [--kernel NAME] [--profile NAME] FILE...: the driver's validation
 * (kb_baseline_open_for), so what passes here opens there. The options may
 * come anywhere; after "--" every argument is a FILE. */
static int check_files(int argc, char **argv) {
    const char *kernel = NULL, *profile = NULL;
    int n_files = 0, options_end = argc;
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            n_files += argc - i - 1;
            options_end = i;
            break;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) return usage(stdout);
        if (strcmp(a, "--kernel") == 0 || strcmp(a, "--profile") == 0) {
            if (option_value(a, i + 1 < argc ? argv[i + 1] : NULL,
                             a[2] == 'k' ? &kernel : &profile) != 0)
                return usage(stderr);
            ++i;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "kbench-baseline: check: unknown option '%s'\n", a);
            return usage(stderr);
        } else {
            ++n_files;
        }
    }
    if (!n_files) {
        fprintf(stderr, "kbench-baseline: check needs a FILE\n");
        return usage(stderr);
    }
    int bad = 0;
    for (int i = 0; i < argc; ++i) {
        if (i < options_end &&
            (strcmp(argv[i], "--kernel") == 0 || strcmp(argv[i], "--profile") == 0)) {
            ++i;
            continue;
        }
        if (i == options_end) continue; /* the "--" */
        kb_err err;
        kb_baseline b;
        if (!*argv[i]) {
            fprintf(stderr, "kbench-baseline: check: a FILE argument is empty\n");
            ++bad;
            continue;
        }
        if (kb_baseline_open_for(&b, argv[i], kernel, profile, &err) != 0) {
            fprintf(stderr, "%s\n", err.msg);
            ++bad;
        } else if (!b.root) {
            fprintf(stderr, "%s: no such file\n", argv[i]);
            ++bad;
        } else {
            printf("%s: ok (%d entries)\n", argv[i],
                   cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(b.root, "entries")));
        }
        kb_baseline_close(&b);
    }
    return bad ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0))
        return usage(stdout);
    if (argc >= 2 && strcmp(argv[1], "check") == 0) return check_files(argc - 2, argv + 2);
    static const struct {
        const char *name;
        edit_kind kind;
    } edits[] = {{"scale-ms", SCALE_MS}, {"shift-rmse", SHIFT_RMSE}, {"scale-probe", SCALE_PROBE}};
    kb_atomicfile_catch_signals(); /* an interrupted edit leaves no temporary file */
    for (size_t i = 0; argc >= 2 && i < sizeof edits / sizeof *edits; ++i) {
        if (strcmp(argv[1], edits[i].name) != 0) continue;
        if (argc == 5) return derive(edits[i].kind, argv[2], argv[3], argv[4]);
        fprintf(stderr, "kbench-baseline: %s takes 3 arguments, got %d\n", argv[1], argc - 2);
        return usage(stderr);
    }
    if (argc >= 2) fprintf(stderr, "kbench-baseline: unknown command '%s'\n", argv[1]);
    return usage(stderr);
}
