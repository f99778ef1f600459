/* Exercise 232 (gated RMSNorm), the checker: what each case's outputs should be.
 * Expected values: by hand (the worked example, zeros) and from PyTorch (expected.h,
 * see make_expected.py). The inputs are in run.c. */
#include "ptest_check.h"

#include "expected.h"

static void worked_example(void) {
    const float want[4] = {0.0f, 0.533889664f, -0.147305273f, 5.14594556f};
    const float *y = pt_got_floats("y", 4);
    pt_note("x = (1, 2, 3, 4)，z = (0, 1, -1, 2)，w = (1, 1, 0.5, 2)");
    pt_expect_close("y", y, want, 4, 1e-6, 1e-5, PT_SHAPE("i", 4));
}

static void real_shape(void) {
    const float *y = pt_got_floats("y", 48 * 128);
    pt_note("3 个 token × 16 个头 × 128 维，w 在 1 附近，期望值来自 PyTorch");
    pt_expect_close("y", y, real_shape_y, 48 * 128, 1e-5, 1e-4, PT_SHAPE("t,h,i", 3, 16, 128));
}

static void zero_x(void) {
    const float *y = pt_got_floats("y", 16 * 128), *want = pt_zeros(16 * 128);
    pt_note("x 全是 0：输出全是 0，不是 NaN");
    pt_expect_close("y", y, want, 16 * 128, 0, 0, PT_SHAPE("h,i", 16, 128));
}

static void weight_zero(void) {
    const float *y = pt_got_floats("y", 4 * 128), *want = pt_zeros(4 * 128);
    pt_note("w 全是 0：权重直接乘，输出必须全是 0（乘 1 + w 就不是了）");
    pt_expect_close("y", y, want, 4 * 128, 0, 0, PT_SHAPE("h,i", 4, 128));
}

static void extreme_gates(void) {
    const float *y = pt_got_floats("y", 16);
    pt_note("z = ±1000、±100、±88、±30：silu 的两头都不能溢出成 NaN");
    pt_expect_close("y", y, extreme_y, 16, 1e-6, 1e-5, PT_SHAPE("h,i", 2, 8));
}

PT_CHECKER({"worked_example", "题目里的例子：x = (1, 2, 3, 4)，z = (0, 1, -1, 2)", worked_example},
           {"real_shape", "真实形状：3 个 token × 16 个头 × 128（PyTorch）", real_shape},
           {"zero_x", "全 0 的 x：输出是 0，不是 NaN", zero_x},
           {"weight_zero", "全 0 的权重：没有 1 +，输出全是 0", weight_zero},
           {"extreme_gates", "很大的门 z = ±1000：silu 不出 NaN", extreme_gates})
