/* 典型错误：照 RMSNorm 用了平均，不是平方和。
 * fails: worked_example real_shape */
#include <math.h>

#include "l2norm.h"

void l2norm(const float *x, int rows, int n, float eps, float *y) {
    for (int r = 0; r < rows; r++) {
        double sum = 0;
        for (int i = 0; i < n; i++) sum += (double)x[r * n + i] * x[r * n + i];
        float scale = (float)(1.0 / sqrt(sum / n + eps));
        for (int i = 0; i < n; i++) y[r * n + i] = x[r * n + i] * scale;
    }
}
