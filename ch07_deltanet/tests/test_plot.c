/* test_plot.c — common/workbook/plot.c writes its data, script and PNG, draws in the
 * terminal on request, and degrades gracefully without gnuplot.
 *
 * Each test works in a fresh folder under /tmp. PNG checks need gnuplot; where it
 * is missing they are skipped with a note (the "no gnuplot" behaviour is tested
 * in every case by emptying PATH).
 */
#include <check.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workbook/plot.h"
#include "workbook/util.h"
#include "tests/check_main.h"

static char workdir[64];

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void setup(void) {
    strcpy(workdir, "/tmp/test_plot_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(workdir));
}

static void teardown(void) { nftw(workdir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

static char *in_work(const char *name) { return path_join(workdir, name); }

static bool is_png(const char *path) {
    FILE *f = fopen(path, "rb");
    unsigned char magic[8] = {0};
    bool ok = f && fread(magic, 1, 8, f) == 8 && memcmp(magic, "\x89PNG\r\n\x1a\n", 8) == 0;
    if (f) fclose(f);
    return ok;
}

static char *slurp(const char *path) {
    Error err;
    char *text = read_file(path, NULL, &err);
    ck_assert_msg(text, "%s", err.msg);
    return text;
}

static char *read_stream(FILE *f) {
    fflush(f);
    long n = ftell(f);
    char *text = xmalloc((size_t)n + 1);
    rewind(f);
    size_t got = fread(text, 1, (size_t)n, f);
    text[got] = '\0';
    return text;
}

/* Two curves, one with a NaN gap, a quote in the title, log y. */
static PlotStatus draw_curves(PlotMode mode, FILE *terminal) {
    static const double x[4] = {1, 2, 3, 4}, y1[4] = {1, 0.1, 0.01, 0.001}, y2[4] = {0.5, NAN, 0.05, 0.02};
    PlotSeries s[2] = {{"first", x, y1, 4, PLOT_LINES, "#1f77b4"}, {NULL, NULL, y2, 4, PLOT_MARKS, NULL}};
    Plot p = {.name = "curves", .title = "it's a test", .xlabel = "x", .ylabel = "y", .logy = true};
    PlotOptions opt = {.mode = mode, .dir = workdir, .terminal = terminal, .cols = 60, .rows = 20};
    return plot_lines(&p, s, 2, &opt);
}

START_TEST(curves_write_data_script_and_png) {
    PlotStatus st = draw_curves(PLOT_PNG, NULL);
    char *dat = in_work("curves.dat"), *gp = in_work("curves.gp"), *png = in_work("curves.png");
    char *data = slurp(dat), *script = slurp(gp);
    /* one block per curve; x defaults to 0, 1, 2, …; NaN stays a gap */
    ck_assert_ptr_nonnull(strstr(data, "# first\n1 1\n2 0.1\n3 0.01\n4 0.001\n\n\n"));
    ck_assert_ptr_nonnull(strstr(data, "\n0 0.5\n1 NaN\n2 0.05\n3 0.02\n"));
    ck_assert_ptr_nonnull(strstr(script, "set title 'it''s a test'"));
    ck_assert_ptr_nonnull(strstr(script, "set logscale y"));
    ck_assert_ptr_nonnull(strstr(script, "index 1 using 1:2"));
    ck_assert_ptr_nonnull(strstr(script, "lc rgb '#1f77b4'"));
    ck_assert_ptr_nonnull(strstr(script, "notitle"));
    if (plot_have_gnuplot()) {
        ck_assert_int_eq(st, PLOT_WRITTEN);
        ck_assert_msg(is_png(png), "%s is not a PNG", png);
    } else {
        printf("note: no gnuplot here, PNG not checked\n");
        ck_assert_int_eq(st, PLOT_SKIPPED);
    }
    free(dat), free(gp), free(png), free(data), free(script);
}
END_TEST

START_TEST(curves_in_the_terminal) {
    if (!plot_have_gnuplot()) {
        printf("note: no gnuplot here, terminal drawing not checked\n");
        return;
    }
    FILE *term = tmpfile();
    ck_assert_int_eq(draw_curves(PLOT_ASCII, term), PLOT_WRITTEN);
    char *drawn = read_stream(term);
    ck_assert_msg(strstr(drawn, "it's a test") && strstr(drawn, "first"), "no title/legend in:\n%s", drawn);
    ck_assert_int_ge((long)strlen(drawn), 60 * 15); /* a 60 x 20 character drawing */
    free(drawn);
    fclose(term);
}
END_TEST

START_TEST(without_gnuplot_the_png_is_skipped) {
    setenv("PATH", "/nonexistent", 1); /* this test runs in its own process */
    ck_assert(!plot_have_gnuplot());
    ck_assert_int_eq(draw_curves(PLOT_ASCII, NULL), PLOT_SKIPPED);
    char *png = in_work("curves.png"), *gp = in_work("curves.gp");
    ck_assert(!is_file(png));
    ck_assert(is_file(gp)); /* the script is still there, for later */
    free(png), free(gp);
}
END_TEST

START_TEST(mode_none_writes_nothing) {
    ck_assert_int_eq(draw_curves(PLOT_NONE, NULL), PLOT_SKIPPED);
    char *gp = in_work("curves.gp");
    ck_assert(!is_file(gp));
    free(gp);
}
END_TEST

START_TEST(unwritable_folder_fails_cleanly) {
    static const double y[2] = {1, 2};
    PlotSeries s = {"y", NULL, y, 2, PLOT_LINES, NULL};
    Plot p = {.name = "x"};
    PlotOptions opt = {.mode = PLOT_PNG, .dir = "/proc/no/such/folder"};
    ck_assert_int_eq(plot_lines(&p, &s, 1, &opt), PLOT_FAILED);
}
END_TEST

/* A 3 x 4 attention-like pattern with the future masked (NaN). */
START_TEST(heatmap) {
    const float m[12] = {1.0f, NAN, NAN, NAN, 0.5f, 0.5f, NAN, NAN, 0.2f, 0.3f, 0.5f, NAN};
    const char *rows[3] = {"The", "cat", "sat"}, *cols[4] = {"The", "cat", "sat", "on"};
    Plot p = {.name = "attn", .title = "attention", .xlabel = "key", .ylabel = "query"};
    FILE *term = tmpfile();
    PlotOptions opt = {.mode = PLOT_ASCII, .dir = workdir, .terminal = term};
    PlotStatus st = plot_heatmap(&p, m, 3, 4, rows, cols, &opt);
    char *dat = in_work("attn.dat"), *gp = in_work("attn.gp"), *png = in_work("attn.png");
    char *data = slurp(dat), *script = slurp(gp), *drawn = read_stream(term);
    ck_assert_ptr_nonnull(strstr(data, "0 0 1\n1 0 NaN\n2 0 NaN\n3 0 NaN\n\n0 1 0.5\n"));
    ck_assert_ptr_nonnull(strstr(data, "\n2 2 0.5\n3 2 NaN\n\n"));
    ck_assert_ptr_nonnull(strstr(script, "using 1:2:3 with image"));
    ck_assert_ptr_nonnull(strstr(script, "set ytics ('The' 0, 'cat' 1, 'sat' 2)"));
    ck_assert_ptr_nonnull(strstr(script, "set yrange [2.5:-0.5]")); /* first query on top */
    /* the character ramp: max '@', min '.', masked ' ' */
    ck_assert_msg(strstr(drawn, "       The |@   |\n") && strstr(drawn, "       sat |.:= |\n"), "drawn:\n%s",
                  drawn);
    if (plot_have_gnuplot()) {
        ck_assert_int_eq(st, PLOT_WRITTEN);
        ck_assert(is_png(png));
    }
    free(dat), free(gp), free(png), free(data), free(script), free(drawn);
    fclose(term);
}
END_TEST

int main(void) {
    Suite *s = suite_create("plot");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, curves_write_data_script_and_png);
    tcase_add_test(tc, curves_in_the_terminal);
    tcase_add_test(tc, without_gnuplot_the_png_is_skipped);
    tcase_add_test(tc, mode_none_writes_nothing);
    tcase_add_test(tc, unwritable_folder_fails_cleanly);
    tcase_add_test(tc, heatmap);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
