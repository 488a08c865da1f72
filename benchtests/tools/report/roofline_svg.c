/* roofline-<backend>.svg: the backend's cases on a log-log roofline. x is
 * the arithmetic intensity (FLOP per byte), y the achieved GFLOP/s. The
 * machine's ceilings come from the results' calibration: one sloped line
 * per memory level (bandwidth x intensity) up to the highest compute roof,
 * one level line per compute roof (equal roofs of several precisions share
 * one), matrix-unit roofs dashed. Each case is a point coloured by kernel,
 * shaped by precision, ringed in red when it failed. A case that does no
 * floating-point work cannot sit on a log GFLOP/s axis: it is listed under
 * the chart with the failed cases. Labels are placed where they meet no
 * other label and no point (svgkit.h). Each point and ceiling carries its
 * figures as kb: attributes (a namespace of its own, allowed in SVG 1.1),
 * which the tests read. */
#include "run/calibration.h"
#include "summary.h"
#include "svgkit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH    900.0
#define PX0      78.0  /* the plot's left edge */
#define PX1      630.0 /* its right edge */
#define PY0      66.0  /* its top */
#define PY1      496.0 /* its bottom */
#define LEGEND_X 650.0 /* the legend column, to WIDTH - MARGIN */
#define MARGIN   16.0
#define LABEL_H  11.0 /* a ceiling label's font size */
#define NOTE_MAX 6    /* lines of each list under the chart */
#define MAX_PTS  4096
#define MAX_BOX  (MAX_PTS + 2 * KB_SUM_MAX_CEILINGS + 8)
#define KB_NS    "urn:kbench:roofline"

/* Kernel colours: eighteen distinct ones (Tableau 20 without its two reds,
 * which mark failures); beyond eighteen kernels they repeat. */
static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2",
                                      "#edc948", "#9c755f", "#ff9da7", "#79706e", "#a0cbe8",
                                      "#8cd17d", "#d37295", "#b6992d", "#499894", "#ffbe7d",
                                      "#d4a6c8", "#bab0ac", "#86bcb6"};
#define N_COLORS (sizeof palette / sizeof *palette)

typedef struct point {
    const kb_sum_test *t;
    const kb_sum_case *c;
    double x, y; /* intensity, GFLOP/s */
    int kernel;  /* index into the kernel list */
} point;

/* A compute roof: one line for the precisions whose peaks are equal. */
typedef struct roof {
    char names[160];
    double gflops;
    int matrix;
} roof;

typedef struct chart {
    const kb_sum_run *run;
    const char *backend;
    const kb_sum_test *ceilings; /* the test whose calibration gives them; NULL: none */
    point pts[MAX_PTS];
    int n_pts, dropped; /* dropped: points past MAX_PTS */
    const kb_sum_test *no_flops_t[MAX_PTS];
    const kb_sum_case *no_flops_c[MAX_PTS];
    int n_no_flops, no_flops_more; /* more: those past MAX_PTS, counted */
    int derived;                   /* intensities from GFLOP/s / GB/s */
    const char *kernels[N_COLORS * 8];
    int n_kernels;
    double xlo, xhi, ylo, yhi; /* decades (log10) at the plot's edges */
    double top_roof;           /* the highest compute roof, NAN when none */
    roof roofs[2 * KB_SUM_MAX_CEILINGS];
    int n_roofs;
    kb_svg_box boxes[MAX_BOX]; /* what a label must not meet: labels, points, lines */
    double gaps[MAX_BOX];      /* the room each keeps around it */
    int n_boxes;
} chart;

static int is(const char *a, const char *b) {
    return strcmp(a, b) == 0;
}

static int charted(const kb_sum_test *t, const char *backend) {
    return is(t->backend, backend) && !is(t->case_set, "calibration");
}

int kb_sum_backends(const kb_sum_run *run, const char **out, int max) {
    int n = 0;
    for (int i = 0; i < run->n_tests; ++i) {
        const kb_sum_test *t = &run->tests[i];
        int seen = is(t->case_set, "calibration");
        for (int j = 0; j < n && !seen; ++j) seen = is(out[j], t->backend);
        if (!seen && n < max) out[n++] = t->backend;
    }
    for (int i = 1; i < n; ++i) /* by name: a few backends */
        for (int j = i; j > 0 && strcmp(out[j - 1], out[j]) > 0; --j) {
            const char *s = out[j];
            out[j] = out[j - 1];
            out[j - 1] = s;
        }
    return n;
}

