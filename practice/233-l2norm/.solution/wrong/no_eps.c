/* 典型错误：直接除以长度，全 0 的向量得到 0 / 0 = NaN。
 * fails: zero_vector tiny_vector */
#include <math.h>

#include "l2norm.h"

void l2norm(const float *x, int rows, int n, float eps, float *y) {
    for (int r = 0; r < rows; r++) {
        double sum = 0;
        for (int i = 0; i < n; i++) sum += (double)x[r * n + i] * x[r * n + i];
        for (int i = 0; i < n; i++) y[r * n + i] = (float)(x[r * n + i] / sqrt(sum));
    }
}
