/* Exercise 206 (the gated delta rule), the checker: what each case's outputs should
 * be. Expected values: by hand (the worked example of chapter 7's figure, a single
 * write into an empty table, zeros), the book's printed numbers (the six writes of
 * ch07_deltanet.py), and PyTorch written from the formula (expected.h, see
 * make_expected.py). The inputs are in run.c. */
#include <math.h>

#include "ptest_check.h"

#include "expected.h"

static void worked_example(void) {
    const float want_out[2] = {1.83847763f, 0.565685425f}, want_S[4] = {5, 0, -0.5f, 1};
    const float *out = pt_got_floats("out", 2), *S = pt_got_floats("S", 4);
    pt_note("表 S = [[3, 1], [−1, 2]]，k = (1, 0)，v = (5, 0)，α = 0.5，β = 1，q = (0.6, 0.8)");
    pt_expect_close("out", out, want_out, 2, 1e-5, 1e-5, PT_SHAPE("j", 2));
    pt_expect_close("S（写完之后的表）", S, want_S, 4, 1e-5, 1e-5, PT_SHAPE("i,j", 2, 2));
}

static void book_six_writes(void) {
    const double book[6] = {4.673, 2.336, 1.168, 0.584, 0.292, 0.146};
    const float *out = pt_got_floats("out", 6 * 128);
    for (int t = 0; t < 6; t++) {
        double d = 0;
        for (int j = 0; j < 128; j++) {
            double diff = out[t * 128 + j] * sqrt(128.0) - book_v[j];
            d += diff * diff;
        }
        d = sqrt(d);
        if (!(fabs(d - book[t]) <= 6e-4))
            pt_fail("写入 %d 次后读出的值（× √128）和 v 的距离是 %.4f，书里印的是 %.3f", t + 1, d, book[t]);
    }
}

enum { T = 5, H = 2, DK = 4, DV = 3 };

static void small_heads(void) {
    const float *out = pt_got_floats("out", T * H * DV), *S = pt_got_floats("S", H * DK * DV);
    pt_note("2 个头，dk = 4，dv = 3，5 个 token，每个头的 g、β 不同，表一开始不空（PyTorch）");
    pt_expect_close("out", out, small_out, T * H * DV, 1e-5, 1e-4, PT_SHAPE("t,h,j", T, H, DV));
    pt_expect_close("S（最后的表）", S, small_S, H * DK * DV, 1e-5, 1e-4, PT_SHAPE("h,i,j", H, DK, DV));
}

static void real_shapes(void) {
    enum { RT = 4, RH = 16, D = 128 };
    const float *out = pt_got_floats("out", RT * RH * D), *S = pt_got_floats("S", RH * D * D);
    pt_note("16 个头 × 128 × 128，4 个 token，从空表开始（PyTorch）");
    pt_expect_close("out", out, real_out, RT * RH * D, 1e-5, 1e-4, PT_SHAPE("t,h,j", RT, RH, D));
    /* the final tables, through what they read for a probe vector r: Sᵀr per head */
    float *r = pt_floats(D), *read = pt_zeros(RH * D);
    pt_fill(r, D, 217, 1.0f);
    for (int h = 0; h < RH; h++)
        for (int i = 0; i < D; i++)
            for (int j = 0; j < D; j++) read[h * D + j] += S[((size_t)h * D + i) * D + j] * r[i];
    pt_note("最后的表用一个固定的向量 r 去读（Sᵀr），和 PyTorch 的表读出来的比");
    pt_expect_close("Sᵀr", read, real_S_probe, RH * D, 1e-4, 1e-4, PT_SHAPE("h,j", RH, D));
}

static void one_token_empty(void) {
    /* empty table, q = k unit, g = 0: S = β k vᵀ, out = Sᵀ q / √dk = β v / √dk */
    enum { D = 8 };
    float *v = pt_floats(D), *want = pt_floats(D);
    pt_fill(v, D, 221, 2.0f); /* as run.c draws it */
    for (int j = 0; j < D; j++) want[j] = (float)(0.75 * v[j] / sqrt(1 + 1e-6) / sqrt(1 + 1e-6) / sqrt(8.0));
    const float *out = pt_got_floats("out", D);
    pt_note("空表、一个 token，q = k = e₃，β = 0.75：表里只有第 3 行，读出 β v / √8");
    pt_expect_close("out", out, want, D, 1e-6, 1e-5, PT_SHAPE("j", D));
}

static void zero_q_k(void) {
    enum { ZH = 2, D = 16 };
    const double g[ZH] = {-0.5, -1.5}; /* as run.c sets them */
    float *want_S = pt_floats(ZH * D * D), *want_out = pt_zeros(ZH * D);
    pt_fill(want_S, ZH * D * D, 232, 1.0f); /* the table run.c starts from */
    for (int h = 0; h < ZH; h++)
        for (int i = 0; i < D * D; i++) want_S[h * D * D + i] = (float)(want_S[h * D * D + i] * exp(g[h]));
    const float *out = pt_got_floats("out", ZH * D), *S = pt_got_floats("S", ZH * D * D);
    pt_note("q、k 全是 0：l2norm 给出 0（不是 NaN），这一步只剩衰减，读出 0");
    pt_expect_close("out", out, want_out, ZH * D, 1e-7, 0, PT_SHAPE("h,j", ZH, D));
    pt_expect_close("S", S, want_S, ZH * D * D, 1e-6, 1e-5, PT_SHAPE("h,i,j", ZH, D, D));
}

static void two_calls(void) {
    const float *out = pt_got_floats("out", T * H * DV), *S = pt_got_floats("S", H * DK * DV);
    pt_note("先算前 2 个 token，把表传给第二次调用再算后 3 个：和一次算完 5 个一样（小例子的 PyTorch 值）");
    pt_expect_close("out", out, small_out, T * H * DV, 1e-5, 1e-4, PT_SHAPE("t,h,j", T, H, DV));
    pt_expect_close("S", S, small_S, H * DK * DV, 1e-5, 1e-4, PT_SHAPE("h,i,j", H, DK, DV));
}

PT_CHECKER({"worked_example", "题目里的例子：第 7 章图里的那一步", worked_example},
           {"book_six_writes", "书里的实验：连写 6 次，距离 4.673 → 0.146", book_six_writes},
           {"small_heads", "2 个头，dk ≠ dv，表一开始不空（PyTorch）", small_heads},
           {"real_shapes", "真实形状：16 个头 × 128 × 128（PyTorch）", real_shapes},
           {"one_token_empty", "空表写一个 token：读出 β v / √dk", one_token_empty},
           {"zero_q_k", "q、k 全是 0：只剩衰减，不出 NaN", zero_q_k},
           {"two_calls", "分两次调用、把表传下去", two_calls})
