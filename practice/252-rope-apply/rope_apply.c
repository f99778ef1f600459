/* 252. 部分旋转的 RoPE —— 题目见 problem.md，评测：./practice/judge test 252 */
#include "rope_apply.h"

void rope_apply(float *x, const float *cos_t, const float *sin_t, int T, int heads, int head_dim,
                int rotary_dim) {
    /* TODO: 对每个 token t、每个头 h（这个头从 x + (t·heads + h)·head_dim 开始）：
     *   对 i = 0 .. half − 1，把 (v[i], v[i + half]) 按 cos_t[t·half + i]、sin_t[t·half + i] 转过去；
     *   rotary_dim 以后的维度不要碰。 */
}
