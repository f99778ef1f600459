/* Exercise 232 (gated RMSNorm), the runner: each case's inputs, the call, the outputs
 * handed back. The checker (check.c) holds what they should be. */
#include "ptest_run.h"
#include "gated_rmsnorm.h"

#define EPS 1e-6f

static void worked_example(void) {
    const float x0[4] = {1, 2, 3, 4}, z0[4] = {0, 1, -1, 2}, w0[4] = {1, 1, 0.5f, 2};
    float *x = pt_copy(x0, 4), *z = pt_copy(z0, 4), *w = pt_copy(w0, 4), *y = pt_floats(4);
    gated_rmsnorm(x, z, w, 1, 4, EPS, y);
    pt_out_floats("y", y, 4);
}

static void real_shape(void) {
    float *x = pt_floats(48 * 128), *z = pt_floats(48 * 128), *w = pt_floats(128), *y = pt_floats(48 * 128);
    pt_fill(x, 48 * 128, 11, 0.5f);
    pt_fill(z, 48 * 128, 12, 4.0f);
    pt_fill(w, 128, 13, 0.2f);
    for (int i = 0; i < 128; i++) w[i] += 1.0f;
    gated_rmsnorm(x, z, w, 48, 128, EPS, y);
    pt_out_floats("y", y, 48 * 128);
}

static void zero_x(void) {
    float *x = pt_zeros(16 * 128), *z = pt_floats(16 * 128), *w = pt_floats(128), *y = pt_floats(16 * 128);
    pt_fill(z, 16 * 128, 15, 3.0f);
    pt_fill(w, 128, 16, 1.0f);
    gated_rmsnorm(x, z, w, 16, 128, EPS, y);
    pt_out_floats("y", y, 16 * 128);
}

static void weight_zero(void) {
    float *x = pt_floats(4 * 128), *z = pt_floats(4 * 128), *w = pt_zeros(128), *y = pt_floats(4 * 128);
    pt_fill(x, 4 * 128, 17, 1.0f);
    pt_fill(z, 4 * 128, 18, 3.0f);
    gated_rmsnorm(x, z, w, 4, 128, EPS, y);
    pt_out_floats("y", y, 4 * 128);
}

static void extreme_gates(void) {
    const float z0[8] = {1000, -1000, 100, -100, 88, -88, 30, -30};
    float *x = pt_floats(16), *z = pt_floats(16), *w = pt_floats(8), *y = pt_floats(16);
    pt_fill(x, 16, 14, 1.0f);
    for (int i = 0; i < 16; i++) z[i] = z0[i % 8];
    for (int i = 0; i < 8; i++) w[i] = 1.0f;
    gated_rmsnorm(x, z, w, 2, 8, EPS, y);
    pt_out_floats("y", y, 16);
}

PT_RUNNER({"worked_example", worked_example}, {"real_shape", real_shape}, {"zero_x", zero_x},
          {"weight_zero", weight_zero}, {"extreme_gates", extreme_gates})
