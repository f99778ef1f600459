/* gated_attention.h — exercise 262: GQA attention with the sigmoid output gate (problem.md). */
#ifndef GATED_ATTENTION_H
#define GATED_ATTENTION_H

/* qg: [T, n_heads, 2·head_dim] (per head: query, then gate); k, v: [T, n_kv, head_dim];
 * out: [T, n_heads · head_dim] = causal softmax(q kᵀ / sqrt(head_dim)) v · sigmoid(gate),
 * query head h reading kv head h / (n_heads / n_kv). */
void gated_attention(const float *qg, const float *k, const float *v, int T, int n_heads, int n_kv,
                     int head_dim, float *out);

#endif
