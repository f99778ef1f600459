/* 242. SwiGLU MLP —— 题目见 problem.md，评测：./practice/judge test 242 */
#include <math.h>
#include <stdlib.h>

#include "swiglu.h"

void swiglu_mlp(const float *x, const float *w_gate, const float *w_up, const float *w_down, int T,
                int hidden, int inter, float *y) {
    /* TODO: 对每个 token：
     *   1. act[j] = silu(w_gate 第 j 行 · x) * (w_up 第 j 行 · x)，j = 0 .. inter − 1
     *   2. y[o] = w_down 第 o 行 · act，o = 0 .. hidden − 1 */
}
