/* Crashes: writes through a null pointer. */
#include <stddef.h>

#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    float *volatile nowhere = NULL;
    nowhere[rows] = x[0] + w[0] + eps + (float)n + y[0];
}
