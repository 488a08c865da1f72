/* kbench-report: the run report. Reads every <test>.json a ctest run left in
 * the results directory, prints one table of all cases (failures first) and
 * writes summary.json, summary.md, regressions.md, summary.svg and a
 * roofline chart per backend into the report directory; or, with --format
 * gbench, the run in Google Benchmark's JSON format. Every result is read
 * and checked before anything is written, and every file is written as it
 * is made, so the report's memory does not grow with the results' size.
 * The parts are in report/ (summary.h). */
#define _GNU_SOURCE
#include "base/atomicfile.h"
#include "report/buf.h"
#include "report/outfiles.h"
#include "report/summary.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Room after the report directory for "/summary.json" and the temporary
 * file's suffix. */
#define DIR_MAX (KB_PATH_MAX - 64)

static int usage(FILE *f) {
    fprintf(f, "usage: kbench-report RESULTS_DIR [--out DIR] [--since FILE]\n"
               "                    [--format summary|gbench] [--gbench-aggregates-only]\n"
               "  RESULTS_DIR  the results of a ctest run (build/kbench-results)\n"
               "  --out DIR    where to write summary.json, summary.md, regressions.md,\n"
               "               summary.svg, summary.txt (the run in a few lines: what\n"
               "               failed, what was gated against what) and\n"
               "               roofline-<backend>.svg per backend\n"
               "               (default: RESULTS_DIR/../kbench-report)\n"
               "  --since FILE only the results modified at or after FILE (one ctest run's:\n"
               "               the kbench.session test touches RESULTS_DIR/.session)\n"
               "  --format F   summary (default): print every case, failed ones first, and\n"
               "               write the files above; gbench: print the run in Google\n"
               "               Benchmark's JSON format (compare.py, Bencher, github-action-\n"
               "               benchmark), or with --out write it to DIR/gbench.json\n"
               "  --gbench-aggregates-only  gbench: each case's mean, median, stddev and cv\n"
               "               only, not its samples\n"
               "Exit 0 when every result was read (whether or not tests failed), 2 when\n"
               "one could not be or none was there.\n");
    return f == stderr ? 2 : 0;
}

typedef struct args {
    const char *results, *out, *format, *since;
    int help, gbench, aggregates_only;
} args;

static int bad_args(const char *what, const char *arg) {
    fprintf(stderr, "kbench-report: %s%s%s\n", what, arg ? arg : "", arg ? "'" : "");
    return -1;
}

/* --format: the summary files (the default) or Google Benchmark's JSON. */
static int parse_format(args *a) {
    a->gbench = a->format && strcmp(a->format, "gbench") == 0;
    if (a->format && !a->gbench && strcmp(a->format, "summary") != 0) {
        fprintf(stderr, "kbench-report: --format: unknown format '%s' (summary or gbench)\n",
                a->format);
        return -1;
    }
    if (a->aggregates_only && !a->gbench)
        return bad_args("--gbench-aggregates-only needs --format gbench", NULL);
    return 0;
}

/* Why argv[i] was not taken: an option whose value is missing, one given
 * twice, or an argument nothing expects. */
static int refuse(const char *s, int last) {
    static const char *const options[] = {"--gbench-aggregates-only", "--out", "--format",
                                          "--since"};
    for (size_t k = 0; k < sizeof options / sizeof *options; ++k) {
        const size_t n = strlen(options[k]);
        if (strncmp(s, options[k], n) != 0 || (s[n] != '\0' && s[n] != '=')) continue;
        fprintf(stderr, "kbench-report: %s %s\n", options[k],
                k == 0                 ? "is given twice"
                : s[n] == '\0' && last ? "needs a value"
                                       : "is given twice, or with an empty value");
        return -1;
    }
    if (s[0] != '-') return bad_args("a second RESULTS_DIR: '", s);
    return bad_args("unexpected argument '", s);
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
        else if (strcmp(s, "--format") == 0 && i + 1 < argc && !a->format)
            a->format = argv[++i];
        else if (strncmp(s, "--format=", 9) == 0 && !a->format)
            a->format = s + 9;
        else if (strcmp(s, "--since") == 0 && i + 1 < argc && !a->since)
            a->since = argv[++i];
        else if (strncmp(s, "--since=", 8) == 0 && s[8] && !a->since)
            a->since = s + 8;
        else if (strcmp(s, "--gbench-aggregates-only") == 0 && !a->aggregates_only)
            a->aggregates_only = 1;
        else if (s[0] != '-' && !a->results)
            a->results = s;
        else
            return refuse(s, i + 1 == argc);
    }
    if (a->help) return 0;
    if (!a->results) return bad_args("no RESULTS_DIR", NULL);
    if (!*a->results) return bad_args("RESULTS_DIR is empty", NULL);
    if (a->out && !*a->out) return bad_args("--out: the directory name is empty", NULL);
    if (a->since && !*a->since) return bad_args("--since: the file name is empty", NULL);
    if (strlen(a->results) >= DIR_MAX) return bad_args("RESULTS_DIR is too long: '", a->results);
    if (a->out && strlen(a->out) >= DIR_MAX) return bad_args("--out is too long: '", a->out);
    return parse_format(a);
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

