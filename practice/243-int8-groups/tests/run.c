/* Exercise 243 (int8 groups), the runner: each case's inputs, the calls, the outputs
 * handed back. The checker (check.c) holds what they should be. */
#include "ptest_run.h"
#include "int8_groups.h"

/* quantize_q8 and dot_q8 on w and x of n numbers; q, scale and y handed back. */
static void run(const float *w0, const float *x0, int n) {
    float *w = pt_copy(w0, (size_t)n), *x = pt_copy(x0, (size_t)n);
    int8_t *q = pt_bytes((size_t)n);
    float *scale = pt_floats((size_t)n / GROUP);
    quantize_q8(w, n, q, scale);
    int *qi = pt_ints((size_t)n);
    for (int i = 0; i < n; i++) qi[i] = q[i];
    pt_out_ints("q", qi, (size_t)n);
    pt_out_floats("scale", scale, (size_t)n / GROUP);
    float y = dot_q8(x, q, scale, n);
    pt_out_floats("y", &y, 1);
}

static void worked_example(void) {
    float *w = pt_zeros(64), *x = pt_floats(64);
    w[0] = 63.5f, w[1] = 1.25f, w[2] = -0.75f, w[3] = 2;
    w[32] = -0.9921875f, w[33] = 0.01171875f, w[34] = 0.5f;
    for (int i = 0; i < 64; i++) x[i] = 1;
    run(w, x, 64);
}

/* A row of random weights (pt_fill · 0.03, as make_expected.py draws them). */
static void random_row(int n, uint32_t seed) {
    float *w = pt_floats((size_t)n), *x = pt_floats((size_t)n);
    pt_fill(w, (size_t)n, seed, 0.03f);
    pt_fill(x, (size_t)n, seed + 1, 1.0f);
    run(w, x, n);
}

static void real_row(void) { random_row(1024, 43); }
static void down_proj_row(void) { random_row(3584, 45); }

/* Four groups: the first number ±127 (negative in groups 1 and 3), then −14.5 … 15.5,
 * every one a half-step tie of scale 1. */
static void ties(void) {
    float *w = pt_floats(128), *x = pt_floats(128);
    for (int g = 0; g < 4; g++) {
        w[g * 32] = g % 2 ? -127.0f : 127.0f;
        for (int k = 1; k < 32; k++) w[g * 32 + k] = (float)(k - 16) + 0.5f;
    }
    pt_fill(x, 128, 47, 1.0f);
    run(w, x, 128);
}

/* Groups 1 and 3 all zeros. */
static void zero_groups(void) {
    float *w = pt_floats(128), *x = pt_floats(128);
    pt_fill(w, 128, 48, 0.03f);
    for (int i = 32; i < 64; i++) w[i] = 0;
    for (int i = 96; i < 128; i++) w[i] = 0;
    pt_fill(x, 128, 49, 1.0f);
    run(w, x, 128);
}

/* Eight groups of very different sizes (the checker draws the same w). */
static void error_bound(void) {
    static const float size[8] = {1e-4f, 1e-3f, 0.01f, 0.1f, 1, 10, 100, 0.5f};
    float *w = pt_floats(256), *x = pt_floats(256);
    pt_fill(w, 256, 50, 1.0f);
    for (int i = 0; i < 256; i++) w[i] *= size[i / 32];
    pt_fill(x, 256, 51, 1.0f);
    run(w, x, 256);
}

PT_RUNNER({"worked_example", worked_example}, {"real_row", real_row}, {"down_proj_row", down_proj_row},
          {"ties", ties}, {"zero_groups", zero_groups}, {"error_bound", error_bound})
