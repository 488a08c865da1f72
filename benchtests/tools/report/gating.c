/* What the run's latency was gated against, and what to do when it was not:
 * the first thing the report says after pass/fail (summary.md and the
 * headline ctest prints at the end of a run). A test counts as gated when
 * at least one of its cases got a verdict that compared it with something
 * (verdict.h's "gated" column). */
#include "buf.h"
#include "formats/vocab.h"
#include "summary.h"

#include <math.h>
#include <string.h>

typedef struct gating {
    int gated, ab, recording, other_hardware, other_timing, no_baseline, calibration, other;
    int untracked, unknown; /* gated against baselines git does not track; cannot tell */
    int other_build;        /* gated against baselines of a differently optimised build */
    const kb_sum_test *other_build_test;
    const char *profile, *ab_base, *backend;
} gating;

static int case_gated(const kb_sum_case *c) {
    kb_latency_verdict v;
    return kb_latency_verdict_parse(c->verdict, &v) == 0 && kb_latency_verdict_gated(v);
}

static int any_case(const kb_sum_test *t, kb_latency_verdict v) {
    for (int i = 0; i < t->n_cases; ++i)
        if (kb_sum_verdict_is(&t->cases[i], v)) return 1;
    return 0;
}

static int test_gated(const kb_sum_test *t) {
    for (int i = 0; i < t->n_cases; ++i)
        if (case_gated(&t->cases[i])) return 1;
    return 0;
}

/* Why a test was not gated, counted by reason. */
static void count_ungated(gating *g, const kb_sum_test *t) {
    if (strcmp(t->case_set, "calibration") == 0)
        g->calibration++; /* measures the machine, measured or reused: nothing to gate */
    else if (any_case(t, KB_LAT_RECORDED))
        g->recording++;
    else if (any_case(t, KB_LAT_OTHER_HARDWARE))
        g->other_hardware++;
    else if (any_case(t, KB_LAT_OTHER_TIMING))
        g->other_timing++;
    else if (any_case(t, KB_LAT_NO_BASELINE))
        g->no_baseline++;
    else
        g->other++;
}

static gating count(const kb_sum_run *run) {
    gating g = {0};
    for (int i = 0; i < run->n_tests; ++i) {
        const kb_sum_test *t = &run->tests[i];
        if (!g.profile && t->profile[0]) g.profile = t->profile;
        if (!g.backend && t->backend[0]) g.backend = t->backend;
        if (!test_gated(t)) {
            count_ungated(&g, t);
            continue;
        }
        g.gated++;
        if (strcmp(t->mode, "ab") == 0) {
            g.ab++;
            g.ab_base = t->ab_base;
        } else {
            g.untracked += t->baseline_tracked == 0;
            g.unknown += t->baseline_tracked < 0;
            if (*t->opt_baseline && strcmp(t->opt_baseline, t->opt_build) != 0) {
                if (!g.other_build) g.other_build_test = t;
                g.other_build++;
            }
        }
    }
    return g;
}

static void against(kb_buf *b, const gating *g, int md) {
    const char *q = md ? "`" : "'";
    /* "committed" only when git tracks every one of them. */
    if (g->gated > g->ab) {
        kb_buf_printf(b, "%sbaselines of profile %s%s%s",
                      g->untracked || g->unknown ? "" : "committed ", q,
                      g->profile ? g->profile : "?", q);
        if (g->untracked) kb_buf_printf(b, " (%d of them not committed to git)", g->untracked);
    }
    if (g->gated > g->ab && g->ab) kb_buf_puts(b, " and ");
    if (g->ab) kb_buf_printf(b, "the A/B base %s%s%s", q, g->ab_base ? g->ab_base : "?", q);
}

static void why_not(kb_buf *b, const gating *g, int md) {
    const char *q = md ? "`" : "'";
    const char *sep = "";
    if (g->recording) {
        kb_buf_printf(b, "%d recording baselines", g->recording);
        sep = ", ";
    }
    if (g->other_hardware) {
        kb_buf_printf(b, "%s%d with baselines recorded on other hardware", sep, g->other_hardware);
        sep = ", ";
    }
    if (g->other_timing) {
        kb_buf_printf(b, "%s%d with a slowdown timed the slower way (GPU calls unheld)", sep,
                      g->other_timing);
        sep = ", ";
    }
    if (g->no_baseline) {
        kb_buf_printf(b, "%s%d with no baseline for profile %s%s%s", sep, g->no_baseline, q,
                      g->profile ? g->profile : "?", q);
        sep = ", ";
    }
    if (g->calibration) {
        kb_buf_printf(b, "%s%d calibration", sep, g->calibration);
        sep = ", ";
    }
    if (g->other) kb_buf_printf(b, "%s%d without a latency verdict", sep, g->other);
}

/* How finely the cases gate, or will once recorded: how many at their
 * test's tolerance, how many coarser because their rounds were noisier
 * (kb_gate_case_tolerance), the coarsest, and how many of those are noisy
 * by drift between rounds, which A/B mode cancels. */
typedef struct tolerances {
    int fine, coarse, drift;
    const kb_sum_test *worst_test;
    const kb_sum_case *worst;
} tolerances;

static tolerances count_tolerances(const kb_sum_run *run, int recorded) {
    tolerances n = {0};
    for (int i = 0; i < run->n_tests; ++i) {
        const kb_sum_test *t = &run->tests[i];
        if (strcmp(t->mode, "ab") == 0) continue;
        for (int j = 0; j < t->n_cases; ++j) {
            const kb_sum_case *c = &t->cases[j];
            if (!isfinite(c->tolerance) || kb_sum_verdict_is(c, KB_LAT_RECORDED) != recorded ||
                (recorded && !c->passed))
                continue;
            if (!kb_sum_coarse(t, c)) {
                n.fine++;
                continue;
            }
            n.coarse++;
            if (recorded && isfinite(c->record_drift) && c->record_drift >= c->record_noise)
                n.drift++;
            if (!n.worst || c->tolerance > n.worst->tolerance) {
                n.worst = c;
                n.worst_test = t;
            }
        }
    }
    return n;
}

