/* Tests of exercise 206 (the gated delta rule). Expected values: by hand (the worked
 * example of chapter 7's figure, a single write into an empty table, zeros), the
 * book's printed numbers (the six writes of ch07_deltanet.py), and PyTorch written
 * from the formula (expected.h, see make_expected.py). */
#include <math.h>
#include <string.h>

#include "ptest.h"
#include "delta_rule.h"

#include "expected.h"

static void worked_example(void) {
    const float S0[4] = {3, 1, -1, 2}, q0[2] = {0.6f, 0.8f}, k0[2] = {1, 0}, v0[2] = {5, 0};
    float *S = pt_copy(S0, 4), *q = pt_copy(q0, 2), *k = pt_copy(k0, 2), *v = pt_copy(v0, 2);
    float *g = pt_floats(1), *beta = pt_floats(1), *out = pt_floats(2);
    g[0] = logf(0.5f);
    beta[0] = 1.0f;
    delta_rule(q, k, v, g, beta, 1, 1, 2, 2, S, out);
    const float want_out[2] = {1.83847763f, 0.565685425f}, want_S[4] = {5, 0, -0.5f, 1};
    pt_note("表 S = [[3, 1], [−1, 2]]，k = (1, 0)，v = (5, 0)，α = 0.5，β = 1，q = (0.6, 0.8)");
    pt_expect_close("out", out, want_out, 2, 1e-5, 1e-5, PT_SHAPE("j", 2));
    pt_expect_close("S（写完之后的表）", S, want_S, 4, 1e-5, 1e-5, PT_SHAPE("i,j", 2, 2));
}