void kb_sum_roofline_file(const char *backend, char *out, size_t size) {
    size_t n = (size_t)snprintf(out, size, "roofline-%s.svg", backend);
    for (size_t i = 9; i < n && i + 4 < size && i < n - 4; ++i) {
        char c = out[i];
        if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') &&
            c != '-' && c != '_')
            out[i] = '_';
    }
}

/* ---- the data -------------------------------------------------------------- */

static int kernel_index(chart *ch, const char *kernel) {
    for (int i = 0; i < ch->n_kernels; ++i)
        if (is(ch->kernels[i], kernel)) return i;
    if (ch->n_kernels == (int)(sizeof ch->kernels / sizeof *ch->kernels)) return ch->n_kernels - 1;
    ch->kernels[ch->n_kernels] = kernel;
    return ch->n_kernels++;
}

/* The case's intensity: the roofline's, else GFLOP/s over GB/s (the same
 * flops and bytes over the same time), for results written before it. */
static double intensity(chart *ch, const kb_sum_case *c) {
    if (isfinite(c->intensity)) return c->intensity;
    if (!(c->gbps > 0) || !isfinite(c->gflops)) return NAN;
    ch->derived = 1;
    return c->gflops / c->gbps;
}

static void add_case(chart *ch, const kb_sum_test *t, const kb_sum_case *c) {
    if (!isfinite(c->median_ms)) return; /* did not run: an error (listed) or skipped */
    double x = intensity(ch, c);
    if ((!(c->gflops > 0) || !(x > 0)) && ch->n_no_flops == MAX_PTS) {
        ch->no_flops_more++; /* the list shows a few and counts the rest */
        return;
    }
    if (!(c->gflops > 0) || !(x > 0)) {
        ch->no_flops_t[ch->n_no_flops] = t;
        ch->no_flops_c[ch->n_no_flops++] = c;
        return;
    }
    if (ch->n_pts == MAX_PTS) {
        ch->dropped++;
        return;
    }
    ch->pts[ch->n_pts++] = (point){t, c, x, c->gflops, kernel_index(ch, t->kernel)};
}

/* Precisions from wide to narrow, others after them. */
static int prec_rank(const char *p) {
    static const char *const order[] = {"fp64", "fp32", "fp16", "bf16"};
    for (int i = 0; i < 4; ++i)
        if (is(order[i], p)) return i;
    return 4;
}

static int same_peak(double a, double b) {
    return fabs(a - b) <= 0.01 * b;
}

/* The roofs of one unit: precisions in order, equal peaks (within 1 %:
 * fp32 and the 16-bit precisions computed in fp32, say) on one line. */
static void add_roofs(chart *ch, const kb_sum_ceiling *all, int n, int matrix) {
    int done[KB_SUM_MAX_CEILINGS] = {0};
    for (int k = 0; k < n; ++k) {
        int first = -1;
        for (int i = 0; i < n; ++i)
            if (!done[i] && all[i].gflops > 0 &&
                (first < 0 || prec_rank(all[i].name) < prec_rank(all[first].name)))
                first = i;
        if (first < 0) return;
        roof *r = &ch->roofs[ch->n_roofs++];
        r->gflops = all[first].gflops;
        r->matrix = matrix;
        r->names[0] = '\0';
        for (int rank = 0; rank <= 4; ++rank)
            for (int i = 0; i < n; ++i) {
                if (done[i] || prec_rank(all[i].name) != rank ||
                    !same_peak(all[i].gflops, r->gflops))
                    continue;
                size_t len = strlen(r->names);
                snprintf(r->names + len, sizeof r->names - len, "%s%.40s", len ? ", " : "",
                         all[i].name);
                done[i] = 1;
            }
        if (!(r->gflops <= ch->top_roof)) ch->top_roof = r->gflops;
    }
}

static void collect(chart *ch) {
    for (int i = 0; i < ch->run->n_tests; ++i) {
        const kb_sum_test *t = &ch->run->tests[i];
        if (!charted(t, ch->backend)) continue;
        if (!ch->ceilings && (t->n_levels || t->n_compute || t->n_matrix)) ch->ceilings = t;
        for (int j = 0; j < t->n_cases; ++j) add_case(ch, t, &t->cases[j]);
    }
    ch->top_roof = NAN;
    if (!ch->ceilings) return;
    add_roofs(ch, ch->ceilings->compute, ch->ceilings->n_compute, 0);
    add_roofs(ch, ch->ceilings->matrix, ch->ceilings->n_matrix, 1);
}

