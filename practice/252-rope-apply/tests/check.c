/* Exercise 252 (partial rotate-half RoPE), the checker: what each case's outputs
 * should be. Expected values: by hand (the worked example), PyTorch's rotate-half
 * formulation (expected.h), and properties any rotation must have (lengths, relative
 * positions), checked in double here. The inputs are in run.c and inputs.h. */
#include <math.h>

#include "ptest_check.h"

#include "expected.h"

#define HD   256
#define ROT  64
#define HALF 32

static void worked_example(void) {
    const float want[8] = {-3, 2, 1, 4, 5, 6, 7, 8};
    const float *x = pt_got_floats("x", 8);
    pt_note("x = (1..8)，head_dim = 8，rotary_dim = 4；第 0 对转 90°，第 1 对不转");
    pt_expect_close("x", x, want, 8, 1e-6, 0, PT_SHAPE("i", 8));
}

static void real(int heads, const float *want) {
    size_t n = (size_t)5 * heads * HD;
    const float *x = pt_got_floats("x", n);
    pt_note("5 个 token（位置 0、1、7、1000、262143）× %d 个头 × 256 维，期望值来自 PyTorch", heads);
    pt_expect_close("x", x, want, n, 1e-5, 1e-5, PT_SHAPE("t,h,d", 5, heads, HD));
}

static void real_q(void) { real(8, q_want); }
static void real_k(void) { real(2, k_want); }

static void pass_through(void) {
    size_t n = (size_t)5 * 8 * HD;
    const float *x = pt_got_floats("x", n);
    float *before = pt_floats(n);
    pt_fill(before, n, 71, 1.0f); /* as run.c draws x */
    for (int t = 0; t < 5; t++)
        for (int h = 0; h < 8; h++) {
            size_t at = ((size_t)t * 8 + h) * HD;
            pt_note("token %d 的第 %d 个头：第 64..255 维应该一位不差", t, h);
            pt_expect_same_bits("x[64..255]", x + at + ROT, before + at + ROT, HD - ROT,
                                PT_SHAPE("d", HD - ROT));
        }
}

static void lengths_kept(void) {
    size_t n = (size_t)5 * 2 * HD;
    const float *x = pt_got_floats("x", n);
    float *before = pt_floats(n);
    pt_fill(before, n, 73, 3.0f); /* as run.c draws x */
    for (int t = 0; t < 5; t++)
        for (int h = 0; h < 2; h++)
            for (int i = 0; i < HALF; i++) {
                size_t at = ((size_t)t * 2 + h) * HD;
                double a = before[at + i], b = before[at + i + HALF], p = x[at + i], q = x[at + i + HALF];
                double r0 = a * a + b * b, r1 = p * p + q * q;
                if (fabs(r1 - r0) > 1e-5 * (1 + r0))
                    pt_fail("token %d 头 %d 的第 %d 对 (x[%d], x[%d])：长度² 从 %.7g 变成了 "
                            "%.7g（旋转不改变长度）",
                            t, h, i, i, i + HALF, r0, r1);
            }
}

static double dot(const float *a, const float *b) {
    double d = 0;
    for (int i = 0; i < HD; i++) d += (double)a[i] * b[i];
    return d;
}

static void relative_position(void) {
    /* q at position 10, k at 3; then both moved by 1000: q·k must not change */
    const float *v = pt_got_floats("v", 4 * HD);
    double near = dot(v, v + HD), far = dot(v + 2 * HD, v + 3 * HD);
    pt_expect(
        fabs(near - far) < 1e-3 * (1 + fabs(near)),
        "q 在位置 10、k 在位置 3 时 q·k = %.6g；两个都挪 1000 之后 q·k = %.6g——应该一样（只和距离 7 有关）",
        near, far);
}

PT_CHECKER({"worked_example", "题目里的例子：x = (1..8)，第 0 对转 90°", worked_example},
           {"real_q", "q：5 个 token × 8 个头 × 256（PyTorch）", real_q},
           {"real_k", "k：5 个 token × 2 个头 × 256（PyTorch）", real_k},
           {"pass_through", "第 64..255 维一位不差", pass_through},
           {"lengths_kept", "每一对的长度不变", lengths_kept},
           {"relative_position", "q·k 只和位置差有关", relative_position})