static void book_six_writes(void) {
    /* ch07_deltanet.py, part 3: delta_rule(k, k, v, zeros, 0.5) over 6 tokens */
    const double book[6] = {4.673, 2.336, 1.168, 0.584, 0.292, 0.146};
    float *q = pt_floats(6 * 128), *k = pt_floats(6 * 128), *v = pt_floats(6 * 128);
    float *g = pt_zeros(6), *beta = pt_floats(6), *S = pt_zeros(128 * 128), *out = pt_floats(6 * 128);
    for (int t = 0; t < 6; t++) {
        memcpy(q + t * 128, book_k, sizeof book_k);
        memcpy(k + t * 128, book_k, sizeof book_k);
        memcpy(v + t * 128, book_v, sizeof book_v);
        beta[t] = 0.5f;
    }
    delta_rule(q, k, v, g, beta, 6, 1, 128, 128, S, out);
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

static void small_heads(void) {
    enum { T = 5, H = 2, DK = 4, DV = 3 };
    float *q = pt_floats(T * H * DK), *k = pt_floats(T * H * DK), *v = pt_floats(T * H * DV);
    float *g = pt_floats(T * H), *beta = pt_floats(T * H), *S = pt_floats(H * DK * DV),
          *out = pt_floats(T * H * DV);
    pt_fill(q, T * H * DK, 201, 1.0f);
    pt_fill(k, T * H * DK, 202, 1.0f);
    pt_fill(v, T * H * DV, 203, 1.0f);
    pt_fill(g, T * H, 204, 1.0f);
    for (int i = 0; i < T * H; i++) g[i] = -fabsf(g[i]) * 2.0f;
    pt_fill(beta, T * H, 205, 0.5f);
    for (int i = 0; i < T * H; i++) beta[i] += 0.5f;
    pt_fill(S, H * DK * DV, 206, 1.0f);
    delta_rule(q, k, v, g, beta, T, H, DK, DV, S, out);
    pt_note("2 个头，dk = 4，dv = 3，5 个 token，每个头的 g、β 不同，表一开始不空（PyTorch）");
    pt_expect_close("out", out, small_out, T * H * DV, 1e-5, 1e-4, PT_SHAPE("t,h,j", T, H, DV));
    pt_expect_close("S（最后的表）", S, small_S, H * DK * DV, 1e-5, 1e-4, PT_SHAPE("h,i,j", H, DK, DV));
}

static void real_shapes(void) {
    enum { T = 4, H = 16, D = 128 };
    float *q = pt_floats(T * H * D), *k = pt_floats(T * H * D), *v = pt_floats(T * H * D);
    float *g = pt_floats(T * H), *beta = pt_floats(T * H), *S = pt_zeros(H * D * D),
          *out = pt_floats(T * H * D);
    pt_fill(q, T * H * D, 211, 1.0f);
    pt_fill(k, T * H * D, 212, 1.0f);
    pt_fill(v, T * H * D, 213, 1.0f);
    pt_fill(g, T * H, 214, 1.0f);
    for (int i = 0; i < T * H; i++) g[i] = -fabsf(g[i]) * 2.0f;
    pt_fill(beta, T * H, 215, 0.5f);
    for (int i = 0; i < T * H; i++) beta[i] += 0.5f;
    delta_rule(q, k, v, g, beta, T, H, D, D, S, out);
    pt_note("16 个头 × 128 × 128，4 个 token，从空表开始（PyTorch）");
    pt_expect_close("out", out, real_out, T * H * D, 1e-5, 1e-4, PT_SHAPE("t,h,j", T, H, D));
    /* the final tables, through what they read for a probe vector r: Sᵀr per head */
    float *r = pt_floats(D), *read = pt_zeros(H * D);
    pt_fill(r, D, 217, 1.0f);
    for (int h = 0; h < H; h++)
        for (int i = 0; i < D; i++)
            for (int j = 0; j < D; j++) read[h * D + j] += S[((size_t)h * D + i) * D + j] * r[i];
    pt_note("最后的表用一个固定的向量 r 去读（Sᵀr），和 PyTorch 的表读出来的比");
    pt_expect_close("Sᵀr", read, real_S_probe, H * D, 1e-4, 1e-4, PT_SHAPE("h,j", H, D));
}

static void one_token_empty(void) {
    /* empty table, q = k unit, g = 0: S = β k vᵀ, out = Sᵀ q / √dk = β v / √dk */
    enum { D = 8 };
    float *q = pt_zeros(D), *k = pt_zeros(D), *v = pt_floats(D), *g = pt_zeros(1), *beta = pt_floats(1);
    float *S = pt_zeros(D * D), *out = pt_floats(D), *want = pt_floats(D);
    q[3] = k[3] = 1.0f;
    pt_fill(v, D, 221, 2.0f);
    beta[0] = 0.75f;
    for (int j = 0; j < D; j++) want[j] = (float)(0.75 * v[j] / sqrt(1 + 1e-6) / sqrt(1 + 1e-6) / sqrt(8.0));
    delta_rule(q, k, v, g, beta, 1, 1, D, D, S, out);
    pt_note("空表、一个 token，q = k = e₃，β = 0.75：表里只有第 3 行，读出 β v / √8");
    pt_expect_close("out", out, want, D, 1e-6, 1e-5, PT_SHAPE("j", D));
}

static void zero_q_k(void) {
    enum { H = 2, D = 16 };
    float *q = pt_zeros(H * D), *k = pt_zeros(H * D), *v = pt_floats(H * D), *g = pt_floats(H),
          *beta = pt_floats(H);
    float *S = pt_floats(H * D * D), *out = pt_floats(H * D), *want_out = pt_zeros(H * D);
    pt_fill(v, H * D, 231, 1.0f);
    g[0] = -0.5f;
    g[1] = -1.5f;
    beta[0] = beta[1] = 0.5f;
    pt_fill(S, H * D * D, 232, 1.0f);
    float *want_S = pt_copy(S, H * D * D);
    for (int h = 0; h < H; h++)
        for (int i = 0; i < D * D; i++)
            want_S[h * D * D + i] = (float)(want_S[h * D * D + i] * exp((double)g[h]));
    delta_rule(q, k, v, g, beta, 1, H, D, D, S, out);
    pt_note("q、k 全是 0：l2norm 给出 0（不是 NaN），这一步只剩衰减，读出 0");
    pt_expect_close("out", out, want_out, H * D, 1e-7, 0, PT_SHAPE("h,j", H, D));
    pt_expect_close("S", S, want_S, H * D * D, 1e-6, 1e-5, PT_SHAPE("h,i,j", H, D, D));
}

static void two_calls(void) {
    enum { T = 5, H = 2, DK = 4, DV = 3 };
    float *q = pt_floats(T * H * DK), *k = pt_floats(T * H * DK), *v = pt_floats(T * H * DV);
    float *g = pt_floats(T * H), *beta = pt_floats(T * H), *S = pt_floats(H * DK * DV),
          *out = pt_floats(T * H * DV);
    pt_fill(q, T * H * DK, 201, 1.0f);
    pt_fill(k, T * H * DK, 202, 1.0f);
    pt_fill(v, T * H * DV, 203, 1.0f);
    pt_fill(g, T * H, 204, 1.0f);
    for (int i = 0; i < T * H; i++) g[i] = -fabsf(g[i]) * 2.0f;
    pt_fill(beta, T * H, 205, 0.5f);
    for (int i = 0; i < T * H; i++) beta[i] += 0.5f;
    pt_fill(S, H * DK * DV, 206, 1.0f);
    /* tokens 0-1, then 2-4 with the table the first call left */
    delta_rule(q, k, v, g, beta, 2, H, DK, DV, S, out);
    delta_rule(q + 2 * H * DK, k + 2 * H * DK, v + 2 * H * DV, g + 2 * H, beta + 2 * H, 3, H, DK, DV, S,
               out + 2 * H * DV);
    pt_note("先算前 2 个 token，把表传给第二次调用再算后 3 个：和一次算完 5 个一样（小例子的 PyTorch 值）");
    pt_expect_close("out", out, small_out, T * H * DV, 1e-5, 1e-4, PT_SHAPE("t,h,j", T, H, DV));
    pt_expect_close("S", S, small_S, H * DK * DV, 1e-5, 1e-4, PT_SHAPE("h,i,j", H, DK, DV));
}

PT_MAIN({"worked_example", "题目里的例子：第 7 章图里的那一步", worked_example},
        {"book_six_writes", "书里的实验：连写 6 次，距离 4.673 → 0.146", book_six_writes},
        {"small_heads", "2 个头，dk ≠ dv，表一开始不空（PyTorch）", small_heads},
        {"real_shapes", "真实形状：16 个头 × 128 × 128（PyTorch）", real_shapes},
        {"one_token_empty", "空表写一个 token：读出 β v / √dk", one_token_empty},
        {"zero_q_k", "q、k 全是 0：只剩衰减，不出 NaN", zero_q_k},
        {"two_calls", "分两次调用、把表传下去", two_calls})