/* ---- the axes ---------------------------------------------------------------- */

static void widen(double *lo, double *hi, double v) {
    if (!(v > 0) || !isfinite(v)) return;
    double l = log10(v);
    if (!(l >= *lo)) *lo = l;
    if (!(l <= *hi)) *hi = l;
}

/* Whole decades holding every point, each knee of the roofline (where a
 * memory line meets the lowest and the highest compute roof), and room
 * above the highest roof for its label; at least three decades each way. */
static void ranges(chart *ch) {
    double xl = NAN, xh = NAN, yl = NAN, yh = NAN;
    for (int i = 0; i < ch->n_pts; ++i) { /* a point keeps off the edges */
        widen(&xl, &xh, ch->pts[i].x / 1.4);
        widen(&xl, &xh, ch->pts[i].x * 1.4);
        widen(&yl, &yh, ch->pts[i].y / 1.4);
        widen(&yl, &yh, ch->pts[i].y * 1.6);
    }
    const kb_sum_test *c = ch->ceilings;
    for (int i = 0; c && i < c->n_levels; ++i)
        for (int k = 0; k < ch->n_roofs; ++k)
            widen(&xl, &xh, ch->roofs[k].gflops / c->levels[i].gbps);
    widen(&yl, &yh, ch->top_roof * 1.8);
    for (int k = 0; k < ch->n_roofs; ++k) widen(&yl, &yh, ch->roofs[k].gflops / 30);
    if (isnan(xl)) xl = -1, xh = 1;
    if (isnan(yl)) yl = 0, yh = 2;
    /* x: whole decades; y: from a decade to just above the highest roof */
    ch->xlo = floor(xl), ch->xhi = ceil(xh);
    ch->ylo = floor(yl), ch->yhi = yh;
    while (ch->xhi - ch->xlo < 3) ch->xhi - ch->xlo == 2 ? --ch->xlo : ++ch->xhi;
    while (ch->yhi - ch->ylo < 2) --ch->ylo;
}

static double px(const chart *ch, double v) {
    return PX0 + (log10(v) - ch->xlo) / (ch->xhi - ch->xlo) * (PX1 - PX0);
}

static double py(const chart *ch, double v) {
    return PY1 - (log10(v) - ch->ylo) / (ch->yhi - ch->ylo) * (PY1 - PY0);
}

/* A decade's label: 0.001 .. 100000, then 1e6, 1e-4. */
static void decade_label(char *out, size_t size, int e) {
    if (e >= -3 && e <= 5)
        snprintf(out, size, "%g", pow(10, e));
    else
        snprintf(out, size, "1e%d", e);
}

static void grid(kb_buf *b, const chart *ch) {
    const char *attrs = "font-size=\"11\" fill=\"" KB_SVG_MUTED "\"";
    char label[32], anchored[96];
    /* a label every decade, or every few when there are many */
    const int xstep = (int)ceil((ch->xhi - ch->xlo) / 12),
              ystep = (int)ceil((ch->yhi - ch->ylo) / 10);
    for (int e = (int)ch->xlo; e <= (int)ch->xhi; ++e) {
        double x = px(ch, pow(10, e));
        kb_svg_line(b, x, PY0, x, PY1, "#e0e0e0", 1, NULL);
        for (int m = 2; m < 10 && e < ch->xhi; ++m)
            kb_svg_line(b, px(ch, m * pow(10, e)), PY1, px(ch, m * pow(10, e)), PY1 + 4,
                        KB_SVG_MUTED, 1, NULL);
        if ((e - (int)ch->xlo) % xstep) continue;
        decade_label(label, sizeof label, e);
        snprintf(anchored, sizeof anchored, "class=\"xtick\" text-anchor=\"middle\" %s", attrs);
        kb_svg_text(b, x, PY1 + 18, anchored, label);
    }
    for (int e = (int)ch->ylo; e <= (int)floor(ch->yhi); ++e) {
        double y = py(ch, pow(10, e));
        kb_svg_line(b, PX0, y, PX1, y, "#e0e0e0", 1, NULL);
        for (int m = 2; m < 10 && log10(m) + e < ch->yhi; ++m)
            kb_svg_line(b, PX0 - 4, py(ch, m * pow(10, e)), PX0, py(ch, m * pow(10, e)),
                        KB_SVG_MUTED, 1, NULL);
        if ((e - (int)ch->ylo) % ystep) continue;
        decade_label(label, sizeof label, e);
        snprintf(anchored, sizeof anchored, "class=\"ytick\" text-anchor=\"end\" %s", attrs);
        kb_svg_text(b, PX0 - 7, y + 4, anchored, label);
    }
    kb_buf_printf(b,
                  "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                  "fill=\"none\" stroke=\"" KB_SVG_MUTED "\" kb:log-x=\"%g %g\" "
                  "kb:log-y=\"%g %g\"/>\n",
                  PX0, PY0, PX1 - PX0, PY1 - PY0, ch->xlo, ch->xhi, ch->ylo, ch->yhi);
    kb_svg_text(b, (PX0 + PX1) / 2, PY1 + 40,
                "font-size=\"12\" text-anchor=\"middle\" fill=\"" KB_SVG_INK "\"",
                "arithmetic intensity (FLOP per byte, the manifest's counts)");
    kb_buf_printf(b,
                  "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" font-size=\"12\" "
                  "text-anchor=\"middle\" fill=\"" KB_SVG_INK "\">achieved GFLOP/s</text>\n",
                  PX0 - 52, (PY0 + PY1) / 2);
}

