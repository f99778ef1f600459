/* plot.h — the chapters' figures, drawn with gnuplot.
 *
 * A demo hands over its numbers (curves, or a matrix for a heatmap) and gets:
 *
 *   plots/NAME.png   the figure (git-ignored; the folder is created)
 *   plots/NAME.dat   the numbers: one block per curve, or one line per heatmap cell
 *   plots/NAME.gp    the gnuplot script that drew it: `gnuplot plots/NAME.gp`
 *                    redraws the PNG from the folder the demo ran in, so a reader
 *                    can restyle a figure without touching C
 *
 * and, in PLOT_ASCII mode, the same figure drawn with characters in the terminal
 * (gnuplot's `dumb` terminal; heatmaps as a character ramp) on stderr by default,
 * so that a demo's stdout stays exactly the book's printed lines.
 *
 * Every notice goes to stderr, in Chinese like the figures themselves ("图已保存到
 * plots/x.png", "没有找到 gnuplot，跳过了 …"); a figure that fails (a file that cannot
 * be written, gnuplot exiting with an error) gets an English error line instead, as
 * every error does (demo.h). Without gnuplot nothing fails: the PNG is skipped with
 * one line saying so, and the demo carries on (an ASCII heatmap needs no gnuplot and
 * is still drawn).
 */
#ifndef PLOT_H
#define PLOT_H

#include <stdbool.h>
#include <stdio.h>

#include "util.h"

typedef enum {
    PLOT_NONE,  /* draw nothing */
    PLOT_PNG,   /* plots/NAME.png (+ .dat, .gp) */
    PLOT_ASCII, /* the PNG, and the figure drawn in the terminal */
} PlotMode;

typedef enum {
    PLOT_LINES,
    PLOT_LINESPOINTS,
    PLOT_POINTS, /* filled dots */
    PLOT_DOTS,   /* small dots, for many noisy points */
    PLOT_MARKS,  /* large open circles, to mark a few special values on a curve */
} PlotStyle;

/* One curve: n points (x[i], y[i]). */
typedef struct {
    const char *title; /* legend entry (NULL: none) */
    const double *x;   /* [n]; NULL means 0, 1, …, n-1 */
    const double *y;   /* [n]; NaN leaves a gap */
    int n;
    PlotStyle style;
    const char *color; /* e.g. "#1f77b4" or "dark-red"; NULL: gnuplot's next colour */
} PlotSeries;

/* What a figure shows. Zero-initialize and fill what you need. */
typedef struct {
    const char *name; /* file name stem, e.g. "ch07_decay" */
    const char *title;
    const char *xlabel, *ylabel;
    bool logx, logy;
    double xmin, xmax; /* axis range; min == max means automatic */
    double ymin, ymax;
    const char *key;   /* legend position, gnuplot words ("top right", "outside"); NULL: "top right" */
    const char *extra; /* more gnuplot commands (e.g. "set arrow …"), or NULL */
} Plot;

/* Where and how. Zero-initialize for the defaults; a NULL PlotOptions means PLOT_PNG. */
typedef struct {
    PlotMode mode;
    const char *dir;           /* output folder; NULL: "plots" (relative to the current folder) */
    FILE *terminal;            /* PLOT_ASCII drawing goes here; NULL: stderr */
    int png_width, png_height; /* 0: 900 x 560 pixels */
    int cols, rows;            /* terminal size of the ASCII drawing; 0: 100 x 32 */
} PlotOptions;

typedef enum {
    PLOT_WRITTEN, /* the PNG is there (and the ASCII drawing, if asked) */
    PLOT_SKIPPED, /* mode PLOT_NONE, or no gnuplot: said so on stderr */
    PLOT_FAILED,  /* could not write a file or gnuplot failed: said so on stderr */
} PlotStatus;

/* Appends s as a gnuplot single-quoted literal (a quote inside is doubled), for a
 * demo that writes gnuplot commands of its own. */
void plot_quote(Text *t, const char *s);

/* True when a gnuplot executable is on the PATH. */
bool plot_have_gnuplot(void);

/* Curves on common axes. */
PlotStatus plot_lines(const Plot *p, const PlotSeries *series, int nseries, const PlotOptions *opt);

/* A matrix as a colour map, row 0 at the top (an attention pattern: rows =
 * queries, columns = keys). m is [rows, cols] row-major. Labels (one per row /
 * column) may be NULL. NaN cells stay blank (e.g. the masked future). */
PlotStatus plot_heatmap(const Plot *p, const float *m, int rows, int cols, const char *const *row_labels,
                        const char *const *col_labels, const PlotOptions *opt);

#endif
