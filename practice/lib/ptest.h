/* ptest.h — what the two halves of an exercise's tests share.
 *
 * An exercise's tests are split in two, so that the code under test can never
 * decide its own verdict:
 *
 *   tests/run.c     the runner: builds each case's inputs, calls the learner's
 *                   function and hands the outputs back as plain numbers
 *                   (pt_out_floats, ...; ptest_run.h). It is linked with the
 *                   learner's file, so it holds no expected value and no verdict.
 *   tests/check.c   the checker: for each case, takes the numbers the runner handed
 *                   back (pt_got_floats, ...; ptest_check.h), compares them with the
 *                   expected values and tolerances, and says PASS or FAIL with the
 *                   values involved. It is built from the exercise's own files only
 *                   and never meets the learner's code; its table is the case list.
 *
 * Both halves draw their inputs with the same deterministic helpers (pt_fill), so the
 * checker can rebuild any input it needs to compute an expected value by hand.
 *
 * Buffers: pt_floats() and friends hand out heap buffers of exactly the size asked
 * for (so AddressSanitizer sees a write one past the end), filled with NaN (or
 * another value no correct answer produces), so that an output the learner never
 * wrote cannot pass by accident. They are freed when the case ends; in the runner,
 * what the learner's code allocated and did not free is then reported as a leak.
 */
#ifndef PTEST_H
#define PTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- buffers (freed when the case ends) ------------------------------------------ */

float *pt_floats(size_t n);                  /* n floats, every one NaN */
float *pt_zeros(size_t n);                   /* n floats, all 0 */
float *pt_copy(const float *x, size_t n);    /* a copy of x */
int *pt_ints(size_t n);                      /* n ints, each −12345 */
void *pt_bytes(size_t n);                    /* n bytes, each 0xA5 */
void *pt_dup(const void *src, size_t bytes); /* a copy of bytes (exactly that size) */
void pt_free_all(void);                      /* the harness calls it when a case ends */

/* Deterministic inputs, the same in C and in the Python scripts that made the
 * expected values (practice/lib/ptgen.py): a 32-bit linear congruential
 * generator, state ← state · 1664525 + 1013904223, started at `seed`; each value
 * is ((state >> 8) − 2²³) / 2²³ ∈ [−1, 1), exact in float32, times scale. */
void pt_fill(float *x, size_t n, uint32_t seed, float scale);

/* The harness itself failed (out of memory, a bad command line): says so on stderr
 * and exits with PT_EXIT_HARNESS, which the judge reports as its own problem. */
_Noreturn void pt_harness_error(const char *what);
#define PT_EXIT_HARNESS 70

/* ---- the runner's outputs: a stream of records on file descriptor PT_OUT_FD --------
 *
 *   record:  kind (1 byte: one of PtKind)  name length (1 byte, 1..PT_NAME_MAX)
 *            name (ASCII)  count (8 bytes, little-endian)  count values (little-endian)
 *   end:     the byte PT_END, once the case's function has returned
 *
 * The checker reads them as untrusted data: any other byte, a size that does not add
 * up, a name used twice or anything after the end is a broken stream. */
#define PT_OUT_FD   3
#define PT_NAME_MAX 63
typedef enum {
    PT_F32 = 'f',   /* float32 */
    PT_I32 = 'i',   /* int32 */
    PT_U16 = 'h',   /* uint16 */
    PT_U32 = 'u',   /* uint32 */
    PT_I64 = 'q',   /* int64 (one number: a returned count or value) */
    PT_U64 = 'w',   /* uint64 */
    PT_BYTES = 's', /* bytes (a string, without its NUL) */
    PT_NULL = 'n',  /* a NULL pointer where a string was expected (count 0) */
} PtKind;
#define PT_END 'E'

#endif
