/* 典型错误：把 q_proj 的一行拆成"全部 query | 全部门"。
 * fails: worked_example real_shape */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "gated_attention.h"

void gated_attention(const float *qg, const float *k, const float *v, int T, int n_heads, int n_kv,
                     int head_dim, float *out) {
    int group = n_heads / n_kv; /* query heads per kv head: 4 in Qwen3.5-0.8B */
    float scale = 1.0f / sqrtf((float)head_dim);
    float *a = malloc((size_t)T * sizeof *a); /* one row of attention weights */
    if (!a) return;
    for (int t = 0; t < T; t++)
        for (int h = 0; h < n_heads; h++) {
            const float *q = qg + (size_t)t * n_heads * 2 * head_dim + (size_t)h * head_dim;
            const float *gate = qg + (size_t)t * n_heads * 2 * head_dim + (size_t)(n_heads + h) * head_dim;
            int kh = h / group;
            float m = -INFINITY, sum = 0;
            for (int j = 0; j <= t; j++) { /* causal: keys 0 .. t */
                const float *kj = k + ((size_t)j * n_kv + kh) * head_dim;
                float s = 0;
                for (int d = 0; d < head_dim; d++) s += q[d] * kj[d];
                a[j] = s * scale;
                if (a[j] > m) m = a[j];
            }
            for (int j = 0; j <= t; j++) {
                a[j] = expf(a[j] - m);
                sum += a[j];
            }
            float *o = out + (size_t)t * n_heads * head_dim + (size_t)h * head_dim;
            for (int d = 0; d < head_dim; d++) {
                float acc = 0;
                for (int j = 0; j <= t; j++) acc += a[j] * v[((size_t)j * n_kv + kh) * head_dim + d];
                o[d] = acc / sum / (1.0f + expf(-gate[d]));
            }
        }
    free(a);
}
