/* 262. 带输出门的 GQA 注意力 —— 题目见 problem.md，评测：./practice/judge test 262 */
#include <math.h>
#include <stdlib.h>

#include "gated_attention.h"

void gated_attention(const float *qg, const float *k, const float *v, int T, int n_heads, int n_kv,
                     int head_dim, float *out) {
    /* TODO: 对每个 token t、每个 query 头 h：
     *   1. 这个头的 query 和门在 qg 的哪里？它用哪个 kv 头？
     *   2. 分数 s_j = q · k_j / sqrt(head_dim)，j = 0 .. t；减最大值做 softmax
     *   3. o = Σ_j a_j v_j；out 的这一段 = o · sigmoid(门) */
}
