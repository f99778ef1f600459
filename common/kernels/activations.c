/* kernels/activations.c — SiLU over many numbers at once: the fast twin of
 * qwen/activations.h's siluf(), which the tests hold it to
 * (ch07_deltanet/tests/test_deltanet.c: within 2e-7 relative on [-100, 100]).
 */
#include "qwen/activations.h"

#include <stdint.h>

#include "kernels/pool.h"

/* e^x as plain arithmetic that the compiler turns into vector instructions, so a
 * whole row of SiLUs runs 16 at a time (the C library's expf does one number at a
 * time, and was most of the convolution's time on a 159-token text). The classic
 * recipe (Cephes' expf): write x = n·ln 2 + r with n a whole number and |r| ≤ ln 2 / 2,
 * take e^r from a degree-6 polynomial, and multiply by 2^n, which is just n put
 * into the exponent bits. Within 1 float32 step (ulp) of the exact value for
 * −87 ≤ x ≤ 88. Above, x is taken as 88 (e^x is then 1.7e38, near float32's largest);
 * below, the result is 0 (e^x is under 1.6e−38, float32's smallest normal number, and
 * so 0 beside anything it is added to: a softmax weight of e^−1400 is 0, as with
 * expf). A NaN stays NaN (the polynomial of a NaN is NaN), and is never converted to
 * an integer: that would be undefined, not just wrong. */
static inline float exp_vec(float x) {
    float below = x < -87.0f ? 0.0f : 1.0f;
    x = x < -87.0f ? -87.0f : x;
    x = x > 88.0f ? 88.0f : x;
    /* n = round(x / ln 2): adding and removing 1.5·2^23 leaves the nearest whole number */
    float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
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
    } two_n = {.bits = ((int32_t)(n < 127.0f ? n : 127.0f) + 127) << 23}; /* 2^n (a NaN: any will do) */
    return p * two_n.value * below;
}

/* y = silu(x) = x · sigmoid(x) = x / (1 + e^−x), n numbers (y may be x). Within 2e-7
 * relative of the exact value (the tests hold it to siluf). */
void silu_vec(const float *x, int64_t n, float *y) {
#pragma omp simd
    for (int64_t i = 0; i < n; i++) y[i] = x[i] / (1.0f + exp_vec(-x[i]));
}

/* y = x · sigmoid(gate) = x / (1 + e^−gate), n numbers. */
void sigmoid_gate_vec(const float *x, const float *gate, int64_t n, float *y) {
#pragma omp simd
    for (int64_t i = 0; i < n; i++) y[i] = x[i] / (1.0f + exp_vec(-gate[i]));
}

/* The max and the sum go 16 and 8 numbers at a time, in lanes: number j joins lane
 * j mod 16 (j mod 8), the lanes are combined in order at the end, and the numbers
 * after the last whole group come last, one by one. With one running max and one
 * running sum, every step waited for the one before it: a row of 2048 scores took
 * 2.8 µs, in lanes 1.0 µs. The max is the same number in any order; the sum's order
 * depends on n alone, so a row gives the same bits however it is reached (decoding a
 * token gives the bits of the full pass). */
#define MAX_LANES 16
#define SUM_LANES 8
void softmax_vec(float *s, int64_t n) {
    float lane_max[MAX_LANES];
    for (int i = 0; i < MAX_LANES; i++) lane_max[i] = -INFINITY;
    int64_t j = 0;
    for (; j + MAX_LANES <= n; j += MAX_LANES)
#pragma omp simd
        for (int i = 0; i < MAX_LANES; i++) lane_max[i] = s[j + i] > lane_max[i] ? s[j + i] : lane_max[i];
    float max = -INFINITY;
    for (int i = 0; i < MAX_LANES; i++) max = lane_max[i] > max ? lane_max[i] : max;
    for (; j < n; j++) max = s[j] > max ? s[j] : max;
#pragma omp simd
    for (int64_t k = 0; k < n; k++) s[k] = exp_vec(s[k] - max);
    double lane_sum[SUM_LANES] = {0};
    for (j = 0; j + SUM_LANES <= n; j += SUM_LANES)
#pragma omp simd
        for (int i = 0; i < SUM_LANES; i++) lane_sum[i] += s[j + i];
    double sum = 0.0;
    for (int i = 0; i < SUM_LANES; i++) sum += lane_sum[i];
    for (; j < n; j++) sum += s[j];
    float inv = (float)(1.0 / sum);
#pragma omp simd
    for (int64_t k = 0; k < n; k++) s[k] *= inv;
}

/* swiglu_vec's work, in tasks of SWIGLU_TASK numbers (one task for a token's 3584:
 * below a few tokens, waking the other cores costs more than it saves). */
#define SWIGLU_TASK 16384

typedef struct {
    const float *gate, *up;
    int64_t n;
    float *act;
} SwigluJob;

static void swiglu_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const SwigluJob *j = ctx;
    int64_t from = task * SWIGLU_TASK, to = from + SWIGLU_TASK < j->n ? from + SWIGLU_TASK : j->n;
    const float *gate = j->gate, *up = j->up;
    float *act = j->act;
#pragma omp simd
    for (int64_t i = from; i < to; i++) act[i] = gate[i] / (1.0f + exp_vec(-gate[i])) * up[i];
}

void swiglu_vec(const float *gate, const float *up, int64_t n, float *act) {
    SwigluJob job = {gate, up, n, act};
    pool_run((n + SWIGLU_TASK - 1) / SWIGLU_TASK, swiglu_task, &job);
}
