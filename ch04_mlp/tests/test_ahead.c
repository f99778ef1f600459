/* test_ahead — the rule by which one token's kernels decide to ask for their weights
 * ahead (common/kernels/ahead.h), on calls whose times the test makes up: a trial
 * takes turns a run at a time and keeps the way that read more bytes per second; the
 * way kept holds until AHEAD_TRIAL_EVERY calls after the trial started, however its
 * speed wobbles within a factor of AHEAD_MOVED; and when two runs in a row read more
 * than AHEAD_MOVED times faster or slower than the trial measured, a new trial starts
 * with the next run, but not before AHEAD_TRIAL_GAP calls after the last one started.
 *
 * The expected call numbers follow from the constants in ahead.h (a run: 97 calls, a
 * trial: 8 runs, the gap: 4 trials, every: 16 trials). */
#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "kernels/ahead.h"
#include "tests/check_main.h"

#define RUN   AHEAD_TRIAL_RUN
#define BYTES 1e6 /* what every made-up call reads */

/* Gives the calls from the trials' count on up to call `until` (not included) the
 * seconds of a kernel that reads `asking` (asking ahead) or `not_asking` bytes per
 * second, and checks that each asks as `expect` says of its number; NULL: as the way
 * kept. */
static void calls_until(AheadTrial *t, int64_t until, double not_asking, double asking,
                        bool (*expect)(int64_t call, const AheadTrial *t)) {
    while (t->calls < until) {
        int64_t call = t->calls;
        bool asks = ahead_now(t);
        bool want = expect ? expect(call, t) : t->choice == 1;
        ck_assert_msg(asks == want, "call %lld asks %d, expected %d", (long long)call, asks, want);
        ahead_count(t, asks, BYTES, BYTES / (asks ? asking : not_asking));
    }
}

/* In a trial that started at call trial_start: odd runs ask, even runs do not. */
static int64_t trial_start;
static bool trial_turns(int64_t call, const AheadTrial *t) {
    (void)t;
    return (call - trial_start) / RUN % 2 == 1;
}

/* A first trial at the given speeds, from call 0; returns the way it kept. */
static int first_trial(AheadTrial *t, double not_asking, double asking) {
    *t = (AheadTrial)AHEAD_TRIAL_INIT;
    trial_start = 0;
    calls_until(t, AHEAD_TRIAL_CALLS - 1, not_asking, asking, trial_turns);
    ck_assert_msg(t->choice == -1, "a way was decided before the trial's last call");
    calls_until(t, AHEAD_TRIAL_CALLS, not_asking, asking, trial_turns);
    return t->choice;
}

/* The trial measured the way it kept at `rate` bytes per second. */
static void check_rate(const AheadTrial *t, double rate) {
    ck_assert_msg(fabs(t->rate - rate) < 1, "the way kept read %g bytes/s in the trial, kept as %g", rate,
                  t->rate);
}

START_TEST(a_trial_keeps_the_faster_way) {
    AheadTrial t;
    ck_assert_int_eq(first_trial(&t, 60e9, 70e9), 1);
    check_rate(&t, 70e9);
    ck_assert_int_eq(first_trial(&t, 70e9, 60e9), 0);
    check_rate(&t, 70e9);
    printf("OK   a trial takes turns a run (%d calls) at a time and keeps the faster way, both ways round\n",
           RUN);
}
END_TEST

/* The way kept at speeds alternating `factor` times faster and slower than `rate`, a
 * run at a time. */
static void wobbling_runs_until(AheadTrial *t, int64_t until, double rate, double factor) {
    while (t->calls < until) {
        int64_t run = t->calls / RUN;
        double r = run % 2 ? rate * factor : rate / factor;
        calls_until(t, (run + 1) * RUN, r, r, NULL);
    }
}

START_TEST(the_way_kept_holds_while_the_speed_wobbles) {
    AheadTrial t;
    first_trial(&t, 60e9, 70e9);
    wobbling_runs_until(&t, AHEAD_TRIAL_EVERY, 70e9, 1.2); /* inside AHEAD_MOVED (1.25) both ways */
    ck_assert_msg(ahead_now(&t) == false, "no new trial at call %d (AHEAD_TRIAL_EVERY)", AHEAD_TRIAL_EVERY);
    trial_start = AHEAD_TRIAL_EVERY;
    calls_until(&t, AHEAD_TRIAL_EVERY + AHEAD_TRIAL_CALLS, 75e9, 60e9, trial_turns);
    ck_assert_int_eq(t.choice, 0);
    printf("OK   the way kept holds until call %d while its runs read 1.2 times faster and slower than "
           "in the trial; then the next trial\n",
           AHEAD_TRIAL_EVERY);
}
END_TEST

START_TEST(a_move_of_the_memory_starts_a_trial_early) {
    AheadTrial t;
    first_trial(&t, 60e9, 70e9); /* asking kept, at 70 GB/s */
    /* the cores move: the way kept reads 1.3 times faster, and not asking faster still.
     * Two runs in a row off by more than AHEAD_MOVED, but the gap has not passed: the
     * way holds until call AHEAD_TRIAL_GAP, and the trial starts there */
    calls_until(&t, AHEAD_TRIAL_GAP, 100e9, 1.3 * 70e9, NULL);
    trial_start = AHEAD_TRIAL_GAP;
    calls_until(&t, AHEAD_TRIAL_GAP + AHEAD_TRIAL_CALLS, 100e9, 1.3 * 70e9, trial_turns);
    ck_assert_int_eq(t.choice, 0);
    check_rate(&t, 100e9);
    printf("OK   the way kept reading 1.3 times faster starts a trial at call %d (AHEAD_TRIAL_GAP), "
           "which keeps the other way\n",
           AHEAD_TRIAL_GAP);
}
END_TEST

START_TEST(one_slow_run_is_not_a_move) {
    AheadTrial t;
    first_trial(&t, 60e9, 70e9);
    int64_t after = AHEAD_TRIAL_CALLS; /* the first run after the trial */
    ck_assert(after + 30 * RUN > AHEAD_TRIAL_GAP);
    /* past the gap, one run 1.3 times slower, then as in the trial: nothing moves */
    calls_until(&t, after + 30 * RUN, 60e9, 70e9, NULL);
    calls_until(&t, after + 31 * RUN, 60e9, 70e9 / 1.3, NULL);
    calls_until(&t, after + 40 * RUN, 60e9, 70e9, NULL);
    /* then two runs in a row 1.3 times slower: a trial with the next run */
    calls_until(&t, after + 42 * RUN, 60e9, 70e9 / 1.3, NULL);
    ck_assert_msg(ahead_now(&t) == false, "no trial after two slow runs past the gap (call %lld)",
                  (long long)t.calls);
    trial_start = after + 42 * RUN;
    calls_until(&t, trial_start + AHEAD_TRIAL_CALLS, 60e9, 70e9 / 1.3, trial_turns);
    ck_assert_int_eq(t.choice, 0); /* 60 against 53.8 GB/s */
    printf(
        "OK   one run 1.3 times slower starts no trial; two in a row past the gap do, with the next run\n");
}
END_TEST

int main(void) {
    Suite *s = suite_create("ahead");
    TCase *tc = tcase_create("ahead");
    tcase_add_test(tc, a_trial_keeps_the_faster_way);
    tcase_add_test(tc, the_way_kept_holds_while_the_speed_wobbles);
    tcase_add_test(tc, a_move_of_the_memory_starts_a_trial_early);
    tcase_add_test(tc, one_slow_run_is_not_a_move);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_NOFORK);
}
