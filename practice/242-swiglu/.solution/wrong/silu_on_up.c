/* 典型错误：SiLU 放在了 up 上。
 * fails: worked_example real_shape */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "swiglu.h"

static float dot(const float *a, const float *b, int n) {
    float s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

void swiglu_mlp(const float *x, const float *w_gate, const float *w_up, const float *w_down, int T,
                int hidden, int inter, float *y) {
    float *act = malloc((size_t)inter * sizeof *act); /* silu(gate) · up of one token */
    if (!act) return;
    for (int t = 0; t < T; t++) {
        const float *xt = x + (size_t)t * hidden;
        for (int j = 0; j < inter; j++) {
            float g = dot(w_gate + (size_t)j * hidden, xt, hidden);
            float u = dot(w_up + (size_t)j * hidden, xt, hidden);
            act[j] = u / (1.0f + expf(-u)) * g;
        }
        for (int o = 0; o < hidden; o++)
            y[(size_t)t * hidden + o] = dot(w_down + (size_t)o * inter, act, inter);
    }
    free(act);
}
