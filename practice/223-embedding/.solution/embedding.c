/* 223. 词嵌入 —— 参考答案 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "embedding.h"

static float bf16(uint16_t h) {
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

int embed_lookup(const int *ids, const uint16_t *table, int n, int vocab, int hidden, float *out) {
    for (int t = 0; t < n; t++)
        if (ids[t] < 0 || ids[t] >= vocab) return -1; /* before anything is written */
    for (int t = 0; t < n; t++) {
        const uint16_t *row = table + (size_t)ids[t] * hidden;
        for (int i = 0; i < hidden; i++) out[(size_t)t * hidden + i] = bf16(row[i]);
    }
    return 0;
}

void tied_logits(const float *h, const uint16_t *table, int vocab, int hidden, float *logits) {
    for (int v = 0; v < vocab; v++) {
        const uint16_t *row = table + (size_t)v * hidden;
        float sum = 0;
        for (int i = 0; i < hidden; i++) sum += bf16(row[i]) * h[i];
        logits[v] = sum;
    }
}