/* ---- labels ------------------------------------------------------------------ */

static int box_free(const chart *ch, const kb_svg_box *box) {
    if (!kb_svg_box_inside(box, PX0 + 2, PY0 + 2, PX1 - 2, PY1 - 2)) return 0;
    for (int i = 0; i < ch->n_boxes; ++i)
        if (kb_svg_boxes_meet(box, &ch->boxes[i], ch->gaps[i])) return 0;
    return 1;
}

static void keep_box(chart *ch, kb_svg_box box, double gap) {
    if (ch->n_boxes == MAX_BOX) return;
    ch->gaps[ch->n_boxes] = gap;
    ch->boxes[ch->n_boxes++] = box;
}

/* A ceiling line, for the labels to keep off (not crossing it). */
static void keep_line(chart *ch, double x0, double y0, double x1, double y1) {
    const double len = hypot(x1 - x0, y1 - y0);
    if (len > 0)
        keep_box(ch,
                 (kb_svg_box){(x0 + x1) / 2, (y0 + y1) / 2, (x1 - x0) / len, (y1 - y0) / len,
                              len / 2, 0.5},
                 0);
}

static void place_label(kb_buf *b, double x, double y, double ux, double uy, const char *cls,
                        const char *s) {
    kb_buf_printf(b,
                  "<text class=\"%s\" transform=\"translate(%.1f,%.1f) rotate(%.2f)\" "
                  "font-size=\"%.0f\" fill=\"" KB_SVG_INK "\">",
                  cls, x, y, atan2(uy, ux) * 180 / 3.14159265358979, LABEL_H);
    kb_buf_xml(b, s);
    kb_buf_puts(b, "</text>\n");
}

/* A label along the segment (x0, y0)-(x1, y1), just above it, else just
 * below: the first place from its end where it meets no other label, no
 * point and no line. Left out when there is none: the legend lists every
 * ceiling. */
static void line_label(kb_buf *b, chart *ch, double x0, double y0, double x1, double y1,
                       const char *cls, const char *s) {
    const double len = hypot(x1 - x0, y1 - y0), w = kb_svg_width(s, LABEL_H);
    const double ux = (x1 - x0) / len, uy = (y1 - y0) / len;
    for (int side = 0; side < 2; ++side)
        for (double at = 6; at + w + 6 <= len; at += 6) {
            const double lift = side ? -(LABEL_H + 1) : 4, along = len - at - w;
            double x = x0 + ux * along + uy * lift, y = y0 + uy * along - ux * lift;
            kb_svg_box box = kb_svg_text_box(x, y, ux, uy, w, LABEL_H);
            if (!box_free(ch, &box)) continue;
            keep_box(ch, box, 2);
            if (b) place_label(b, x, y, ux, uy, cls, s);
            return;
        }
}

/* ---- the ceilings -------------------------------------------------------------- */

/* "L1 90 GB/s", "fp16 matrix 400 TFLOP/s": three significant figures, in
 * T from 10^4 G on. */
