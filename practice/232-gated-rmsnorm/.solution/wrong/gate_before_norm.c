/* 典型错误：先乘门，再对 x · silu(z) 求均方根。
 * fails: worked_example real_shape */
#include <math.h>

#include "gated_rmsnorm.h"

void gated_rmsnorm(const float *x, const float *z, const float *w, int rows, int n, float eps, float *y) {
    for (int r = 0; r < rows; r++) {
        double sum = 0;
        for (int i = 0; i < n; i++) {
            float g = x[r * n + i] * z[r * n + i] / (1.0f + expf(-z[r * n + i]));
            y[r * n + i] = g;
            sum += (double)g * g;
        }
        float scale = (float)(1.0 / sqrt(sum / n + eps));
        for (int i = 0; i < n; i++) y[r * n + i] *= scale * w[i];
    }
}
