/* The latency verdicts, defined once. Every place that names, parses, words
 * or classifies a verdict (the gate, the driver's table, the result JSON,
 * kbench-report) derives it from this table, so a new verdict is one row.
 *
 * X(id, name, text, fails, gated, slow, probe, compared):
 *   id        the enum constant KB_LAT_<id>
 *   name      the word in the result JSON's "latency.verdict"
 *   text      how the tables word it for a case that ran and passed accuracy
 *   fails     the verdict alone fails the case
 *   gated     the case's latency was compared and decided (not merely
 *             recorded, unconfirmed or without a usable baseline); summary.md
 *             calls a passing test with an ungated case "not gated"
 *   slow      every round was slower than allowed: a slowdown timed unlike
 *             the baseline is then other_timing instead (gate.c)
 *   probe     the machine probe is read after each of the case's rounds, so
 *             a slowdown can be set against the machine's own (the runner)
 *   compared  a baseline's figures, when there is one, are this case's
 *             comparison: its ratio is graphed (report_measurements.c) */
#ifndef KB_VERDICT_H
#define KB_VERDICT_H

/* clang-format off */
#define KB_VERDICT_LIST(X)                                                                         \
    /* id, name, text, fails, gated, slow, probe, compared */                                      \
    /* median within tolerance */                                                                  \
    X(OK, "ok", "ok", 0, 1, 0, 0, 1)                                                               \
    /* first round slow, a re-measurement within tolerance: noise */                               \
    X(CLEARED, "cleared", "ok (noise cleared)", 0, 1, 0, 0, 1)                                     \
    /* every round slow, but not distinguishable from noise (A/B: the interval straddles           \
     * the tolerance); not failed, and not called ok either */                                     \
    X(INCONCLUSIVE, "inconclusive", "inconclusive (too noisy to decide)", 0, 0, 1, 1, 1)           \
    /* every round slow, but so was the machine probe that bounds it */                            \
    X(MACHINE_DRIFT, "machine_drift", "ok (machine slower by as much)", 0, 0, 1, 1, 1)             \
    /* confirmed slowdown */                                                                       \
    X(REGRESSION, "regression", "FAIL latency", 1, 1, 1, 1, 1)                                     \
    /* slow so far: measure another round (final only when the rounds ran out) */                  \
    X(PENDING, "pending", "pending", 0, 0, 0, 1, 1)                                                \
    /* nothing to compare with */                                                                  \
    X(NO_BASELINE, "no_baseline", "ok (no baseline)", 0, 0, 0, 0, 1)                               \
    /* the baseline was recorded on different hardware */                                          \
    X(OTHER_HARDWARE, "other_hardware", "ok (baseline from other hardware)", 0, 0, 0, 0, 0)        \
    /* slower, but timed a slower way than the baseline (GPU: unheld vs held) */                   \
    X(OTHER_TIMING, "other_timing", "ok (slower, timed unlike baseline)", 0, 0, 0, 1, 0)           \
    /* update mode: the measurement became the baseline */                                         \
    X(RECORDED, "recorded", "recorded", 0, 0, 0, 0, 0)                                             \
    /* A/B: the head is confidently faster than the base beyond tolerance */                       \
    X(FASTER, "faster", "ok (faster than base)", 0, 1, 0, 0, 1)                                    \
    /* A/B: the base has no such case: nothing to compare with */                                  \
    X(NEW, "new", "ok (new: not in base)", 0, 0, 0, 0, 1)
/* clang-format on */

#define KB__VERDICT_ENUM(id, name, text, fails, gated, slow, probe, compared) KB_LAT_##id,
typedef enum kb_latency_verdict { KB_VERDICT_LIST(KB__VERDICT_ENUM) KB_LAT_N } kb_latency_verdict;
#undef KB__VERDICT_ENUM

/* How the tables word a case that did not get a latency verdict, or failed
 * its accuracy check (which outranks the verdict). */
#define KB_VERDICT_TEXT_ERROR    "ERROR"
#define KB_VERDICT_TEXT_SKIPPED  "skipped"
#define KB_VERDICT_TEXT_ACCURACY "FAIL accuracy"

/* The JSON name; "?" for a value outside the table. */
const char *kb_latency_verdict_name(kb_latency_verdict v);
/* The table text; "?" for a value outside the table. */
const char *kb_latency_verdict_text(kb_latency_verdict v);
int kb_latency_verdict_fails(kb_latency_verdict v);
int kb_latency_verdict_gated(kb_latency_verdict v);
int kb_latency_verdict_slow(kb_latency_verdict v);
int kb_latency_verdict_probe(kb_latency_verdict v);
int kb_latency_verdict_compared(kb_latency_verdict v);
/* The verdict named `name`: 0, or -1 when no verdict has that name. */
int kb_latency_verdict_parse(const char *name, kb_latency_verdict *v);
/* Every name, comma-separated in table order, for error messages. */
const char *kb_latency_verdict_names(void);

#endif
