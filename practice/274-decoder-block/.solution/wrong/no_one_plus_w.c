/* 典型错误：归一化忘了 1 + w。
 * fails: worked_example small_block */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "decoder_block.h"

/* Zero-centred RMSNorm of T rows (exercise 231). */
static void rmsnorm(const float *x, const float *w, int T, int n, float eps, float *y) {
    for (int t = 0; t < T; t++) {
        const float *xt = x + (size_t)t * n;
        double sum = 0;
        for (int i = 0; i < n; i++) sum += (double)xt[i] * xt[i];
        float scale = (float)(1.0 / sqrt(sum / n + eps));
        for (int i = 0; i < n; i++) y[(size_t)t * n + i] = xt[i] * scale * w[i];
    }
}

static float dot(const float *a, const float *b, int n) {
    float s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

void decoder_block(const DecoderBlock *b, const float *x, int T, float *out) {
    int H = b->hidden, I = b->inter;
    size_t n = (size_t)T * H;
    float *normed = malloc(n * sizeof *normed), *mixed = malloc(n * sizeof *mixed);
    float *act = malloc((size_t)I * sizeof *act);
    if (normed && mixed && act) {
        /* h = x + mixer(RMSNorm(x)): all T tokens at once, the mixer looks across them */
        rmsnorm(x, b->input_norm, T, H, b->eps, normed);
        b->mixer(b->mixer_ctx, normed, T, H, mixed);
        for (size_t i = 0; i < n; i++) out[i] = x[i] + mixed[i]; /* out holds h now */
        /* out = h + MLP(RMSNorm(h)) */
        rmsnorm(out, b->post_norm, T, H, b->eps, normed);
        for (int t = 0; t < T; t++) {
            const float *nt = normed + (size_t)t * H;
            for (int j = 0; j < I; j++) {
                float g = dot(b->w_gate + (size_t)j * H, nt, H), u = dot(b->w_up + (size_t)j * H, nt, H);
                act[j] = g / (1.0f + expf(-g)) * u;
            }
            for (int o = 0; o < H; o++) out[(size_t)t * H + o] += dot(b->w_down + (size_t)o * I, act, I);
        }
    }
    free(normed);
    free(mixed);
    free(act);
}
