/* Exercise 242 (SwiGLU MLP), the checker: what each case's outputs should be.
 * Expected values: by hand (the worked example, zeros) and from PyTorch (expected.h,
 * see make_expected.py). The inputs are in run.c. */
#include "ptest_check.h"

#include "expected.h"

static void worked_example(void) {
    const float want[2] = {2.42706009f, 5.78195669f};
    const float *y = pt_got_floats("y", 2);
    pt_note("hidden = 2，inter = 3，x = (2, 1)，W 见题目");
    pt_expect_close("y", y, want, 2, 1e-6, 1e-5, PT_SHAPE("i", 2));
}

static void shape(int T, int hidden, int inter, const float *want) {
    const float *y = pt_got_floats("y", (size_t)T * hidden);
    pt_note("%d 个 token，hidden = %d，inter = %d，期望值来自 PyTorch（float64）", T, hidden, inter);
    pt_expect_close("y", y, want, (size_t)T * hidden, 1e-5, 1e-4, PT_SHAPE("t,i", T, hidden));
}

static void real_shape(void) { shape(2, 1024, 3584, real_y); }
static void small_shape(void) { shape(3, 64, 96, small_y); }

static void zero_input(void) {
    const float *y = pt_got_floats("y", 2 * 64), *want = pt_zeros(2 * 64);
    pt_note("x 全是 0：gate = up = 0，silu(0) · 0 = 0");
    pt_expect_close("y", y, want, 2 * 64, 0, 0, PT_SHAPE("t,i", 2, 64));
}

PT_CHECKER({"worked_example", "题目里的例子：hidden = 2，inter = 3", worked_example},
           {"real_shape", "真实形状：1024 → 3584 → 1024，2 个 token", real_shape},
           {"small_shape", "3 个 token，64 → 96 → 64（PyTorch）", small_shape},
           {"zero_input", "全 0 的输入", zero_input})
