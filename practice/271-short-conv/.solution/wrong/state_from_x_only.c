/* 典型错误：新状态只从 x 里取，T 比 K−1 小时丢了旧状态。
 * fails: chunks */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "short_conv.h"

void causal_conv_silu(const float *x, int T, int C, const float *w, int K, float *state, float *y) {
    size_t hist = (size_t)(K - 1) * C; /* the state: K − 1 rows of C */
    /* in = the state's K − 1 rows, then x's T rows: every window is K consecutive rows */
    float *in = malloc((hist + (size_t)T * C) * sizeof *in);
    if (!in) return;
    if (hist) memcpy(in, state, hist * sizeof *in);
    memcpy(in + hist, x, (size_t)T * C * sizeof *in);
    for (int t = 0; t < T; t++)
        for (int c = 0; c < C; c++) {
            float acc = 0;
            for (int j = 0; j < K; j++) acc += w[(size_t)c * K + j] * in[(size_t)(t + j) * C + c];
            y[(size_t)t * C + c] = acc / (1.0f + expf(-acc)); /* SiLU */
        }
    for (size_t r = 0; r < (size_t)(K - 1); r++)
        for (int c = 0; c < C; c++)
            state[r * C + c] = (int)r + T - (K - 1) >= 0 ? x[(r + T - (K - 1)) * C + c] : 0;
    free(in);
}
