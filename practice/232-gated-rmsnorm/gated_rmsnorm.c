/* 232. 门控 RMSNorm —— 题目见 problem.md，评测：./practice/judge test 232 */
#include <math.h>

#include "gated_rmsnorm.h"

void gated_rmsnorm(const float *x, const float *z, const float *w, int rows, int n, float eps, float *y) {
    /* TODO: 对每一行（一个头）：
     *   1. 像 RMSNorm 一样除以 sqrt(mean(x²) + eps)
     *   2. 乘 w[i]（直接乘，没有 1 +）
     *   3. 乘门 silu(z[i]) = z / (1 + e^(−z)) */
}
