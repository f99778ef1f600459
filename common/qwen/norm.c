/* norm.c — RMSNorm, gated RMSNorm and l2norm (see norm.h). */
#include "norm.h"

#include <math.h>

#include "activations.h"
#include "workbook/util.h"

/* The weight must have one value per dimension (the loaders check it against
 * config.json; this also covers weights built by hand). */
static void check_weight(const Tensor *w, int n) {
    if (w->numel != n)
        die("%s: norm weight %s has %lld values, expected %d", w->file, w->name, (long long)w->numel, n);
}

/* 1 / sqrt(mean of squares + eps), accumulated in double. */
static float inv_rms(const float *x, int n, float eps) {
    double ss = 0;
    for (int i = 0; i < n; i++) ss += (double)x[i] * x[i];
    return (float)(1.0 / sqrt(ss / n + eps));
}

double rms_of(const float *x, int64_t n) {
    double ss = 0;
    for (int64_t i = 0; i < n; i++) ss += (double)x[i] * x[i];
    return sqrt(ss / (double)n);
}

void rmsnorm(const float *x, const Tensor *w, int64_t rows, int n, float eps, float *y) {
    check_weight(w, n);
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * n;
        float *yr = y + (size_t)r * n;
        float inv = inv_rms(xr, n, eps);
        for (int i = 0; i < n; i++)
            yr[i] = xr[i] * inv * (1.0f + tensor_get_f32(w, i)); /* zero-centred: 1 + w */
    }
}

void gated_rmsnorm(const float *x, const float *z, const Tensor *w, int64_t rows, int n, float eps, float *y) {
    check_weight(w, n);
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * n, *zr = z + (size_t)r * n;
        float *yr = y + (size_t)r * n;
        float inv = inv_rms(xr, n, eps);
        for (int i = 0; i < n; i++)
            yr[i] = tensor_get_f32(w, i) * (xr[i] * inv) * siluf(zr[i]); /* w as is: no 1 + */
    }
}

void l2norm(const float *x, int64_t rows, int n, float eps, float *y) {
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * n;
        float *yr = y + (size_t)r * n;
        double ss = 0;
        for (int i = 0; i < n; i++) ss += (double)xr[i] * xr[i];
        float inv = (float)(1.0 / sqrt(ss + eps));
        for (int i = 0; i < n; i++) yr[i] = xr[i] * inv;
    }
}
