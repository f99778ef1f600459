/* ptest_check.h — the checker half of an exercise's tests (tests/check.c; ptest.h says
 * why there are two halves).
 *
 * Each case takes the outputs its runner handed back, and compares them with the
 * expected values; the first check that fails ends the case with a message and the
 * values involved:
 *
 *     static void worked_example(void) {
 *         const float want[4] = {0.365148347f, 1.09544504f, 0.547722521f, 2.92118678f};
 *         const float *y = pt_got_floats("y", 4);
 *         pt_note("x = (1, 2, 3, 4)，w = (0, 0.5, -0.5, 1)");
 *         pt_expect_close("y", y, want, 4, 1e-6, 1e-5, PT_SHAPE("i", 4));
 *     }
 *     ...
 *     PT_CHECKER({"worked_example", "题目里的例子", worked_example},
 *                {"zero_vector", "全零向量：输出是 0，不是 NaN", zero_vector})
 *
 * The table is the exercise's list of cases, in order; the first is always
 * "worked_example", the small example the statement works through by hand.
 *
 * How the judge uses it: `checker --list` prints "id<TAB>title" per case;
 * `checker --check ID FILE` reads the records the runner wrote to FILE and prints
 * one line each (text escaped: a newline as \n, other control characters as \xNN):
 *
 *     PASS                 every check of the case passed
 *     FAIL <message>       the case failed
 *     NOTE <text>          a detail under the message (expected / got, differences, ...)
 *     BROKEN <message>     the records are not what a runner writes
 */
#ifndef PTEST_CHECK_H
#define PTEST_CHECK_H

#include "ptest.h"

typedef struct {
    const char *id;    /* short identifier: worked_example, zero_vector, ... */
    const char *title; /* one line, Chinese, shown by the judge */
    void (*check)(void);
} PtCheckCase;

int pt_check_main(const PtCheckCase *cases, int n_cases, int argc, char **argv);

#define PT_CHECKER(...)                                                                                      \
    static const PtCheckCase pt_check_cases_[] = {__VA_ARGS__};                                              \
    int main(int argc, char **argv) {                                                                        \
        return pt_check_main(pt_check_cases_, (int)(sizeof pt_check_cases_ / sizeof pt_check_cases_[0]),     \
                             argc, argv);                                                                    \
    }

/* ---- what the runner handed back -------------------------------------------------------
 * Each returns the values of the output with that name, which must have exactly n of
 * them (the case fails otherwise, saying what is missing). */
const float *pt_got_floats(const char *name, size_t n);
const int *pt_got_ints(const char *name, size_t n);
const uint16_t *pt_got_u16s(const char *name, size_t n);
const uint32_t *pt_got_u32s(const char *name, size_t n);
const int *pt_got_ints_any(const char *name, size_t *n); /* any number of them: *n says how many */
long long pt_got_int(const char *name);
unsigned long long pt_got_u64(const char *name);
const char *pt_got_str(const char *name); /* NUL-terminated; NULL when the function returned NULL */

/* ---- failing -------------------------------------------------------------------- */

/* Ends the case: FAIL with a one-line message (and the NOTE lines given before). */
_Noreturn void pt_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A detail line shown under the failure message; collected, written only on failure. */
void pt_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- checks ------------------------------------------------------------------------ */

/* How to name a position of a flat array in messages: "t,h,i" and the sizes. */
typedef struct {
    const char *names;
    int ndim;
    const int *dims;
} PtShape;
#define PT_SHAPE(names, ...)                                                                                 \
    ((PtShape){(names), (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (const int[]){__VA_ARGS__}})
#define PT_FLAT ((PtShape){NULL, 0, NULL})

/* Every |got[i] − want[i]| ≤ atol + rtol·|want[i]| (numpy's allclose); NaN in got
 * never passes, and a want of ±inf or NaN must be matched exactly. On failure:
 * how many values are off, the first mismatching position with both values, the
 * largest absolute and relative differences, the tolerance, and a few values
 * around the first mismatch. */
void pt_expect_close(const char *what, const float *got, const float *want, size_t n, double atol,
                     double rtol, PtShape shape);
/* Bit-for-bit equal floats (NaN equals NaN with the same bits). */
void pt_expect_same_bits(const char *what, const float *got, const float *want, size_t n, PtShape shape);

void pt_expect_int(const char *what, long long got, long long want);
void pt_expect_ints(const char *what, const int *got, const int *want, size_t n);
void pt_expect_u16s(const char *what, const uint16_t *got, const uint16_t *want, size_t n); /* shown in hex */
void pt_expect_u32s(const char *what, const uint32_t *got, const uint32_t *want, size_t n);
void pt_expect_u64(const char *what, unsigned long long got, unsigned long long want);
void pt_expect_str(const char *what, const char *got, const char *want);
/* cond, or fail with the message. */
void pt_expect(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
