/* test_ch07_capacity.c — the numbers behind part 4 of ch07_toy, before rounding.
 *
 * The book prints whole percentages; these are the raw mean errors PyTorch
 * computes, from docs/torch_rng.md §6 (seed 0) and from reference/ch07_toy_raw.py
 * (seeds 0, 1, 42, written to tests/data/ch07_toy_raw.txt). The demo's source is
 * included so its own experiment functions are what is tested.
 *
 * Tolerance 1e-5 relative: the keys and values are PyTorch's bit for bit, but
 * the float32 sums run in another order than PyTorch's BLAS, which moves the
 * errors by a few 1e-7 relative (the delta rule with unit keys does not amplify
 * such differences over 1024 writes).
 */
#include <check.h>

#define main ch07_toy_main
#include "../ch07_toy.c"
#undef main

#include "tests/compare.h"
#include "tests/check_main.h"

#define RTOL 1e-5

static void check_run(const char *what, const Capacity *got, const double want[4]) {
    const float g[4] = {(float)got->plain, (float)got->delta, (float)got->last, (float)got->first};
    const float w[4] = {(float)want[0], (float)want[1], (float)want[2], (float)want[3]};
    ck_assert_msg(compare_f32(what, "plain, delta, last 16, first 16", g, w, 4, 0, RTOL, NULL), "%s", what);
}

/* docs/torch_rng.md §6, the raw values behind the book's lines, for both variants of randn. */
START_TEST(spec_raw_values) {
    static const double want256[4] = {1.4344056, 0.99674886, 0.31286868, 1.3057969};
    static const double want1024[4] = {2.8296275, 1.3100735, 0.33184487, 1.4516326};
    for (int v = 0; v < 2; v++) {
        RngVariant variant = v ? RNG_LIBM : RNG_X86;
        Capacity result[1 + N_RANDOM];
        capacity_experiment(0, variant, result, NULL);
        char name[64];
        snprintf(name, sizeof name, "seed 0, 256 keys (%s)", rng_variant_name(variant));
        check_run(name, &result[1], want256);
        snprintf(name, sizeof name, "seed 0, 1024 keys (%s)", rng_variant_name(variant));
        check_run(name, &result[2], want1024);
        /* orthogonal keys read back to float rounding: the book's "0%" (PyTorch: 5.8e-7) */
        ck_assert_double_lt(result[0].plain, 1e-5);
        ck_assert_double_lt(result[0].delta, 1e-5);
    }
}
END_TEST

/* Every line of ch07_toy_raw.txt: other seeds must match PyTorch too (--seed N). */
START_TEST(pytorch_raw_values_for_several_seeds) {
    Error err;
    char *text = read_file("ch07_deltanet/tests/data/ch07_toy_raw.txt", NULL, &err);
    ck_assert_msg(text, "%s", err.msg);
    int lines = 0;
    uint64_t done_seed = UINT64_MAX;
    Capacity result[1 + N_RANDOM];
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#') continue;
        unsigned long long seed;
        int n;
        double want[4];
        ck_assert_int_eq(
            sscanf(line, "%llu %d %lf %lf %lf %lf", &seed, &n, &want[0], &want[1], &want[2], &want[3]), 6);
        if (seed != done_seed) capacity_experiment(seed, RNG_X86, result, NULL), done_seed = seed;
        char name[64];
        snprintf(name, sizeof name, "seed %llu, %d keys", seed, n);
        if (n == DK) { /* orthogonal keys: both are rounding noise, far below 1e-5 */
            ck_assert_double_lt(result[0].plain, 1e-5);
            ck_assert_double_lt(result[0].delta, 1e-5);
            ck_assert_double_lt(want[0], 1e-5);
        } else {
            int i = n == random_sizes[0] ? 1 : n == random_sizes[1] ? 2 : -1;
            ck_assert_msg(i > 0, "unexpected n %d", n);
            check_run(name, &result[i], want);
        }
        lines++;
    }
    free(text);
    ck_assert_int_ge(lines, 9);
}
END_TEST

/* The figures' curve measures the first n pairs of the 1024-key run while they
 * are being written: each point must equal a fresh fill() of those n pairs, and
 * the last point the printed 1024-key numbers. */
START_TEST(trace_is_the_same_experiment) {
    double plain_at[CURVE_POINTS], delta_at[CURVE_POINTS];
    float *plain_pair = xmalloc(1024 * sizeof *plain_pair), *delta_pair = xmalloc(1024 * sizeof *delta_pair);
    CapacityTrace trace = {curve_at, CURVE_POINTS, plain_at, delta_at, plain_pair, delta_pair};
    Capacity result[1 + N_RANDOM];
    capacity_experiment(0, RNG_X86, result, &trace);
    ck_assert_double_eq(plain_at[CURVE_POINTS - 1], result[2].plain);
    ck_assert_double_eq(delta_at[CURVE_POINTS - 1], result[2].delta);

    /* the same draws again, up to the 1024-key pairs */
    TorchRng g;
    rng_init(&g, 0);
    float *K = xmalloc(1024 * DK * sizeof *K), *V = xmalloc(1024 * DK * sizeof *V); /* [1024, 128] */
    rng_randn(&g, DK * DK, K);
    rng_randn(&g, DK * DK, K);
    random_pairs(&g, 256, K, V);
    random_pairs(&g, 1024, K, V);
    for (int i = 0; i < CURVE_POINTS; i += 4) {
        Capacity c = fill(K, V, curve_at[i], NULL);
        ck_assert_double_eq(c.plain, plain_at[i]);
        ck_assert_double_eq(c.delta, delta_at[i]);
    }
    double sum = 0;
    for (int t = 0; t < 1024; t++) sum += delta_pair[t];
    ck_assert_double_eq_tol(sum / 1024, result[2].delta, 1e-12);
    /* recent writes are remembered better: the part-4 claim the position figure shows */
    ck_assert_double_lt(result[2].last, 0.5 * result[2].first);
    free(K), free(V), free(plain_pair), free(delta_pair);
}
END_TEST

int main(void) {
    Suite *s = suite_create("ch07_capacity");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120); /* the sanitizer build is ~20x slower */
    tcase_add_test(tc, spec_raw_values);
    tcase_add_test(tc, pytorch_raw_values_for_several_seeds);
    tcase_add_test(tc, trace_is_the_same_experiment);
    suite_add_tcase(s, tc);
    return run_suite(s, CK_FORK_GETENV);
}
