/* Correct values, but a scratch buffer is never freed. */
#include <math.h>
#include <stdlib.h>

#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    float *tmp = malloc(sizeof(float) * (size_t)n);
    for (int r = 0; r < rows; r++) {
        double sum = 0;
        for (int i = 0; i < n; i++) sum += (double)x[r * n + i] * x[r * n + i];
        float scale = (float)(1.0 / sqrt(sum / n + eps));
        for (int i = 0; i < n; i++) tmp[i] = x[r * n + i] * scale * (1.0f + w[i]);
        for (int i = 0; i < n; i++) y[r * n + i] = tmp[i];
    }
}
