/* Hostile: reads the checker's expected values at run time. If it can open them it
 * answers correctly, else it answers 0 — so a pass would mean the file was readable. */
#include <math.h>
#include <stdio.h>

#include "rmsnorm.h"

void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y) {
    FILE *f = fopen("@PRACTICE@/231-rmsnorm/tests/expected.h", "r");
    for (int r = 0; r < rows; r++, x += n, y += n) {
        double ss = 0;
        for (int i = 0; i < n; i++) ss += (double)x[i] * x[i];
        const float inv = (float)(1.0 / sqrt(ss / n + eps));
        for (int i = 0; i < n; i++) y[i] = f ? (1.0f + w[i]) * (x[i] * inv) : 0.0f;
    }
    if (f) fclose(f);
}
