/* kbench-report: the run report. Reads every <test>.json a ctest run left in
 * the results directory, prints one table of all cases (failures first) and
 * writes summary.json, summary.md, regressions.md and summary.svg into the
 * report directory. The parts are in report/ (summary.h). */
#define _GNU_SOURCE
#include "atomicfile.h"
#include "report/summary.h"

#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int usage(FILE *f) {
    fprintf(f, "usage: kbench-report RESULTS_DIR [--out DIR]\n"
               "  RESULTS_DIR  the results of a ctest run (build/kbench-results)\n"
               "  --out DIR    where to write summary.json, summary.md, regressions.md and\n"
               "               summary.svg (default: RESULTS_DIR/../kbench-report)\n"
               "Prints every case, failed ones first. Exit 0 when every result was read\n"
               "(whether or not tests failed), 2 when one could not be or none was there.\n");
    return f == stderr ? 2 : 0;
}

typedef struct args {
    const char *results, *out;
    int help;
} args;

static int bad_args(const char *what, const char *arg) {
    fprintf(stderr, "kbench-report: %s%s%s\n", what, arg ? arg : "", arg ? "'" : "");
    return -1;
}

static int parse(int argc, char **argv, args *a) {
    memset(a, 0, sizeof *a);
    for (int i = 1; i < argc; ++i) {
        const char *s = argv[i];
        if (strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0)
            a->help = 1;
        else if (strcmp(s, "--out") == 0 && i + 1 < argc && !a->out)
            a->out = argv[++i];
        else if (strncmp(s, "--out=", 6) == 0 && s[6] && !a->out)
            a->out = s + 6;
        else if (s[0] != '-' && !a->results)
            a->results = s;
        else
            return bad_args("unexpected argument '", s);
    }
    return a->results || a->help ? 0 : bad_args("no RESULTS_DIR", NULL);
}

/* RESULTS_DIR/../kbench-report, spelled as the parent directory (literally
 * when RESULTS_DIR ends in "." or "..", whose dirname is not the parent). */
static void default_out(const char *results, char *out, size_t size) {
    char copy[KB_PATH_MAX];
    snprintf(copy, sizeof copy, "%s", results);
    size_t n = strlen(copy);
    while (n > 1 && copy[n - 1] == '/') copy[--n] = '\0';
    const char *last = strrchr(copy, '/') ? strrchr(copy, '/') + 1 : copy;
    if (strcmp(last, ".") == 0 || strcmp(last, "..") == 0)
        snprintf(out, size, "%s/../kbench-report", copy);
    else
        snprintf(out, size, "%s/kbench-report", dirname(copy));
}

/* The report must not land among the results it reads. */
static int check_out(const char *results, const char *out, kb_err *err) {
    char a[PATH_MAX], b[PATH_MAX];
    if (kb_mkdir_p(out, err) != 0) return -1;
    if (realpath(results, a) && realpath(out, b) && strcmp(a, b) == 0)
        return kb_fail(err,
                       "%s: the report directory is the results directory; choose another "
                       "--out",
                       out);
    return 0;
}

static int write_one(const char *dir, const char *name, char *text, kb_err *err) {
    char path[KB_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = text ? kb_write_file_atomic(path, text, err) : kb_fail(err, "%s: out of memory", path);
    free(text);
    if (rc == 0) printf("wrote %s\n", path);
    return rc;
}

static int write_files(const kb_sum_run *run, const char *dir, kb_err *err) {
    if (write_one(dir, "summary.json", kb_sum_json_text(run), err) != 0 ||
        write_one(dir, "summary.md", kb_sum_md_text(run), err) != 0 ||
        write_one(dir, "regressions.md", kb_sum_regressions_text(run), err) != 0)
        return -1;
    return write_one(dir, "summary.svg", kb_sum_svg_text(run), err);
}

int main(int argc, char **argv) {
    args a;
    if (parse(argc, argv, &a) != 0) return usage(stderr);
    if (a.help) return usage(stdout);
    char out[KB_PATH_MAX];
    if (a.out)
        snprintf(out, sizeof out, "%s", a.out);
    else
        default_out(a.results, out, sizeof out);
    kb_sum_run run;
    kb_err err = {{0}};
    int rc = kb_sum_load(&run, a.results, &err);
    if (rc == 0) rc = kb_sum_digest(&run, &err);
    if (rc == 0) {
        kb_sum_print_table(stdout, &run);
        fflush(stdout);
        rc = check_out(a.results, out, &err) != 0 ? -1 : write_files(&run, out, &err);
    }
    if (rc != 0) fprintf(stderr, "kbench-report: %s\n", err.msg);
    kb_sum_free(&run);
    return rc != 0 ? 2 : 0;
}
