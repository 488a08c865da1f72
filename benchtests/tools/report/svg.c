/* summary.svg: one row per test (failed tests first, then by name). Left
 * panel: the test's worst case ratio to baseline as a bar from 1.0 (the
 * baseline), with the tolerance as a dashed line; right panel: the test's
 * best % of peak bandwidth. Plain SVG 1.1: system fonts, no scripts.
 * Text widths are estimated from the font size (monospace names, so the
 * estimate holds), and every column is laid out so that texts cannot meet. */
#include "summary.h"
#include "svgkit.h"

#include <math.h>
#include <string.h>

#define WIDTH    900.0
#define MARGIN   16.0
#define ROW_H    20.0
#define BAR_H    12.0
#define NAME_MAX 32 /* longer test names are cut, with an ellipsis */
#define MONO_EM  KB_SVG_MONO_EM
#define SANS_EM  KB_SVG_SANS_EM
#define MONO     KB_SVG_MONO

#define RED   KB_SVG_RED
#define GREEN KB_SVG_GREEN
#define GREY  KB_SVG_GREY
#define BLUE  KB_SVG_BLUE
#define INK   KB_SVG_INK
#define MUTED KB_SVG_MUTED

typedef struct axis {
    double x0, x1;      /* pixels */
    double lo, hi;      /* values at x0, x1 */
    double step;        /* between ticks */
    int decimals;       /* of a tick label */
    const char *suffix; /* after a tick label */
} axis;

typedef struct layout {
    double name_right; /* test names end here (right-aligned) */
    axis ratio, pct;
    double ratio_text, pct_text; /* value columns start here */
    double head_y, axis_y, top;  /* panel titles, tick labels, first row */
    int name_chars;
} layout;

static double ax(const axis *a, double v) {
    double t = (v - a->lo) / (a->hi - a->lo);
    return a->x0 + (t < 0 ? 0 : t > 1 ? 1 : t) * (a->x1 - a->x0);
}

/* The smallest of the usual steps that leaves `min_px` between ticks. */
static double nice_step(double span, double px, double min_px) {
    static const double steps[] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 25, 50, 100};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; ++i)
        if (px * steps[i] / span >= min_px) return steps[i];
    return span;
}

/* From the lowest to the highest worst ratio, with room for the tolerance
 * line, but not beyond 1 - 3 x tolerance .. 1 + 4 x tolerance: one far-off
 * test must not squeeze the others into a line (it gets an arrow). */
static void ratio_axis(const kb_sum_run *run, axis *a) {
    double lo = 0.9, hi = 1.0, tol = 0.05;
    for (int i = 0; i < run->n_tests; ++i) {
        const kb_sum_test *t = &run->tests[i];
        if (t->latency_tol > tol) tol = t->latency_tol;
        if (t->worst < 0) continue;
        double r = t->cases[t->worst].ratio;
        if (r - 0.03 < lo) lo = r - 0.03;
        if (r + 0.03 > hi) hi = r + 0.03;
    }
    if (hi < 1.0 + tol + 0.05) hi = 1.0 + tol + 0.05;
    if (lo < 1.0 - 3 * tol) lo = 1.0 - 3 * tol;
    if (hi > 1.0 + 4 * tol) hi = 1.0 + 4 * tol;
    lo = lo < 0 ? 0 : lo;
    a->step = nice_step(hi - lo, a->x1 - a->x0, 44);
    a->lo = floor(lo / a->step + 1e-9) * a->step;
    a->hi = ceil(hi / a->step - 1e-9) * a->step;
    a->decimals = a->step < 0.1 ? 2 : a->step < 1 ? 1 : 0;
    a->suffix = "";
}

/* 0 to 100 %: a best case above the calibrated peak (its data fits in a
 * cache) gets an arrow and its value. */
static void pct_axis(axis *a) {
    a->lo = 0;
    a->hi = 100;
    a->step = (a->x1 - a->x0) / 4 >= 40 ? 25 : 50;
    a->decimals = 0;
    a->suffix = "%";
}

/* Columns, left to right: names | ratio plot | ratio values | gap | % plot | % values. */
static void plan(const kb_sum_run *run, layout *l, double head_y) {
    int chars = 10;
    for (int i = 0; i < run->n_tests; ++i)
        if (kb_svg_chars(run->tests[i].name) > chars) chars = kb_svg_chars(run->tests[i].name);
    l->name_chars = chars > NAME_MAX ? NAME_MAX : chars;
    l->name_right = MARGIN + l->name_chars * MONO_EM * 12.0;
    const double ratio_values = 23 * MONO_EM * 11.0 + 12, pct_values = 5 * MONO_EM * 11.0 + 12;
    const double gap = 28, left = l->name_right + 14;
    double plots = WIDTH - MARGIN - left - ratio_values - gap - pct_values;
    l->ratio.x0 = left;
    l->ratio.x1 = left + 0.6 * plots;
    l->ratio_text = l->ratio.x1 + 12;
    l->pct.x0 = l->ratio.x1 + ratio_values + gap;
    l->pct.x1 = WIDTH - MARGIN - pct_values;
    l->pct_text = l->pct.x1 + 10;
    ratio_axis(run, &l->ratio);
    pct_axis(&l->pct);
    l->head_y = head_y;
    l->axis_y = head_y + 18;
    l->top = l->axis_y + 8;
}

