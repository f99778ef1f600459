/* Exercise 262 (gated GQA attention), the checker: what each case's outputs should be.
 * Expected values: by hand (the worked example, T = 1) and from PyTorch (expected.h,
 * see make_expected.py). The inputs are in run.c. */
#include <math.h>

#include "ptest_check.h"

#include "expected.h"

static void worked_example(void) {
    const float want[8] = {0.5f, 1, 0.75f, 0.5f, 1.25f, 1.75f, 1.5f, 0.75f};
    const float *out = pt_got_floats("out", 8);
    pt_note("T = 2，2 个 query 头，1 个 kv 头，head_dim = 2；输入见题目的表");
    pt_expect_close("out", out, want, 8, 1e-6, 1e-5, PT_SHAPE("t,h,d", 2, 2, 2));
}

static void run(int T, int nh, int nkv, int hd, const float *want, const char *what) {
    const float *out = pt_got_floats("out", (size_t)T * nh * hd);
    pt_note("%s：T = %d，%d 个 query 头，%d 个 kv 头，head_dim = %d（PyTorch）", what, T, nh, nkv, hd);
    pt_expect_close("out", out, want, (size_t)T * nh * hd, 1e-5, 1e-4, PT_SHAPE("t,h,d", T, nh, hd));
}

static void real_shape(void) { run(6, 8, 2, 256, real_want, "真实形状"); }
static void plain_mha(void) { run(5, 4, 4, 32, mha_want, "n_kv = n_heads"); }
static void large_scores(void) { run(4, 2, 1, 64, large_want, "分数上百"); }

static void one_token(void) {
    size_t nq = 8 * 2 * 256, nk = 2 * 256;
    float *qg = pt_floats(nq), *v = pt_floats(nk), *want = pt_floats(8 * 256);
    pt_fill(qg, nq, 101, 2.0f); /* as run.c draws them */
    pt_fill(v, nk, 103, 1.0f);
    for (int h = 0; h < 8; h++)
        for (int d = 0; d < 256; d++) {
            double gate = qg[h * 512 + 256 + d];
            want[h * 256 + d] = (float)(v[(h / 4) * 256 + d] / (1 + exp(-gate)));
        }
    const float *out = pt_got_floats("out", 8 * 256);
    pt_note("T = 1：只看得见自己，权重是 1，输出 = v_0（第 h / 4 个 kv 头）· sigmoid(门)");
    pt_expect_close("out", out, want, 8 * 256, 1e-6, 1e-5, PT_SHAPE("h,d", 8, 256));
}

PT_CHECKER({"worked_example", "题目里的例子：T = 2，2 个头共用 1 个 kv 头", worked_example},
           {"real_shape", "真实形状：6 个 token，8 / 2 个头，256 维", real_shape},
           {"plain_mha", "n_kv = n_heads 的普通多头注意力", plain_mha},
           {"large_scores", "分数上百：softmax 要减最大值", large_scores},
           {"one_token", "T = 1：输出是 v · sigmoid(门)", one_token})
