/* 典型错误：所有行放在一起求一个均方根。
 * fails: rows_apart */
#include <math.h>

#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    double sum = 0;
    for (long i = 0; i < (long)rows * n; i++) sum += (double)x[i] * x[i];
    float scale = (float)(1.0 / sqrt(sum / ((double)rows * n) + eps));
    for (long i = 0; i < (long)rows * n; i++) y[i] = x[i] * scale * (1.0f + w[i % n]);
}
