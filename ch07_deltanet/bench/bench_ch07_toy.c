/* bench_ch07_toy.c — how long ch07_toy's work takes, without gnuplot and process start.
 *
 * Prints the median of several runs of: part 4 (the capacity experiment: three
 * fills of a 128 x 128 table, 1408 writes, every pair read back), the same with
 * the figures' extra measurements, and PyTorch-compatible randn in both variants.
 */
#define main ch07_toy_main
#include "../ch07_toy.c"
#undef main

#include "workbook/machine.h"

#define RUNS 11

int main(void) {
    double t[RUNS];
    Capacity result[1 + N_RANDOM];

    for (int r = 0; r < RUNS; r++) {
        double start = now_seconds();
        capacity_experiment(0, RNG_X86, result, NULL);
        t[r] = now_seconds() - start;
    }
    double part4 = median(t, RUNS);
    printf("part 4, printed numbers only:      %7.2f ms (median of %d)\n", 1e3 * part4, RUNS);

    double plain_at[CURVE_POINTS], delta_at[CURVE_POINTS];
    float *plain_pair = xmalloc(1024 * sizeof *plain_pair), *delta_pair = xmalloc(1024 * sizeof *delta_pair);
    CapacityTrace trace = {curve_at, CURVE_POINTS, plain_at, delta_at, plain_pair, delta_pair};
    for (int r = 0; r < RUNS; r++) {
        double start = now_seconds();
        capacity_experiment(0, RNG_X86, result, &trace);
        t[r] = now_seconds() - start;
    }
    double traced = median(t, RUNS);
    printf("part 4 with the figures' curves:   %7.2f ms (%.2fx)\n", 1e3 * traced, traced / part4);
    free(plain_pair), free(delta_pair);

    enum { N = 1 << 20 };
    float *x = xmalloc(N * sizeof *x); /* [N] */
    double rate[2];
    for (int v = 0; v < 2; v++) {
        TorchRng g;
        rng_init(&g, 0);
        g.variant = v ? RNG_LIBM : RNG_X86;
        for (int r = 0; r < RUNS; r++) {
            double start = now_seconds();
            rng_randn(&g, N, x);
            t[r] = now_seconds() - start;
        }
        rate[v] = N / median(t, RUNS) / 1e6;
        printf("randn, %-4s variant:               %7.1f M values/s\n", rng_variant_name(g.variant), rate[v]);
    }
    printf("x86 / libm speed:                  %7.2fx\n", rate[0] / rate[1]);
    free(x);
    return 0;
}
