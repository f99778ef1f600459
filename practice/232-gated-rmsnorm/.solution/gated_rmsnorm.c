/* 232. 门控 RMSNorm —— 参考答案 */
#include <math.h>

#include "gated_rmsnorm.h"

/* silu(v) = v · sigmoid(v), written so that neither end overflows: for v → +∞,
 * e^(−v) → 0 and the value is v; for v → −∞, e^(−v) → inf and the value is −0. */
static float silu(float v) { return v / (1.0f + expf(-v)); }

void gated_rmsnorm(const float *x, const float *z, const float *w, int rows, int n, float eps, float *y) {
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (long)r * n, *zr = z + (long)r * n;
        float *yr = y + (long)r * n;
        double sum = 0;
        for (int i = 0; i < n; i++) sum += (double)xr[i] * xr[i];
        float scale = (float)(1.0 / sqrt(sum / n + eps));
        for (int i = 0; i < n; i++) yr[i] = w[i] * (xr[i] * scale) * silu(zr[i]);
    }
}
