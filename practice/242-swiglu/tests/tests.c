/* Tests of exercise 242 (SwiGLU MLP). Expected values: by hand (the worked example,
 * zeros) and from PyTorch (expected.h, see make_expected.py). */
#include "ptest.h"
#include "swiglu.h"

#include "expected.h"

static void worked_example(void) {
    const float g0[6] = {1, 0, 0, 1, 1, 1}, u0[6] = {1, 1, 2, 0, 0, -1}, d0[6] = {1, 0, 1, 0, 1, -1};
    const float x0[2] = {2, 1}, want[2] = {2.42706009f, 5.78195669f};
    float *g = pt_copy(g0, 6), *u = pt_copy(u0, 6), *d = pt_copy(d0, 6), *x = pt_copy(x0, 2),
          *y = pt_floats(2);
    swiglu_mlp(x, g, u, d, 1, 2, 3, y);
    pt_note("hidden = 2，inter = 3，x = (2, 1)，W 见题目");
    pt_expect_close("y", y, want, 2, 1e-6, 1e-5, PT_SHAPE("i", 2));
}

static void shape(int T, int hidden, int inter, uint32_t seed, const float *want) {
    size_t nw = (size_t)inter * hidden;
    float *g = pt_floats(nw), *u = pt_floats(nw), *d = pt_floats(nw);
    float *x = pt_floats((size_t)T * hidden), *y = pt_floats((size_t)T * hidden);
    pt_fill(g, nw, seed, 0.03f);
    pt_fill(u, nw, seed + 1, 0.03f);
    pt_fill(d, nw, seed + 2, 0.03f);
    pt_fill(x, (size_t)T * hidden, seed + 3, 1.0f);
    swiglu_mlp(x, g, u, d, T, hidden, inter, y);
    pt_note("%d 个 token，hidden = %d，inter = %d，期望值来自 PyTorch（float64）", T, hidden, inter);
    pt_expect_close("y", y, want, (size_t)T * hidden, 1e-5, 1e-4, PT_SHAPE("t,i", T, hidden));
}

static void real_shape(void) { shape(2, 1024, 3584, 51, real_y); }
static void small_shape(void) { shape(3, 64, 96, 61, small_y); }

static void zero_input(void) {
    size_t nw = 96 * 64;
    float *g = pt_floats(nw), *u = pt_floats(nw), *d = pt_floats(nw);
    float *x = pt_zeros(2 * 64), *y = pt_floats(2 * 64), *want = pt_zeros(2 * 64);
    pt_fill(g, nw, 61, 0.03f);
    pt_fill(u, nw, 62, 0.03f);
    pt_fill(d, nw, 63, 0.03f);
    swiglu_mlp(x, g, u, d, 2, 64, 96, y);
    pt_note("x 全是 0：gate = up = 0，silu(0) · 0 = 0");
    pt_expect_close("y", y, want, 2 * 64, 0, 0, PT_SHAPE("t,i", 2, 64));
}

PT_MAIN({"worked_example", "题目里的例子：hidden = 2，inter = 3", worked_example},
        {"real_shape", "真实形状：1024 → 3584 → 1024，2 个 token", real_shape},
        {"small_shape", "3 个 token，64 → 96 → 64（PyTorch）", small_shape},
        {"zero_input", "全 0 的输入", zero_input})
