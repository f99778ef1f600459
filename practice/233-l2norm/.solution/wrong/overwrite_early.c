/* 典型错误：一边累加平方和一边写 y——原地调用时后面读到的是改过的值。
 * fails: in_place */
#include <math.h>

#include "l2norm.h"

void l2norm(const float *x, int rows, int n, float eps, float *y) {
    for (int r = 0; r < rows; r++) {
        double sum = 0;
        for (int i = 0; i < n; i++) sum += (double)x[r * n + i] * x[r * n + i];
        for (int i = 0; i < n; i++) {
            y[r * n + i] = (float)(x[r * n + i] / sqrt(sum + eps));
            sum = 0;
            for (int k = 0; k < n; k++) sum += (double)x[r * n + k] * x[r * n + k];
        }
    }
}
