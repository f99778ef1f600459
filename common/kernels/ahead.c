/* kernels/ahead.c — the trials of asking ahead (ahead.h). */
#include "kernels/ahead.h"

#include "kernels/pool.h"
#include "workbook/util.h"

/* A trial takes the calls start .. start + AHEAD_TRIAL_CALLS − 1. */
static bool in_trial(const AheadTrial *t) { return t->calls - t->start < AHEAD_TRIAL_CALLS; }

bool ahead_now(const AheadTrial *t) {
    return in_trial(t) ? ((t->calls - t->start) / AHEAD_TRIAL_RUN) % 2 == 1 : t->choice == 1;
}

AheadCall ahead_begin(const AheadTrial *t) {
    AheadCall c = {.asks = ahead_now(t), .counted = !pool_in_task()};
    if (c.counted) c.t0 = now_seconds();
    return c;
}

void ahead_end(AheadTrial *t, AheadCall c, double bytes) {
    if (c.counted) ahead_count(t, c.asks, bytes, now_seconds() - c.t0);
}

void ahead_count(AheadTrial *t, bool asked, double bytes, double seconds) {
    int64_t i = t->calls++ - t->start; /* the call's place from the trial's start */
    if (i < AHEAD_TRIAL_CALLS) {       /* in the trial */
        t->bytes[asked] += bytes, t->seconds[asked] += seconds;
        if (i == AHEAD_TRIAL_CALLS - 1) { /* its last call: the faster way is kept */
            double rate[2] = {t->bytes[0] / t->seconds[0], t->bytes[1] / t->seconds[1]};
            t->choice = rate[1] > rate[0];
            t->rate = rate[t->choice];
            t->bytes[0] = t->bytes[1] = t->seconds[0] = t->seconds[1] = 0;
            t->run_bytes = t->run_seconds = 0, t->moved = 0;
        }
        return;
    }
    /* after it: the way kept, timed a run at a time (runs start where the trial's did) */
    t->run_bytes += bytes, t->run_seconds += seconds;
    if ((i + 1) % AHEAD_TRIAL_RUN != 0) return;
    double rate = t->run_bytes / t->run_seconds;
    t->run_bytes = t->run_seconds = 0;
    t->moved = rate > t->rate * AHEAD_MOVED || rate * AHEAD_MOVED < t->rate ? t->moved + 1 : 0;
    if (i + 1 >= AHEAD_TRIAL_EVERY || (t->moved >= 2 && i + 1 >= AHEAD_TRIAL_GAP))
        t->start = t->calls; /* the next call starts a trial */
}
