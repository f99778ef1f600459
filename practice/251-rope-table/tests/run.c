/* Exercise 251 (RoPE table), the runner: each case's call, the tables handed back.
 * The checker (check.c) holds what they should be. */
#include "ptest_run.h"
#include "rope_table.h"

static void worked_example(void) {
    float *c = pt_floats(6), *s = pt_floats(6);
    rope_table(4, 100.0, 0, 3, c, s);
    pt_out_floats("cos", c, 6);
    pt_out_floats("sin", s, 6);
}

static void first_64(void) {
    float *c = pt_floats(64 * 32), *s = pt_floats(64 * 32);
    rope_table(64, 1e7, 0, 64, c, s);
    pt_out_floats("cos", c, 64 * 32);
    pt_out_floats("sin", s, 64 * 32);
}

static void far_positions(void) {
    float *c = pt_floats(5 * 32), *s = pt_floats(5 * 32);
    rope_table(64, 1e7, 200000, 1, c, s);
    rope_table(64, 1e7, 262140, 4, c + 32, s + 32);
    pt_out_floats("cos", c, 5 * 32);
    pt_out_floats("sin", s, 5 * 32);
}

static void position_zero(void) {
    float *c = pt_floats(32), *s = pt_floats(32);
    rope_table(64, 1e7, 0, 1, c, s);
    pt_out_floats("cos", c, 32);
    pt_out_floats("sin", s, 32);
}

PT_RUNNER({"worked_example", worked_example}, {"first_64", first_64}, {"far_positions", far_positions},
          {"position_zero", position_zero})
