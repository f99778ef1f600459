/* Tests of exercise 252 (partial rotate-half RoPE). Expected values: by hand (the
 * worked example), PyTorch's rotate-half formulation (expected.h), and properties
 * any rotation must have (lengths, relative positions), checked in double here. */
#include <math.h>
#include <string.h>

#include "ptest.h"
#include "rope_apply.h"

#include "expected.h"

#define HD   256
#define ROT  64
#define HALF 32

static void worked_example(void) {
    const float x0[8] = {1, 2, 3, 4, 5, 6, 7, 8}, c0[2] = {0, 1}, s0[2] = {1, 0};
    const float want[8] = {-3, 2, 1, 4, 5, 6, 7, 8};
    float *x = pt_copy(x0, 8), *c = pt_copy(c0, 2), *s = pt_copy(s0, 2);
    rope_apply(x, 1, 1, 8, 4, c, s);
    pt_note("x = (1..8)，head_dim = 8，rotary_dim = 4；第 0 对转 90°，第 1 对不转");
    pt_expect_close("x", x, want, 8, 1e-6, 0, PT_SHAPE("i", 8));
}

static void real(int heads, uint32_t seed, const float *want) {
    size_t n = (size_t)5 * heads * HD;
    float *x = pt_floats(n), *c = pt_copy(table_cos, 5 * HALF), *s = pt_copy(table_sin, 5 * HALF);
    pt_fill(x, n, seed, 1.0f);
    rope_apply(x, 5, heads, HD, ROT, c, s);
    pt_note("5 个 token（位置 0、1、7、1000、262143）× %d 个头 × 256 维，期望值来自 PyTorch", heads);
    pt_expect_close("x", x, want, n, 1e-5, 1e-5, PT_SHAPE("t,h,d", 5, heads, HD));
}

static void real_q(void) { real(8, 71, q_want); }
static void real_k(void) { real(2, 72, k_want); }

static void pass_through(void) {
    size_t n = (size_t)5 * 8 * HD;
    float *x = pt_floats(n), *c = pt_copy(table_cos, 5 * HALF), *s = pt_copy(table_sin, 5 * HALF);
    pt_fill(x, n, 71, 1.0f);
    float *before = pt_copy(x, n);
    rope_apply(x, 5, 8, HD, ROT, c, s);
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
    float *x = pt_floats(n), *c = pt_copy(table_cos, 5 * HALF), *s = pt_copy(table_sin, 5 * HALF);
    pt_fill(x, n, 73, 3.0f);
    float *before = pt_copy(x, n);
    rope_apply(x, 5, 2, HD, ROT, c, s);
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

/* cos/sin rows for the given positions, in double as exercise 251 computes them. */
static void rows(const long *pos, int n, float *c, float *s) {
    for (int k = 0; k < n; k++)
        for (int i = 0; i < HALF; i++) {
            double a = (double)pos[k] * pow(1e7, -2.0 * i / ROT);
            c[k * HALF + i] = (float)cos(a);
            s[k * HALF + i] = (float)sin(a);
        }
}

static double dot(const float *a, const float *b) {
    double d = 0;
    for (int i = 0; i < HD; i++) d += (double)a[i] * b[i];
    return d;
}

static void relative_position(void) {
    /* q at position m, k at position n; then both moved by 1000: q·k must not change */
    const long pos[4] = {10, 3, 1010, 1003};
    float *c = pt_floats(4 * HALF), *s = pt_floats(4 * HALF), *v = pt_floats(4 * HD);
    rows(pos, 4, c, s);
    pt_fill(v, HD, 74, 1.0f);
    pt_fill(v + HD, HD, 75, 1.0f);
    memcpy(v + 2 * HD, v, HD * sizeof *v);
    memcpy(v + 3 * HD, v + HD, HD * sizeof *v);
    rope_apply(v, 4, 1, HD, ROT, c, s); /* 4 "tokens" of one head: q@10, k@3, q@1010, k@1003 */
    double near = dot(v, v + HD), far = dot(v + 2 * HD, v + 3 * HD);
    pt_expect(
        fabs(near - far) < 1e-3 * (1 + fabs(near)),
        "q 在位置 10、k 在位置 3 时 q·k = %.6g；两个都挪 1000 之后 q·k = %.6g——应该一样（只和距离 7 有关）",
        near, far);
}

PT_MAIN({"worked_example", "题目里的例子：x = (1..8)，第 0 对转 90°", worked_example},
        {"real_q", "q：5 个 token × 8 个头 × 256（PyTorch）", real_q},
        {"real_k", "k：5 个 token × 2 个头 × 256（PyTorch）", real_k},
        {"pass_through", "第 64..255 维一位不差", pass_through},
        {"lengths_kept", "每一对的长度不变", lengths_kept},
        {"relative_position", "q·k 只和位置差有关", relative_position})
