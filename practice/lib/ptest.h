/* ptest.h — the small test harness every exercise's tests are written with.
 *
 * An exercise's tests/tests.c is a list of cases. Each case is a function that
 * builds its inputs, calls the learner's code and checks the result with the
 * pt_expect_* helpers; the first check that fails ends the case with a message
 * and the values involved. The file ends with the table of cases:
 *
 *     static void worked_example(void) { ... pt_expect_close("y", y, want, 4, 1e-6, 1e-5, PT_SHAPE("i", 4));
 * }
 *     ...
 *     PT_MAIN({"worked_example", "题目里的例子", worked_example},
 *             {"zero_vector", "全零向量：输出是 0，不是 NaN", zero_vector})
 *
 * The first case of every exercise is "worked_example": the small example the
 * statement works through by hand (`judge check` insists on it).
 *
 * How the judge runs it: `tests --list` prints "id<TAB>title" per case;
 * `tests --run ID` runs one case in this process and writes the outcome to the
 * file descriptor named by $PT_REPORT_FD (so whatever the learner's code prints
 * on stdout or stderr cannot mix with it), one line each:
 *
 *     FAIL <message>       the case failed (the message is one line)
 *     NOTE <text>          a detail under the message (expected / got, differences, ...)
 *     PASS                 every check of the case passed
 *
 * Without $PT_REPORT_FD the same lines go to stderr, and `tests` with no argument
 * runs every case, each in its own child process, for running by hand.
 *
 * Buffers: pt_floats() and friends hand out heap buffers of exactly the size
 * asked for (so AddressSanitizer sees a write one past the end), filled with NaN
 * so that an output the learner never wrote cannot pass by accident. They are
 * freed when the case ends; only what the learner's code allocated and did not
 * free is then reported as a leak.
 */
#ifndef PTEST_H
#define PTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *id;    /* short identifier: worked_example, zero_vector, ... */
    const char *title; /* one line, Chinese, shown by the judge */
    void (*run)(void);
} PtCase;

int pt_main(const PtCase *cases, int n_cases, int argc, char **argv);

#define PT_MAIN(...)                                                                                         \
    static const PtCase pt_cases_[] = {__VA_ARGS__};                                                         \
    int main(int argc, char **argv) {                                                                        \
        return pt_main(pt_cases_, (int)(sizeof pt_cases_ / sizeof pt_cases_[0]), argc, argv);                \
    }

/* ---- failing -------------------------------------------------------------------- */

/* Ends the case: FAIL with a one-line message (and the NOTE lines given before). */
_Noreturn void pt_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A detail line shown under the failure message; collected, written only on failure. */
void pt_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- buffers (freed when the case ends) ------------------------------------------ */

float *pt_floats(size_t n);                  /* n floats, every one NaN */
float *pt_zeros(size_t n);                   /* n floats, all 0 */
float *pt_copy(const float *x, size_t n);    /* a copy of x */
int *pt_ints(size_t n);                      /* n ints, each −12345 */
void *pt_bytes(size_t n);                    /* n bytes, each 0xA5 */
void *pt_dup(const void *src, size_t bytes); /* a copy of bytes (exactly that size) */

/* Deterministic inputs, the same in C and in the Python scripts that made the
 * expected values (practice/lib/ptgen.py): a 32-bit linear congruential
 * generator, state ← state · 1664525 + 1013904223, started at `seed`; each value
 * is ((state >> 8) − 2²³) / 2²³ ∈ [−1, 1), exact in float32, times scale. */
void pt_fill(float *x, size_t n, uint32_t seed, float scale);

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
