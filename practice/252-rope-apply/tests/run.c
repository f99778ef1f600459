/* Exercise 252 (partial rotate-half RoPE), the runner: each case's inputs, the call,
 * the rotated vectors handed back. The checker (check.c) holds what they should be. */
#include <math.h>
#include <string.h>

#include "ptest_run.h"
#include "rope_apply.h"

#include "inputs.h"

#define HD   256
#define ROT  64
#define HALF 32

static void worked_example(void) {
    const float x0[8] = {1, 2, 3, 4, 5, 6, 7, 8}, c0[2] = {0, 1}, s0[2] = {1, 0};
    float *x = pt_copy(x0, 8), *c = pt_copy(c0, 2), *s = pt_copy(s0, 2);
    rope_apply(x, c, s, 1, 1, 8, 4);
    pt_out_floats("x", x, 8);
}

/* 5 tokens (positions 0, 1, 7, 1000, 262143, the tables of inputs.h) × heads × 256,
 * drawn with pt_fill(seed, scale) */
static void rotate(int heads, uint32_t seed, float scale) {
    size_t n = (size_t)5 * heads * HD;
    float *x = pt_floats(n), *c = pt_copy(table_cos, 5 * HALF), *s = pt_copy(table_sin, 5 * HALF);
    pt_fill(x, n, seed, scale);
    rope_apply(x, c, s, 5, heads, HD, ROT);
    pt_out_floats("x", x, n);
}

static void real_q(void) { rotate(8, 71, 1.0f); }
static void real_k(void) { rotate(2, 72, 1.0f); }
static void pass_through(void) { rotate(8, 71, 1.0f); }
static void lengths_kept(void) { rotate(2, 73, 3.0f); }

/* cos/sin rows for the given positions, in double as exercise 251 computes them. */
static void rows(const long *pos, int n, float *c, float *s) {
    for (int k = 0; k < n; k++)
        for (int i = 0; i < HALF; i++) {
            double a = (double)pos[k] * pow(1e7, -2.0 * i / ROT);
            c[k * HALF + i] = (float)cos(a);
            s[k * HALF + i] = (float)sin(a);
        }
}

static void relative_position(void) {
    /* q at position m, k at position n; then both moved by 1000 */
    const long pos[4] = {10, 3, 1010, 1003};
    float *c = pt_floats(4 * HALF), *s = pt_floats(4 * HALF), *v = pt_floats(4 * HD);
    rows(pos, 4, c, s);
    pt_fill(v, HD, 74, 1.0f);
    pt_fill(v + HD, HD, 75, 1.0f);
    memcpy(v + 2 * HD, v, HD * sizeof *v);
    memcpy(v + 3 * HD, v + HD, HD * sizeof *v);
    rope_apply(v, c, s, 4, 1, HD, ROT); /* 4 "tokens" of one head: q@10, k@3, q@1010, k@1003 */
    pt_out_floats("v", v, 4 * HD);
}

PT_RUNNER({"worked_example", worked_example}, {"real_q", real_q}, {"real_k", real_k},
          {"pass_through", pass_through}, {"lengths_kept", lengths_kept},
          {"relative_position", relative_position})
