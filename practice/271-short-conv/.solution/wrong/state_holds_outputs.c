/* 典型错误：状态里存了卷积之后的 y，不是卷积之前的 x。
 * fails: chunks state_is_inputs */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "short_conv.h"

void causal_conv_silu(const float *x, int T, int C, const float *w, int K, float *state, float *y) {
    size_t hist = (size_t)(K - 1) * C;
    float *in = malloc((hist + (size_t)T * C) * sizeof *in);
    if (!in) return;
    if (hist) memcpy(in, state, hist * sizeof *in);
    memcpy(in + hist, x, (size_t)T * C * sizeof *in);
    for (int t = 0; t < T; t++)
        for (int c = 0; c < C; c++) {
            float acc = 0;
            for (int j = 0; j < K; j++) acc += w[(size_t)c * K + j] * in[(size_t)(t + j) * C + c];
            y[(size_t)t * C + c] = acc / (1.0f + expf(-acc));
        }
    /* keep the outputs as history */
    for (size_t r = 0; r < (size_t)(K - 1); r++)
        for (int c = 0; c < C; c++) {
            long src = (long)r + T - (K - 1);
            state[r * C + c] = src >= 0 ? y[src * C + c] : in[(T + r) * C + c];
        }
    free(in);
}
