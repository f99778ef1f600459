/* gated_rmsnorm.h — exercise 232: the gated RMSNorm at the output of the Gated DeltaNet (problem.md). */
#ifndef GATED_RMSNORM_H
#define GATED_RMSNORM_H

/* y[r] = w · x[r] / sqrt(mean(x[r]²) + eps) · silu(z[r]), silu(z) = z · sigmoid(z).
 * x, z, y: [rows, n], row-major (one head per row); w: [n], used as it is (no 1 +). */
void gated_rmsnorm(const float *x, const float *z, const float *w, int rows, int n, float eps, float *y);

#endif
