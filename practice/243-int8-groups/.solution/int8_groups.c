/* 243. int8 分组量化 —— 参考答案 */
#include <math.h>
#include <stdint.h>

#include "int8_groups.h"

void quantize_q8(const float *w, int n, int8_t *q, float *scale) {
    for (int g = 0; g < n / GROUP; g++) {
        const float *v = w + g * GROUP;
        float max = 0.0f; /* the group's own largest |w|: one scale per group */
        for (int i = 0; i < GROUP; i++) max = fmaxf(max, fabsf(v[i]));
        float s = max / 127.0f;
        scale[g] = s;
        for (int i = 0; i < GROUP; i++) /* rintf: to nearest, ties to even */
            q[g * GROUP + i] = s == 0.0f ? 0 : (int8_t)rintf(v[i] / s);
    }
}

float dot_q8(const float *x, const int8_t *q, const float *scale, int n) {
    float sum = 0.0f;
    for (int g = 0; g < n / GROUP; g++) {
        float part = 0.0f; /* Σ q · x over the group, then one multiply by its scale */
        for (int i = g * GROUP; i < (g + 1) * GROUP; i++) part += q[i] * x[i];
        sum += scale[g] * part;
    }
    return sum;
}