static void text(kb_buf *b, double x, double y, const char *attrs, const char *s) {
    kb_svg_text(b, x, y, attrs, s);
}

static const char *short_date(const char *iso, char *out, size_t size) {
    /* 2026-11-21T14:58:18Z -> 2026-11-21 14:58 UTC */
    if (strlen(iso) < 16) return iso;
    snprintf(out, size, "%.10s %.5s UTC", iso, iso + 11);
    return out;
}

static void title(kb_buf *b, const kb_sum_run *run) {
    const char *profile = "(none)";
    for (int k = 0; k < run->n_env; ++k)
        if (strcmp(run->env[k].key, "profile") == 0)
            profile = run->env[k].n_values == 1 && cJSON_IsString(run->env[k].values[0])
                          ? run->env[k].values[0]->valuestring
                          : "(differs across tests)";
    char date[40], line[512];
    snprintf(line, sizeof line, "kbench run report \xe2\x80\x94 profile %s \xe2\x80\x94 %s",
             profile, short_date(run->newest_result_at, date, sizeof date));
    int cut;
    size_t len = kb_svg_fit(line, (int)((WIDTH - 2 * MARGIN) / (SANS_EM * 17)), &cut);
    line[len] = '\0';
    text(b, MARGIN, 28, "font-size=\"17\" font-weight=\"bold\" fill=\"" INK "\"", line);
    if (run->n_failed_tests)
        snprintf(line, sizeof line, "FAILED: %d of %d tests (%d of %d cases)", run->n_failed_tests,
                 run->n_tests, run->n_failed_cases, run->n_cases);
    else
        snprintf(line, sizeof line, "All %d tests passed (%d cases)", run->n_tests, run->n_cases);
    text(b, MARGIN, 50,
         run->n_failed_tests ? "font-size=\"13\" font-weight=\"bold\" fill=\"" RED "\""
                             : "font-size=\"13\" font-weight=\"bold\" fill=\"" GREEN "\"",
         line);
    if (isfinite(run->latency_tol))
        snprintf(line, sizeof line, "latency tolerance +%.0f %%", 100.0 * run->latency_tol);
    else
        snprintf(line, sizeof line, "latency tolerance differs per test");
    text(b, WIDTH - MARGIN, 50, "font-size=\"12\" text-anchor=\"end\" fill=\"" MUTED "\"", line);
}

/* One legend entry, wrapping within the chart's margins. */
static void legend_item(kb_buf *b, double *x, double *y, kb_svg_mark m, const char *color,
                        const char *label) {
    kb_svg_legend_item(b, x, y, MARGIN, WIDTH - MARGIN, m, color, label);
}

/* Returns the y of the legend's last line (b NULL: only that). */
static double legend(kb_buf *b) {
    double x = MARGIN, y = 74;
    legend_item(b, &x, &y, KB_SVG_SWATCH, RED, "failed (regression, accuracy, error)");
    legend_item(b, &x, &y, KB_SVG_SWATCH, GREEN, "ok");
    legend_item(b, &x, &y, KB_SVG_SWATCH, GREY, "passed, not all cases gated");
    legend_item(b, &x, &y, KB_SVG_HOLLOW, MUTED, "no baseline");
    legend_item(b, &x, &y, KB_SVG_NEWLINE, NULL, "");
    legend_item(b, &x, &y, KB_SVG_SOLID, INK, "baseline (1.0)");
    legend_item(b, &x, &y, KB_SVG_DASHED, RED, "1 + tolerance");
    legend_item(b, &x, &y, KB_SVG_SWATCH, BLUE, "% of peak bandwidth");
    return y;
}

static void ticks(kb_buf *b, const axis *a, double label_y, double y0, double y1, int grid) {
    for (double v = a->lo; v <= a->hi + a->step * 1e-6; v += a->step) {
        char label[32];
        double x = ax(a, v);
        snprintf(label, sizeof label, "%.*f%s", a->decimals, v, a->suffix);
        if (grid)
            kb_buf_printf(b,
                          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                          "stroke=\"#e0e0e0\" stroke-width=\"1\"/>\n",
                          x, y0, x, y1);
        text(b, x, label_y, "font-size=\"11\" text-anchor=\"middle\" fill=\"" MUTED "\"", label);
    }
}

