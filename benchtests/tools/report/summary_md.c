/* summary.md: the run for a merge request. Pass/fail counts, the failed
 * cases first, the chart, the environment, a leaderboard grouped by kernel,
 * backend and precision, and the variant speedups. */
#include "mdtext.h"
#include "run/calibration.h"
#include "summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void header(kb_buf *b, const kb_sum_run *run) {
    kb_buf_puts(b, "# kbench run report\n\n");
    if (run->n_failed_tests)
        kb_buf_printf(b, "**FAILED: %d of %d tests** (%d of %d cases)", run->n_failed_tests,
                      run->n_tests, run->n_failed_cases, run->n_cases);
    else
        kb_buf_printf(b, "**Passed: all %d tests** (%d cases)", run->n_tests, run->n_cases);
    kb_buf_printf(b, " · newest result %s · report generated %s\n\n", run->newest_result_at,
                  run->generated_at);
    kb_sum_gating_text(b, run, 1);
    kb_buf_puts(b, "Files: [regressions.md](regressions.md) (every failed case in full), "
                   "[summary.json](summary.json), [summary.svg](summary.svg)");
    const char *backends[16];
    int n = kb_sum_backends(run, backends, 16);
    for (int i = 0; i < n; ++i) {
        char file[300];
        kb_sum_roofline_file(backends[i], file, sizeof file);
        kb_buf_printf(b, ", [%s](%s)", file, file);
    }
    kb_buf_puts(b, ".\n\n");
}

/* The rule that failed the case, in a few words. */
static void rule_words(kb_buf *b, const kb_sum_test *t, const kb_sum_case *c) {
    const char *sep = "";
    if (strcmp(c->verdict, "error") == 0) {
        kb_buf_puts(b, "error: ");
        kb_md_code(b, c->error, 1);
        return;
    }
    if (kb_sum_verdict_is(c, KB_LAT_REGRESSION)) {
        kb_buf_printf(b, "latency: median %.3fx the baseline's, confirmed above %.2fx", c->ratio,
                      1.0 + kb_sum_case_tolerance(t, c));
        sep = "; ";
    }
    if (*c->acc_failures) {
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)strcspn(c->acc_failures, "\n"), c->acc_failures);
        kb_buf_printf(b, "%saccuracy: ", sep);
        kb_md_code(b, line, 1);
    }
    if (!*sep && !*c->acc_failures) kb_buf_puts(b, "failed (see regressions.md)");
}

/* The row's first cells, "| `test` | `case` | `variant` | ", up to the next cell. */
static void case_cells(kb_buf *b, const kb_sum_test *t, const kb_sum_case *c) {
    kb_buf_puts(b, "| ");
    kb_md_code(b, t->name, 1);
    kb_buf_puts(b, " | ");
    kb_md_code(b, c->name, 1);
    kb_buf_puts(b, " | ");
    kb_md_code(b, c->variant, 1);
    kb_buf_puts(b, " | ");
}

static void regression_row(kb_buf *b, const kb_sum_test *t, const kb_sum_case *c) {
    char m[32], base[32], r[32], rmse[32], brmse[32];
    case_cells(b, t, c);
    rule_words(b, t, c);
    if (!isfinite(c->median_ms)) {
        kb_buf_puts(b, " | - | - | - |\n");
        return;
    }
    kb_buf_printf(
        b, " | %s ms, rmse %s | %s ms, rmse %s | %s |\n", kb_fig(m, sizeof m, "%.4g", c->median_ms),
        kb_fig(rmse, sizeof rmse, "%.3g", c->rmse), kb_fig(base, sizeof base, "%.4g", c->base_ms),
        kb_fig(brmse, sizeof brmse, "%.3g", c->base_rmse),
        kb_fig(r, sizeof r, "%.3f", kb_sum_has_ratio(c) ? c->ratio : NAN));
}

