/* Exercise 271 (causal short convolution with state), the runner: each case's inputs,
 * the calls, the outputs and the state handed back. The checker (check.c) holds what
 * they should be. */
#include "ptest_run.h"
#include "short_conv.h"

static void worked_example(void) {
    const float x0[5] = {1, 2, 3, 4, 5}, w0[4] = {1, 0, 0, 2};
    float *x = pt_copy(x0, 5), *w = pt_copy(w0, 4), *state = pt_zeros(3), *y = pt_floats(5);
    causal_conv_silu(x, w, 5, 1, 4, state, y);
    pt_out_floats("y", y, 5);
    pt_out_floats("state", state, 3);
    const float x1 = 6;
    float *one = pt_copy(&x1, 1), *y1 = pt_floats(1);
    causal_conv_silu(one, w, 1, 1, 4, state, y1); /* one more token, after the first call's state */
    pt_out_floats("y_next", y1, 1);
    pt_out_floats("state_next", state, 3);
}

enum { C = 6, K = 4, T = 7 };

static void small_from_empty(void) {
    float *x = pt_floats(T * C), *w = pt_floats(C * K), *state = pt_zeros((K - 1) * C), *y = pt_floats(T * C);
    pt_fill(x, T * C, 241, 1.0f);
    pt_fill(w, C * K, 242, 1.0f);
    causal_conv_silu(x, w, T, C, K, state, y);
    pt_out_floats("y", y, T * C);
}

static void from_state(void) {
    float *x = pt_floats(2 * C), *w = pt_floats(C * K), *state = pt_floats((K - 1) * C),
          *y = pt_floats(2 * C);
    pt_fill(x, 2 * C, 244, 1.0f);
    pt_fill(w, C * K, 242, 1.0f);
    pt_fill(state, (K - 1) * C, 243, 1.0f);
    causal_conv_silu(x, w, 2, C, K, state, y);
    pt_out_floats("y", y, 2 * C);
    pt_out_floats("state", state, (K - 1) * C);
}

static void chunks(void) {
    float *x = pt_floats(T * C), *w = pt_floats(C * K), *state = pt_zeros((K - 1) * C), *y = pt_floats(T * C);
    pt_fill(x, T * C, 241, 1.0f);
    pt_fill(w, C * K, 242, 1.0f);
    const int sizes[4] = {1, 1, 2, 3};
    for (int i = 0, t = 0; i < 4; t += sizes[i++])
        causal_conv_silu(x + t * C, w, sizes[i], C, K, state, y + t * C);
    pt_out_floats("y", y, T * C);
    pt_out_floats("state", state, (K - 1) * C);
}

static void real_shape(void) {
    enum { RC = 6144, RT = 2 };
    float *x = pt_floats(RT * RC), *w = pt_floats(RC * K), *state = pt_floats((K - 1) * RC),
          *y = pt_floats(RT * RC);
    pt_fill(x, RT * RC, 251, 1.0f);
    pt_fill(w, RC * K, 252, 0.5f);
    pt_fill(state, (K - 1) * RC, 253, 1.0f);
    causal_conv_silu(x, w, RT, RC, K, state, y);
    pt_out_floats("y", y, RT * RC);
}

static void state_is_inputs(void) {
    float *x = pt_floats(T * C), *w = pt_floats(C * K), *state = pt_zeros((K - 1) * C), *y = pt_floats(T * C);
    pt_fill(x, T * C, 245, 3.0f);
    pt_fill(w, C * K, 246, 1.0f);
    causal_conv_silu(x, w, 1, C, K, state, y);
    causal_conv_silu(x + C, w, 1, C, K, state, y + C);
    pt_out_floats("state", state, (K - 1) * C);
}

static void kernel_one(void) {
    const float x0[4] = {-2, -1, 1, 2}, w0[2] = {0.5f, 2};
    float *x = pt_copy(x0, 4), *w = pt_copy(w0, 2), *y = pt_floats(4);
    float dummy = 12345; /* a state of 0 rows: never to be read or written */
    causal_conv_silu(x, w, 2, 2, 1, &dummy, y);
    pt_out_floats("y", y, 4);
    pt_out_floats("state", &dummy, 1);
}

PT_RUNNER({"worked_example", worked_example}, {"small_from_empty", small_from_empty},
          {"from_state", from_state}, {"chunks", chunks}, {"real_shape", real_shape},
          {"state_is_inputs", state_is_inputs}, {"kernel_one", kernel_one})
