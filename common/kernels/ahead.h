/* ahead.h — whether one token's kernels ask for their weights ahead: a trial while the
 * program runs.
 *
 * The one-token tiles (kernels/linear.c for BF16 weights, kernels/quant.c for 8-bit
 * ones) read their weights as a few long streams per core, and can ask for each
 * stream's lines ahead with prefetch instructions. Whether that helps depends on the
 * machine, and two machines measured it in opposite ways (tokens of the whole model
 * taking turns in one process):
 *   AMD EPYC (Zen 5) under KVM: the core's own prefetcher follows four streams per
 *     core too slowly; asking 2 KB ahead made a BF16 token 12–13% faster, 1 KB ahead
 *     an 8-bit token ~11%;
 *   AMD EPYC (Zen 4) under KVM: the prefetcher keeps up by itself, and the prefetch
 *     instructions only cost time: without them a BF16 token was 4–8% faster while the
 *     memory read ~35 GB/s (the two cores on one chip), 15–19% while it read ~55 GB/s
 *     (on two chips), 5–16% after 2048 tokens; an 8-bit token 6% and 20%.
 * Nothing a program can ask the processor says how its prefetcher behaves, and on the
 * second machine the gap moved with the state of the memory. So each kernel's
 * one-token calls find out as they go: a trial of AHEAD_TRIAL_CALLS calls takes turns,
 * AHEAD_TRIAL_RUN calls at a time, asking and not asking, and the way that read more
 * bytes per second over the trial is kept. A run is one token of Qwen3.5-0.8B (97
 * calls), so that in each run each way reads every matrix once. Where the two ways
 * differ by a few percent, a trial may keep the slower one; where they differ by a
 * fifth, the trials kept the faster one.
 *
 * The next trial starts AHEAD_TRIAL_EVERY calls after this one did — or sooner, when
 * the state of the memory has changed under the way kept. A virtual machine's two
 * cores can move from one chip to two and back within minutes, and the best way moves
 * with them: on the Zen 5, with the cores on one chip (the memory read ~48 GB/s),
 * asking and not asking read within 4% of each other, either way round (trials: 47.0
 * and 46.4 GB/s, 43.8 and 42.2, 43.0 and 41.9); on two chips (~77 GB/s) asking read
 * 7–14% more (72.5 against 63.8, 66.2 against 59.0, 71.5 against 66.8). A trial on one
 * chip kept not asking about half the time, and when the cores then moved, 128 tokens
 * went at 83–85% of the memory's pace instead of ~90%. So after a trial every run of
 * the way kept is timed too, and when two runs in a row read more than AHEAD_MOVED
 * times faster or slower than the trial measured that way, the next run starts a new
 * trial, if at least AHEAD_TRIAL_GAP calls have passed since the last one started (a
 * machine whose speed keeps moving, beside another busy program, then spends at most 1
 * call in 8 on the slower way). A token's time moves by up to 12% from one token to
 * the next on a quiet machine, a move between chips by 30–50%.
 *
 * In steady state the trials spend 1 call in 32 on the slower way: under 1% of the time
 * even where the two differ by a fifth. A prefetch changes no number: the results are
 * the same whichever way is taken, only the speed is not.
 *
 * A kernel's calls come from the program's own thread, one at a time (pool_run's
 * rule); a call from inside a pool task (alone on its worker) asks as the trial says
 * but is neither counted nor timed.
 */
#ifndef AHEAD_H
#define AHEAD_H

#include <stdbool.h>
#include <stdint.h>

/* A run: one token of Qwen3.5-0.8B (97 calls). A trial: 4 runs each way (~8 tokens).
 * From the start of one trial to the next: 16 trials' length (~128 tokens), or 4 (~32
 * tokens) once the memory's speed has moved by more than a quarter. */
#define AHEAD_TRIAL_RUN   97
#define AHEAD_TRIAL_CALLS (8 * AHEAD_TRIAL_RUN)
#define AHEAD_TRIAL_EVERY (16 * AHEAD_TRIAL_CALLS)
#define AHEAD_TRIAL_GAP   (4 * AHEAD_TRIAL_CALLS)
#define AHEAD_MOVED       1.25

/* One kernel's trials. Start from AHEAD_TRIAL_INIT. */
typedef struct {
    int64_t calls;                 /* one-token calls of the program's own thread so far */
    int64_t start;                 /* the call the current (or last) trial started at */
    double bytes[2], seconds[2];   /* the current trial's calls: [0] not asking, [1] asking */
    int choice;                    /* the last trial's way; −1 until the first has ended */
    double rate;                   /* bytes per second the way kept read in that trial */
    double run_bytes, run_seconds; /* the way kept: the run under way */
    int moved;                     /* ... runs in a row off the trial's rate by more than AHEAD_MOVED */
} AheadTrial;
#define AHEAD_TRIAL_INIT                                                                                     \
    { .choice = -1 }

/* One call under way. */
typedef struct {
    bool asks;    /* its tiles ask ahead */
    bool counted; /* a call of the program's own thread: then t0 is when it started */
    double t0;
} AheadCall;

/* Whether a one-token call made now asks ahead. */
bool ahead_now(const AheadTrial *t);
/* At the start of a one-token call. */
AheadCall ahead_begin(const AheadTrial *t);
/* At its end: the call read `bytes` of weights. */
void ahead_end(AheadTrial *t, AheadCall c, double bytes);
/* What ahead_end does with a counted call that asked (or not), read `bytes` and took
 * `seconds`: the rule itself, on its own for the tests. */
void ahead_count(AheadTrial *t, bool asked, double bytes, double seconds);

#endif