static void regressions(kb_buf *b, const kb_sum_run *run) {
    kb_buf_puts(b, "## Regressions\n\n");
    if (!run->n_failed_tests) {
        kb_buf_puts(b, "None: every case passed its latency and accuracy gates.\n\n");
        return;
    }
    kb_buf_puts(b, "| test | case | variant | rule | measured | baseline | ratio |\n"
                   "|---|---|---|---|--:|--:|--:|\n");
    for (int i = 0; i < run->n_tests; ++i) {
        const kb_sum_test *t = &run->tests[run->order[i]];
        if (t->cls != KB_SUM_FAILED) break;
        for (int j = 0; j < t->n_cases; ++j)
            if (!t->cases[j].passed) regression_row(b, t, &t->cases[j]);
        if (*t->error || !t->n_failed) {
            kb_buf_puts(b, "| ");
            kb_md_code(b, t->name, 1);
            kb_buf_printf(b, " | | | the test's status is `%s`", t->status);
            if (*t->error) {
                kb_buf_puts(b, ": ");
                kb_md_code(b, t->error, 1);
            } else {
                kb_buf_puts(b, " (see its log)");
            }
            kb_buf_puts(b, " | | | |\n");
        }
    }
    kb_buf_puts(b, "\nEvery failed case in full: [regressions.md](regressions.md).\n\n");
}

static void environment(kb_buf *b, const kb_sum_run *run) {
    kb_buf_puts(b, "## Environment\n\n| | |\n|---|---|\n");
    for (int k = 0; k < run->n_env; ++k) {
        const kb_sum_env *e = &run->env[k];
        kb_buf_printf(b, "| %s | %s", e->label, e->n_values > 1 ? "**differs**: " : "");
        for (int i = 0; i < e->n_values; ++i) {
            if (i) kb_buf_puts(b, "; ");
            kb_md_value(b, e->values[i], 1);
        }
        kb_buf_puts(b, e->more ? "; ... |\n" : " |\n");
    }
    if (isfinite(run->latency_tol))
        kb_buf_printf(b, "| latency tolerance | +%.0f %% |\n", 100.0 * run->latency_tol);
    else
        kb_buf_puts(b, "| latency tolerance | **differs** (per test in summary.json) |\n");
    kb_buf_puts(b, "\n");
}

/* Precisions from wide to narrow; others after them. */
static int prec_rank(const char *p) {
    static const char *const order[] = {"fp64", "fp32", "fp16", "bf16"};
    for (int i = 0; i < 4; ++i)
        if (strcmp(order[i], p) == 0) return i;
    return 4;
}

static int by_group(const void *a, const void *b) {
    const kb_sum_test *x = *(kb_sum_test *const *)a, *y = *(kb_sum_test *const *)b;
    int d = strcmp(x->kernel, y->kernel);
    if (!d) d = strcmp(x->backend, y->backend);
    if (!d) d = prec_rank(x->precision) - prec_rank(y->precision);
    if (!d) d = strcmp(x->precision, y->precision);
    return d ? d : strcmp(x->name, y->name);
}

/* backend | precision, the precision naming the test when its name is not
 * kernel.backend.precision (a calibration run, a full sweep). */
static void group_cells(kb_buf *b, const kb_sum_test *t, int first) {
    char usual[256];
    snprintf(usual, sizeof usual, "%s.%s.%s", t->kernel, t->backend, t->precision);
    if (!first) {
        kb_buf_puts(b, "| | ");
        return;
    }
    kb_buf_puts(b, "| ");
    kb_md_code(b, t->backend, 1);
    kb_buf_puts(b, " | ");
    kb_md_code(b, t->precision, 1);
    if (strcmp(usual, t->name) != 0) {
        kb_buf_puts(b, " (");
        kb_md_code(b, t->name, 1);
        kb_buf_puts(b, ")");
    }
}

/* The variant the leaderboard sets this one against, and that variant's
 * median over this one's ("x1.25": 25 % faster): the library's, where the
 * kernel has a variant `vendor` (the result's vendor_speedup), else the one
 * the manifest compares it with (compare_to, whatever its name); NULL for
 * neither. */
static const char *versus(const kb_sum_case *c, double *speedup) {
    *speedup = c->vendor_speedup;
    if (isfinite(c->vendor_speedup)) return "vendor";
    *speedup = c->speedup;
    return *c->compare_to && isfinite(c->speedup) ? c->compare_to : NULL;
}

