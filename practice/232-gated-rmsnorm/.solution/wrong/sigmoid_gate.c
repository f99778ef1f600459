/* 典型错误：门用了 sigmoid(z)，不是 silu(z) = z · sigmoid(z)。
 * fails: worked_example real_shape */
#include <math.h>

#include "gated_rmsnorm.h"

void gated_rmsnorm(const float *x, const float *z, const float *w, int rows, int n, float eps, float *y) {
    for (int r = 0; r < rows; r++) {
        double sum = 0;
        for (int i = 0; i < n; i++) sum += (double)x[r * n + i] * x[r * n + i];
        float scale = (float)(1.0 / sqrt(sum / n + eps));
        for (int i = 0; i < n; i++) y[r * n + i] = w[i] * x[r * n + i] * scale / (1.0f + expf(-z[r * n + i]));
    }
}
