/* 272. PyTorch 的随机数引擎：MT19937 —— 题目见 problem.md，评测：./practice/judge test 272 */
#include <stdint.h>

#include "mt19937.h"

void mt_seed(Mt19937 *g, uint32_t seed) {
    /* TODO: mt[0] = seed，mt[i] = 1812433253 · (mt[i−1] ^ (mt[i−1] >> 30)) + i；next = 624 */
}

uint32_t mt_next(Mt19937 *g) {
    /* TODO: next == 624 时先把整张表旋转一次；取 mt[next++]，再调和（tempering） */
    return 0;
}

float mt_uniform_f32(Mt19937 *g) {
    /* TODO: 一个数的低 24 位 × 2^−24 */
    return 0.0f;
}

double mt_uniform_f64(Mt19937 *g) {
    /* TODO: 两个数，先取的是高 32 位；低 53 位 × 2^−53 */
    return 0.0;
}
