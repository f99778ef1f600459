/* kernels/activations.c — SiLU over many numbers at once: the fast twin of
 * qwen/activations.h's siluf(), which the tests hold it to
 * (ch07_deltanet/tests/test_deltanet.c: within 2e-7 relative on [-100, 100]).
 */
#include "qwen/activations.h"

#include <stdint.h>

/* e^x as plain arithmetic that the compiler turns into vector instructions, so a
 * whole row of SiLUs runs 16 at a time (the C library's expf does one number at a
 * time, and was most of the convolution's time on a 159-token text). The classic
 * recipe (Cephes' expf): write x = n·ln 2 + r with n a whole number and |r| ≤ ln 2 / 2,
 * take e^r from a degree-6 polynomial, and multiply by 2^n, which is just n put
 * into the exponent bits. Within 1 float32 step (ulp) of the exact value for
 * −87 ≤ x ≤ 88; x is clamped to that range (e^x is then at most 1.7e38, and at
 * least 1.6e−38, a normal float). A NaN stays NaN (the polynomial of a NaN is NaN),
 * and is never converted to an integer: that would be undefined, not just wrong. */
static inline float exp_vec(float x) {
    x = x < -87.0f ? -87.0f : x;
    x = x > 88.0f ? 88.0f : x;
    /* n = round(x / ln 2): adding and removing 1.5·2^23 leaves the nearest whole number */
    float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    n = n == n ? n : 0.0f; /* NaN: any exponent will do */
    /* r = x − n·ln 2, with ln 2 in two parts (0.693359375 is exact in a few bits), so
     * the product n·ln 2 loses nothing */
    float r = x - n * 0.693359375f + n * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f; /* e^r */
    union {
        int32_t bits;
        float value;
    } two_n = {.bits = ((int32_t)n + 127) << 23}; /* 2^n */
    return p * two_n.value;
}

/* y = silu(x) = x · sigmoid(x) = x / (1 + e^−x), n numbers (y may be x). Within 2e-7
 * relative of the exact value (the tests hold it to siluf). */
void silu_vec(float *y, const float *x, int64_t n) {
#pragma omp simd
    for (int64_t i = 0; i < n; i++) y[i] = x[i] / (1.0f + exp_vec(-x[i]));
}
