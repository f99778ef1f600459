/* 典型错误：silu 写成 v · e^v / (1 + e^v)，v 很大时 inf / inf = NaN。
 * fails: extreme_gates */
#include <math.h>

#include "gated_rmsnorm.h"

void gated_rmsnorm(const float *x, const float *z, const float *w, int rows, int n, float eps, float *y) {
    for (int r = 0; r < rows; r++) {
        double sum = 0;
        for (int i = 0; i < n; i++) sum += (double)x[r * n + i] * x[r * n + i];
        float scale = (float)(1.0 / sqrt(sum / n + eps));
        for (int i = 0; i < n; i++) {
            float v = z[r * n + i], e = expf(v);
            y[r * n + i] = w[i] * x[r * n + i] * scale * (v * e / (1.0f + e));
        }
    }
}