/* The canonical path `path` will have once its missing directories are
 * created (`mkdir -p`): its existing part resolved (realpath), the rest
 * taken literally, "." and ".." included. 0, or -1 when it cannot be told. */
static int future_path(const char *path, char *res, size_t size) {
    char buf[2 * PATH_MAX], cand[2 * PATH_MAX + 2], real[PATH_MAX];
    if (path[0] == '/')
        snprintf(buf, sizeof buf, "%s", path);
    else if (!getcwd(real, sizeof real) ||
             snprintf(buf, sizeof buf, "%s/%s", real, path) >= (int)sizeof buf)
        return -1;
    size_t n = 0; /* res holds the path without its leading "/" ("" for /) */
    res[0] = '\0';
    for (char *save = NULL, *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (strcmp(c, ".") == 0) continue;
        if (strcmp(c, "..") == 0) {
            char *slash = strrchr(res, '/');
            n = slash ? (size_t)(slash - res) : 0;
            res[n] = '\0';
            continue;
        }
        snprintf(cand, sizeof cand, "%s/%s", res, c);
        struct stat st;
        if (lstat(cand, &st) == 0) {
            if (!realpath(cand, real)) return -1;
            snprintf(cand, sizeof cand, "%s", strcmp(real, "/") == 0 ? "" : real);
        }
        if (strlen(cand) >= size) return -1;
        snprintf(res, size, "%s", cand);
        n = strlen(res);
    }
    if (!res[0]) snprintf(res, size, "/");
    return 0;
}

/* The directory `out` is in (its path without the last name). */
static void parent_of(const char *out, char *parent, size_t size) {
    char copy[KB_PATH_MAX];
    snprintf(copy, sizeof copy, "%s", out);
    size_t n = strlen(copy);
    while (n > 1 && copy[n - 1] == '/') copy[--n] = '\0';
    snprintf(parent, size, "%s", dirname(copy));
}

/* The report must not land among the results it reads, and goes into a
 * directory that exists or whose parent does (a mistyped path is not made
 * into a tree of directories); told before the directory is created, so
 * that a refused --out leaves nothing behind. *made: it was created. */
static int check_out(const char *results, const char *out, int *made, kb_err *err) {
    char a[PATH_MAX], b[2 * PATH_MAX], parent[KB_PATH_MAX];
    struct stat st;
    *made = 0;
    if (realpath(results, a) && future_path(out, b, sizeof b) == 0 && strcmp(a, b) == 0)
        return kb_fail(err,
                       "%s: the report directory is the results directory; choose another "
                       "--out",
                       out);
    if (stat(out, &st) == 0)
        return S_ISDIR(st.st_mode) ? 0 : kb_fail(err, "%s: not a directory", out);
    parent_of(out, parent, sizeof parent);
    const int missing = stat(parent, &st) != 0;
    if (missing || !S_ISDIR(st.st_mode))
        return kb_fail(err,
                       "%s: the report directory's parent %s %s: the report creates its own "
                       "directory only",
                       out, parent, missing ? "does not exist" : "is not a directory");
    if (mkdir(out, 0755) != 0)
        return kb_fail(err, "%s: cannot create the directory: %s", out, strerror(errno));
    *made = 1;
    return 0;
}

/* The files every report writes, one row each: a new output is its
 * writer's file and a row here. summary.txt (no writer) is the headline the
 * report also prints. */
static const struct {
    const char *name;
    void (*write)(kb_buf *b, const kb_sum_run *run);
} fixed_files[] = {
    {"summary.json", kb_sum_json_write},
    {"summary.md", kb_sum_md_write},
    {"regressions.md", kb_sum_regressions_write},
    {"summary.svg", kb_sum_svg_write},
    {"summary.txt", NULL},
};
#define N_FIXED   ((int)(sizeof fixed_files / sizeof fixed_files[0]))
#define MAX_FILES (N_FIXED + 16)

/* The files' names: the five, then a roofline chart per backend. Returns
 * how many; fails when two backends' names would make one chart's. */
static int file_list(const kb_sum_run *run, char names[][300], const char **backends, kb_err *err) {
    int n = kb_sum_backends(run, backends, MAX_FILES - N_FIXED);
    for (int i = 0; i < N_FIXED; ++i)
        snprintf(names[i], sizeof names[i], "%s", fixed_files[i].name);
    for (int i = 0; i < n; ++i) {
        kb_sum_roofline_file(backends[i], names[N_FIXED + i], sizeof names[N_FIXED + i]);
        for (int j = 0; j < i; ++j)
            if (strcmp(names[N_FIXED + i], names[N_FIXED + j]) == 0)
                return kb_fail(err, "two backends' roofline charts would both be %s: rename one",
                               names[N_FIXED + i]);
    }
    return N_FIXED + n;
}

