/* regressions.md: one block per failed case: the test, case and variant,
 * the rule that fired (as the result JSON records it) and the measured
 * figures next to the baseline's. */
#include "mdtext.h"
#include "summary.h"

#include <math.h>
#include <string.h>

static void title(kb_buf *b, const kb_sum_test *t, const kb_sum_case *c) {
    kb_buf_puts(b, "## ");
    kb_md_code(b, t->name, 0);
    if (c) {
        kb_buf_puts(b, " · case ");
        kb_md_code(b, c->name, 0);
        kb_buf_puts(b, " · variant ");
        kb_md_code(b, c->variant, 0);
    }
    kb_buf_puts(b, "\n\n");
}

/* A/B: the interval of the head/base ratios, every pair measured beside. */
static void ab_rule(kb_buf *b, const kb_sum_test *t, const kb_sum_case *c) {
    char lo[32], hi[32], pairs[32];
    kb_buf_printf(b, "**Rule: A/B latency regression** (verdict `regression`). Measured "
                     "interleaved with the base ");
    kb_md_code(b, *t->ab_base ? t->ab_base : "?", 0);
    kb_buf_printf(b,
                  ": the median of the head/base ratios of %s pairs is x%.3f, and its 95 %% "
                  "interval [%s, %s] lies above the tolerance x%.2f.\n\n",
                  kb_fig(pairs, sizeof pairs, "%.0f", c->ab_pairs), c->ratio,
                  kb_fig(lo, sizeof lo, "%.3f", c->ab_lo), kb_fig(hi, sizeof hi, "%.3f", c->ab_hi),
                  1.0 + t->latency_tol);
}

static void latency_rule(kb_buf *b, const kb_sum_test *t, const kb_sum_case *c) {
    char first[32], p[32], noise[32], drift[32];
    if (strcmp(t->mode, "ab") == 0) {
        ab_rule(b, t, c);
        return;
    }
    kb_buf_printf(b,
                  "**Rule: latency regression** (verdict `regression`). The median is x%.3f "
                  "the baseline's, above the tolerance x%.2f in the first round (x%s) and in "
                  "every confirmation round; the best round is slower than the case's own "
                  "noise (%s %%) and significantly slower than the baseline's samples x%.2f "
                  "(Mann-Whitney p = %s); the machine probe (%s) explains a slowdown "
                  "of x%s only.\n\n",
                  c->ratio, 1.0 + kb_sum_case_tolerance(t, c),
                  kb_fig(first, sizeof first, "%.3f", c->first_ratio),
                  kb_fig(noise, sizeof noise, "%.1f", 100.0 * c->noise),
                  1.0 + kb_sum_case_tolerance(t, c), kb_fig(p, sizeof p, "%.2g", c->p_value),
                  *c->drift_probe ? c->drift_probe : "no figure",
                  kb_fig(drift, sizeof drift, "%.3f", c->drift));
}

static void rules(kb_buf *b, const kb_sum_test *t, const kb_sum_case *c) {
    if (strcmp(c->verdict, "error") == 0) {
        kb_buf_puts(b, "**Rule: error**: the case could not be measured:\n\n");
        kb_md_fence(b, c->error);
        kb_buf_puts(b, "\n");
        return;
    }
    if (kb_sum_verdict_is(c, KB_LAT_REGRESSION)) latency_rule(b, t, c);
    if (*c->acc_failures) {
        kb_buf_puts(b, "**Rule: accuracy**: the output failed these checks:\n\n");
        kb_md_fence(b, c->acc_failures);
        kb_buf_puts(b, "\n");
    }
    if (!kb_sum_verdict_is(c, KB_LAT_REGRESSION) && !*c->acc_failures) {
        kb_buf_puts(b, "**Rule**: the result marks the case failed (latency verdict ");
        kb_md_code(b, c->verdict, 0);
        kb_buf_puts(b, ").\n\n");
    }
}

/* A row of measured and baseline figures, each with `digits` significant
 * digits ("-" when absent); no row when both are absent. */
static void figure_row(kb_buf *b, const char *what, int digits, double now, double base) {
    char x[32], y[32];
    if (!isfinite(now) && !isfinite(base)) return;
    snprintf(x, sizeof x, "%.*g", digits, now);
    snprintf(y, sizeof y, "%.*g", digits, base);
    kb_buf_printf(b, "| %s | %s | %s |\n", what, isfinite(now) ? x : "-", isfinite(base) ? y : "-");
}

static void figures(kb_buf *b, const kb_sum_test *t, const kb_sum_case *c) {
    kb_buf_puts(b, "| | measured | baseline |\n|---|--:|--:|\n");
    figure_row(b, "median (ms)", 6, c->median_ms, c->base_ms);
    if (isfinite(c->ratio))
        kb_buf_printf(b, "| ratio to %s | %.3f | at most %.2f allowed |\n",
                      strcmp(t->mode, "ab") == 0 ? "base (A/B)" : "baseline", c->ratio,
                      1.0 + kb_sum_case_tolerance(t, c));
    figure_row(b, "RMSE", 4, c->rmse, c->base_rmse);
    figure_row(b, "max abs error", 4, c->max_abs, NAN);
    figure_row(b, "GB/s", 4, c->gbps, NAN);
    figure_row(b, "% of peak bandwidth", 3, c->pct_peak, NAN);
    figure_row(b, "GFLOP/s", 4, c->gflops, NAN);
    kb_buf_puts(b, "\nResult file ");
    kb_md_code(b, strrchr(t->file, '/') ? strrchr(t->file, '/') + 1 : t->file, 0);
    kb_buf_printf(b, ", test status `%s`.\n\n", t->status);
}

static void failed_case(kb_buf *b, const kb_sum_test *t, const kb_sum_case *c) {
    title(b, t, c);
    rules(b, t, c);
    if (strcmp(c->verdict, "error") != 0) figures(b, t, c);
}

/* A test that failed outside its cases: the error the result records (a
 * run that stopped before its cases, such as an A/B base that does not
 * speak the partner protocol), else the status alone. */
static void test_failure(kb_buf *b, const kb_sum_test *t) {
    title(b, t, NULL);
    if (*t->error) {
        kb_buf_printf(b, "**Rule: error**: the test stopped before its cases (status `%s`):\n\n",
                      t->status);
        kb_md_fence(b, t->error);
        kb_buf_puts(b, "\n");
        return;
    }
    kb_buf_printf(b,
                  "The test's status is `%s` although no case failed, and its result names no "
                  "error: the driver reported it outside the cases (see the test's log).\n\n",
                  t->status);
}

void kb_sum_regressions_write(kb_buf *b, const kb_sum_run *run) {
    kb_buf_puts(b, "# Regressions\n\n");
    if (!run->n_failed_tests) {
        kb_buf_printf(b, "No regressions: all %d tests (%d cases) passed.\n", run->n_tests,
                      run->n_cases);
        return;
    }
    char doc[KB_PATH_MAX];
    kb_sum_doc(run, "gate.md", doc, sizeof doc);
    kb_buf_printf(b,
                  "%d of %d tests failed, %d of %d cases. How a regression is told from "
                  "noise: %s.\n\n",
                  run->n_failed_tests, run->n_tests, run->n_failed_cases, run->n_cases, doc);
    for (int i = 0; i < run->n_tests && run->tests[run->order[i]].cls == KB_SUM_FAILED; ++i) {
        const kb_sum_test *t = &run->tests[run->order[i]];
        if (*t->error || !t->n_failed) test_failure(b, t);
        for (int j = 0; j < t->n_cases; ++j)
            if (!t->cases[j].passed) failed_case(b, t, &t->cases[j]);
    }
}
