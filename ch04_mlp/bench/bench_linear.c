/* bench_linear.c — how fast y = W x runs on the real Qwen3.5-0.8B shapes.
 *
 * Two regimes, two yardsticks:
 *   1 token    every weight is used once, so the layer can go no faster than memory
 *              delivers W. Each call reads a different copy of W (all copies together
 *              are far larger than the caches), as in a real forward pass where the 24
 *              layers' weights (~0.75 GB) stream through one after another. Figure:
 *              GB/s of weights read, next to the machine's read bandwidth measured in
 *              the same rounds (a STREAM-like sum over a 256 MB array).
 *   139 tokens every weight is used 139 times: the multiply-adds are the limit. Figure:
 *              GFLOP/s (2·out·in·T floating-point operations per call).
 * Plus 6 tokens (the book's short sentence), which sits in between.
 *
 * The weights are random BF16 numbers made here; speed does not depend on their values.
 * Every figure is a median over rounds; each round times every shape once, together
 * with the two yardsticks (workbook/machine.h: read bandwidth, and the multiply-add
 * peak: independent fused multiply-adds on all threads; best of 3 tries per round, as
 * STREAM does), so
 * that a burst of load from elsewhere on a shared machine spoils one round of
 * everything instead of everything about one shape.
 * The plain-C kernels and the reference loop are timed too, to show what each step buys.
 *
 *   make bench      or      ./build/ch04_mlp/bench/bench_linear [--quick]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/pool.h"
#include "qwen/linear.h"
#include "qwen/tensor.h"
#include "workbook/machine.h"
#include "workbook/util.h"

typedef struct {
    const char *name;
    int64_t out, in;
} Shape;

/* Every projection shape of the 0.8B model. */
static const Shape shapes[] = {
    {"attn q_proj", 4096, 1024},   {"attn k/v_proj", 512, 1024},    {"mlp gate/up_proj", 3584, 1024},
    {"mlp down_proj", 1024, 3584}, {"dn in_proj_qkv", 6144, 1024},  {"dn in_proj_z", 2048, 1024},
    {"dn in_proj_a/b", 16, 1024},  {"out_proj/o_proj", 1024, 2048},
};
/* One DeltaNet layer's projections (docs/math.md §6): in_proj_qkv, in_proj_z, in_proj_a,
 * in_proj_b, out_proj — indices into shapes[], a/b counted twice. */
static const int deltanet_layer[] = {4, 5, 6, 6, 7};

#define POOL_BYTES ((size_t)256 << 20) /* copies of W for the 1-token runs; >> 32 MB L3 */
#define LONG_T     139                 /* the book's long text */
#define SHORT_T    6                   /* the book's short sentence */

static int rounds = 15; /* repetitions behind each median */

/* Deterministic uniform numbers in [-a, a). */
static uint64_t rng = 0x853C49E6748FEA9Bull;
static float uniform(float a) {
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return a * (float)((double)((rng * 0x2545F4914F6CDD1Dull) >> 40) / (double)(1 << 23) - 1.0);
}

typedef void BatchFn(const float *x, const Tensor *w, int64_t T, float *y);

/* The weights: one 256 MB pool of random BF16 numbers. A matrix of shape s is any
 * window of out·in numbers in it; a call "from memory" takes the next window each
 * time, so by the time it comes back to a window that window has long left the caches. */
typedef struct {
    const uint16_t *pool;
    int64_t pool_n; /* numbers in the pool */
    int64_t next;   /* where the next window starts */
} Pool;

static Tensor window(Pool *p, const Shape *sh, bool from_memory) {
    int64_t n = sh->out * sh->in;
    if (!from_memory || p->next + n > p->pool_n) p->next = 0;
    Tensor w = {.name = sh->name,
                .dtype = DTYPE_BF16,
                .ndim = 2,
                .shape = {sh->out, sh->in},
                .numel = n,
                .data = p->pool + p->next};
    if (from_memory) p->next += n;
    return w;
}

/* Median seconds of `reps` calls of fn on shape sh, after one untimed call. */
static double time_calls(BatchFn *fn, Pool *p, const Shape *sh, bool from_memory, const float *x, int64_t T,
                         float *y, int reps) {
    double t[16];
    for (int r = -1; r < reps; r++) {
        Tensor w = window(p, sh, from_memory);
        double t0 = now_seconds();
        fn(x, &w, T, y);
        if (r >= 0) t[r] = now_seconds() - t0;
    }
    return median(t, reps);
}

