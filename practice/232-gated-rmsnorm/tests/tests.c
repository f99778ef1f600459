/* Tests of exercise 232 (gated RMSNorm). Expected values: by hand (the worked
 * example, zeros) and from PyTorch (expected.h, see make_expected.py). */
#include "ptest.h"
#include "gated_rmsnorm.h"

#include "expected.h"

#define EPS 1e-6f

static void worked_example(void) {
    const float x0[4] = {1, 2, 3, 4}, z0[4] = {0, 1, -1, 2}, w0[4] = {1, 1, 0.5f, 2};
    const float want[4] = {0.0f, 0.533889664f, -0.147305273f, 5.14594556f};
    float *x = pt_copy(x0, 4), *z = pt_copy(z0, 4), *w = pt_copy(w0, 4), *y = pt_floats(4);
    gated_rmsnorm(x, z, w, 1, 4, EPS, y);
    pt_note("x = (1, 2, 3, 4)，z = (0, 1, -1, 2)，w = (1, 1, 0.5, 2)");
    pt_expect_close("y", y, want, 4, 1e-6, 1e-5, PT_SHAPE("i", 4));
}

static void real_shape(void) {
    float *x = pt_floats(48 * 128), *z = pt_floats(48 * 128), *w = pt_floats(128), *y = pt_floats(48 * 128);
    pt_fill(x, 48 * 128, 11, 0.5f);
    pt_fill(z, 48 * 128, 12, 4.0f);
    pt_fill(w, 128, 13, 0.2f);
    for (int i = 0; i < 128; i++) w[i] += 1.0f;
    gated_rmsnorm(x, z, w, 48, 128, EPS, y);
    pt_note("3 个 token × 16 个头 × 128 维，w 在 1 附近，期望值来自 PyTorch");
    pt_expect_close("y", y, real_shape_y, 48 * 128, 1e-5, 1e-4, PT_SHAPE("t,h,i", 3, 16, 128));
}

static void zero_x(void) {
    float *x = pt_zeros(16 * 128), *z = pt_floats(16 * 128), *w = pt_floats(128), *y = pt_floats(16 * 128);
    float *want = pt_zeros(16 * 128);
    pt_fill(z, 16 * 128, 15, 3.0f);
    pt_fill(w, 128, 16, 1.0f);
    gated_rmsnorm(x, z, w, 16, 128, EPS, y);
    pt_note("x 全是 0：输出全是 0，不是 NaN");
    pt_expect_close("y", y, want, 16 * 128, 0, 0, PT_SHAPE("h,i", 16, 128));
}

static void weight_zero(void) {
    float *x = pt_floats(4 * 128), *z = pt_floats(4 * 128), *w = pt_zeros(128), *y = pt_floats(4 * 128);
    float *want = pt_zeros(4 * 128);
    pt_fill(x, 4 * 128, 17, 1.0f);
    pt_fill(z, 4 * 128, 18, 3.0f);
    gated_rmsnorm(x, z, w, 4, 128, EPS, y);
    pt_note("w 全是 0：权重直接乘，输出必须全是 0（乘 1 + w 就不是了）");
    pt_expect_close("y", y, want, 4 * 128, 0, 0, PT_SHAPE("h,i", 4, 128));
}

static void extreme_gates(void) {
    const float z0[8] = {1000, -1000, 100, -100, 88, -88, 30, -30};
    float *x = pt_floats(16), *z = pt_floats(16), *w = pt_floats(8), *y = pt_floats(16);
    pt_fill(x, 16, 14, 1.0f);
    for (int i = 0; i < 16; i++) z[i] = z0[i % 8];
    for (int i = 0; i < 8; i++) w[i] = 1.0f;
    gated_rmsnorm(x, z, w, 2, 8, EPS, y);
    pt_note("z = ±1000、±100、±88、±30：silu 的两头都不能溢出成 NaN");
    pt_expect_close("y", y, extreme_y, 16, 1e-6, 1e-5, PT_SHAPE("h,i", 2, 8));
}

PT_MAIN({"worked_example", "题目里的例子：x = (1, 2, 3, 4)，z = (0, 1, -1, 2)", worked_example},
        {"real_shape", "真实形状：3 个 token × 16 个头 × 128（PyTorch）", real_shape},
        {"zero_x", "全 0 的 x：输出是 0，不是 NaN", zero_x},
        {"weight_zero", "全 0 的权重：没有 1 +，输出全是 0", weight_zero},
        {"extreme_gates", "很大的门 z = ±1000：silu 不出 NaN", extreme_gates})
