/* 261. 数值稳定的因果 softmax —— 题目见 problem.md，评测：./practice/judge test 261 */
#include <math.h>

#include "causal_softmax.h"

void causal_softmax(float *scores, int T, int S) {
    /* TODO: 对每一行 t：看得见的是第 0 .. S − T + t 列；
     *   1. 在看得见的列里找最大值 m
     *   2. 每个看得见的写 e^(s − m)，同时求和
     *   3. 除以和；看不见的列写 0 */
}
