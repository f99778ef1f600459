/* short_conv.h — exercise 271: the DeltaNet's causal depthwise convolution with state (problem.md). */
#ifndef SHORT_CONV_H
#define SHORT_CONV_H

/* y[t][c] = silu(Σ_j w[c][j] · in[t + j][c]), in = the K−1 rows of state followed by x.
 * x, y: [T, C]; w: [C, K]; state: [K−1, C], oldest first, updated to the last K−1 rows of in. */
void causal_conv_silu(const float *x, const float *w, int T, int C, int K, float *state, float *y);

#endif
