/* The table on stdout: every case of the run, failed cases first. */
#include "buf.h"
#include "summary.h"

#include <math.h>

static void print_case(FILE *f, const kb_sum_test *t, const kb_sum_case *c) {
    char median[24], gbps[24], gflops[24], ratio[24], peak[24], speedup[24], rmse[24], roof[24];
    fprintf(f, "%-26s %-22s %-8s %10s %8s %5s %8s %5s %7s %7s %9s  %s\n", t->name, c->name,
            c->variant, kb_fig(median, sizeof median, "%.4f", c->median_ms),
            kb_fig(gbps, sizeof gbps, "%.2f", c->gbps),
            kb_fig(peak, sizeof peak, "%.0f%%", c->pct_peak),
            kb_fig(gflops, sizeof gflops, "%.2f", c->gflops),
            kb_fig(roof, sizeof roof, "%.0f%%", c->pct_roofline),
            kb_fig(speedup, sizeof speedup, "x%.2f", c->speedup),
            kb_fig(ratio, sizeof ratio, "%.3f", kb_sum_has_ratio(c) ? c->ratio : NAN),
            kb_fig(rmse, sizeof rmse, "%.2e", c->rmse), kb_sum_verdict_text(c));
}

void kb_sum_print_table(FILE *f, const kb_sum_run *run) {
    fprintf(f, "%-26s %-22s %-8s %10s %8s %5s %8s %5s %7s %7s %9s  %s\n", "test", "case", "variant",
            "median ms", "GB/s", "%peak", "GFLOP/s", "%roof", "speedup", "ratio", "rmse",
            "verdict");
    for (int failed = 1; failed >= 0; --failed)
        for (int i = 0; i < run->n_tests; ++i)
            for (int j = 0; j < run->tests[i].n_cases; ++j)
                if (run->tests[i].cases[j].passed != failed)
                    print_case(f, &run->tests[i], &run->tests[i].cases[j]);
    fprintf(f, "%d tests, %d failed; %d cases, %d failed\n", run->n_tests, run->n_failed_tests,
            run->n_cases, run->n_failed_cases);
}
