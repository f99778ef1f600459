/* 273. torch.randn —— 参考答案 */
#include <math.h>

#include "randn.h"

/* Box–Muller on one block of 16 float uniforms: d[j] pairs with d[j + 8]. */
static void block(float *d) {
    for (int j = 0; j < 8; j++) {
        float u1 = 1.0f - d[j], u2 = d[j + 8];
        float r = sqrtf(-2.0f * logf(u1));
        float theta = (float)(2.0 * M_PI * (double)u2);
        d[j] = r * cosf(theta);
        d[j + 8] = r * sinf(theta);
    }
}

/* One double normal; the second of each pair waits in the generator. */
static double normal_double(TorchRng *g) {
    if (g->has_cached) {
        g->has_cached = false;
        return g->cached;
    }
    double u1 = rng_uniform_f64(g), u2 = rng_uniform_f64(g);
    double r = sqrt(-2.0 * log(1.0 - u2)), theta = 2.0 * M_PI * u1;
    g->cached = r * sin(theta);
    g->has_cached = true;
    return r * cos(theta);
}

void randn(TorchRng *g, int n, float *out) {
    if (n < 16) { /* the double path, one element at a time */
        for (int i = 0; i < n; i++) out[i] = (float)normal_double(g);
        return;
    }
    for (int i = 0; i < n; i++) out[i] = rng_uniform_f32(g);
    for (int i = 0; i + 16 <= n; i += 16) block(out + i);
    if (n % 16) { /* the tail: 16 fresh uniforms over the last 16 places, transformed again */
        for (int i = n - 16; i < n; i++) out[i] = rng_uniform_f32(g);
        block(out + n - 16);
    }
}
