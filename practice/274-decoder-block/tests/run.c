/* Exercise 274 (one decoder block), the runner: each case's weights and mixer, the
 * call, the outputs handed back (and what the mixer saw, where a case asks). The
 * checker (check.c) holds what they should be. The mixers are stand-ins that look
 * across tokens, as attention does. */
#include <string.h>

#include "ptest_run.h"
#include "decoder_block.h"

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
    DecoderBlock b = {
        2,        1,   1e-6f, pt_zeros(2), pt_zeros(2), pt_copy(gate0, 2), pt_copy(up0, 2), pt_copy(down0, 2),
        identity, NULL};
    float *x = pt_copy(x0, 2), *out = pt_floats(2);
    decoder_block(&b, x, 1, out);
    pt_out_floats("out", out, 2);
}

/* The block of make_expected.py with seeds seed .. seed + 6. */
static void pytorch_block(int T, int H, int I, uint32_t seed, MeanMixer *mm) {
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
    pt_out_floats("out", out, (size_t)T * H);
}

static void small_block(void) {
    MeanMixer mm = {0};
    pytorch_block(4, 64, 96, 301, &mm);
}

static void real_shape(void) {
    MeanMixer mm = {0};
    pytorch_block(2, 1024, 3584, 311, &mm);
}

static void mixer_called_once(void) {
    MeanMixer mm = {0};
    pytorch_block(4, 64, 96, 301, &mm);
    pt_out_int("mixer_calls", mm.calls);
    pt_out_int("mixer_tokens", mm.tokens);
}

static void zero_mixer(void) {
    enum { T = 3, H = 16, I = 24 };
    float *x = pt_floats(T * H), *w_post = pt_floats(H), *w_in = pt_floats(H);
    float *gate = pt_floats(I * H), *up = pt_floats(I * H), *down = pt_floats(H * I), *out = pt_floats(T * H);
    pt_fill(x, T * H, 321, 2.0f);
    pt_fill(w_in, H, 322, 0.3f);
    pt_fill(w_post, H, 323, 0.3f);
    pt_fill(gate, I * H, 324, 0.2f);
    pt_fill(up, I * H, 325, 0.2f);
    pt_fill(down, H * I, 326, 0.2f);
    DecoderBlock b = {H, I, 1e-6f, w_in, w_post, gate, up, down, zero_mix, NULL};
    decoder_block(&b, x, T, out);
    pt_out_floats("out", out, T * H);
}

PT_RUNNER({"worked_example", worked_example}, {"small_block", small_block}, {"real_shape", real_shape},
          {"mixer_called_once", mixer_called_once}, {"zero_mixer", zero_mixer})
