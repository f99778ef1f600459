/* activations.h — the scalar functions the layers apply element by element.
 *
 *   sigmoid(x)  = 1 / (1 + e^−x)        a soft switch between 0 and 1 (gates, β)
 *   silu(x)     = x · sigmoid(x)        "SiLU"/"swish": the MLP's and the conv's activation
 *   softplus(x) = log(1 + e^x)          a smooth max(0, x) (the DeltaNet decay)
 *
 * Written to stay finite for any float input: e^x is only ever taken of a
 * non-positive number, so nothing overflows.
 */
#ifndef ACTIVATIONS_H
#define ACTIVATIONS_H

#include <math.h>
#include <stdint.h>

static inline float sigmoidf(float x) {
    if (x >= 0) return 1.0f / (1.0f + expf(-x));
    float e = expf(x); /* x < 0: e^x is small, no overflow */
    return e / (1.0f + e);
}

static inline float siluf(float x) { return x * sigmoidf(x); }

/* y = silu(x) for n numbers (y may be x), 16 at a time: e^x from a polynomial the
 * compiler vectorizes (within 1 float32 step of the exact value) instead of the C
 * library's one-at-a-time expf. Within 2e-7 relative of siluf(). Speed code, in
 * kernels/activations.c. */
void silu_vec(const float *x, int64_t n, float *y);

/* y = x · sigmoid(gate) for n numbers, the attention's output gate: silu_vec's e^x,
 * 16 at a time. Within 2e-7 relative of x · sigmoidf(gate). Speed code, in
 * kernels/activations.c. */
void sigmoid_gate_vec(const float *x, const float *gate, int64_t n, float *y);

/* p = softmax(s) in place for n ≥ 1 numbers: p_j = e^(s_j − max s) / Σ e^(s − max s),
 * with silu_vec's e^x, 16 at a time, the max and the sum (in double) in lanes. The
 * attention's fast path; within 1e-6 relative of the same formula in double from the
 * same float32 differences s_j − max s (test_attention). Speed code, in
 * kernels/activations.c. */
void softmax_vec(float *s, int64_t n);

/* act = silu(gate) · up for n numbers, the MLP's gate: silu_vec's arithmetic, then
 * the product, spread over the cores when there are many. Speed code, in
 * kernels/activations.c. */
void swiglu_vec(const float *gate, const float *up, int64_t n, float *act);

/* log(1 + e^x) = max(x, 0) + log(1 + e^−|x|); PyTorch returns x itself above 20. */
static inline float softplusf(float x) {
    if (x > 20.0f) return x;
    return fmaxf(x, 0.0f) + log1pf(expf(-fabsf(x)));
}

#endif
