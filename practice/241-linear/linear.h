/* linear.h — exercise 241: the linear layer with BF16 weights in [out, in] layout (problem.md). */
#ifndef LINEAR_H
#define LINEAR_H

#include <stdint.h>

/* y[t][o] = Σ_i w[o][i] · x[t][i].  x: [T, in]; w: [out, in] BF16; y: [T, out]. */
void linear_bf16(const float *x, const uint16_t *w, int T, int in, int out, float *y);

#endif
