/* 典型错误：照 RMSNorm 的习惯乘了 1 + w。
 * fails: worked_example real_shape weight_zero */
#include <math.h>

#include "gated_rmsnorm.h"

void gated_rmsnorm(const float *x, const float *z, const float *w, int rows, int n, float eps, float *y) {
    for (int r = 0; r < rows; r++) {
        double sum = 0;
        for (int i = 0; i < n; i++) sum += (double)x[r * n + i] * x[r * n + i];
        float scale = (float)(1.0 / sqrt(sum / n + eps));
        for (int i = 0; i < n; i++) {
            float g = z[r * n + i] / (1.0f + expf(-z[r * n + i]));
            y[r * n + i] = (1.0f + w[i]) * x[r * n + i] * scale * g;
        }
    }
}
