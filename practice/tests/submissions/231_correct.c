/* A correct answer to 231, written differently from the reference (float sums, one
 * pass for the sum, a second for the output). */
#include <math.h>

#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    for (int r = 0; r < rows; r++, x += n, y += n) {
        float ss = 0;
        for (int i = 0; i < n; i++) ss += x[i] * x[i];
        const float inv = 1.0f / sqrtf(ss / (float)n + eps);
        for (int i = 0; i < n; i++) y[i] = (1.0f + w[i]) * (x[i] * inv);
    }
}