static void figure_text(char *out, size_t size, const char *name, const char *extra, double v,
                        const char *unit) {
    const int tera = v >= 1e4;
    snprintf(out, size, tera || v < 1000 ? "%s%s %.3g %s%s" : "%s%s %.0f %s%s", name, extra,
             tera ? v / 1e3 : v, tera ? "T" : "G", unit);
}

/* A memory level's line: from the plot's left or bottom edge up to the
 * highest compute roof (or the top). 0 when it does not cross the plot. */
static int memory_segment(const chart *ch, const kb_sum_ceiling *l, double seg[4]) {
    const double top = isfinite(ch->top_roof) ? ch->top_roof : pow(10, ch->yhi);
    double xs = fmax(pow(10, ch->xlo), pow(10, ch->ylo) / l->gbps);
    double xe = fmin(pow(10, ch->xhi), top / l->gbps);
    if (!(l->gbps > 0) || !(xs < xe)) return 0;
    seg[0] = px(ch, xs), seg[1] = py(ch, xs * l->gbps);
    seg[2] = px(ch, xe), seg[3] = py(ch, xe * l->gbps);
    return 1;
}

/* A compute roof's line: from where it meets the fastest memory level's
 * line to the right edge. */
static void roof_segment(const chart *ch, const roof *r, double seg[4]) {
    double top_bw = 0;
    for (int i = 0; i < ch->ceilings->n_levels; ++i)
        top_bw = fmax(top_bw, ch->ceilings->levels[i].gbps);
    double xs = top_bw > 0 ? fmax(pow(10, ch->xlo), r->gflops / top_bw) : pow(10, ch->xlo);
    seg[0] = px(ch, xs), seg[1] = py(ch, r->gflops), seg[2] = PX1, seg[3] = py(ch, r->gflops);
}

static void ceiling_line(kb_buf *b, chart *ch, const char *cls, const char *name,
                         const char *figure, double value, const double seg[4], const char *dash) {
    keep_line(ch, seg[0], seg[1], seg[2], seg[3]);
    if (!b) return;
    kb_buf_printf(b, "<line class=\"ceiling %s\" kb:name=\"", cls);
    kb_buf_xml(b, name);
    kb_buf_printf(b,
                  "\" kb:%s=\"%.6g\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                  "stroke=\"%s\" stroke-width=\"1.5\"%s%s%s/>\n",
                  figure, value, seg[0], seg[1], seg[2], seg[3], dash ? "#333333" : "#555555",
                  dash ? " stroke-dasharray=\"" : "", dash ? dash : "", dash ? "\"" : "");
}

/* Every ceiling line first, so that no label crosses one; then the level
 * lines' labels (at the right, where the sloped lines end), then the
 * sloped lines'. */
static void ceilings(kb_buf *b, chart *ch) {
    const kb_sum_test *c = ch->ceilings;
    double seg[4];
    char label[256];
    for (int i = 0; i < c->n_levels; ++i)
        if (memory_segment(ch, &c->levels[i], seg))
            ceiling_line(b, ch, "memory", c->levels[i].name, "gbps", c->levels[i].gbps, seg, NULL);
    for (int i = 0; i < ch->n_roofs; ++i) {
        const roof *r = &ch->roofs[i];
        roof_segment(ch, r, seg);
        ceiling_line(b, ch, r->matrix ? "matrix" : "compute", r->names, "gflops", r->gflops, seg,
                     r->matrix ? "7 4" : NULL);
    }
    for (int i = 0; i < ch->n_roofs; ++i) {
        const roof *r = &ch->roofs[i];
        roof_segment(ch, r, seg);
        seg[0] = PX0; /* points under its right end: the label may sit left of the knee */
        figure_text(label, sizeof label, r->names, r->matrix ? " matrix" : "", r->gflops, "FLOP/s");
        line_label(b, ch, seg[0], seg[1], seg[2], seg[3], "ceiling-label", label);
    }
    for (int i = 0; i < c->n_levels; ++i) {
        if (!memory_segment(ch, &c->levels[i], seg)) continue;
        figure_text(label, sizeof label, c->levels[i].name, "", c->levels[i].gbps, "B/s");
        line_label(b, ch, seg[0], seg[1], seg[2], seg[3], "ceiling-label", label);
    }
}

/* ---- the points ---------------------------------------------------------------- */

static kb_svg_mark shape(const char *prec) {
    return is(prec, "fp64")   ? KB_SVG_CIRCLE
           : is(prec, "fp32") ? KB_SVG_SQUARE
           : is(prec, "fp16") ? KB_SVG_TRIANGLE
           : is(prec, "bf16") ? KB_SVG_DIAMOND
                              : KB_SVG_HOLLOW;
}

