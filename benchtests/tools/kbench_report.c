/* kbench-report: the run report. Reads every <test>.json a ctest run left in
 * the results directory and prints one table of all cases, failures first. */
#define _GNU_SOURCE
#include "jsonutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct row {
    char test[128], kase[64], variant[32], verdict[32];
    double median_ms, gbps, gflops, ratio, rmse;
    double pct_peak, speedup; /* < 0: not reported */
    int passed;
} row;

static double num(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : -1.0;
}

static const char *str(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static int add_rows(const cJSON *result, row **rows, int *n, int *cap) {
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(result, "cases")) {
        if (*n == *cap) {
            *cap = *cap ? 2 * *cap : 64;
            row *grown = realloc(*rows, (size_t)*cap * sizeof **rows);
            if (!grown) return -1;
            *rows = grown;
        }
        row *r = &(*rows)[(*n)++];
        const cJSON *lat = cJSON_GetObjectItemCaseSensitive(c, "latency");
        snprintf(r->test, sizeof r->test, "%s", str(result, "test"));
        snprintf(r->kase, sizeof r->kase, "%s", str(c, "case"));
        snprintf(r->variant, sizeof r->variant, "%s", str(c, "variant"));
        snprintf(r->verdict, sizeof r->verdict, "%s", lat ? str(lat, "verdict") : "error");
        r->median_ms = num(c, "median_ms");
        r->gbps = num(c, "gbps");
        r->gflops = num(c, "gflops");
        r->ratio = lat ? num(lat, "ratio") : -1.0;
        r->rmse = num(cJSON_GetObjectItemCaseSensitive(c, "accuracy"), "rmse");
        r->pct_peak = num(c, "pct_peak_bw");
        r->speedup = num(cJSON_GetObjectItemCaseSensitive(c, "comparison"), "speedup");
        r->passed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "passed"));
    }
    return 0;
}

static int by_failure_then_name(const void *a, const void *b) {
    const row *x = a, *y = b;
    if (x->passed != y->passed) return x->passed - y->passed;
    int t = strcmp(x->test, y->test);
    return t ? t : strcmp(x->kase, y->kase);
}

/* prefix, v with `digits` decimals, suffix; "-" for a figure the result
 * does not report (v < 0). */
static const char *fmt_or_dash(char *out, size_t size, const char *prefix, double v, int digits,
                               const char *suffix) {
    if (v < 0) return "-";
    snprintf(out, size, "%s%.*f%s", prefix, digits, v, suffix);
    return out;
}

static void print_rows(const row *rows, int n) {
    printf("%-26s %-22s %-8s %10s %8s %5s %8s %7s %7s %9s  %s\n", "test", "case", "variant",
           "median ms", "GB/s", "%peak", "GFLOP/s", "speedup", "ratio", "rmse", "verdict");
    int failed = 0;
    for (int i = 0; i < n; ++i) {
        const row *r = &rows[i];
        char ratio[16], peak[16], speedup[16];
        printf("%-26s %-22s %-8s %10.4f %8.2f %5s %8.2f %7s %7s %9.2e  %s%s\n", r->test, r->kase,
               r->variant, r->median_ms, r->gbps,
               fmt_or_dash(peak, sizeof peak, "", r->pct_peak, 0, "%"), r->gflops,
               fmt_or_dash(speedup, sizeof speedup, "x", r->speedup, 2, ""),
               fmt_or_dash(ratio, sizeof ratio, "", r->ratio > 0 ? r->ratio : -1.0, 3, ""), r->rmse,
               r->passed ? "" : "FAILED ", r->verdict);
        failed += !r->passed;
    }
    printf("%d cases, %d failed\n", n, failed);
}

int main(int argc, char **argv) {
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: kbench-report RESULTS_DIR   (e.g. build/kbench-results)\n");
        return 2;
    }
    DIR *dir = opendir(argv[1]);
    if (!dir) {
        fprintf(stderr, "kbench-report: %s: no results (run ctest first)\n", argv[1]);
        return 2;
    }
    row *rows = NULL;
    int n = 0, cap = 0, bad = 0;
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], de->d_name);
        kb_err err;
        cJSON *result = kb_json_read_file(path, &err);
        if (!result || add_rows(result, &rows, &n, &cap) != 0) {
            fprintf(stderr, "kbench-report: %s\n", result ? "out of memory" : err.msg);
            ++bad;
        }
        cJSON_Delete(result);
    }
    closedir(dir);
    qsort(rows, (size_t)n, sizeof *rows, by_failure_then_name);
    print_rows(rows, n);
    free(rows);
    return bad ? 2 : 0;
}
