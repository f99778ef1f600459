/* Exercise 241 (linear layer), the runner: each case's inputs, the call, the outputs
 * handed back. The checker (check.c) holds what they should be. */
#include <string.h>

#include "ptest_run.h"
#include "linear.h"

static uint16_t to_bf16(float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    b += 0x7fffu + ((b >> 16) & 1u);
    return (uint16_t)(b >> 16);
}

/* W [out, in] drawn with pt_fill and rounded to BF16, as make_expected.py does. */
static uint16_t *weights(int out, int in, uint32_t seed) {
    size_t n = (size_t)out * in;
    float *f = pt_floats(n);
    pt_fill(f, n, seed, 0.03f);
    uint16_t *w = pt_bytes(n * sizeof *w);
    for (size_t i = 0; i < n; i++) w[i] = to_bf16(f[i]);
    return w;
}

static void worked_example(void) {
    const uint16_t w0[6] = {0x3F80, 0x4000, 0x0000, 0x0000, 0xBF80, 0x3F00};
    const float x0[6] = {1, 1, 1, 2, 0, -2};
    uint16_t *w = pt_dup(w0, sizeof w0);
    float *x = pt_copy(x0, 6), *y = pt_floats(4);
    linear_bf16(x, w, 2, 3, 2, y);
    pt_out_floats("y", y, 4);
}

static void real_shape(int T, int in, int out, uint32_t seed) {
    uint16_t *w = weights(out, in, seed);
    float *x = pt_floats((size_t)T * in), *y = pt_floats((size_t)T * out);
    pt_fill(x, (size_t)T * in, seed + 1, 1.0f);
    linear_bf16(x, w, T, in, out, y);
    pt_out_floats("y", y, (size_t)T * out);
}

static void down_proj(void) { real_shape(2, 3584, 1024, 41); }
static void k_proj(void) { real_shape(3, 1024, 512, 43); }

static void zero_input(void) {
    uint16_t *w = weights(512, 1024, 43);
    float *x = pt_zeros(1024), *y = pt_floats(512);
    linear_bf16(x, w, 1, 1024, 512, y);
    pt_out_floats("y", y, 512);
}

PT_RUNNER({"worked_example", worked_example}, {"down_proj", down_proj}, {"k_proj", k_proj},
          {"zero_input", zero_input})