static void panel_heads(kb_buf *b, const layout *l) {
    text(b, l->ratio.x0, l->head_y, "font-size=\"12\" font-weight=\"bold\" fill=\"" INK "\"",
         "Worst case: median / baseline median");
    text(b, l->pct.x0, l->head_y, "font-size=\"12\" font-weight=\"bold\" fill=\"" INK "\"",
         "Best % of peak bandwidth");
}

static const char *bar_color(kb_sum_class c) {
    return c == KB_SUM_FAILED ? RED : c == KB_SUM_OK ? GREEN : GREY;
}

/* The word after the ratio: why the test failed, or why it is not green. */
static const char *status_word(const kb_sum_test *t) {
    if (t->cls == KB_SUM_NOT_GATED) return "not all gated";
    if (t->cls == KB_SUM_NO_BASELINE) return "no baseline";
    if (t->cls != KB_SUM_FAILED) return "";
    if (t->n_regressions) return t->n_accuracy ? "latency+accuracy" : "regression";
    if (t->n_accuracy) return "accuracy";
    return t->n_errors || strcmp(t->status, "error") == 0 ? "error" : "failed";
}

/* An arrow head at the end of a bar cut by the axis. */
static void arrow(kb_buf *b, double x, double y, int right, const char *color) {
    double d = right ? 6 : -6;
    kb_buf_printf(b, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\"/>\n", x, y - 6,
                  x + d, y, x, y + 6, color);
}

static void ratio_mark(kb_buf *b, const layout *l, const kb_sum_test *t, double y) {
    const double mid = y + ROW_H / 2, one = ax(&l->ratio, 1.0);
    const char *color = bar_color(t->cls);
    if (t->worst < 0) {
        kb_buf_printf(b,
                      "<circle class=\"no-baseline\" cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" "
                      "fill=\"white\" stroke=\"%s\" stroke-width=\"1.5\"/>\n",
                      one, mid, t->cls == KB_SUM_FAILED ? RED : MUTED);
        return;
    }
    double r = t->cases[t->worst].ratio, x = ax(&l->ratio, r);
    double x0 = x < one ? x : one, w = fabs(x - one);
    kb_buf_printf(b,
                  "<rect class=\"ratio-bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                  "fill=\"%s\"/>\n",
                  w < 2 ? x - 1 : x0, mid - BAR_H / 2, w < 2 ? 2 : w, BAR_H, color);
    if (r > l->ratio.hi || r < l->ratio.lo) arrow(b, x, mid, r > l->ratio.hi, color);
}

static void ratio_value(kb_buf *b, const layout *l, const kb_sum_test *t, double y) {
    char s[64];
    const char *word = status_word(t);
    if (t->worst >= 0)
        snprintf(s, sizeof s, "%.3f%s%s", t->cases[t->worst].ratio, *word ? " " : "", word);
    else
        snprintf(s, sizeof s, "%s", word);
    text(b, l->ratio_text, y + 14,
         t->cls == KB_SUM_FAILED ? "font-family=\"" MONO
                                   "\" font-size=\"11\" font-weight=\"bold\" fill=\"" RED "\""
                                 : "font-family=\"" MONO "\" font-size=\"11\" fill=\"" INK "\"",
         s);
}

static void pct_mark(kb_buf *b, const layout *l, const kb_sum_test *t, double y) {
    char s[32];
    if (isfinite(t->best_pct)) {
        double x = ax(&l->pct, t->best_pct);
        kb_buf_printf(b,
                      "<rect class=\"pct-bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                      "height=\"%.1f\" fill=\"" BLUE "\"/>\n",
                      l->pct.x0, y + (ROW_H - BAR_H) / 2, x - l->pct.x0, BAR_H);
        if (t->best_pct > l->pct.hi) arrow(b, x, y + ROW_H / 2, 1, BLUE);
    }
    text(b, l->pct_text, y + 14, "font-family=\"" MONO "\" font-size=\"11\" fill=\"" INK "\"",
         kb_fig(s, sizeof s, "%.0f%%", t->best_pct));
}

/* The row's tooltip: the worst case and the best bandwidth in words. */
static void tooltip(kb_buf *b, const kb_sum_test *t) {
    char s[512], worst[300], pct[32];
    const kb_sum_case *w = t->worst >= 0 ? &t->cases[t->worst] : NULL;
    if (w)
        snprintf(worst, sizeof worst, "worst ratio %.3f (%s %s)", w->ratio, w->name, w->variant);
    else
        snprintf(worst, sizeof worst, "no baseline");
    snprintf(s, sizeof s, "%s: %s; %s; best %s of peak bandwidth", t->name,
             kb_sum_class_name(t->cls), worst, kb_fig(pct, sizeof pct, "%.0f%%", t->best_pct));
    kb_buf_puts(b, "<title>");
    kb_buf_xml(b, s);
    kb_buf_puts(b, "</title>\n");
}

