/* Exercise 233 (l2norm), the checker: what each case's outputs should be. Expected
 * values: by hand (the worked example, zeros) and from PyTorch (expected.h, see
 * make_expected.py). The inputs are in run.c. */
#include "ptest_check.h"

#include "expected.h"

static void worked_example(void) {
    const float want[4] = {0.599999988f, 0.799999984f, 0, 0};
    const float *y = pt_got_floats("y", 4);
    pt_note("两行：(3, 4) 和 (0, 0)");
    pt_expect_close("y", y, want, 4, 1e-7, 1e-6, PT_SHAPE("row,i", 2, 2));
}

static void real_shape(void) {
    const float *y = pt_got_floats("y", 32 * 128);
    pt_note("2 个 token × 16 个头 × 128 维，期望值来自 PyTorch");
    pt_expect_close("y", y, real_shape_y, 32 * 128, 1e-6, 1e-5, PT_SHAPE("t,h,i", 2, 16, 128));
}

static void zero_vector(void) {
    const float *y = pt_got_floats("y", 16 * 128), *want = pt_zeros(16 * 128);
    pt_note("16 个头的 k 全是 0");
    pt_expect_close("y", y, want, 16 * 128, 0, 0, PT_SHAPE("h,i", 16, 128));
}

static void tiny_vector(void) {
    const float *y = pt_got_floats("y", 4);
    pt_note("(1e-4, 1e-4) 和 (-3e-4, 4e-4)：平方和远小于 eps，结果远短于单位长度");
    pt_expect_close("y", y, tiny_y, 4, 1e-6, 1e-4, PT_SHAPE("row,i", 2, 2));
}

static void in_place(void) {
    const float *x = pt_got_floats("x", 32 * 128);
    pt_note("l2norm(x, 32, 128, eps, x)：y 就是 x");
    pt_expect_close("x", x, real_shape_y, 32 * 128, 1e-6, 1e-5, PT_SHAPE("t,h,i", 2, 16, 128));
}

PT_CHECKER({"worked_example", "题目里的例子：(3, 4) 和 (0, 0)", worked_example},
           {"real_shape", "真实形状：2 个 token × 16 个头 × 128（PyTorch）", real_shape},
           {"zero_vector", "全 0 的向量：输出是 0，不是 NaN", zero_vector},
           {"tiny_vector", "长度很小的向量：eps 加在平方和上", tiny_vector},
           {"in_place", "原地调用：y 就是 x", in_place})