/* File i of the list, written into b. */
static void write_one(kb_buf *b, const kb_sum_run *run, int i, const char *headline,
                      const char **backends) {
    if (i >= N_FIXED)
        kb_sum_roofline_svg_write(b, run, backends[i - N_FIXED]);
    else if (fixed_files[i].write)
        fixed_files[i].write(b, run);
    else
        kb_buf_puts(b, headline);
}

/* File i written through a buffer into its temporary. */
static int fill(kb_outfiles *o, const char *path, const kb_sum_run *run, int i,
                const char *headline, const char **backends, kb_err *err) {
    FILE *f = kb_outfiles_add(o, path, err);
    if (!f) return -1;
    kb_buf b = kb_buf_sink(f);
    write_one(&b, run, i, headline, backends);
    if (kb_buf_close(&b) == 0) return 0;
    return kb_fail(err, "%s: cannot write: %s (nothing replaced)", path,
                   b.write_errno ? strerror(b.write_errno) : "out of memory");
}

/* The set ends: committed, or, after a failure, its temporaries removed
 * and a directory it created removed again. */
static int settle(kb_outfiles *o, const char *dir, int made, int rc, kb_err *err) {
    if (rc == 0) rc = kb_outfiles_commit(o, err);
    kb_outfiles_abandon(o);
    if (rc != 0 && made) rmdir(dir);
    return rc;
}

/* The files go together: every target is checked (a directory or a link in
 * the way) before anything is created, and every file is complete before
 * the first is replaced, so that a report that cannot be written leaves
 * the previous one whole, not half replaced. */
static int write_files(const kb_sum_run *run, const char *results, const char *dir, kb_err *err) {
    static char names[MAX_FILES][300], paths[MAX_FILES][KB_PATH_MAX + 320];
    static kb_outfiles set;
    const char *backends[MAX_FILES - N_FIXED];
    const int n = file_list(run, names, backends, err);
    int rc = n < 0 ? -1 : 0, made = 0;
    for (int i = 0; i < n && rc == 0; ++i) {
        snprintf(paths[i], sizeof paths[i], "%s/%.299s", dir, names[i]);
        rc = kb_outfiles_check(paths[i], err);
    }
    if (rc == 0) rc = check_out(results, dir, &made, err);
    if (rc != 0) return -1;
    kb_atomicfile_remove_stale(dir);
    char *headline = kb_sum_headline_text(run, dir);
    if (!headline) rc = kb_fail(err, "%s: out of memory", dir);
    for (int i = 0; i < n && rc == 0; ++i)
        rc = fill(&set, paths[i], run, i, headline, backends, err);
    rc = settle(&set, dir, made, rc, err);
    for (int i = 0; i < n && rc == 0; ++i) printf("wrote %s\n", paths[i]);
    /* The headline (summary.txt) last, where a reader looks. */
    if (rc == 0 && (printf("\n%s", headline) < 0 || fflush(stdout) != 0))
        rc = kb_fail(err, "writing to stdout: %s", strerror(errno));
    free(headline);
    return rc;
}

/* The gbench JSON on stdout as it is made, or replacing DIR/gbench.json
 * with --out. A case without samples is said on stderr. */
static int write_gbench(const kb_sum_run *run, const args *a, kb_err *err) {
    if (!a->out) {
        kb_buf b = kb_buf_sink(stdout);
        int rc = kb_sum_gbench_write(&b, run, a->aggregates_only, stderr, err);
        if (kb_buf_close(&b) != 0 && rc == 0)
            rc = kb_fail(err, "writing the gbench JSON to stdout: %s",
                         b.write_errno ? strerror(b.write_errno) : "out of memory");
        return rc;
    }
    static kb_outfiles set;
    char path[KB_PATH_MAX + 32];
    int made = 0;
    snprintf(path, sizeof path, "%s/gbench.json", a->out);
    if (kb_outfiles_check(path, err) != 0 || check_out(a->results, a->out, &made, err) != 0)
        return -1;
    kb_atomicfile_remove_stale(a->out);
    FILE *f = kb_outfiles_add(&set, path, err);
    int rc = f ? 0 : -1;
    if (f) {
        kb_buf b = kb_buf_sink(f);
        rc = kb_sum_gbench_write(&b, run, a->aggregates_only, stderr, err);
        if (kb_buf_close(&b) != 0 && rc == 0)
            rc = kb_fail(err, "%s: cannot write: %s (nothing replaced)", path,
                         b.write_errno ? strerror(b.write_errno) : "out of memory");
    }
    rc = settle(&set, a->out, made, rc, err);
    if (rc == 0) printf("wrote %s\n", path);
    return rc;
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
    int rc = kb_sum_load(&run, a.results, a.since, a.gbench && !a.aggregates_only, &err);
    if (rc == 0) rc = kb_sum_digest(&run, &err);
    if (rc == 0 && a.gbench) {
        rc = write_gbench(&run, &a, &err);
    } else if (rc == 0) {
        kb_sum_print_table(stdout, &run);
        fflush(stdout);
        rc = write_files(&run, a.results, out, &err);
    }
    if (rc != 0) fprintf(stderr, "kbench-report: %s\n", err.msg);
    kb_sum_free(&run);
    return rc != 0 ? 2 : 0;
}
