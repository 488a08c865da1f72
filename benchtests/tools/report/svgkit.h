/* What the report's charts share (summary.svg, roofline-<backend>.svg): the
 * fonts and colours, text width estimates, text cut to a width, the file's
 * head, legend entries and markers. Plain SVG 1.1: system fonts, no
 * scripts. Widths are estimated from the font size: monospace names hold
 * the estimate exactly; sans-serif text uses a generous average. */
#ifndef KB_SVGKIT_H
#define KB_SVGKIT_H

#include "buf.h"

#include <stddef.h>

#define KB_SVG_MONO_EM 0.61 /* width of a monospace character, in em */
#define KB_SVG_SANS_EM 0.58 /* a generous average width of a sans-serif character */
#define KB_SVG_SANS    "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"
#define KB_SVG_MONO    "DejaVu Sans Mono, Liberation Mono, Menlo, Consolas, monospace"

#define KB_SVG_RED   "#c62828"
#define KB_SVG_GREEN "#2e7d32"
#define KB_SVG_GREY  "#9e9e9e"
#define KB_SVG_BLUE  "#4c78a8"
#define KB_SVG_INK   "#222222"
#define KB_SVG_MUTED "#616161"

/* Characters of a UTF-8 string. */
int kb_svg_chars(const char *s);
/* Bytes of s that fit in `chars` characters (UTF-8), and whether it was cut. */
size_t kb_svg_fit(const char *s, int chars, int *cut);
/* s cut to `chars` characters, with an ellipsis when it was cut, escaped. */
void kb_svg_cut_text(kb_buf *b, const char *s, int chars);
/* The estimated width of s in sans-serif at `size` px. */
double kb_svg_width(const char *s, double size);

/* <text x y attrs>s</text>, escaped. */
void kb_svg_text(kb_buf *b, double x, double y, const char *attrs, const char *s);
/* The XML declaration, <svg> with `extra` attributes (namespaces) and a
 * white background. */
void kb_svg_open(kb_buf *b, double width, double height, const char *extra);
/* A line; `dash` NULL for a solid one. */
void kb_svg_line(kb_buf *b, double x0, double y0, double x1, double y1, const char *color,
                 double stroke, const char *dash);

/* A marker centred at (cx, cy), `r` its half size: the shapes the legends
 * and the roofline's points use. */
typedef enum kb_svg_mark {
    KB_SVG_SWATCH,   /* a filled rectangle */
    KB_SVG_HOLLOW,   /* an open circle */
    KB_SVG_SOLID,    /* a line */
    KB_SVG_DASHED,   /* a dashed line */
    KB_SVG_CIRCLE,   /* a filled circle */
    KB_SVG_SQUARE,   /* a filled square */
    KB_SVG_TRIANGLE, /* a filled triangle, point up */
    KB_SVG_DIAMOND,  /* a filled diamond */
    KB_SVG_RING,     /* a thick open circle (a failed point's mark) */
    KB_SVG_NEWLINE,  /* legend_item only: start a new line */
} kb_svg_mark;

void kb_svg_marker(kb_buf *b, kb_svg_mark m, double cx, double cy, double r, const char *color);

/* One legend entry at (*x, *y), wrapping to a new line (at `left`) when it
 * would pass `right`; with b NULL, only moves (*x, *y). */
void kb_svg_legend_item(kb_buf *b, double *x, double *y, double left, double right, kb_svg_mark m,
                        const char *color, const char *label);

/* A rectangle turned by an angle (a label along a sloped line, or level):
 * its centre, the unit direction of its length, its half length and half
 * height. Labels are placed where their boxes meet no other box. */
typedef struct kb_svg_box {
    double cx, cy, ux, uy, hw, hh;
} kb_svg_box;

/* The box of a text of width w and height h whose baseline starts at
 * (x, y) and runs along the unit direction (ux, uy); the text's body is
 * on the side of -normal (above, for a left-to-right text). */
kb_svg_box kb_svg_text_box(double x, double y, double ux, double uy, double w, double h);
/* Whether two boxes overlap (separating axes), with `gap` px kept between. */
int kb_svg_boxes_meet(const kb_svg_box *a, const kb_svg_box *b, double gap);
/* Whether every corner of the box lies in the rectangle x0..x1, y0..y1. */
int kb_svg_box_inside(const kb_svg_box *a, double x0, double y0, double x1, double y1);

#endif
