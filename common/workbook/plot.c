/* plot.c — figures with gnuplot (see plot.h).
 *
 * Each figure becomes a data file and a script in the output folder; gnuplot
 * then reads the script from a pipe, once with the PNG terminal and, for an
 * ASCII drawing, once more with the dumb terminal writing to the chosen stream.
 */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utf8proc.h>

#include "util.h"

void plot_quote(Text *t, const char *s) {
    text_add(t, "'");
    for (; *s; s++) text_add(t, *s == '\'' ? "''" : "%c", *s);
    text_add(t, "'");
}

/* ---- finding and running gnuplot --------------------------------------------- */

/* The full path of gnuplot on the PATH, or NULL (caller frees). */
static char *find_gnuplot(void) {
    const char *path = getenv("PATH");
    if (!path || !*path) return NULL;
    char *dirs = xstrdup(path), *save = NULL, *found = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
        char *candidate = path_join(*d ? d : ".", "gnuplot");
        if (access(candidate, X_OK) == 0 && is_file(candidate))
            found = candidate;
        else
            free(candidate);
    }
    free(dirs);
    return found;
}

bool plot_have_gnuplot(void) {
    char *exe = find_gnuplot();
    free(exe);
    return exe != NULL;
}

/* Runs gnuplot on the script, its stdout going to out_fd (-1: /dev/null).
 * gnuplot's error messages go to our stderr. True when it exits with 0. */
