/* Exercise 261 (stable causal softmax), the runner: each case's scores, the call, the
 * rows handed back. The checker (check.c) holds what they should be. */
#include <math.h>

#include "ptest_run.h"
#include "causal_softmax.h"

static void worked_example(void) {
    const float s0[9] = {1, 9, 9, 0, 1.09861229f, 9, 0, 0, 0};
    float *s = pt_copy(s0, 9);
    causal_softmax(s, 3, 3);
    pt_out_floats("scores", s, 9);
}

static void large_scores(void) {
    const float s0[3] = {1000, 1001, 999};
    float *s = pt_copy(s0, 3);
    causal_softmax(s, 1, 3);
    pt_out_floats("scores", s, 3);
}

static void small_scores(void) {
    const float s0[3] = {-1000, -999, -1001};
    float *s = pt_copy(s0, 3);
    causal_softmax(s, 1, 3);
    pt_out_floats("scores", s, 3);
}

static void hidden_garbage(void) {
    const float s0[9] = {2, INFINITY, NAN, 0, 0, INFINITY, 1, 2, 3};
    float *s = pt_copy(s0, 9);
    causal_softmax(s, 3, 3);
    pt_out_floats("scores", s, 9);
}

static void decode_step(void) {
    float *s = pt_floats(7);
    for (int j = 0; j < 7; j++) s[j] = (float)j;
    causal_softmax(s, 1, 7);
    pt_out_floats("scores", s, 7);
}

static void prefill(void) {
    float *s = pt_floats(5 * 12);
    pt_fill(s, 5 * 12, 82, 4.0f);
    causal_softmax(s, 5, 12);
    pt_out_floats("scores", s, 5 * 12);
}

static void real_64(void) {
    float *s = pt_floats(64 * 64);
    pt_fill(s, 64 * 64, 81, 8.0f);
    causal_softmax(s, 64, 64);
    pt_out_floats("scores", s, 64 * 64);
}

static void minus_inf_visible(void) {
    const float s0[4] = {-INFINITY, 0, -INFINITY, 0};
    float *s = pt_copy(s0, 4);
    causal_softmax(s, 1, 4);
    pt_out_floats("scores", s, 4);
}

PT_RUNNER({"worked_example", worked_example}, {"large_scores", large_scores}, {"small_scores", small_scores},
          {"hidden_garbage", hidden_garbage}, {"decode_step", decode_step}, {"prefill", prefill},
          {"real_64", real_64}, {"minus_inf_visible", minus_inf_visible})
