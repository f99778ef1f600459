/* 241. 线性层 —— 题目见 problem.md，评测：./practice/judge test 241 */
#include <stdint.h>
#include <string.h>

#include "linear.h"

void linear_bf16(const float *x, const uint16_t *w, int T, int in, int out, float *y) {
    /* TODO: 对每个 token t、每个输出 o：把 w 的第 o 行（in 个 BF16）和 x 的第 t 行做点积。 */
}