#define N_SHAPES ((int)ARRAY_LEN(shapes))

/* The three token counts, and how each is timed. */
static const struct {
    int64_t T;
    bool from_memory; /* few tokens: W comes from memory in a real forward pass */
    int reps;         /* calls per round (their median is the round's figure) */
} regimes[] = {{1, true, 5}, {SHORT_T, true, 3}, {LONG_T, false, 1}};
#define N_REGIMES ((int)ARRAY_LEN(regimes))

int main(int argc, char **argv) {
    set_program_name(argv[0]);
    bool quick = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: %s [--quick]\n"
                   "  times the linear layer on the Qwen3.5-0.8B shapes for 1, 6 and 139 tokens\n"
                   "  --quick  5 rounds instead of 15, and no reference loop\n",
                   argv[0]);
            return 0;
        } else
            die("unknown option %s (try --help)", argv[i]);
    }
    if (quick) rounds = 5;
    int threads = pool_threads();
    printf("linear layer on the Qwen3.5-0.8B shapes: %s kernels, %d threads, BF16 weights, medians of %d "
           "rounds\n",
           linear_kernel_name(), threads, rounds);

    int64_t max_in = 0, max_out = 0;
    for (int s = 0; s < N_SHAPES; s++) {
        if (shapes[s].in > max_in) max_in = shapes[s].in;
        if (shapes[s].out > max_out) max_out = shapes[s].out;
    }
    float *x = xaligned_alloc((size_t)(LONG_T * max_in) * sizeof(float));  /* [139, in] */
    float *y = xaligned_alloc((size_t)(LONG_T * max_out) * sizeof(float)); /* [139, out] */
    for (int64_t i = 0; i < LONG_T * max_in; i++) x[i] = uniform(1.0f);
    int64_t pool_n = (int64_t)(POOL_BYTES / sizeof(uint16_t));
    uint16_t *pool_data = xaligned_alloc(POOL_BYTES);
    for (int64_t i = 0; i < pool_n; i++) pool_data[i] = f32_to_bf16(uniform(0.05f));
    Pool pool = {pool_data, pool_n, 0};
    /* the read bandwidth is measured on the very pool of weights the kernels read (the
     * same memory, so the same conditions) */
    const void *pool_region = pool_data;
    size_t pool_bytes = POOL_BYTES;

    /* seconds[kernel][regime][shape][round], kernel 0 = fast, 1 = portable */
    double *seconds = xmalloc((size_t)(2 * N_REGIMES * N_SHAPES * rounds) * sizeof *seconds);