static void attr(kb_buf *b, const char *name, const char *value) {
    kb_buf_printf(b, " kb:%s=\"", name);
    kb_buf_xml(b, value);
    kb_buf_puts(b, "\"");
}

static void point_title(kb_buf *b, const point *p) {
    char s[1024], share[400] = "";
    if (isfinite(p->c->pct_roofline))
        snprintf(share, sizeof share, ", %.0f %% of its roofline (%.40s)", p->c->pct_roofline,
                 p->c->bound);
    snprintf(s, sizeof s, "%s %s %s: %.3g FLOP/byte, %.3g GFLOP/s%s%s", p->t->name, p->c->name,
             p->c->variant, p->x, p->y, share, p->c->passed ? "" : " — FAILED");
    kb_buf_puts(b, "<title>");
    kb_buf_xml(b, s);
    kb_buf_puts(b, "</title>");
}

static void points(kb_buf *b, const chart *ch) {
    for (int i = 0; i < ch->n_pts; ++i) {
        const point *p = &ch->pts[i];
        const double x = px(ch, p->x), y = py(ch, p->y);
        kb_buf_printf(b, "<g class=\"point%s\"", p->c->passed ? "" : " failed");
        attr(b, "test", p->t->name);
        attr(b, "case", p->c->name);
        attr(b, "variant", p->c->variant);
        attr(b, "kernel", p->t->kernel);
        attr(b, "precision", p->t->precision);
        kb_buf_printf(b, " kb:intensity=\"%.6g\" kb:gflops=\"%.6g\" kb:cx=\"%.2f\" kb:cy=\"%.2f\">",
                      p->x, p->y, x, y);
        point_title(b, p);
        kb_buf_puts(b, "\n");
        kb_svg_marker(b, shape(p->t->precision), x, y, 5, palette[p->kernel % N_COLORS]);
        if (!p->c->passed) kb_svg_marker(b, KB_SVG_RING, x, y, 9, KB_SVG_RED);
        kb_buf_puts(b, "</g>\n");
    }
}

/* ---- the legend and the lists ---------------------------------------------------- */

static double legend_head(kb_buf *b, double y, const char *s) {
    kb_svg_text(b, LEGEND_X, y, "font-size=\"12\" font-weight=\"bold\" fill=\"" KB_SVG_INK "\"", s);
    return y + 4;
}

static double legend_row(kb_buf *b, double y, kb_svg_mark m, const char *color, const char *s) {
    double x = LEGEND_X, yy = y;
    char cut[256];
    int chars = (int)((WIDTH - MARGIN - LEGEND_X - 40) / (KB_SVG_SANS_EM * 11.0)), was_cut;
    size_t len = kb_svg_fit(s, chars, &was_cut);
    snprintf(cut, sizeof cut, "%.*s%s", (int)len, s, was_cut ? "\xe2\x80\xa6" : "");
    kb_svg_legend_item(b, &x, &yy, LEGEND_X, WIDTH, KB_SVG_NEWLINE, NULL, "");
    kb_svg_legend_item(b, &x, &yy, LEGEND_X, WIDTH, m, color, cut);
    return yy;
}

/* The legend column; returns the y of its last line. */
static double legend(kb_buf *b, const chart *ch) {
    double y = legend_head(b, PY0 + 4, "Kernels");
    for (int i = 0; i < ch->n_kernels; ++i)
        y = legend_row(b, y, KB_SVG_SWATCH, palette[i % N_COLORS], ch->kernels[i]);
    y = legend_head(b, y + 26, "Precision");
    static const char *const precs[] = {"fp64", "fp32", "fp16", "bf16"};
    for (int i = 0; i < 4; ++i) y = legend_row(b, y, shape(precs[i]), KB_SVG_MUTED, precs[i]);
    y = legend_row(b, y, KB_SVG_RING, KB_SVG_RED, "failed case");
    y = legend_head(b, y + 26, "Ceilings");
    const kb_sum_test *c = ch->ceilings;
    char s[256];
    for (int i = 0; c && i < c->n_levels; ++i) {
        figure_text(s, sizeof s, c->levels[i].name, "", c->levels[i].gbps, "B/s");
        y = legend_row(b, y, KB_SVG_SOLID, "#555555", s);
    }
    for (int i = 0; i < ch->n_roofs; ++i) {
        const roof *r = &ch->roofs[i];
        figure_text(s, sizeof s, r->names, r->matrix ? " matrix" : "", r->gflops, "FLOP/s");
        y = legend_row(b, y, r->matrix ? KB_SVG_DASHED : KB_SVG_SOLID, "#333333", s);
    }
    if (!c) {
        kb_svg_text(b, LEGEND_X, y + 18, "font-size=\"11\" fill=\"" KB_SVG_MUTED "\"",
                    "none in these results");
        y += 18;
    }
    return y;
}

