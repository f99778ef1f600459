/* ptest_run.h — the runner half of an exercise's tests (tests/run.c; ptest.h says why
 * there are two halves).
 *
 * Each case builds its inputs, calls the learner's function, and hands back what the
 * function produced — as numbers, never as a verdict:
 *
 *     static void worked_example(void) {
 *         float *x = pt_copy(x0, 4), *w = pt_copy(w0, 4), *y = pt_floats(4);
 *         rmsnorm(x, w, 1, 4, 1e-6f, y);
 *         pt_out_floats("y", y, 4);
 *     }
 *     ...
 *     PT_RUNNER({"worked_example", worked_example}, {"zero_vector", zero_vector})
 *
 * The judge runs `runner --run ID` in a confined process whose file descriptor
 * PT_OUT_FD is a file of its own; the checker (ptest_check.h) reads that file. What
 * the learner's code prints on stdout or stderr goes elsewhere and cannot mix with it.
 */
#ifndef PTEST_RUN_H
#define PTEST_RUN_H

#include "ptest.h"

typedef struct {
    const char *id; /* the checker's id of the same case */
    void (*run)(void);
} PtRunCase;

int pt_run_main(const PtRunCase *cases, int n_cases, int argc, char **argv);

#define PT_RUNNER(...)                                                                                       \
    static const PtRunCase pt_run_cases_[] = {__VA_ARGS__};                                                  \
    int main(int argc, char **argv) {                                                                        \
        return pt_run_main(pt_run_cases_, (int)(sizeof pt_run_cases_ / sizeof pt_run_cases_[0]), argc,       \
                           argv);                                                                            \
    }

/* Hand back an output under a name (ASCII, at most PT_NAME_MAX characters; each name
 * once per case). The values are copied out at once. */
void pt_out_floats(const char *name, const float *x, size_t n);
void pt_out_ints(const char *name, const int *x, size_t n);
void pt_out_u16s(const char *name, const uint16_t *x, size_t n);
void pt_out_u32s(const char *name, const uint32_t *x, size_t n);
void pt_out_int(const char *name, long long v);          /* a returned count, index or status */
void pt_out_u64(const char *name, unsigned long long v); /* a returned 64-bit value */
void pt_out_str(const char *name, const char *s);        /* a returned string; NULL is handed back as NULL */

#endif
