/* Undefined behaviour: a signed overflow while counting. */
#include <limits.h>
#include <math.h>

#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    int big = INT_MAX - 1;
    for (int i = 0; i < rows * n; i++) big += 1;
    y[0] = (float)big + x[0] + w[0] + eps;
}
