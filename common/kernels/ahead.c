/* kernels/ahead.c — the trials of asking ahead (ahead.h). */
#include "kernels/ahead.h"

#include "kernels/pool.h"
#include "workbook/util.h"

static bool in_trial(const AheadTrial *t) { return t->calls % AHEAD_TRIAL_EVERY < AHEAD_TRIAL_CALLS; }

bool ahead_now(const AheadTrial *t) {
    return in_trial(t) ? (t->calls / AHEAD_TRIAL_RUN) % 2 == 1 : t->choice == 1;
}

AheadCall ahead_begin(const AheadTrial *t) {
    AheadCall c = {.asks = ahead_now(t), .counted = !pool_in_task()};
    if (c.counted && in_trial(t)) c.timed = true, c.t0 = now_seconds();
    return c;
}

void ahead_end(AheadTrial *t, AheadCall c, double bytes) {
    if (!c.counted) return;
    if (c.timed) {
        t->bytes[c.asks] += bytes, t->seconds[c.asks] += now_seconds() - c.t0;
        if (t->calls % AHEAD_TRIAL_EVERY == AHEAD_TRIAL_CALLS - 1) {
            t->choice = t->bytes[1] / t->seconds[1] > t->bytes[0] / t->seconds[0];
            t->bytes[0] = t->bytes[1] = t->seconds[0] = t->seconds[1] = 0;
        }
    }
    t->calls++;
}