static bool run_gnuplot(const char *exe, const char *script, int out_fd) {
    int fds[2];
    if (pipe(fds) != 0) return false;
    fflush(NULL); /* nothing buffered may be written twice by the child */
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        return false;
    }
    if (pid == 0) { /* the child becomes gnuplot, reading the script on stdin */
        dup2(fds[0], STDIN_FILENO);
        close(fds[0]), close(fds[1]);
        int out = out_fd >= 0 ? out_fd : open("/dev/null", O_WRONLY);
        if (out >= 0) dup2(out, STDOUT_FILENO);
        execl(exe, "gnuplot", (char *)NULL);
        _exit(127);
    }
    close(fds[0]);
    /* If gnuplot dies early, the write fails instead of killing us with SIGPIPE. */
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);
    size_t len = strlen(script), done = 0;
    while (done < len) {
        ssize_t n = write(fds[1], script + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += (size_t)n;
    }
    close(fds[1]);
    signal(SIGPIPE, old);
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return false;
    return done == len && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* ---- the parts every figure shares ---------------------------------------------- */

typedef struct {
    const char *dir;
    char *dat, *gp, *png; /* DIR/NAME.dat, .gp, .png */
} Files;

static void files_init(Files *f, const Plot *p, const PlotOptions *opt) {
    f->dir = opt->dir ? opt->dir : "plots";
    Text dat = {0}, gp = {0}, png = {0};
    text_add(&dat, "%s/%s.dat", f->dir, p->name);
    text_add(&gp, "%s/%s.gp", f->dir, p->name);
    text_add(&png, "%s/%s.png", f->dir, p->name);
    f->dat = dat.s, f->gp = gp.s, f->png = png.s;
}

static void files_free(Files *f) { free(f->dat), free(f->gp), free(f->png); }

/* "set what 'value'" and a newline, the value quoted for gnuplot. */
static void add_setting(Text *t, const char *what, const char *value) {
    text_add(t, "set %s ", what);
    plot_quote(t, value);
    text_add(t, "\n");
}

/* Title, labels, scales, ranges, legend: the lines every figure starts with. */
static void add_axes(Text *body, const Plot *p) {
    if (p->title) add_setting(body, "title", p->title);
    if (p->xlabel) add_setting(body, "xlabel", p->xlabel);
    if (p->ylabel) add_setting(body, "ylabel", p->ylabel);
    if (p->logx) text_add(body, "set logscale x\n");
    if (p->logy) text_add(body, "set logscale y\n");
    if (p->xmin != p->xmax) text_add(body, "set xrange [%.9g:%.9g]\n", p->xmin, p->xmax);
    if (p->ymin != p->ymax) text_add(body, "set yrange [%.9g:%.9g]\n", p->ymin, p->ymax);
}

/* The PNG script's head: pngcairo where gnuplot has it, the plain png terminal
 * otherwise; no "enhanced" text, so that k_t and x^2 print as written. */
static void add_png_head(Text *t, const Plot *p, const Files *f, const PlotOptions *opt) {
    int w = opt->png_width ? opt->png_width : 900, h = opt->png_height ? opt->png_height : 560;
    text_add(t, "# %s, drawn by %s. Redraw the PNG with: gnuplot %s\n", p->name, program_name(), f->gp);
    text_add(t, "set encoding utf8\n");
    text_add(t,
             "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
             "    set terminal pngcairo size %d,%d noenhanced font ',11'\n"
             "} else {\n"
             "    set terminal png size %d,%d noenhanced\n"
             "}\n",
             w, h, w, h);
    add_setting(t, "output", f->png);
    text_add(t, "set grid\n"); /* only in the PNG: in the terminal the dots would drown the curves */
}

static void add_dumb_head(Text *t, const PlotOptions *opt) {
    text_add(t, "set encoding utf8\nset terminal dumb size %d,%d noenhanced\nset output\n",
             opt->cols ? opt->cols : 100, opt->rows ? opt->rows : 32);
}

/* Writes NAME.dat and NAME.gp, runs gnuplot for the PNG and, in ASCII mode,
 * for the terminal. ascii_done says the caller already drew the ASCII version. */
static PlotStatus draw(const Plot *p, const Files *f, const char *data, const char *body,
                       const PlotOptions *opt, bool ascii_done) {
    Error err;
    if (!make_dirs(f->dir, &err) || !write_file(f->dat, data, strlen(data), &err)) {
        fprintf(stderr, "%s: plot %s not drawn: %s\n", program_name(), p->name, err.msg);
        return PLOT_FAILED;
    }
    Text script = {0};
    add_png_head(&script, p, f, opt);
    text_add(&script, "%s", body);
    bool ok = write_file(f->gp, script.s, script.len, &err);
    if (!ok) fprintf(stderr, "%s: plot %s not drawn: %s\n", program_name(), p->name, err.msg);
    char *exe = ok ? find_gnuplot() : NULL;
    PlotStatus status = ok ? PLOT_WRITTEN : PLOT_FAILED;
    if (ok && !exe) {
        fprintf(
            stderr,
            "%s: 没有找到 gnuplot，跳过了 %s%s（装上 gnuplot 就有图，例如 apt-get install gnuplot-nox）\n",
            program_name(), f->png, opt->mode == PLOT_ASCII && !ascii_done ? " 和终端里的图" : "");
        status = PLOT_SKIPPED;
    } else if (ok && !run_gnuplot(exe, script.s, -1)) {
        fprintf(stderr, "%s: gnuplot failed on %s, no %s\n", program_name(), f->gp, f->png);
        status = PLOT_FAILED;
    } else if (ok) {
        fprintf(stderr, "%s: 图已保存到 %s\n", program_name(), f->png);
    }
    if (status == PLOT_WRITTEN && opt->mode == PLOT_ASCII && !ascii_done) {
        Text dumb = {0};
        add_dumb_head(&dumb, opt);
        text_add(&dumb, "%s", body);
        FILE *out = opt->terminal ? opt->terminal : stderr;
        fflush(out);
        if (!run_gnuplot(exe, dumb.s, fileno(out))) {
            fprintf(stderr, "%s: gnuplot could not draw %s in the terminal\n", program_name(), p->name);
            status = PLOT_FAILED;
        }
        free(dumb.s);
    }
    free(exe);
    free(script.s);
    return status;
}

/* ---- curves --------------------------------------------------------------------- */

static const char *style_words(PlotStyle s) {
    switch (s) {
    case PLOT_POINTS:
        return "with points pt 7 ps 0.7";
    case PLOT_LINESPOINTS:
        return "with linespoints lw 2 pt 7 ps 0.8";
    case PLOT_DOTS:
        return "with points pt 7 ps 0.25";
    case PLOT_MARKS:
        return "with points pt 6 ps 2 lw 2";
    default:
        return "with lines lw 2";
    }
}

static const PlotOptions default_options = {.mode = PLOT_PNG};

PlotStatus plot_lines(const Plot *p, const PlotSeries *series, int nseries, const PlotOptions *opt) {
    if (!opt) opt = &default_options;
    if (opt->mode == PLOT_NONE) return PLOT_SKIPPED;
    Files f;
    files_init(&f, p, opt);

    /* one block per curve, blocks separated by two blank lines (gnuplot's "index") */
    Text data = {0};
    for (int s = 0; s < nseries; s++) {
        text_add(&data, "# %s\n", series[s].title ? series[s].title : "");
        for (int i = 0; i < series[s].n; i++) {
            double x = series[s].x ? series[s].x[i] : i, y = series[s].y[i];
            if (isfinite(y))
                text_add(&data, "%.9g %.9g\n", x, y);
            else
                text_add(&data, "%.9g NaN\n", x);
        }
        text_add(&data, "\n\n");
    }

    Text body = {0};
    add_axes(&body, p);
    text_add(&body, "set key %s\n", p->key ? p->key : "top right");
    if (p->extra) text_add(&body, "%s\n", p->extra);
    text_add(&body, "plot ");
    for (int s = 0; s < nseries; s++) {
        if (s) text_add(&body, ", \\\n     ");
        plot_quote(&body, s == 0 ? f.dat : "");
        text_add(&body, " index %d using 1:2 %s ", s, style_words(series[s].style));
        if (series[s].color) {
            text_add(&body, "lc rgb ");
            plot_quote(&body, series[s].color);
            text_add(&body, " ");
        }
        if (series[s].title) {
            text_add(&body, "title ");
            plot_quote(&body, series[s].title);
        } else {
            text_add(&body, "notitle");
        }
    }
    text_add(&body, "\n");

    PlotStatus status = draw(p, &f, data.s ? data.s : "", body.s, opt, false);
    free(data.s);
    free(body.s);
    files_free(&f);
    return status;
}

/* ---- heatmaps ---------------------------------------------------------------------- */

/* Tick labels "set xtics ('a' 0, 'b' 1, …)", at most about 24 of them. */
static void add_tics(Text *t, const char *axis, const char *const *labels, int n) {
    if (!labels) return;
    int step = n > 24 ? (n + 23) / 24 : 1;
    text_add(t, "set %stics (", axis);
    for (int i = 0; i < n; i += step) {
        if (i) text_add(t, ", ");
        plot_quote(t, labels[i] ? labels[i] : "");
        text_add(t, " %d", i);
    }
    text_add(t, ")%s\n", axis[0] == 'x' ? " rotate by -45" : "");
}

/* Writes label right-aligned in `width` terminal columns, cut if longer; counts
 * columns, not bytes, so that Chinese tokens (two columns each) line up. */
static void put_label(FILE *out, const char *label, int width) {
    const utf8proc_uint8_t *s = (const utf8proc_uint8_t *)(label ? label : "");
    utf8proc_ssize_t keep = 0;
    int cols = 0;
    for (utf8proc_ssize_t at = 0; s[at];) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t n = utf8proc_iterate(s + at, -1, &cp);
        if (n <= 0) break; /* invalid UTF-8: show what came before */
        int w = utf8proc_charwidth(cp);
        if (cols + w > width) break;
        cols += w, at += n, keep = at;
    }
    fprintf(out, "%*s%.*s", width - cols, "", (int)keep, (const char *)s);
}