#define SECONDS(k, g, s) (seconds + (((size_t)(k)*N_REGIMES + (size_t)(g)) * N_SHAPES + (size_t)(s)) * rounds)
    double *bw = xmalloc((size_t)rounds * sizeof *bw), *peak = xmalloc((size_t)rounds * sizeof *peak);
    for (int r = 0; r < rounds; r++) {
        /* The yardsticks are what the machine can do: the best of 3 tries in this round. */
        bw[r] = machine_read_bandwidth(&pool_region, &pool_bytes, 1, 3);
        peak[r] = machine_fma_peak(3);
        for (int g = 0; g < N_REGIMES; g++)
            for (int s = 0; s < N_SHAPES; s++)
                for (int k = 0; k < 2; k++) SECONDS(k, g, s)
        [r] = time_calls(k ? linear_batch_portable : linear_batch, &pool, &shapes[s], regimes[g].from_memory,
                         x, regimes[g].T, y, regimes[g].reps);
    }
    double bw_med = median(bw, rounds), peak_med = median(peak, rounds);
    double t_med[2][N_REGIMES][N_SHAPES];
    for (int k = 0; k < 2; k++)
        for (int g = 0; g < N_REGIMES; g++)
            for (int s = 0; s < N_SHAPES; s++) t_med[k][g][s] = median(SECONDS(k, g, s), rounds);

    /* The reference loop: far too slow for rounds; once per shape (1 token from memory,
     * and 139 tokens: it does the same work per output whatever T). */
    double t_ref[2][N_SHAPES] = {{0}};
    if (!quick)
        for (int s = 0; s < N_SHAPES; s++) {
            t_ref[0][s] = time_calls(linear_ref, &pool, &shapes[s], true, x, 1, y, 3);
            t_ref[1][s] = time_calls(linear_ref, &pool, &shapes[s], false, x, LONG_T, y, 1);
        }

    printf("memory read bandwidth (STREAM-like sum over the %zu MB of weights): %.1f GB/s\n",
           POOL_BYTES >> 20, bw_med);
    printf("float32 multiply-add peak (%s): %.1f GFLOP/s\n", machine_fma_kind(), peak_med);

    for (int g = 0; g < N_REGIMES; g++) {
        int64_t T = regimes[g].T;
        bool one = T == 1;
        printf("\n%lld token%s, W %s\n", (long long)T, one ? "" : "s",
               regimes[g].from_memory ? "read from memory (each call a different copy)"
                                      : "in cache (the cost is the arithmetic)");
        printf("%-18s %12s %7s %8s %8s %7s %9s %9s\n", "shape", "[out, in]", one ? "MB" : "GFLOP", "ms",
               one ? "GB/s" : "GFLOP/s",
               one           ? "of bw"
               : T == LONG_T ? "of peak"
                             : "",
               "portable", "ref");
        for (int s = 0; s < N_SHAPES; s++) {
            double n = (double)(shapes[s].out * shapes[s].in);
            double work = one ? n * 2 / 1e6 : 2.0 * n * (double)T / 1e9; /* MB or GFLOP */
            double fast = t_med[0][g][s], port = t_med[1][g][s];
            double rate = one ? work / 1e3 / fast : work / fast,
                   rate_port = one ? work / 1e3 / port : work / port;
            double ref = one ? t_ref[0][s] : T == LONG_T ? t_ref[1][s] : 0;
            char dims[32], ratio[16] = "", ref_str[16] = "-";
            snprintf(dims, sizeof dims, "[%lld, %lld]", (long long)shapes[s].out, (long long)shapes[s].in);
            if (one)
                snprintf(ratio, sizeof ratio, "%.0f%%", 100 * rate / bw_med);
            else if (T == LONG_T && peak_med > 0)
                snprintf(ratio, sizeof ratio, "%.0f%%", 100 * rate / peak_med);
            if (ref > 0) snprintf(ref_str, sizeof ref_str, "%.2f", one ? work / 1e3 / ref : work / ref);
            printf("%-18s %12s %7.3f %8.3f %8.1f %7s %9.1f %9s\n", shapes[s].name, dims, work, fast * 1e3,
                   rate, ratio, rate_port, ref_str);
        }
    }

    /* ---- one DeltaNet layer ---- */
    double mb = 0, gflop = 0, layer[2][N_REGIMES] = {{0}};
    for (unsigned i = 0; i < ARRAY_LEN(deltanet_layer); i++) {
        int s = deltanet_layer[i];
        mb += (double)(shapes[s].out * shapes[s].in) * 2 / 1e6;
        gflop += 2.0 * (double)(shapes[s].out * shapes[s].in) * LONG_T / 1e9;
        for (int k = 0; k < 2; k++)
            for (int g = 0; g < N_REGIMES; g++) layer[k][g] += t_med[k][g][s];
    }
    printf("\none DeltaNet layer's projections (in_proj_qkv, in_proj_z, in_proj_a, in_proj_b, out_proj):\n");
    printf("  1 token:    %.1f MB of BF16 weights in %.3f ms = %.1f GB/s, %.0f%% of the read bandwidth"
           "  (portable: %.3f ms)\n",
           mb, layer[0][0] * 1e3, mb / 1e3 / layer[0][0], 100 * mb / 1e3 / layer[0][0] / bw_med,
           layer[1][0] * 1e3);
    printf("  %d tokens:   %.3f ms  (portable: %.3f ms)\n", SHORT_T, layer[0][1] * 1e3, layer[1][1] * 1e3);
    printf("  %d tokens: %.2f GFLOP in %.2f ms = %.1f GFLOP/s  (portable: %.2f ms)\n", LONG_T, gflop,
           layer[0][2] * 1e3, gflop / layer[0][2], layer[1][2] * 1e3);
    free(x), free(y), free(pool_data), free(seconds), free(bw), free(peak);
    return 0;
}