/* "174 cases at 10 % and 10 coarser, their rounds being noisier (coarsest 23.4 %:
 * swish.cpu.fp64 n3m default)". */
static void tolerance_words(kb_buf *b, const kb_sum_run *run, const tolerances *n,
                            const char *whose) {
    if (isfinite(run->latency_tol))
        kb_buf_printf(b, "%d cases at %.0f %%", n->fine, 100.0 * run->latency_tol);
    else
        kb_buf_printf(b, "%d cases at their test's tolerance", n->fine);
    if (n->coarse == 0) return;
    kb_buf_printf(b, " and %d coarser, %s being noisier (coarsest %.1f %%: %s %s %s)", n->coarse,
                  whose, 100.0 * n->worst->tolerance, n->worst_test->name, n->worst->name,
                  n->worst->variant);
}

static void recorded_text(kb_buf *b, const kb_sum_run *run, const gating *g, int md) {
    const char *q = md ? "`" : "'";
    tolerances n = count_tolerances(run, 1);
    if (n.fine + n.coarse == 0) {
        kb_buf_printf(b,
                      "No baseline was recorded: every case of the %d recording tests failed or "
                      "was skipped (regressions.md).\n%s",
                      g->recording, md ? "\n" : "");
        return;
    }
    char doc[KB_PATH_MAX];
    kb_sum_doc(run, "baselines.md", doc, sizeof doc);
    kb_buf_printf(b,
                  "Baselines were recorded for profile %s%s%s (%d cases; %s): "
                  "commit them; the next run gates ",
                  q, g->profile ? g->profile : "?", q, n.fine + n.coarse, doc);
    tolerance_words(b, run, &n, "their rounds");
    kb_buf_puts(b, ".");
    kb_sum_doc(run, "ab.md", doc, sizeof doc);
    if (n.drift)
        kb_buf_printf(b,
                      " A/B mode would gate %d of the coarser finer here: their noise is drift "
                      "between rounds, which its interleaved pairs cancel (%s).",
                      n.drift, doc);
    kb_buf_puts(b, md ? "\n\n" : "\n");
}

/* The tolerances the cases gated against a baseline were held to. */
static void gated_tolerances(kb_buf *b, const kb_sum_run *run, int md) {
    tolerances n = count_tolerances(run, 0);
    if (n.fine + n.coarse == 0) return;
    kb_buf_puts(b, "Tolerance: ");
    tolerance_words(b, run, &n, "their baselines");
    kb_buf_puts(b, md ? ".\n\n" : ".\n");
}

/* The two ways to a gate, as commands to copy. */
static void advice(kb_buf *b, const kb_sum_run *run, const gating *g, int md) {
    const char *be = g->backend ? g->backend : kb_backend_name(KB_BACKEND_CPU);
    char baselines[KB_PATH_MAX], ab[KB_PATH_MAX];
    kb_sum_doc(run, "baselines.md", baselines, sizeof baselines);
    kb_sum_doc(run, "ab.md", ab, sizeof ab);
    if (md) {
        kb_buf_printf(b,
                      "To get a gate on this machine, record baselines for its profile and "
                      "commit them, `KBENCH_UPDATE_BASELINES=1 ctest --test-dir build -L %s` "
                      "(%s), or compare your branch with a git "
                      "ref here, with no baseline, `build/bin/kbench-ab main -L %s` (%s).\n\n",
                      be, baselines, be, ab);
        return;
    }
    kb_buf_printf(b,
                  "To get a gate on this machine, record baselines for its profile and commit "
                  "them (%s):\n    KBENCH_UPDATE_BASELINES=1 ctest --test-dir build "
                  "-L %s\nor compare your branch with a git ref here, with no baseline "
                  "(%s):\n    build/bin/kbench-ab main -L %s\n",
                  baselines, be, ab, be);
}

void kb_sum_gating_text(kb_buf *b, const kb_sum_run *run, int md) {
    gating g = count(run);
    const char *bold = md ? "**" : "";
    kb_buf_printf(b, "%sGated: %d of %d tests%s", bold, g.gated, run->n_tests, bold);
    if (g.gated) {
        kb_buf_puts(b, " against ");
        against(b, &g, md);
    }
    if (g.gated < run->n_tests) {
        kb_buf_printf(b, "; not gated: %d (", run->n_tests - g.gated);
        why_not(b, &g, md);
        kb_buf_puts(b, ")");
    }
    kb_buf_puts(b, md ? ".\n\n" : ".\n");
    if (g.other_build) {
        const char *q = md ? "`" : "'";
        const kb_sum_test *t = g.other_build_test;
        kb_buf_printf(b,
                      "%sBuilds differ:%s %d of these tests compared a build with %s%s%s against "
                      "baselines recorded with %s%s%s (%s): their latency compares the builds as "
                      "much as the code.%s",
                      bold, bold, g.other_build, q, t->opt_build, q, q, t->opt_baseline, q, t->name,
                      md ? "\n\n" : "\n");
    }
    if (g.gated > 0) {
        gated_tolerances(b, run, md);
        return;
    }
    if (g.recording) {
        recorded_text(b, run, &g, md);
        return;
    }
    kb_buf_printf(b, "%sNothing was gated: a slower kernel cannot fail this run.%s%s", bold, bold,
                  md ? " " : "\n");
    advice(b, run, &g, md);
}
