/* 典型错误：相邻配对：2i 和 2i + 1。
 * fails: worked_example real_q */
#include <stddef.h>

#include "rope_apply.h"

void rope_apply(float *x, int T, int heads, int head_dim, int rotary_dim, const float *cos_t,
                const float *sin_t) {
    int half = rotary_dim / 2;
    for (int t = 0; t < T; t++) {
        const float *c = cos_t + (size_t)t * half, *s = sin_t + (size_t)t * half; /* this token's angles */
        for (int h = 0; h < heads; h++) {
            float *v = x + ((size_t)t * heads + h) * head_dim;
            for (int i = 0; i < half; i++) {
                float a = v[2 * i], b = v[2 * i + 1];
                v[2 * i] = a * c[i] - b * s[i];
                v[2 * i + 1] = b * c[i] + a * s[i];
            }
        }
    }
}
