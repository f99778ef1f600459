/* ahead_trial.h — following a decode kernel through its trials of asking ahead.
 *
 * A one-token kernel decides by trials whether its tiles ask for their weights ahead
 * (kernels/ahead.h): half of a trial's calls ask and half do not, and the faster way is
 * kept until the next trial. A prefetch changes no number, so every call must give the
 * bits of the first, during the trials and after; the first trial must come to an end,
 * and once a way is decided it stays decided. check_asking_ahead makes the calls —
 * 20,000, on past the second trial, and up to 100,000 while the first has not ended —
 * asserts all of that (tolerance: none) and prints one line naming the kernel.
 */
#ifndef AHEAD_TRIAL_H
#define AHEAD_TRIAL_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "workbook/util.h"

/* One call of the kernel under test on its fixed input, writing its n outputs to y. */
typedef void OneTokenCall(void *ctx, float *y);

static inline void check_asking_ahead(const char *kernel, OneTokenCall *call, void *ctx, int64_t n,
                                      int (*asks_ahead)(void)) {
    float *first = xmalloc((size_t)n * sizeof *first), *y = xmalloc((size_t)n * sizeof *y);
    call(ctx, first);
    int calls = 1, trial = 0; /* trial: the calls until the first trial had decided */
    for (; calls < 20000 || (trial == 0 && calls < 100000); calls++) {
        call(ctx, y);
        ck_assert_msg(memcmp(first, y, (size_t)n * sizeof *y) == 0,
                      "%s: call %d gives other bits than the first", kernel, calls + 1);
        if (trial == 0 && asks_ahead() >= 0) trial = calls + 1;
        ck_assert_msg(trial == 0 || asks_ahead() >= 0, "%s: call %d: the way decided is gone", kernel,
                      calls + 1);
    }
    ck_assert_msg(trial > 0, "%s: after %d one-token calls, the first trial has not ended", kernel, calls);
    printf("OK   %s: the same bits over the %d calls of the first trial of asking ahead and the %d after "
           "(it asks: %s)\n",
           kernel, trial, calls - trial, asks_ahead() ? "yes" : "no");
    free(first), free(y);
}

#endif
