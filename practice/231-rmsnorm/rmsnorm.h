/* rmsnorm.h — exercise 231: the zero-centred RMSNorm (problem.md). */
#ifndef RMSNORM_H
#define RMSNORM_H

/* y[r] = x[r] / sqrt(mean(x[r]²) + eps) · (1 + w), for each of the rows vectors.
 * x, y: [rows, n], row-major; w: [n]. y may be the same buffer as x. */
void rmsnorm(const float *x, const float *w, int rows, int n, float eps, float *y);

#endif
