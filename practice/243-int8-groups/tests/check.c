/* Exercise 243 (int8 groups), the checker: what each case's outputs should be.
 * Expected values: by hand (the worked example, the error bound, which this file checks
 * on the same w the runner draws) and from PyTorch (expected.h, see make_expected.py).
 * The inputs are in run.c. */
#include <math.h>
#include <stdlib.h>

#include "ptest_check.h"

#include "expected.h"

/* q and scale exactly (one IEEE division and one rounding each: the same bits in C and
 * in PyTorch), y within float32 summation error. */
static void expect_all(int n, const int *want_q, const float *want_scale, float want_y) {
    const int *q = pt_got_ints("q", (size_t)n);
    const float *scale = pt_got_floats("scale", (size_t)n / 32);
    const float *y = pt_got_floats("y", 1);
    pt_expect_close("scale", scale, want_scale, (size_t)n / 32, 0, 0, PT_SHAPE("g", n / 32));
    pt_expect_ints("q", q, want_q, (size_t)n);
    pt_expect_close("y", y, &want_y, 1, 1e-5, 1e-4, PT_FLAT);
}

static void worked_example(void) {
    int want_q[64] = {127, 2, -2, 4};
    want_q[32] = -127, want_q[33] = 2, want_q[34] = 64;
    const float want_scale[2] = {0.5f, 0.0078125f};
    pt_note(
        "第 0 组 w = (63.5, 1.25, −0.75, 2, 0 …)，第 1 组 w = (−0.9921875, 0.01171875, 0.5, 0 …)，x 全是 1");
    expect_all(64, want_q, want_scale, 65.0234375f);
}

static void real_row(void) {
    pt_note("in = 1024 的一行（pt_fill 种子 43，× 0.03），期望值来自 PyTorch");
    expect_all(1024, real_row_q, real_row_scale, real_row_y[0]);
}

static void down_proj_row(void) {
    pt_note("in = 3584 的一行（down_proj 的 in；种子 45，× 0.03），期望值来自 PyTorch");
    expect_all(3584, down_proj_row_q, down_proj_row_scale, down_proj_row_y[0]);
}

static void ties(void) {
    pt_note("四组，每组第一个数是 ±127（第 1、3 组是 −127），其余是 −14.5 … 15.5：scale = 1，每个都正好一半");
    expect_all(128, ties_q, ties_scale, ties_y[0]);
}

static void zero_groups(void) {
    pt_note("第 1、3 组全是 0：scale 应该是 0，q 全是 0");
    expect_all(128, zero_groups_q, zero_groups_scale, zero_groups_y[0]);
}

/* The promise itself, on the runner's w (drawn again here): every |w − scale·q| ≤
 * scale/2, |q| ≤ 127, and each group's largest number at ±127 — which a scale shared by
 * the whole row, or taken from the mean of |w|, cannot give. */
static void error_bound(void) {
    static const float size[8] = {1e-4f, 1e-3f, 0.01f, 0.1f, 1, 10, 100, 0.5f};
    float w[256];
    pt_fill(w, 256, 50, 1.0f);
    for (int i = 0; i < 256; i++) w[i] *= size[i / 32];
    const int *q = pt_got_ints("q", 256);
    const float *scale = pt_got_floats("scale", 8);
    pt_note("8 组，大小从 1e-4 到 100（种子 50）");
    for (int g = 0; g < 8; g++) {
        int qmax = 0;
        for (int i = g * 32; i < g * 32 + 32; i++) {
            double err = fabs((double)w[i] - (double)scale[g] * q[i]);
            pt_expect(q[i] >= -127 && q[i] <= 127, "q[%d] = %d，超出了 −127 … 127", i, q[i]);
            pt_expect(err <= scale[g] / 2.0, "w[%d] = %.9g，scale = %.9g，q = %d：差了 %.3g，超过半格 %.3g",
                      i, w[i], scale[g], q[i], err, scale[g] / 2.0);
            qmax = abs(q[i]) > qmax ? abs(q[i]) : qmax;
        }
        pt_expect(qmax == 127, "第 %d 组最大的 |q| 是 %d，应该是 127（scale 要按这一组自己的最大值取）", g,
                  qmax);
    }
}

PT_CHECKER({"worked_example", "题目里的例子：两组，正好一半的值，x 全是 1", worked_example},
           {"real_row", "in = 1024 的一行（PyTorch）", real_row},
           {"down_proj_row", "in = 3584 的一行（PyTorch）", down_proj_row},
           {"ties", "正好一半的值，最大值是负数的组（PyTorch）", ties},
           {"zero_groups", "全 0 的组：scale 0，q 0", zero_groups},
           {"error_bound", "每个数都在半格之内，每组最大的数是 ±127", error_bound})
