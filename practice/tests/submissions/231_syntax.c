/* Does not compile: a missing semicolon. */
#include <math.h>

#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    for (int i = 0; i < rows * n; i++) y[i] = x[i] * (1.0f + w[i % n]) * eps
}
