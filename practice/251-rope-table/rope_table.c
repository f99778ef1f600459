/* 251. RoPE 的频率和 cos/sin 表 —— 题目见 problem.md，评测：./practice/judge test 251 */
#include <math.h>

#include "rope_table.h"

void rope_table(int rotary_dim, double theta, long pos0, int n_pos, float *cos_out, float *sin_out) {
    /* TODO: half = rotary_dim / 2；对每个位置 p 和每一对 i：
     *   inv_freq = theta^(−2i / rotary_dim)，角度 = (pos0 + p) · inv_freq，都用 double；
     *   cos_out[p * half + i] = cos(角度)，sin_out 同理。 */
}
