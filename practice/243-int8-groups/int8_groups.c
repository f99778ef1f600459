/* 243. int8 分组量化 —— 题目见 problem.md，评测：./practice/judge test 243 */
#include <math.h>
#include <stdint.h>

#include "int8_groups.h"

void quantize_q8(const float *w, int n, int8_t *q, float *scale) {
    /* TODO: 对每组 32 个数：scale = 这组里最大的 |w| / 127；
     *       q[i] = w[i] / scale 四舍五入到最近的整数（正好一半时取偶数）；scale 为 0 时 q 全是 0。 */
}

float dot_q8(const float *x, const int8_t *q, const float *scale, int n) {
    /* TODO: 每组先算整数和 q[i] · x[i] 的和，再乘这一组的 scale，各组加起来。 */
    return 0.0f;
}
