/* 典型错误：每写一个数都重新扫一遍这一行——原地调用时，后面的数读到的已经是改过的 x。
 * fails: in_place */
#include <math.h>

#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    for (int r = 0; r < rows; r++)
        for (int i = 0; i < n; i++) {
            double sum = 0;
            for (int k = 0; k < n; k++) sum += (double)x[r * n + k] * x[r * n + k];
            y[r * n + i] = x[r * n + i] * (float)(1.0 / sqrt(sum / n + eps)) * (1.0f + w[i]);
        }
}
