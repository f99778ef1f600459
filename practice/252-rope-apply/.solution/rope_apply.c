/* 252. 部分旋转的 RoPE —— 参考答案 */
#include <stddef.h>

#include "rope_apply.h"

void rope_apply(float *x, const float *cos_t, const float *sin_t, int T, int heads, int head_dim,
                int rotary_dim) {
    int half = rotary_dim / 2;
    for (int t = 0; t < T; t++) {
        const float *c = cos_t + (size_t)t * half, *s = sin_t + (size_t)t * half; /* this token's angles */
        for (int h = 0; h < heads; h++) {
            float *v = x + ((size_t)t * heads + h) * head_dim;
            for (int i = 0; i < half; i++) {
                float a = v[i], b = v[i + half]; /* the pair (i, i + half), read before writing */
                v[i] = a * c[i] - b * s[i];
                v[i + half] = b * c[i] + a * s[i];
            }
        }
    }
}
