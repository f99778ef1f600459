/* Exercise 271 (causal short convolution with state), the checker: what each case's
 * outputs and state should be. Expected values: by hand (the worked example, the
 * state, K = 1) and from PyTorch's F.conv1d (expected.h, see make_expected.py). The
 * inputs are in run.c; where a state is built from them, they are drawn here again
 * with the same pt_fill calls. */
#include <math.h>
#include <string.h>

#include "ptest_check.h"

#include "expected.h"

static void worked_example(void) {
    const float want[5] = {1.76159416f, 3.92805516f, 5.98516426f, 8.99888945f, 11.9999263f};
    const float want_state[3] = {3, 4, 5};
    const float *y = pt_got_floats("y", 5), *state = pt_got_floats("state", 3);
    pt_note("C = 1，K = 4，w = (1, 0, 0, 2)，空状态，x = (1, 2, 3, 4, 5)");
    pt_expect_close("y", y, want, 5, 1e-5, 1e-6, PT_SHAPE("t", 5));
    pt_expect_close("state", state, want_state, 3, 0, 0, PT_SHAPE("r", 3));
    const float want1 = 15.0f / (1.0f + expf(-15.0f)), want_state1[3] = {4, 5, 6};
    const float *y1 = pt_got_floats("y_next", 1), *state1 = pt_got_floats("state_next", 3);
    pt_note("接着再来一个 token x = (6)：窗口 (3, 4, 5, 6)");
    pt_expect_close("y", y1, &want1, 1, 1e-5, 1e-6, PT_SHAPE("t", 1));
    pt_expect_close("state", state1, want_state1, 3, 0, 0, PT_SHAPE("r", 3));
}

enum { C = 6, K = 4, T = 7 };

static void small_from_empty(void) {
    const float *y = pt_got_floats("y", T * C);
    pt_note("6 个通道，K = 4，7 个 token，空状态：书里的 F.conv1d(padding = 3)[..., :T] + SiLU");
    pt_expect_close("y", y, small_y, T * C, 1e-5, 1e-5, PT_SHAPE("t,c", T, C));
}

static void from_state(void) {
    float *x = pt_floats(2 * C), *old = pt_floats((K - 1) * C), *want_state = pt_floats((K - 1) * C);
    pt_fill(x, 2 * C, 244, 1.0f); /* as run.c draws them */
    pt_fill(old, (K - 1) * C, 243, 1.0f);
    memcpy(want_state, old + 2 * C, C * sizeof *old); /* the last 3 of (old 3 rows, 2 new rows) */
    memcpy(want_state + C, x, 2 * C * sizeof *x);
    const float *y = pt_got_floats("y", 2 * C), *state = pt_got_floats("state", (K - 1) * C);
    pt_note("2 个 token，接在一个不是 0 的状态后面（PyTorch：状态拼在前面再卷积）");
    pt_expect_close("y", y, from_state_y, 2 * C, 1e-5, 1e-5, PT_SHAPE("t,c", 2, C));
    pt_note("新状态 = 旧状态的最后 1 行 + 这 2 个 token");
    pt_expect_same_bits("state", state, want_state, (K - 1) * C, PT_SHAPE("r,c", K - 1, C));
}

static void chunks(void) {
    float *x = pt_floats(T * C);
    pt_fill(x, T * C, 241, 1.0f); /* as run.c draws it */
    const float *y = pt_got_floats("y", T * C), *state = pt_got_floats("state", (K - 1) * C);
    pt_note("同样的 7 个 token 分 4 次调用：1、1、2、3 个，状态传下去");
    pt_expect_close("y", y, small_y, T * C, 1e-5, 1e-5, PT_SHAPE("t,c", T, C));
    pt_expect_same_bits("state", state, x + (T - (K - 1)) * C, (K - 1) * C, PT_SHAPE("r,c", K - 1, C));
}

static void real_shape(void) {
    enum { RC = 6144, RT = 2 };
    const float *y = pt_got_floats("y", RT * RC);
    pt_note("6144 个通道（q | k | v），K = 4，2 个 token，接在一个状态后面（PyTorch）");
    pt_expect_close("y", y, real_y, RT * RC, 1e-5, 1e-5, PT_SHAPE("t,c", RT, RC));
}

static void state_is_inputs(void) {
    float *x = pt_floats(T * C), *want = pt_zeros((K - 1) * C);
    pt_fill(x, T * C, 245, 3.0f); /* as run.c draws it */
    memcpy(want + C, x, 2 * C * sizeof *x);
    const float *state = pt_got_floats("state", (K - 1) * C);
    pt_note("从空状态开始逐个送入 2 个 token：状态 = (0, x₀, x₁)，是卷积之前的输入，一位不差");
    pt_expect_same_bits("state", state, want, (K - 1) * C, PT_SHAPE("r,c", K - 1, C));
}

static void kernel_one(void) {
    const float x0[4] = {-2, -1, 1, 2}, w0[2] = {0.5f, 2}; /* as run.c passes them */
    float want[4];
    for (int t = 0; t < 2; t++)
        for (int c = 0; c < 2; c++) {
            float a = w0[c] * x0[t * 2 + c];
            want[t * 2 + c] = a / (1.0f + expf(-a));
        }
    const float *y = pt_got_floats("y", 4), *dummy = pt_got_floats("state", 1);
    pt_note("K = 1：没有历史，y = silu(w · x)；状态有 0 行，不该被读写");
    pt_expect_close("y", y, want, 4, 1e-6, 1e-6, PT_SHAPE("t,c", 2, 2));
    pt_expect(dummy[0] == 12345, "K = 1 时状态有 0 行，可函数改了它（变成了 %g）", dummy[0]);
}

PT_CHECKER({"worked_example", "题目里的例子：w = (1, 0, 0, 2)，x = (1..5)", worked_example},
           {"small_from_empty", "6 个通道，7 个 token，空状态（PyTorch）", small_from_empty},
           {"from_state", "接在给定的状态后面（PyTorch）", from_state},
           {"chunks", "分成 1、1、2、3 四次调用", chunks},
           {"real_shape", "真实形状：6144 个通道（PyTorch）", real_shape},
           {"state_is_inputs", "状态存的是卷积之前的 x", state_is_inputs},
           {"kernel_one", "K = 1：没有状态", kernel_one})
