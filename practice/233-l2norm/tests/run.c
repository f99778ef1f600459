/* Exercise 233 (l2norm), the runner: each case's inputs, the call, the outputs handed
 * back. The checker (check.c) holds what they should be. */
#include "ptest_run.h"
#include "l2norm.h"

#define EPS 1e-6f

static void worked_example(void) {
    const float x0[4] = {3, 4, 0, 0};
    float *x = pt_copy(x0, 4), *y = pt_floats(4);
    l2norm(x, 2, 2, EPS, y);
    pt_out_floats("y", y, 4);
}

static void real_shape(void) {
    float *x = pt_floats(32 * 128), *y = pt_floats(32 * 128);
    pt_fill(x, 32 * 128, 21, 2.0f);
    l2norm(x, 32, 128, EPS, y);
    pt_out_floats("y", y, 32 * 128);
}

static void zero_vector(void) {
    float *x = pt_zeros(16 * 128), *y = pt_floats(16 * 128);
    l2norm(x, 16, 128, EPS, y);
    pt_out_floats("y", y, 16 * 128);
}

static void tiny_vector(void) {
    const float x0[4] = {1e-4f, 1e-4f, -3e-4f, 4e-4f};
    float *x = pt_copy(x0, 4), *y = pt_floats(4);
    l2norm(x, 2, 2, EPS, y);
    pt_out_floats("y", y, 4);
}

static void in_place(void) {
    float *x = pt_floats(32 * 128);
    pt_fill(x, 32 * 128, 21, 2.0f);
    l2norm(x, 32, 128, EPS, x);
    pt_out_floats("x", x, 32 * 128);
}

PT_RUNNER({"worked_example", worked_example}, {"real_shape", real_shape}, {"zero_vector", zero_vector},
          {"tiny_vector", tiny_vector}, {"in_place", in_place})