/* Lines of "<head>: item, item, ..." wrapped to the width, at most
 * NOTE_MAX, then "... and N more". Returns the next line's y. */
typedef struct note {
    kb_buf *b;
    double y;
    char line[1024];
    int lines, left, items; /* lines written; items not written; items on this line */
    const char *attrs;
} note;

static void note_flush(note *n) {
    if (!*n->line) return;
    kb_svg_text(n->b, MARGIN, n->y, n->attrs, n->line);
    n->y += 15;
    n->lines++;
    n->line[0] = '\0';
    n->items = 0;
}

static void note_item(note *n, const char *item) {
    const double room = WIDTH - 2 * MARGIN;
    if (n->lines >= NOTE_MAX) {
        n->left++;
        return;
    }
    size_t len = strlen(n->line);
    if (len && kb_svg_width(n->line, 11) + kb_svg_width(item, 11) + 8 > room) {
        note_flush(n);
        if (n->lines >= NOTE_MAX) {
            n->left++;
            return;
        }
        len = 0;
        snprintf(n->line, sizeof n->line, "    ");
        len = strlen(n->line);
    }
    int cut;
    size_t fit = kb_svg_fit(item, (int)(room / (KB_SVG_SANS_EM * 11)) - 8, &cut);
    snprintf(n->line + len, sizeof n->line - len, "%s%.*s%s", n->items++ ? "; " : "", (int)fit,
             item, cut ? "\xe2\x80\xa6" : "");
}

static double note_end(note *n) {
    note_flush(n);
    if (n->left) {
        char more[64];
        snprintf(more, sizeof more, "    \xe2\x80\xa6 and %d more (summary.md lists them)",
                 n->left);
        kb_svg_text(n->b, MARGIN, n->y, n->attrs, more);
        n->y += 15;
    }
    return n->y + 4;
}

static void case_words(char *out, size_t size, const kb_sum_test *t, const kb_sum_case *c,
                       const char *why) {
    snprintf(out, size, "%s %s %s%s%s", t->name, c->name, c->variant, *why ? " " : "", why);
}

static double failed_list(kb_buf *b, const chart *ch, double y) {
    note n = {b, y, "", 0, 0, 0, "class=\"failed-list\" font-size=\"11\" fill=\"" KB_SVG_RED "\""};
    int any = 0;
    for (int i = 0; i < ch->run->n_tests; ++i) {
        const kb_sum_test *t = &ch->run->tests[i];
        for (int j = 0; charted(t, ch->backend) && j < t->n_cases; ++j) {
            const kb_sum_case *c = &t->cases[j];
            char item[700], why[200];
            if (c->passed) continue;
            if (!any++) snprintf(n.line, sizeof n.line, "Failed (a red ring): ");
            snprintf(why, sizeof why, "(%s%s)", kb_sum_verdict_text(c),
                     isfinite(c->median_ms) ? "" : ", not plotted");
            case_words(item, sizeof item, t, c, why);
            note_item(&n, item);
        }
    }
    return any ? note_end(&n) : y;
}

static double no_flops_list(kb_buf *b, const chart *ch, double y) {
    note n = {
        b, y, "", 0, 0, 0, "class=\"no-flops-list\" font-size=\"11\" fill=\"" KB_SVG_MUTED "\""};
    if (!ch->n_no_flops) return y;
    snprintf(n.line, sizeof n.line,
             "Not plotted, no floating-point work (a copy: no place on a GFLOP/s axis; its GB/s "
             "is in summary.md): ");
    for (int i = 0; i < ch->n_no_flops; ++i) {
        char item[700];
        case_words(item, sizeof item, ch->no_flops_t[i], ch->no_flops_c[i], "");
        note_item(&n, item);
    }
    n.left += ch->no_flops_more;
    return note_end(&n);
}

