/* Exercise 274 (one decoder block), the checker: what each case's outputs should be.
 * Expected values: by hand (the worked example, a zero mixer, computed here from the
 * same pt_fill inputs as run.c) and from PyTorch (expected.h, see make_expected.py).
 * The inputs and the mixers are in run.c. */
#include <math.h>

#include "ptest_check.h"

#include "expected.h"

static void worked_example(void) {
    const float want[2] = {4.52077603f, 5.13137080f};
    const float *out = pt_got_floats("out", 2);
    pt_note("hidden = 2，inter = 1，x = (3, 4)，权重见题目，mixer 原样返回输入");
    pt_expect_close("out", out, want, 2, 1e-5, 1e-5, PT_SHAPE("i", 2));
}

/* The block of make_expected.py, as run.c runs it with the causal-mean mixer. */
static void pytorch_block(int T, int H, int I, const float *want) {
    const float *out = pt_got_floats("out", (size_t)T * H);
    pt_note("%d 个 token，hidden = %d，inter = %d；mixer：因果的逐 token 平均，再乘矩阵 M（PyTorch）", T, H,
            I);
    pt_expect_close("out", out, want, (size_t)T * H, 1e-5, 1e-4, PT_SHAPE("t,i", T, H));
}

static void small_block(void) { pytorch_block(4, 64, 96, small_want); }
static void real_shape(void) { pytorch_block(2, 1024, 3584, real_want); }

static void mixer_called_once(void) {
    pytorch_block(4, 64, 96, small_want);
    long long calls = pt_got_int("mixer_calls"), tokens = pt_got_int("mixer_tokens");
    pt_expect(calls == 1 && tokens == 4,
              "mixer 应该被调用 1 次、拿到全部 4 个 token；实际调用了 %lld 次，一共 %lld 个 token", calls,
              tokens);
}

static void zero_mixer(void) {
    /* mixer = 0: h = x, out = x + MLP(RMSNorm(x)), computed here in double from the
     * inputs run.c draws (w_in, seed 322, is not needed) */
    enum { T = 3, H = 16, I = 24 };
    float *x = pt_floats(T * H), *w_post = pt_floats(H);
    float *gate = pt_floats(I * H), *up = pt_floats(I * H), *down = pt_floats(H * I);
    float *want = pt_floats(T * H);
    pt_fill(x, T * H, 321, 2.0f);
    pt_fill(w_post, H, 323, 0.3f);
    pt_fill(gate, I * H, 324, 0.2f);
    pt_fill(up, I * H, 325, 0.2f);
    pt_fill(down, H * I, 326, 0.2f);
    for (int t = 0; t < T; t++) {
        double ss = 0, n[H], act[I];
        for (int i = 0; i < H; i++) ss += (double)x[t * H + i] * x[t * H + i];
        for (int i = 0; i < H; i++) n[i] = x[t * H + i] / sqrt(ss / H + 1e-6) * (1 + w_post[i]);
        for (int j = 0; j < I; j++) {
            double g = 0, u = 0;
            for (int i = 0; i < H; i++) g += gate[j * H + i] * n[i], u += up[j * H + i] * n[i];
            act[j] = g / (1 + exp(-g)) * u;
        }
        for (int o = 0; o < H; o++) {
            double s = 0;
            for (int j = 0; j < I; j++) s += down[o * I + j] * act[j];
            want[t * H + o] = (float)(x[t * H + o] + s);
        }
    }
    const float *out = pt_got_floats("out", T * H);
    pt_note("mixer 输出全是 0：h = x，这一层只剩 x + MLP(RMSNorm(x; post_norm))");
    pt_expect_close("out", out, want, T * H, 1e-5, 1e-4, PT_SHAPE("t,i", T, H));
}

PT_CHECKER({"worked_example", "题目里的例子：x = (3, 4)，mixer 原样返回", worked_example},
           {"small_block", "4 个 token，hidden 64，因果平均的 mixer（PyTorch）", small_block},
           {"real_shape", "真实形状：hidden 1024，inter 3584（PyTorch）", real_shape},
           {"mixer_called_once", "mixer 调用一次，拿到全部 T 个 token", mixer_called_once},
           {"zero_mixer", "mixer 输出 0：只剩 MLP", zero_mixer})
