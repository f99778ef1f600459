/* 271. 带状态的因果短卷积 —— 题目见 problem.md，评测：./practice/judge test 271 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "short_conv.h"

void causal_conv_silu(const float *x, const float *w, int T, int C, int K, float *state, float *y) {
    /* TODO:
     *   - 第 t 个 token、第 c 个通道：窗口是 in 的第 t .. t+K−1 行（in = state 的 K−1 行 + x 的 T 行）
     *   - y = silu(Σ_j w[c·K + j] · in[t + j][c])
     *   - 最后把 in 的最后 K−1 行存回 state（T < K−1 时，有一部分来自旧的 state） */
}