static double notes(kb_buf *b, const chart *ch, double y) {
    const char *muted = "font-size=\"11\" fill=\"" KB_SVG_MUTED "\"";
    char s[1024], age[64] = "";
    if (ch->ceilings && !isnan(ch->ceilings->calibration_age_s)) {
        char text[32];
        kb_calibration_age_text(ch->ceilings->calibration_age_s, text, sizeof text);
        snprintf(age, sizeof age, " (%s before the test)", text);
    }
    if (ch->ceilings)
        snprintf(s, sizeof s, "Ceilings: the calibration in %s's result%s%s%s, from %s.",
                 ch->ceilings->name, *ch->ceilings->calibrated_at ? ", measured " : "",
                 ch->ceilings->calibrated_at, age,
                 *ch->ceilings->calibration_file ? ch->ceilings->calibration_file
                                                 : "a file it does not name");
    else
        snprintf(s, sizeof s,
                 "No ceilings: no %s result carries calibration levels or compute peaks (run "
                 "kbench.calibrate.%s before the tests; docs/calibration.md).",
                 ch->backend, ch->backend);
    int cut;
    s[kb_svg_fit(s, (int)((WIDTH - 2 * MARGIN) / (KB_SVG_SANS_EM * 11)), &cut)] = '\0';
    kb_svg_text(b, MARGIN, y, muted, s);
    y += 15;
    if (ch->derived) {
        kb_svg_text(b, MARGIN, y, muted,
                    "Some results have no roofline figures: their intensity is GFLOP/s over GB/s.");
        y += 15;
    }
    if (!ch->n_pts) {
        kb_svg_text(b, MARGIN, y, muted, "No case with floating-point work ran on this backend.");
        y += 15;
    }
    if (ch->dropped) {
        snprintf(s, sizeof s, "%d more cases are not plotted: one chart holds %d.", ch->dropped,
                 MAX_PTS);
        kb_svg_text(b, MARGIN, y, muted, s);
        y += 15;
    }
    return no_flops_list(b, ch, failed_list(b, ch, y + 4));
}

static void title(kb_buf *b, const chart *ch) {
    char s[512];
    snprintf(s, sizeof s, "Roofline \xe2\x80\x94 backend %s \xe2\x80\x94 %d cases plotted",
             ch->backend, ch->n_pts);
    int cut;
    s[kb_svg_fit(s, (int)((WIDTH - 2 * MARGIN) / (KB_SVG_SANS_EM * 17)), &cut)] = '\0';
    kb_svg_text(b, MARGIN, 28, "font-size=\"17\" font-weight=\"bold\" fill=\"" KB_SVG_INK "\"", s);
    kb_svg_text(b, MARGIN, 48, "font-size=\"12\" fill=\"" KB_SVG_MUTED "\"",
                "achieved GFLOP/s against FLOP per byte; a case under a sloped line is bound by "
                "that memory level, under a level line by compute");
}

/* The parts in drawing order; with b NULL, only the height. */
static void draw(kb_buf *b, chart *ch, double *height) {
    kb_buf ignore = {.discard = 1};
    kb_buf *out = b ? b : &ignore;
    double top = 0;
    if (b) {
        kb_svg_open(b, WIDTH, *height, "xmlns:kb=\"" KB_NS "\"");
        title(b, ch);
        grid(b, ch);
    }
    if (ch->ceilings) ceilings(b, ch);
    if (b) points(b, ch);
    top = fmax(PY1 + 62, legend(out, ch) + 24);
    *height = notes(out, ch, top) + 8;
    free(ignore.text);
}

void kb_sum_roofline_svg_write(kb_buf *b, const kb_sum_run *run, const char *backend) {
    chart *ch = calloc(1, sizeof *ch);
    if (!ch) {
        b->failed = 1;
        return;
    }
    ch->run = run;
    ch->backend = backend;
    collect(ch);
    ranges(ch);
    for (int i = 0; i < ch->n_pts; ++i) { /* labels keep off the points */
        double x = px(ch, ch->pts[i].x), y = py(ch, ch->pts[i].y);
        keep_box(ch, (kb_svg_box){x, y, 1, 0, 6, 6}, 2);
    }
    const int point_boxes = ch->n_boxes;
    double height = 0;
    draw(NULL, ch, &height); /* the height first: the labels are placed again */
    ch->n_boxes = point_boxes;
    draw(b, ch, &height);
    kb_buf_puts(b, "</svg>\n");
    free(ch);
}
