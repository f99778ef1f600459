/* 典型错误：没有先读旧值：第二个数用了改过的第一个数。
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
                v[i] = v[i] * c[i] - v[i + half] * s[i];
                v[i + half] = v[i + half] * c[i] + v[i] * s[i];
            }
        }
    }
}
