/* Exercise 242 (SwiGLU MLP), the runner: each case's inputs, the call, the outputs
 * handed back. The checker (check.c) holds what they should be. */
#include "ptest_run.h"
#include "swiglu.h"

static void worked_example(void) {
    const float g0[6] = {1, 0, 0, 1, 1, 1}, u0[6] = {1, 1, 2, 0, 0, -1}, d0[6] = {1, 0, 1, 0, 1, -1};
    const float x0[2] = {2, 1};
    float *g = pt_copy(g0, 6), *u = pt_copy(u0, 6), *d = pt_copy(d0, 6), *x = pt_copy(x0, 2),
          *y = pt_floats(2);
    swiglu_mlp(x, g, u, d, 1, 2, 3, y);
    pt_out_floats("y", y, 2);
}

static void shape(int T, int hidden, int inter, uint32_t seed) {
    size_t nw = (size_t)inter * hidden;
    float *g = pt_floats(nw), *u = pt_floats(nw), *d = pt_floats(nw);
    float *x = pt_floats((size_t)T * hidden), *y = pt_floats((size_t)T * hidden);
    pt_fill(g, nw, seed, 0.03f);
    pt_fill(u, nw, seed + 1, 0.03f);
    pt_fill(d, nw, seed + 2, 0.03f);
    pt_fill(x, (size_t)T * hidden, seed + 3, 1.0f);
    swiglu_mlp(x, g, u, d, T, hidden, inter, y);
    pt_out_floats("y", y, (size_t)T * hidden);
}

static void real_shape(void) { shape(2, 1024, 3584, 51); }
static void small_shape(void) { shape(3, 64, 96, 61); }

static void zero_input(void) {
    size_t nw = 96 * 64;
    float *g = pt_floats(nw), *u = pt_floats(nw), *d = pt_floats(nw);
    float *x = pt_zeros(2 * 64), *y = pt_floats(2 * 64);
    pt_fill(g, nw, 61, 0.03f);
    pt_fill(u, nw, 62, 0.03f);
    pt_fill(d, nw, 63, 0.03f);
    swiglu_mlp(x, g, u, d, 2, 64, 96, y);
    pt_out_floats("y", y, 2 * 64);
}

PT_RUNNER({"worked_example", worked_example}, {"real_shape", real_shape}, {"small_shape", small_shape},
          {"zero_input", zero_input})
