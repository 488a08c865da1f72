/* summary.txt: the run in a few lines (passed or failed and which tests,
 * what was gated against what, where the report is), which ctest prints
 * after its own summary at the end of a suite run (report_print.cmake) and
 * kbench-report prints after its table. */
#include "buf.h"
#include "summary.h"

#define MAX_NAMED 10 /* failed tests named; the rest are counted */

static void failed_tests(kb_buf *b, const kb_sum_run *run) {
    kb_buf_printf(b, "FAILED: %d of %d tests (%d of %d cases):", run->n_failed_tests, run->n_tests,
                  run->n_failed_cases, run->n_cases);
    int named = 0;
    for (int i = 0; i < run->n_tests && named < MAX_NAMED; ++i) {
        const kb_sum_test *t = &run->tests[run->order[i]];
        if (t->cls != KB_SUM_FAILED) continue;
        kb_buf_printf(b, "%s %s", named ? "," : "", t->name);
        named++;
    }
    if (run->n_failed_tests > named) kb_buf_printf(b, " and %d more", run->n_failed_tests - named);
    kb_buf_puts(b, "\n");
}

char *kb_sum_headline_text(const kb_sum_run *run, const char *out) {
    kb_buf b = {0};
    kb_buf_printf(&b, "kbench run report: %d tests, newest result %s (%s)\n", run->n_tests,
                  run->newest_result_at, run->results_dir);
    if (run->n_failed_tests)
        failed_tests(&b, run);
    else
        kb_buf_printf(&b, "Passed: all %d tests (%d cases)\n", run->n_tests, run->n_cases);
    kb_sum_gating_text(&b, run, 0);
    kb_buf_printf(&b, "Report: %s/summary.md%s\n", out,
                  run->n_failed_tests ? " (what failed and why: regressions.md)" : "");
    return kb_buf_finish(&b);
}
