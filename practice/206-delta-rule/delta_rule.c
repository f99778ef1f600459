/* 206. Gated DeltaNet 的逐 token 递推 —— 题目见 problem.md，评测：./practice/judge test 206 */
#include <math.h>
#include <stdlib.h>

#include "delta_rule.h"

void delta_rule(const float *q, const float *k, const float *v, const float *g, const float *beta, int T,
                int n_heads, int dk, int dv, float *S, float *out) {
    /* TODO: 对每个 token t、每个头 h（这个头的表是 S + h·dk·dv）：
     *   0. q、k 做 l2norm（eps 1e-6），q 再除以 sqrt(dk)
     *   1. 衰减：整张表乘 e^g
     *   2. 用 k 查表：pred = Sᵀ k
     *   3. 只写入差值：S += k (β (v − pred))ᵀ
     *   4. 用 q 查表：out = Sᵀ q */
}
