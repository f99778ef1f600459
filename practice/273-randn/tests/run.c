/* Exercise 273 (torch.randn), the runner: each case seeds the given engine
 * (engine.c), calls randn and hands back the numbers. The checker (check.c) holds
 * what they should be. */
#include "ptest_run.h"
#include "randn.h"

/* Seeds, then calls randn(sizes[0]), randn(sizes[1]), ... into one array, handed back
 * under name. */
static void sequence(const char *name, uint32_t seed, const int *sizes, int n_sizes) {
    TorchRng *g = pt_bytes(sizeof *g);
    rng_seed(g, seed);
    int total = 0;
    for (int i = 0; i < n_sizes; i++) total += sizes[i];
    float *out = pt_floats((size_t)total);
    for (int i = 0, at = 0; i < n_sizes; at += sizes[i++]) randn(g, sizes[i], out + at);
    pt_out_floats(name, out, (size_t)total);
}

static void worked_example(void) { sequence("randn", 0, (const int[]){4}, 1); }
static void block_16(void) { sequence("randn", 0, (const int[]){16}, 1); }

static void tail_20_33(void) {
    sequence("randn_20", 0, (const int[]){20}, 1);
    sequence("randn_33", 0, (const int[]){33}, 1);
}

static void cache_across_calls(void) { sequence("randn", 0, (const int[]){3, 3, 1}, 3); }
static void eights_not_sixteen(void) { sequence("randn", 0, (const int[]){8, 8, 16}, 3); }

static void book_k_v(void) {
    TorchRng *g = pt_bytes(sizeof *g);
    rng_seed(g, 0);
    float *k = pt_floats(128), *v = pt_floats(128);
    randn(g, 128, k);
    randn(g, 128, v);
    pt_out_floats("k", k, 128);
    pt_out_floats("v", v, 128);
}

static void big_table(void) {
    TorchRng *g = pt_bytes(sizeof *g);
    rng_seed(g, 0);
    float *x = pt_floats(128 * 128);
    randn(g, 128 * 128, x);
    pt_out_floats("randn", x, 128 * 128);
}

static void other_seed(void) { sequence("randn", 1234, (const int[]){5, 100}, 2); }

PT_RUNNER({"worked_example", worked_example}, {"block_16", block_16}, {"tail_20_33", tail_20_33},
          {"cache_across_calls", cache_across_calls}, {"eights_not_sixteen", eights_not_sixteen},
          {"book_k_v", book_k_v}, {"big_table", big_table}, {"other_seed", other_seed})
