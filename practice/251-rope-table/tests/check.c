/* Exercise 251 (RoPE table), the checker: what each case's tables should be.
 * Expected values: by hand (the worked example, position 0) and from PyTorch in
 * float64 (expected.h, see make_expected.py). The calls are in run.c. */
#include "ptest_check.h"

#include "expected.h"

static void worked_example(void) {
    const float want_cos[6] = {1, 1, 0.540302306f, 0.995004165f, -0.416146837f, 0.980066578f};
    const float want_sin[6] = {0, 0, 0.841470985f, 0.0998334166f, 0.909297427f, 0.198669331f};
    const float *c = pt_got_floats("cos", 6), *s = pt_got_floats("sin", 6);
    pt_note("rotary_dim = 4，theta = 100，位置 0、1、2");
    pt_expect_close("cos", c, want_cos, 6, 1e-6, 1e-6, PT_SHAPE("p,i", 3, 2));
    pt_expect_close("sin", s, want_sin, 6, 1e-6, 1e-6, PT_SHAPE("p,i", 3, 2));
}

static void first_64(void) {
    const float *c = pt_got_floats("cos", 64 * 32), *s = pt_got_floats("sin", 64 * 32);
    pt_note("rotary_dim = 64，theta = 1e7，位置 0..63（PyTorch，float64）");
    pt_expect_close("cos", c, first64_cos, 64 * 32, 1e-6, 0, PT_SHAPE("p,i", 64, 32));
    pt_expect_close("sin", s, first64_sin, 64 * 32, 1e-6, 0, PT_SHAPE("p,i", 64, 32));
}

static void far_positions(void) {
    const float *c = pt_got_floats("cos", 5 * 32), *s = pt_got_floats("sin", 5 * 32);
    pt_note("位置 200000 和 262140..262143：角度上十万弧度，要用 double 算");
    pt_expect_close("cos", c, far_cos, 5 * 32, 1e-5, 0, PT_SHAPE("p,i", 5, 32));
    pt_expect_close("sin", s, far_sin, 5 * 32, 1e-5, 0, PT_SHAPE("p,i", 5, 32));
}

static void position_zero(void) {
    const float *c = pt_got_floats("cos", 32), *s = pt_got_floats("sin", 32);
    float *ones = pt_floats(32), *zeros = pt_zeros(32);
    for (int i = 0; i < 32; i++) ones[i] = 1.0f;
    pt_note("位置 0：不转，cos 正好是 1，sin 正好是 0");
    pt_expect_close("cos", c, ones, 32, 0, 0, PT_SHAPE("i", 32));
    pt_expect_close("sin", s, zeros, 32, 0, 0, PT_SHAPE("i", 32));
}

PT_CHECKER({"worked_example", "题目里的例子：rotary_dim = 4，theta = 100", worked_example},
           {"first_64", "真实参数：位置 0..63（PyTorch）", first_64},
           {"far_positions", "很远的位置：200000、262140..262143", far_positions},
           {"position_zero", "位置 0：cos = 1，sin = 0", position_zero})
