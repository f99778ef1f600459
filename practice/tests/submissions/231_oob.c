/* Writes one float past the end of y (<= instead of <). */
#include <math.h>

#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    for (int r = 0; r < rows; r++) {
        double sum = 0;
        for (int i = 0; i < n; i++) sum += (double)x[r * n + i] * x[r * n + i];
        float scale = (float)(1.0 / sqrt(sum / n + eps));
        for (int i = 0; i <= n; i++) y[r * n + i] = x[r * n + i] * scale * (1.0f + w[i]);
    }
}
