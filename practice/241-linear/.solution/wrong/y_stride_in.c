/* 典型错误：y 的行步长用了 in。
 * fails: worked_example down_proj */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "linear.h"

static float bf16(uint16_t h) {
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

void linear_bf16(const float *x, const uint16_t *w, int T, int in, int out, float *y) {
    for (int t = 0; t < T; t++) {
        const float *xt = x + (size_t)t * in;
        for (int o = 0; o < out; o++) {
            const uint16_t *row = w + (size_t)o * in; /* one row of W per output */
            float sum = 0;
            for (int i = 0; i < in; i++) sum += bf16(row[i]) * xt[i];
            y[((size_t)t * in + o) % ((size_t)T * out)] = sum;
        }
    }
}
