/* linear.c — y = W x, the formula as a loop (see linear.h).
 *
 * This file is the readable version. The fast versions, linear() for one token and
 * linear_batch() for many, are speed code in kernels/linear.c; the tests hold them to
 * linear_ref() below.
 */
#include "linear.h"

void linear_ref(const float *x, const Tensor *w, int64_t T, float *y) {
    int64_t out = w->shape[0], in = w->shape[1];
    for (int64_t t = 0; t < T; t++)
        for (int64_t o = 0; o < out; o++) {
            float sum = 0.0f;
            for (int64_t i = 0; i < in; i++) sum += tensor_get_f32(w, o * in + i) * x[t * in + i];
            y[t * out + o] = sum; /* Y[t][o] = Σ_i W[o][i] · X[t][i] */
        }
}