/* The roofline cells: % of the attainable, what bounds the case, and the
 * speedup over the variant it is set against, named. */
static void roofline_cells(kb_buf *b, const kb_sum_case *c) {
    char roof[32];
    double speedup;
    const char *other = versus(c, &speedup);
    kb_buf_printf(b, " | %s | ", kb_fig(roof, sizeof roof, "%.0f %%", c->pct_roofline));
    if (*c->bound)
        kb_md_code(b, c->bound, 1);
    else
        kb_buf_puts(b, "-");
    kb_buf_puts(b, " | ");
    if (other) {
        kb_md_code(b, other, 1);
        kb_buf_printf(b, " x%.2f", speedup);
    } else {
        kb_buf_puts(b, "-");
    }
}

/* The slowdown the case is allowed, in bold where its noise made it coarser
 * than the test's tolerance; "-" where it was not gated nor recorded. */
static void tolerance_cell(kb_buf *b, const kb_sum_test *t, const kb_sum_case *c) {
    if (!isfinite(c->tolerance) || strcmp(t->mode, "ab") == 0)
        kb_buf_puts(b, "-");
    else if (kb_sum_coarse(t, c))
        kb_buf_printf(b, "**%.1f %%**", 100.0 * c->tolerance);
    else
        kb_buf_printf(b, "%.0f %%", 100.0 * c->tolerance);
}

static void leader_row(kb_buf *b, const kb_sum_test *t, const kb_sum_case *c, int first) {
    char m[32], gbps[32], peak[32], gflops[32], rmse[32], ratio[32];
    const char *strong = c->passed ? "" : "**";
    group_cells(b, t, first);
    kb_buf_puts(b, " | ");
    kb_md_code(b, c->name, 1);
    kb_buf_puts(b, " | ");
    kb_md_code(b, c->variant, 1);
    kb_buf_printf(b, " | %s | %s | %s | %s", kb_fig(m, sizeof m, "%.4g", c->median_ms),
                  kb_fig(gbps, sizeof gbps, "%.1f", c->gbps),
                  kb_fig(peak, sizeof peak, "%.0f %%", c->pct_peak),
                  kb_fig(gflops, sizeof gflops, "%.1f", c->gflops));
    roofline_cells(b, c);
    kb_buf_printf(b, " | %s | %s%s%s | ", kb_fig(rmse, sizeof rmse, "%.2e", c->rmse), strong,
                  kb_fig(ratio, sizeof ratio, "%.3f", kb_sum_has_ratio(c) ? c->ratio : NAN),
                  strong);
    tolerance_cell(b, t, c);
    kb_buf_printf(b, " | %s%s%s |\n", strong, kb_sum_verdict_text(c), strong);
}

static void leaderboard_tables(kb_buf *b, kb_sum_test **sorted, int n) {
    const char *table = NULL; /* the kernel whose table is open */
    for (int i = 0; i < n; ++i) {
        const kb_sum_test *t = sorted[i];
        if (t->calibration_reused == 1) continue; /* no case: calibration_lines says so */
        if (!table || strcmp(t->kernel, table) != 0) {
            table = t->kernel;
            kb_buf_puts(b, "\n### ");
            kb_md_code(b, t->kernel, 0);
            kb_buf_puts(b, "\n\n| backend | precision | case | variant | median ms | GB/s | "
                           "% of peak | GFLOP/s | % of roofline | bound | speedup over | RMSE | "
                           "ratio | tolerance | verdict |\n"
                           "|---|---|---|---|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|---|\n");
        }
        for (int j = 0; j < t->n_cases; ++j) leader_row(b, t, &t->cases[j], j == 0);
    }
}

/* Each calibration run: whether it measured the machine or reused a
 * calibration, and how old that was (docs/calibration.md). */
