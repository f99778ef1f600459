/* 典型错误：照 F.normalize 写成 x / max(‖x‖, eps)。
 * fails: tiny_vector */
#include <math.h>

#include "l2norm.h"

void l2norm(const float *x, int rows, int n, float eps, float *y) {
    for (int r = 0; r < rows; r++) {
        double sum = 0;
        for (int i = 0; i < n; i++) sum += (double)x[r * n + i] * x[r * n + i];
        double norm = sqrt(sum) > 1e-12 ? sqrt(sum) : 1e-12;
        for (int i = 0; i < n; i++) y[r * n + i] = (float)(x[r * n + i] / norm);
    }
}
