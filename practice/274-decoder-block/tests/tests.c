/* Tests of exercise 274 (one decoder block). Expected values: by hand (the worked
 * example, a zero mixer) and from PyTorch (expected.h, see make_expected.py). The
 * mixers are stand-ins that look across tokens, as attention does. */
#include <math.h>
#include <string.h>

#include "ptest.h"
#include "decoder_block.h"

#include "expected.h"

/* y = x: the identity mixer of the worked example */
static void identity(void *ctx, const float *x, int T, int hidden, float *y) {
    (void)ctx;
    memcpy(y, x, (size_t)T * hidden * sizeof *y);
}

/* y_t = M · mean(x_0 .. x_t): a causal mixer; counts its calls and the tokens it saw */
typedef struct {
    const float *m; /* [hidden, hidden] */
    int calls, tokens;
} MeanMixer;

static void causal_mean(void *ctx, const float *x, int T, int hidden, float *y) {
    MeanMixer *mm = ctx;
    mm->calls++;
    mm->tokens += T;
    double *mean = (double *)pt_bytes((size_t)hidden * sizeof *mean);
    memset(mean, 0, (size_t)hidden * sizeof *mean);
    for (int t = 0; t < T; t++) {
        for (int i = 0; i < hidden; i++) mean[i] += x[(size_t)t * hidden + i];
        for (int o = 0; o < hidden; o++) {
            double s = 0;
            for (int i = 0; i < hidden; i++) s += mm->m[(size_t)o * hidden + i] * (mean[i] / (t + 1));
            y[(size_t)t * hidden + o] = (float)s;
        }
    }
}

static void zero_mix(void *ctx, const float *x, int T, int hidden, float *y) {
    (void)ctx;
    (void)x;
    memset(y, 0, (size_t)T * hidden * sizeof *y);
}

static void worked_example(void) {
    const float x0[2] = {3, 4}, gate0[2] = {1, 0}, up0[2] = {0, 1}, down0[2] = {1, 0};
    const float want[2] = {4.52077603f, 5.13137080f};
    DecoderBlock b = {
        2,        1,   1e-6f, pt_zeros(2), pt_zeros(2), pt_copy(gate0, 2), pt_copy(up0, 2), pt_copy(down0, 2),
        identity, NULL};
    float *x = pt_copy(x0, 2), *out = pt_floats(2);
    decoder_block(&b, x, 1, out);
    pt_note("hidden = 2，inter = 1，x = (3, 4)，权重见题目，mixer 原样返回输入");
    pt_expect_close("out", out, want, 2, 1e-5, 1e-5, PT_SHAPE("i", 2));
}

/* The block of make_expected.py with seeds seed .. seed + 6. */
static void pytorch_block(int T, int H, int I, uint32_t seed, const float *want, MeanMixer *mm) {
    float *x = pt_floats((size_t)T * H), *w_in = pt_floats(H), *w_post = pt_floats(H);
    float *gate = pt_floats((size_t)I * H), *up = pt_floats((size_t)I * H), *down = pt_floats((size_t)H * I);
    float *m = pt_floats((size_t)H * H), *out = pt_floats((size_t)T * H);
    pt_fill(x, (size_t)T * H, seed, 1.0f);
    pt_fill(w_in, H, seed + 1, 0.3f);
    pt_fill(w_post, H, seed + 2, 0.3f);
    pt_fill(gate, (size_t)I * H, seed + 3, 0.05f);
    pt_fill(up, (size_t)I * H, seed + 4, 0.05f);
    pt_fill(down, (size_t)H * I, seed + 5, 0.05f);
    pt_fill(m, (size_t)H * H, seed + 6, 0.05f);
    mm->m = m;
    DecoderBlock b = {H, I, 1e-6f, w_in, w_post, gate, up, down, causal_mean, mm};
    decoder_block(&b, x, T, out);
    pt_note("%d 个 token，hidden = %d，inter = %d；mixer：因果的逐 token 平均，再乘矩阵 M（PyTorch）", T, H,
            I);
    pt_expect_close("out", out, want, (size_t)T * H, 1e-5, 1e-4, PT_SHAPE("t,i", T, H));
}

static void small_block(void) {
    MeanMixer mm = {0};
    pytorch_block(4, 64, 96, 301, small_want, &mm);
}

static void real_shape(void) {
    MeanMixer mm = {0};
    pytorch_block(2, 1024, 3584, 311, real_want, &mm);
}

static void mixer_called_once(void) {
    MeanMixer mm = {0};
    pytorch_block(4, 64, 96, 301, small_want, &mm);
    pt_expect(mm.calls == 1 && mm.tokens == 4,
              "mixer 应该被调用 1 次、拿到全部 4 个 token；实际调用了 %d 次，一共 %d 个 token", mm.calls,
              mm.tokens);
}

static void zero_mixer(void) {
    /* mixer = 0: h = x, out = x + MLP(RMSNorm(x)), computed here in double */
    enum { T = 3, H = 16, I = 24 };
    float *x = pt_floats(T * H), *w_post = pt_floats(H), *w_in = pt_floats(H);
    float *gate = pt_floats(I * H), *up = pt_floats(I * H), *down = pt_floats(H * I), *out = pt_floats(T * H);
    float *want = pt_floats(T * H);
    pt_fill(x, T * H, 321, 2.0f);
    pt_fill(w_in, H, 322, 0.3f);
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
    DecoderBlock b = {H, I, 1e-6f, w_in, w_post, gate, up, down, zero_mix, NULL};
    decoder_block(&b, x, T, out);
    pt_note("mixer 输出全是 0：h = x，这一层只剩 x + MLP(RMSNorm(x; post_norm))");
    pt_expect_close("out", out, want, T * H, 1e-5, 1e-4, PT_SHAPE("t,i", T, H));
}

PT_MAIN({"worked_example", "题目里的例子：x = (3, 4)，mixer 原样返回", worked_example},
        {"small_block", "4 个 token，hidden 64，因果平均的 mixer（PyTorch）", small_block},
        {"real_shape", "真实形状：hidden 1024，inter 3584（PyTorch）", real_shape},
        {"mixer_called_once", "mixer 调用一次，拿到全部 T 个 token", mixer_called_once},
        {"zero_mixer", "mixer 输出 0：只剩 MLP", zero_mixer})
