#include "svgkit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int kb_svg_chars(const char *s) {
    int n = 0;
    for (; *s; ++s) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

size_t kb_svg_fit(const char *s, int chars, int *cut) {
    size_t i = 0;
    int n = 0;
    while (s[i] && n < chars) {
        ++i;
        while (((unsigned char)s[i] & 0xC0) == 0x80) ++i;
        ++n;
    }
    *cut = s[i] != '\0';
    return i;
}

void kb_svg_cut_text(kb_buf *b, const char *s, int chars) {
    int cut;
    size_t len = kb_svg_fit(s, chars, &cut);
    if (cut) len = kb_svg_fit(s, chars > 1 ? chars - 1 : 0, &cut);
    char piece[1024];
    if (len > sizeof piece - 8) len = 0; /* never: the charts cut to far fewer characters */
    snprintf(piece, sizeof piece, "%.*s%s", (int)len, s, cut ? "\xe2\x80\xa6" : "");
    kb_buf_xml(b, piece);
}

double kb_svg_width(const char *s, double size) {
    return kb_svg_chars(s) * KB_SVG_SANS_EM * size;
}

void kb_svg_text(kb_buf *b, double x, double y, const char *attrs, const char *s) {
    kb_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" %s>", x, y, attrs);
    kb_buf_xml(b, s);
    kb_buf_puts(b, "</text>\n");
}

void kb_svg_open(kb_buf *b, double width, double height, const char *extra) {
    kb_buf_printf(b,
                  "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<svg xmlns=\"http://www.w3.org/2000/svg\"%s%s version=\"1.1\" "
                  "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                  "font-family=\"" KB_SVG_SANS "\">\n"
                  "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
                  extra ? " " : "", extra ? extra : "", width, height, width, height);
}

void kb_svg_line(kb_buf *b, double x0, double y0, double x1, double y1, const char *color,
                 double stroke, const char *dash) {
    kb_buf_printf(b,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                  "stroke-width=\"%.1f\"%s%s%s/>\n",
                  x0, y0, x1, y1, color, stroke, dash ? " stroke-dasharray=\"" : "",
                  dash ? dash : "", dash ? "\"" : "");
}

void kb_svg_marker(kb_buf *b, kb_svg_mark m, double cx, double cy, double r, const char *color) {
    const char *edge = "stroke=\"white\" stroke-width=\"0.8\"";
    switch (m) {
    case KB_SVG_SWATCH:
        kb_buf_printf(b,
                      "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
                      cx - r, cy - r * 0.625, 2 * r, 1.25 * r, color);
        break;
    case KB_SVG_HOLLOW:
    case KB_SVG_RING:
        kb_buf_printf(b,
                      "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"none\" stroke=\"%s\" "
                      "stroke-width=\"%.1f\"/>\n",
                      cx, cy, r, color, m == KB_SVG_RING ? 2.0 : 1.5);
        break;
    case KB_SVG_SOLID:
    case KB_SVG_DASHED:
        kb_svg_line(b, cx - r, cy, cx + r, cy, color, 1.5, m == KB_SVG_DASHED ? "4 3" : NULL);
        break;
    case KB_SVG_CIRCLE:
        kb_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" %s/>\n", cx, cy, r,
                      color, edge);
        break;
    case KB_SVG_SQUARE:
        kb_buf_printf(b,
                      "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
                      "%s/>\n",
                      cx - 0.85 * r, cy - 0.85 * r, 1.7 * r, 1.7 * r, color, edge);
        break;
    case KB_SVG_TRIANGLE:
        kb_buf_printf(b, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\" %s/>\n", cx,
                      cy - 1.15 * r, cx + r, cy + 0.75 * r, cx - r, cy + 0.75 * r, color, edge);
        break;
    case KB_SVG_DIAMOND:
        kb_buf_printf(b,
                      "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"%s\" "
                      "%s/>\n",
                      cx, cy - 1.2 * r, cx + r, cy, cx, cy + 1.2 * r, cx - r, cy, color, edge);
        break;
    case KB_SVG_NEWLINE: break;
    }
}

void kb_svg_legend_item(kb_buf *b, double *x, double *y, double left, double right, kb_svg_mark m,
                        const char *color, const char *label) {
    double w = 22 + kb_svg_width(label, 11.0) + 18;
    if (m == KB_SVG_NEWLINE || *x + w > right) {
        *x = left;
        *y += 18;
    }
    if (m == KB_SVG_NEWLINE) return;
    if (b) {
        double r = m == KB_SVG_SWATCH || m == KB_SVG_SOLID || m == KB_SVG_DASHED ? 8 : 4.5;
        kb_svg_marker(b, m, *x + 8, *y - 4, r, color);
        kb_svg_text(b, *x + 22, *y, "font-size=\"11\" fill=\"" KB_SVG_INK "\"", label);
    }
    *x += w;
}

kb_svg_box kb_svg_text_box(double x, double y, double ux, double uy, double w, double h) {
    /* the normal (-uy, ux) points below a left-to-right text: its body is
     * from 0.25 h below the baseline (descenders) to 0.75 h above */
    const double nx = -uy, ny = ux, off = -0.25 * h;
    return (kb_svg_box){x + ux * w / 2 + nx * off, y + uy * w / 2 + ny * off, ux, uy, w / 2, h / 2};
}

/* Half the extent of box b projected on the unit axis (ax, ay). */
static double reach(const kb_svg_box *b, double ax, double ay) {
    return b->hw * fabs(b->ux * ax + b->uy * ay) + b->hh * fabs(-b->uy * ax + b->ux * ay);
}

int kb_svg_boxes_meet(const kb_svg_box *a, const kb_svg_box *b, double gap) {
    const double axes[4][2] = {{a->ux, a->uy}, {-a->uy, a->ux}, {b->ux, b->uy}, {-b->uy, b->ux}};
    const double dx = b->cx - a->cx, dy = b->cy - a->cy;
    for (int i = 0; i < 4; ++i) {
        double d = fabs(dx * axes[i][0] + dy * axes[i][1]);
        if (d > reach(a, axes[i][0], axes[i][1]) + reach(b, axes[i][0], axes[i][1]) + gap) return 0;
    }
    return 1;
}

int kb_svg_box_inside(const kb_svg_box *a, double x0, double y0, double x1, double y1) {
    const double nx = -a->uy, ny = a->ux;
    for (int i = 0; i < 4; ++i) {
        double su = i & 1 ? 1 : -1, sv = i & 2 ? 1 : -1;
        double x = a->cx + su * a->hw * a->ux + sv * a->hh * nx;
        double y = a->cy + su * a->hw * a->uy + sv * a->hh * ny;
        if (x < x0 || x > x1 || y < y0 || y > y1) return 0;
    }
    return 1;
}