/* The row's background: failed tests tinted, the others striped. */
static void shade(kb_buf *b, const layout *l, const kb_sum_test *t, int i) {
    const char *fill = t->cls == KB_SUM_FAILED ? "#fdecea" : i % 2 ? "#f5f7fa" : NULL;
    if (fill)
        kb_buf_printf(b,
                      "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
                      MARGIN / 2, l->top + i * ROW_H, WIDTH - MARGIN, ROW_H, fill);
}

static void row(kb_buf *b, const layout *l, const kb_sum_test *t, int i) {
    double y = l->top + i * ROW_H;
    kb_buf_printf(b, "<g class=\"row %s\">\n", kb_sum_class_name(t->cls));
    tooltip(b, t);
    kb_buf_printf(b,
                  "<text x=\"%.1f\" y=\"%.1f\" font-family=\"" MONO "\" font-size=\"12\" "
                  "text-anchor=\"end\" fill=\"%s\"%s>",
                  l->name_right, y + 14, t->cls == KB_SUM_FAILED ? RED : INK,
                  t->cls == KB_SUM_FAILED ? " font-weight=\"bold\"" : "");
    kb_svg_cut_text(b, t->name, l->name_chars);
    kb_buf_puts(b, "</text>\n");
    ratio_mark(b, l, t, y);
    ratio_value(b, l, t, y);
    pct_mark(b, l, t, y);
    kb_buf_puts(b, "</g>\n");
}

static void vline(kb_buf *b, double x, double y0, double y1, const char *color, const char *dash) {
    kb_svg_line(b, x, y0, x, y1, color, 1.5, dash);
}

/* The baseline at 1.0 and the tolerance: one line, or one per row when the
 * tests have different tolerances. */
static void references(kb_buf *b, const kb_sum_run *run, const layout *l, double bottom) {
    vline(b, ax(&l->ratio, 1.0), l->top - 4, bottom + 4, INK, NULL);
    if (isfinite(run->latency_tol)) {
        vline(b, ax(&l->ratio, 1.0 + run->latency_tol), l->top - 4, bottom + 4, RED, "5 3");
    } else {
        for (int i = 0; i < run->n_tests; ++i) {
            const kb_sum_test *t = &run->tests[run->order[i]];
            double y = l->top + i * ROW_H;
            vline(b, ax(&l->ratio, 1.0 + t->latency_tol), y + 2, y + ROW_H - 2, RED, "5 3");
        }
    }
}

static void separator(kb_buf *b, const kb_sum_run *run, const layout *l) {
    if (!run->n_failed_tests || run->n_failed_tests == run->n_tests) return;
    double y = l->top + run->n_failed_tests * ROW_H;
    kb_buf_printf(b,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"" RED "\" "
                  "stroke-width=\"1\"/>\n",
                  MARGIN / 2, y, WIDTH - MARGIN / 2, y);
}

static void footer(kb_buf *b, double y) {
    const char *attrs = "font-size=\"11\" fill=\"" MUTED "\"";
    text(b, MARGIN, y, attrs,
         "Ratio: the test's worst case, its highest median / baseline median; a bar "
         "starts at the baseline (1.0), right is slower.");
    text(b, MARGIN, y + 15, attrs,
         "% of peak: the test's best case, of the calibrated bandwidth (above 100 %: its data "
         "fits in a cache). An arrow: beyond the axis.");
}

void kb_sum_svg_write(kb_buf *b, const kb_sum_run *run) {
    layout l;
    const double rows = run->n_tests * ROW_H;
    plan(run, &l, legend(NULL) + 28);
    const double bottom = l.top + rows, height = bottom + 62;
    kb_svg_open(b, WIDTH, height, NULL);
    title(b, run);
    legend(b);
    panel_heads(b, &l);
    for (int i = 0; i < run->n_tests; ++i) shade(b, &l, &run->tests[run->order[i]], i);
    ticks(b, &l.ratio, l.axis_y, l.top, bottom, 1);
    ticks(b, &l.pct, l.axis_y, l.top, bottom, 1);
    for (int i = 0; i < run->n_tests; ++i) row(b, &l, &run->tests[run->order[i]], i);
    separator(b, run, &l);
    references(b, run, &l, bottom);
    ticks(b, &l.ratio, bottom + 16, 0, 0, 0);
    ticks(b, &l.pct, bottom + 16, 0, 0, 0);
    footer(b, bottom + 38);
    kb_buf_puts(b, "</svg>\n");
}
