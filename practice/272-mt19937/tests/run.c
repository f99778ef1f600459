/* Exercise 272 (MT19937), the runner: each case seeds the engine, draws, and hands
 * the numbers back (a float64 as its 64 bits). The checker (check.c) holds what they
 * should be. */
#include <string.h>

#include "ptest_run.h"
#include "mt19937.h"

static Mt19937 *engine(void) { return pt_bytes(sizeof(Mt19937)); }

static uint64_t bits_of(double d) {
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

/* The first n numbers after mt_seed(seed), under name. */
static void draws(const char *name, uint32_t seed, size_t n) {
    Mt19937 *g = engine();
    mt_seed(g, seed);
    uint32_t *got = pt_bytes(n * sizeof *got);
    for (size_t i = 0; i < n; i++) got[i] = mt_next(g);
    pt_out_u32s(name, got, n);
}

static void worked_example(void) {
    draws("mt_next", 0, 2);
    Mt19937 *g = engine();
    mt_seed(g, 0);
    float u = mt_uniform_f32(g);
    pt_out_floats("mt_uniform_f32", &u, 1);
    mt_seed(g, 0);
    pt_out_u64("mt_uniform_f64_bits", bits_of(mt_uniform_f64(g)));
}

static void thousand_draws(void) { draws("mt_next", 0, 1300); }

static void other_seeds(void) {
    draws("seed_1", 1, 5);
    draws("seed_42", 42, 5);
    draws("seed_4294967295", 4294967295u, 5);
}

static void cpp_standard(void) {
    Mt19937 *g = engine();
    mt_seed(g, 5489);
    uint32_t x = 0;
    for (int i = 0; i < 10000; i++) x = mt_next(g);
    pt_out_u64("draw_10000", x);
}

static void uniform_f32(void) {
    Mt19937 *g = engine();
    mt_seed(g, 0);
    float *got = pt_floats(700);
    for (int i = 0; i < 700; i++) got[i] = mt_uniform_f32(g);
    pt_out_floats("mt_uniform_f32", got, 700);
}

/* 400 float64s, each as two uint32s: the low half of its bits, then the high half */
static void uniform_f64(void) {
    Mt19937 *g = engine();
    mt_seed(g, 0);
    uint32_t *halves = pt_bytes(800 * sizeof *halves);
    for (int i = 0; i < 400; i++) {
        uint64_t bits = bits_of(mt_uniform_f64(g));
        halves[2 * i] = (uint32_t)bits;
        halves[2 * i + 1] = (uint32_t)(bits >> 32);
    }
    pt_out_u32s("mt_uniform_f64_halves", halves, 800);
}

static void reseed(void) {
    Mt19937 *g = engine();
    mt_seed(g, 0);
    for (int i = 0; i < 5; i++) mt_next(g);
    mt_seed(g, 0);
    pt_out_u64("first", mt_next(g));
}

PT_RUNNER({"worked_example", worked_example}, {"thousand_draws", thousand_draws},
          {"other_seeds", other_seeds}, {"cpp_standard", cpp_standard}, {"uniform_f32", uniform_f32},
          {"uniform_f64", uniform_f64}, {"reseed", reseed})
