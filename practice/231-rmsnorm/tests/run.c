/* Exercise 231 (zero-centred RMSNorm), the runner: each case's inputs, the call, the
 * outputs handed back. The checker (check.c) holds what they should be. */
#include "ptest_run.h"
#include "rmsnorm.h"

#define EPS 1e-6f

static void worked_example(void) {
    const float x0[4] = {1, 2, 3, 4}, w0[4] = {0, 0.5f, -0.5f, 1};
    float *x = pt_copy(x0, 4), *w = pt_copy(w0, 4), *y = pt_floats(4);
    rmsnorm(x, w, 1, 4, EPS, y);
    pt_out_floats("y", y, 4);
}

static void hidden_1024(void) {
    float *x = pt_floats(3 * 1024), *w = pt_floats(1024), *y = pt_floats(3 * 1024);
    pt_fill(x, 3 * 1024, 1, 3.0f);
    pt_fill(w, 1024, 2, 0.5f);
    rmsnorm(x, w, 3, 1024, EPS, y);
    pt_out_floats("y", y, 3 * 1024);
}

static void q_norm_256(void) {
    float *x = pt_floats(16 * 256), *w = pt_floats(256), *y = pt_floats(16 * 256);
    pt_fill(x, 16 * 256, 3, 2.0f);
    pt_fill(w, 256, 4, 0.3f);
    rmsnorm(x, w, 16, 256, EPS, y);
    pt_out_floats("y", y, 16 * 256);
}

static void zero_vector(void) {
    float *x = pt_zeros(2 * 1024), *w = pt_floats(1024), *y = pt_floats(2 * 1024);
    pt_fill(w, 1024, 7, 0.5f);
    rmsnorm(x, w, 2, 1024, EPS, y);
    pt_out_floats("y", y, 2 * 1024);
}

static void nearly_zero(void) {
    const float x0[4] = {1e-4f, 1e-4f, 1e-4f, 1e-4f};
    float *x = pt_copy(x0, 4), *w = pt_zeros(4), *y = pt_floats(4);
    rmsnorm(x, w, 1, 4, EPS, y);
    pt_out_floats("y", y, 4);
}

static void rows_apart(void) {
    float *x = pt_floats(3 * 64), *w = pt_floats(64), *y = pt_floats(3 * 64);
    pt_fill(x, 3 * 64, 5, 1.0f);
    const float scale[3] = {1e-3f, 1.0f, 1e3f};
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < 64; i++) x[r * 64 + i] *= scale[r];
    pt_fill(w, 64, 6, 0.5f);
    rmsnorm(x, w, 3, 64, EPS, y);
    pt_out_floats("y", y, 3 * 64);
}

static void in_place(void) {
    float *x = pt_floats(3 * 1024), *w = pt_floats(1024);
    pt_fill(x, 3 * 1024, 1, 3.0f);
    pt_fill(w, 1024, 2, 0.5f);
    rmsnorm(x, w, 3, 1024, EPS, x);
    pt_out_floats("x", x, 3 * 1024);
}

PT_RUNNER({"worked_example", worked_example}, {"hidden_1024", hidden_1024}, {"q_norm_256", q_norm_256},
          {"zero_vector", zero_vector}, {"nearly_zero", nearly_zero}, {"rows_apart", rows_apart},
          {"in_place", in_place})
