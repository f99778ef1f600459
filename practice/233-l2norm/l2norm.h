/* l2norm.h — exercise 233: the DeltaNet's l2norm of q and k (problem.md). */
#ifndef L2NORM_H
#define L2NORM_H

/* y[r] = x[r] / sqrt(Σ x[r]² + eps).   x, y: [rows, n], row-major; y may be x. */
void l2norm(const float *x, int rows, int n, float eps, float *y);

#endif
