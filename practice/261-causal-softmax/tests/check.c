/* Exercise 261 (stable causal softmax), the checker: what each case's rows should be.
 * Expected values: by hand (the worked example, shifted rows) and from PyTorch
 * (expected.h). The scores are in run.c. */
#include <math.h>

#include "ptest_check.h"

#include "expected.h"

static void worked_example(void) {
    const float want[9] = {1, 0, 0, 0.25f, 0.75f, 0, 1.0f / 3, 1.0f / 3, 1.0f / 3};
    const float *s = pt_got_floats("scores", 9);
    pt_note("T = S = 3，分数 [[1, 9, 9], [0, ln 3, 9], [0, 0, 0]]，看不见的位置是 9");
    pt_expect_close("scores", s, want, 9, 1e-6, 1e-5, PT_SHAPE("t,j", 3, 3));
}

static void large_scores(void) {
    const float *s = pt_got_floats("scores", 3);
    pt_note("一行 (1000, 1001, 999)：e^1000 在 float 里是 inf");
    pt_expect_close("scores", s, big_want, 3, 1e-6, 1e-5, PT_SHAPE("j", 3));
}

static void small_scores(void) {
    const float want[3] = {big_want[0], big_want[1], big_want[2]};
    const float *s = pt_got_floats("scores", 3);
    pt_note("一行 (−1000, −999, −1001)：e^−1000 在 float 里是 0，不减最大值就是 0 / 0");
    pt_expect_close("scores", s, want, 3, 1e-6, 1e-5, PT_SHAPE("j", 3));
}

static void hidden_garbage(void) {
    const float e = 2.71828183f, z = 1 + e + e * e;
    const float want[9] = {1, 0, 0, 0.5f, 0.5f, 0, 1 / z, e / z, e * e / z};
    const float *s = pt_got_floats("scores", 9);
    pt_note("看不见的位置放的是 +inf 和 NaN：它们既不能当最大值，也不能进求和");
    pt_expect_close("scores", s, want, 9, 1e-6, 1e-5, PT_SHAPE("t,j", 3, 3));
}

static void decode_step(void) {
    /* the scores of run.c are 0, 1, ..., 6 */
    double sum = 0;
    for (int j = 0; j < 7; j++) sum += exp(j - 6.0);
    float want[7];
    for (int j = 0; j < 7; j++) want[j] = (float)(exp(j - 6.0) / sum);
    const float *s = pt_got_floats("scores", 7);
    pt_note("T = 1，S = 7：逐个生成的一步，第 0 个 query 在位置 6，7 个 key 全都看得见");
    pt_expect_close("scores", s, want, 7, 1e-6, 1e-5, PT_SHAPE("j", 7));
}

static void prefill(void) {
    const float *s = pt_got_floats("scores", 5 * 12);
    pt_note("T = 5 个新 token，S = 12 个 key：第 t 行看得见第 0 .. 7 + t 个（PyTorch）");
    pt_expect_close("scores", s, prefill_want, 5 * 12, 1e-6, 1e-5, PT_SHAPE("t,j", 5, 12));
}

static void real_64(void) {
    const float *s = pt_got_floats("scores", 64 * 64);
    pt_note("T = S = 64，分数在 ±8 之间（PyTorch 的 masked_fill + softmax）");
    pt_expect_close("scores", s, real_want, 64 * 64, 1e-6, 1e-5, PT_SHAPE("t,j", 64, 64));
}

static void minus_inf_visible(void) {
    const float want[4] = {0, 0.5f, 0, 0.5f};
    const float *s = pt_got_floats("scores", 4);
    pt_note("看得见的位置里有 −inf：e^−inf = 0，权重就是 0");
    pt_expect_close("scores", s, want, 4, 1e-7, 1e-6, PT_SHAPE("j", 4));
}

PT_CHECKER({"worked_example", "题目里的例子：T = S = 3", worked_example},
           {"large_scores", "很大的分数：(1000, 1001, 999)", large_scores},
           {"small_scores", "很小的分数：(−1000, −999, −1001)", small_scores},
           {"hidden_garbage", "看不见的位置里是 inf 和 NaN", hidden_garbage},
           {"decode_step", "T = 1：逐个生成，看得见全部 7 个 key", decode_step},
           {"prefill", "T = 5 个新 token，S = 12 个 key（PyTorch）", prefill},
           {"real_64", "T = S = 64（PyTorch）", real_64},
           {"minus_inf_visible", "看得见的位置里有 −inf", minus_inf_visible})
