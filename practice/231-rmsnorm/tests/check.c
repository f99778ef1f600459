/* Exercise 231 (zero-centred RMSNorm), the checker: what each case's outputs should
 * be. Expected values: by hand (the worked example, zeros) and from PyTorch
 * (expected.h, see make_expected.py). The inputs are in run.c. */
#include "ptest_check.h"

#include "expected.h"

static void worked_example(void) {
    const float want[4] = {0.365148347f, 1.09544504f, 0.547722521f, 2.92118678f};
    const float *y = pt_got_floats("y", 4);
    pt_note("x = (1, 2, 3, 4)，w = (0, 0.5, -0.5, 1)");
    pt_expect_close("y", y, want, 4, 1e-6, 1e-5, PT_SHAPE("i", 4));
}

static void hidden_1024(void) {
    const float *y = pt_got_floats("y", 3 * 1024);
    pt_note("3 个 token × 1024 维，权重以 0 为中心，期望值来自 PyTorch");
    pt_expect_close("y", y, hidden_1024_y, 3 * 1024, 1e-5, 1e-5, PT_SHAPE("t,i", 3, 1024));
}

static void q_norm_256(void) {
    const float *y = pt_got_floats("y", 16 * 256);
    pt_note("q_norm：16 行（2 个 token × 8 个头）× 256 维，期望值来自 PyTorch");
    pt_expect_close("y", y, q_norm_256_y, 16 * 256, 1e-5, 1e-5, PT_SHAPE("row,i", 16, 256));
}

static void zero_vector(void) {
    const float *y = pt_got_floats("y", 2 * 1024), *want = pt_zeros(2 * 1024);
    pt_note("输入全是 0：eps 让分母是 sqrt(1e-6)，输出应该也全是 0，不是 NaN");
    pt_expect_close("y", y, want, 2 * 1024, 0, 0, PT_SHAPE("t,i", 2, 1024));
}

static void nearly_zero(void) {
    const float *y = pt_got_floats("y", 4);
    pt_note("x 全是 1e-4：mean(x²) = 1e-8，比 eps = 1e-6 还小，eps 的位置决定结果");
    pt_expect_close("y", y, nearly_zero_y, 4, 1e-6, 1e-4, PT_SHAPE("i", 4));
}

static void rows_apart(void) {
    const float *y = pt_got_floats("y", 3 * 64);
    pt_note("三行的尺度是 1e-3、1、1e3：每一行要各自除以自己的均方根");
    pt_expect_close("y", y, rows_apart_y, 3 * 64, 1e-5, 1e-4, PT_SHAPE("row,i", 3, 64));
}

static void in_place(void) {
    const float *x = pt_got_floats("x", 3 * 1024);
    pt_note("rmsnorm(x, w, 3, 1024, eps, x)：y 就是 x");
    pt_expect_close("x", x, hidden_1024_y, 3 * 1024, 1e-5, 1e-5, PT_SHAPE("t,i", 3, 1024));
}

PT_CHECKER({"worked_example", "题目里的例子：x = (1, 2, 3, 4)", worked_example},
           {"hidden_1024", "真实形状：3 个 token × 1024 维（PyTorch）", hidden_1024},
           {"q_norm_256", "q_norm 的形状：16 行 × 256 维（PyTorch）", q_norm_256},
           {"zero_vector", "全 0 向量：输出是 0，不是 NaN", zero_vector},
           {"nearly_zero", "几乎全 0 的向量：eps 在根号里面", nearly_zero},
           {"rows_apart", "各行尺度差很多：每行各自归一化", rows_apart},
           {"in_place", "原地调用：y 就是 x", in_place})