static void calibration_lines(kb_buf *b, const kb_sum_run *run) {
    for (int i = 0; i < run->n_tests; ++i) {
        const kb_sum_test *t = &run->tests[i];
        if (t->calibration_reused < 0) continue;
        kb_buf_puts(b, "\n");
        kb_md_code(b, t->name, 0);
        if (!t->calibration_reused) {
            kb_buf_puts(b, ": calibration measured in this run");
        } else {
            kb_buf_printf(b, ": calibration reused, measured %s", t->calibrated_at);
            if (!isnan(t->calibration_age_s)) {
                char age[32];
                kb_calibration_age_text(t->calibration_age_s, age, sizeof age);
                kb_buf_printf(b, ", %s before this run", age);
            }
        }
        kb_buf_puts(b, " (");
        kb_md_code(b, t->calibration_file, 0);
        kb_buf_puts(b, ").\n");
    }
}

static int leaderboard(kb_buf *b, const kb_sum_run *run) {
    kb_sum_test **sorted = malloc((size_t)run->n_tests * sizeof *sorted);
    if (!sorted) return -1;
    for (int i = 0; i < run->n_tests; ++i) sorted[i] = &run->tests[i];
    qsort(sorted, (size_t)run->n_tests, sizeof *sorted, by_group);
    kb_buf_puts(b, "## Leaderboard\n\nBy kernel, backend and precision: median latency, "
                   "achieved bandwidth and its share of the calibrated peak, GFLOP/s and "
                   "its share of the roofline's attainable figure (what bounds the case: a "
                   "memory level or compute), the speedup over the variant named: the "
                   "library's (variant `vendor`) where the kernel has one, else the variant "
                   "the manifest compares this one with (its median over this one's; above "
                   "1: faster), RMSE against the double-precision "
                   "reference, and the ratio of the median to the baseline's (below 1: "
                   "faster).\n");
    leaderboard_tables(b, sorted, run->n_tests);
    calibration_lines(b, run);
    kb_buf_puts(b, "\n");
    free(sorted);
    return 0;
}

/* The roofline charts, one per backend (roofline_svg.c). */
static void rooflines(kb_buf *b, const kb_sum_run *run) {
    const char *backends[16];
    int n = kb_sum_backends(run, backends, 16);
    if (n == 0) return;
    kb_buf_puts(b, "## Roofline\n\nEach case at its arithmetic intensity and achieved GFLOP/s, "
                   "under this machine's ceilings from the calibration; cases without "
                   "floating-point work and failed cases are listed under each chart "
                   "(kbench's docs/report.md explains it).\n\n");
    for (int i = 0; i < n; ++i) {
        char file[300];
        kb_sum_roofline_file(backends[i], file, sizeof file);
        kb_buf_puts(b, "![roofline ");
        kb_buf_puts(b, file);
        kb_buf_printf(b, "](%s)\n\n", file);
    }
}

static void speedups(kb_buf *b, const kb_sum_run *run) {
    int any = 0;
    kb_buf_puts(b, "## Variant speedups\n\n");
    for (int i = 0; i < run->n_tests; ++i) {
        const kb_sum_test *t = &run->tests[i];
        for (int j = 0; j < t->n_cases; ++j) {
            const kb_sum_case *c = &t->cases[j];
            char sp[32], saved[32];
            if (!*c->compare_to) continue;
            if (!any++)
                kb_buf_puts(b, "| test | case | variant | compared with | speedup | "
                               "memory traffic saved |\n|---|---|---|---|--:|--:|\n");
            case_cells(b, t, c);
            kb_md_code(b, c->compare_to, 1);
            kb_buf_printf(b, " | %s | %s |\n", kb_fig(sp, sizeof sp, "x%.2f", c->speedup),
                          kb_fig(saved, sizeof saved, "%.0f %%", 100.0 * c->bytes_saved));
        }
    }
    kb_buf_puts(b, any ? "\n" : "No variant is compared with another in this run.\n");
}

void kb_sum_md_write(kb_buf *b, const kb_sum_run *run) {
    header(b, run);
    regressions(b, run);
    kb_buf_puts(b, "## Ratio to baseline and % of peak bandwidth\n\n"
                   "![ratio to baseline](summary.svg)\n\n");
    rooflines(b, run);
    environment(b, run);
    if (leaderboard(b, run) != 0) b->failed = 1;
    speedups(b, run);
}
