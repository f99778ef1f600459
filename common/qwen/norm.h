/* norm.h — chapter 3: the three normalizations Qwen3.5 uses.
 *
 * RMSNorm, zero-centred (input_layernorm, post_attention_layernorm, the final
 * norm, and the attention's q_norm / k_norm):
 *
 *     y = x · rsqrt(mean(x²) + eps) · (1 + w)
 *
 * Dividing by the root-mean-square puts every token's vector at the same scale;
 * the learned weight then rescales each dimension. Qwen3.5 stores w centred on 0
 * (the scale is 1 + w), so a freshly initialised weight of zeros means "no
 * change". Forgetting the "1 +" is the classic bug of ports, and a quiet one: no
 * crash, no NaN, just every norm's output shrunk to the size of w and pointing
 * elsewhere (ch03_norm prints by how much), so the model's output is silently wrong.
 *
 * Gated RMSNorm (only at the output of the Gated DeltaNet, per head of 128):
 *
 *     y = w · (x · rsqrt(mean(x²) + eps)) · silu(z)
 *
 * Here the weight is used directly (stored centred on 1, no "1 +"), and the
 * normalized value is multiplied by a gate silu(z) computed from the token.
 *
 * l2norm (the DeltaNet's q and k):
 *
 *     y = x · rsqrt(Σ x² + eps),  eps = 1e-6
 *
 * makes each head's query and key unit length, so that writing with β = 1
 * overwrites a slot exactly (chapter 7).
 *
 * All three work on `rows` vectors of length n stored one after another
 * ([rows, n], row-major; rows is 64-bit: tokens × heads of a long text can pass
 * 2^31); y may be the same buffer as x. Weights are Tensors as
 * stored in the checkpoint (BF16 or F32), widened once per call. Sums of squares
 * are accumulated in double, so their rounding error grows much more slowly with n
 * than a float32 sum's.
 */
#ifndef NORM_H
#define NORM_H

#include <stdint.h>

#include "tensor.h"

/* y[r] = x[r] · rsqrt(mean(x[r]²) + eps) · (1 + w)        x, y: [rows, n], w: [n] */
void rmsnorm(const float *x, const Tensor *w, int64_t rows, int n, float eps, float *y);

/* y[r] = w · (x[r] · rsqrt(mean(x[r]²) + eps)) · silu(z[r])   x, z, y: [rows, n], w: [n] */
void gated_rmsnorm(const float *x, const float *z, const Tensor *w, int64_t rows, int n, float eps, float *y);

/* y[r] = x[r] · rsqrt(Σ x[r]² + eps)                       x, y: [rows, n] */
void l2norm(const float *x, int64_t rows, int n, float eps, float *y);

/* The same, faster, and the same to the last bit (kernels/norm.c): several rows' sums
 * in flight at once, the rows of a prompt shared out over the cores. */
void rmsnorm_fast(const float *x, const Tensor *w, int64_t rows, int n, float eps, float *y);
void l2norm_fast(const float *x, int64_t rows, int n, float eps, float *y);

/* sqrt(mean(x²)) over n values, in double: the root-mean-square RMSNorm divides by
 * (the demos print it to show what a norm did). */
double rms_of(const float *x, int64_t n);

/* The eps the DeltaNet's l2norm uses (docs/math.md §2). */
#define L2NORM_EPS 1e-6f

#endif
