/* Wrong: multiplies by w instead of 1 + w. */
#include <math.h>

#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    for (int r = 0; r < rows; r++, x += n, y += n) {
        float ss = 0;
        for (int i = 0; i < n; i++) ss += x[i] * x[i];
        for (int i = 0; i < n; i++) y[i] = w[i] * x[i] / sqrtf(ss / n + eps);
    }
}
