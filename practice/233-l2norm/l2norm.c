/* 233. l2norm —— 题目见 problem.md，评测：./practice/judge test 233 */
#include <math.h>

#include "l2norm.h"

void l2norm(const float *x, int rows, int n, float eps, float *y) {
    /* TODO: 对每一行：平方和（sum，不是 mean）加 eps，开方，用它去除这一行的每个数。 */
}