/* The matrix with characters, darker = larger: no gnuplot needed. */
static void ascii_heatmap(FILE *out, const Plot *p, const float *m, int rows, int cols,
                          const char *const *row_labels) {
    static const char ramp[] = " .:-=+*#%@";
    float lo = INFINITY, hi = -INFINITY;
    for (long i = 0; i < (long)rows * cols; i++)
        if (isfinite(m[i])) lo = m[i] < lo ? m[i] : lo, hi = m[i] > hi ? m[i] : hi;
    if (p->title) fprintf(out, "%s\n", p->title);
    for (int r = 0; r < rows; r++) {
        put_label(out, row_labels ? row_labels[r] : NULL, 10);
        fprintf(out, " |");
        for (int c = 0; c < cols; c++) {
            float v = m[(size_t)r * cols + c];
            /* '.' for the smallest value … '@' for the largest; blank only for NaN */
            int level = !isfinite(v) ? 0 : hi > lo ? 1 + (int)((v - lo) / (hi - lo) * 8.0f + 0.5f) : 9;
            fputc(ramp[level], out);
        }
        fprintf(out, "|\n");
    }
    fprintf(out, "%10s  '%c' = %.3g … '%c' = %.3g\n", "", ramp[1], lo, ramp[9], hi);
}

PlotStatus plot_heatmap(const Plot *p, const float *m, int rows, int cols, const char *const *row_labels,
                        const char *const *col_labels, const PlotOptions *opt) {
    if (!opt) opt = &default_options;
    if (opt->mode == PLOT_NONE) return PLOT_SKIPPED;
    Files f;
    files_init(&f, p, opt);

    /* one "column row value" line per cell, a blank line after each row (gnuplot
     * reads NaN cells in this form as holes, without the warnings its matrix
     * format prints) */
    Text data = {0};
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            float v = m[(size_t)r * cols + c];
            if (isfinite(v))
                text_add(&data, "%d %d %.7g\n", c, r, v);
            else
                text_add(&data, "%d %d NaN\n", c, r);
        }
        text_add(&data, "\n");
    }

    Text body = {0};
    add_axes(&body, p);
    text_add(&body, "set xrange [-0.5:%d.5]\nset yrange [%d.5:-0.5]\n", cols - 1,
             rows - 1); /* row 0 on top */
    text_add(&body, "unset grid\n");
    text_add(&body, "set palette defined (0 '#fff7ec', 0.35 '#fc8d59', 0.7 '#b30000', 1 '#4a0000')\n");
    add_tics(&body, "x", col_labels, cols);
    add_tics(&body, "y", row_labels, rows);
    if (p->extra) text_add(&body, "%s\n", p->extra);
    text_add(&body, "plot "), plot_quote(&body, f.dat), text_add(&body, " using 1:2:3 with image notitle\n");

    bool ascii = opt->mode == PLOT_ASCII;
    if (ascii) { /* the dumb terminal cannot show colours: draw it ourselves */
        FILE *out = opt->terminal ? opt->terminal : stderr;
        ascii_heatmap(out, p, m, rows, cols, row_labels);
        fflush(out);
    }
    PlotStatus status = draw(p, &f, data.s ? data.s : "", body.s, opt, ascii);
    free(data.s);
    free(body.s);
    files_free(&f);
    return status;
}
