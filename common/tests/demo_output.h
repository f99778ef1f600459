/* demo_output.h — for the tests of what a demo prints (tests only).
 *
 * A demo's stdout is the book's lines. A test runs the demo, finds a line by how it
 * begins, and compares it with the line it expects, written with values it computed
 * itself (from the PyTorch goldens, in double):
 *
 *     char *out = demo_run_tiny("ch03_norm/ch03_norm", "", dump_path);
 *     const char *line = demo_line(out, "忘了「1 +」", 0);
 *     snprintf(want, sizeof want, "忘了「1 +」、…只有 %.9g（正确的是 %.9g）…", rms_bad, rms_good);
 *     ck_assert(demo_line_matches(line, want, 1e-5));
 *
 * The comparison is exact for the text and numeric for the numbers. Give the
 * expected numbers more digits than the demo prints (%.9g): a printed number passes
 * when it is what rounding the expected value to the printed digits can give, i.e.
 * within half a unit of its last digit (0.00005 for "0.1234", 0.5 for a count, 0.05
 * for "12.3%"), plus rel · |expected| for the difference between the demo's float32
 * and the test's double. So a count must be exact, and a value printed with 4
 * decimals must agree to 4 decimals. In the expected line, <any> stands for a number
 * that is not checked (e.g. a float32 rounding residue).
 */
#ifndef DEMO_OUTPUT_H
#define DEMO_OUTPUT_H

#include <stdbool.h>

/* Runs ./$BINDIR<demo> --model $TINY <extra_args> --dump <dump_path> (extra_args and
 * dump_path may be empty / NULL); returns its stdout (free() it), or NULL after saying
 * why when it cannot run or exits non-zero. $TINY defaults to build/tiny. */
char *demo_run_tiny(const char *demo, const char *extra_args, const char *dump_path);

/* The nth (from 0) line of text that begins with start, or NULL. The line runs to the
 * next '\n'. */
const char *demo_line(const char *text, const char *start, int nth);

/* How many lines of text begin with start. */
int demo_count_lines(const char *text, const char *start);

/* Compares the line got (up to its '\n'; NULL counts as missing) with want as
 * described above; prints "OK   line: ..." or "FAIL line" with both lines and where
 * they part. */
bool demo_line_matches(const char *got, const char *want, double rel);

#endif
