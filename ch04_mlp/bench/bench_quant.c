/* bench_quant.c — how fast the 8-bit linear layer runs on the real Qwen3.5-0.8B shapes,
 * beside the BF16 one (bench_linear.c) and the machine's own limits.
 *
 * Two regimes, two yardsticks (workbook/machine.h), measured in the same rounds:
 *   1 token    every weight is read once, so the figure is GB/s of weight bytes (34 per
 *              32 weights: the integers and the fp16 scales) against the read bandwidth,
 *              measured on the very memory the weights live in. Each call reads another
 *              copy of W, so W comes from memory, as in a forward pass.
 *   T tokens   T = 139 (the book's long text) and 512: GOP/s (2·out·in·T operations per
 *              call) against the float32 multiply-add peak, and against the peak of the
 *              int8 dot-product instruction the kernel uses (workbook/machine.h's
 *              machine_int8_peak: 64 multiply-adds per instruction, so 4× the float32
 *              peak where it runs at the same rate).
 * The 8-bit layer is timed with both ranges of activations (quant.h: Q8_ACT8, int8;
 * Q8_ACT16, two bytes), each figure including the quantization of the activations
 * (q8_project), as a layer pays for it. The BF16 kernels (linear, linear_batch) are
 * timed on the same shapes.
 *
 * Weights are random bytes: speed does not depend on values.
 * Each figure is a median over rounds; each round times every shape once, so a burst of
 * load from elsewhere spoils one round of everything rather than one shape. On a shared
 * machine the read bandwidth itself moves from round to round, so a kernel's share of
 * it can come out a little above 100%.
 *
 * At the end, the projections of a whole token (18 DeltaNet layers, 6 attention layers,
 * 24 MLPs and the output head) are added up: the time the matrix products alone need,
 * which bounds the model's speed from above; and a table of what each variant of the
 * format costs in accuracy (--accuracy prints only that), behind the choices quant.h
 * makes.
 *
 *   make bench      or      ./build/ch04_mlp/bench/bench_quant [--quick | --accuracy]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "kernels/pool.h"
#include "qwen/linear.h"
#include "qwen/quant.h"
#include "qwen/tensor.h"
#include "workbook/machine.h"
#include "workbook/util.h"

typedef struct {
    const char *name;
    int64_t out, in;
    int per_token; /* how many of these one token's forward pass multiplies by */
} Shape;

/* Every projection shape of the 0.8B model, and how often a token meets it: 18 DeltaNet
 * layers (in_proj_qkv, in_proj_z, in_proj_a and in_proj_b, out_proj), 6 attention layers
 * (q_proj, k_proj and v_proj, o_proj), 24 MLPs (gate and up, down), and the output head. */
static const Shape shapes[] = {
    {"attn q_proj", 4096, 1024, 6},       {"attn k/v_proj", 512, 1024, 12},
    {"mlp gate/up_proj", 3584, 1024, 48}, {"mlp down_proj", 1024, 3584, 24},
    {"dn in_proj_qkv", 6144, 1024, 18},   {"dn in_proj_z", 2048, 1024, 18},
    {"dn in_proj_a/b", 16, 1024, 36},     {"dn out_proj", 1024, 2048, 18},
    {"attn o_proj", 1024, 2048, 6},       {"lm head", 248320, 1024, 1},
};
#define N_SHAPES ((int)ARRAY_LEN(shapes))

static const int64_t long_T[] = {139, 512};
#define N_LONG ((int)ARRAY_LEN(long_T))

#define Q8_POOL ((size_t)320 << 20) /* 8-bit integers: the head's 254 MB fits, >> 32 MB L3 */
#define BF_POOL ((size_t)560 << 20) /* BF16: the head's 509 MB fits */

static int rounds = 9;

static uint64_t rng = 0x853C49E6748FEA9Bull;
static uint64_t next_u64(void) {
    rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1Dull;
}
static float uniform(float a) { return a * (float)((double)(next_u64() >> 40) / (double)(1 << 23) - 1.0); }

/* The packed weights of every call are a window of the pools: the next window each
 * time, so a window comes back only after the others have pushed it out of the caches. */
typedef struct {
    uint8_t *quants;
    size_t quant_bytes, next_quant;
    uint16_t *bf16;
    size_t bf16_n, next_bf16;
} Pools;

static Q8Weights q8_window(Pools *p, const Shape *sh, bool from_memory) {
    Q8Weights w = q8_packed_shape(sh->out, sh->in);
    size_t bytes = (size_t)(w.blocks * q8_block_bytes(&w));
    if (!from_memory || p->next_quant + bytes > p->quant_bytes) p->next_quant = 0;
    w.data = p->quants + p->next_quant;
    if (from_memory) p->next_quant += bytes;
    return w;
}

static Tensor bf16_window(Pools *p, const Shape *sh, bool from_memory) {
    size_t n = (size_t)(sh->out * sh->in);
    if (!from_memory || p->next_bf16 + n > p->bf16_n) p->next_bf16 = 0;
    Tensor w = {.name = sh->name,
                .dtype = DTYPE_BF16,
                .ndim = 2,
                .shape = {sh->out, sh->in},
                .numel = (int64_t)n,
                .data = p->bf16 + p->next_bf16};
    if (from_memory) p->next_bf16 += n;
    return w;
}

/* Median seconds of `reps` calls (after one untimed call) of the 8-bit layer or of the
 * BF16 one, on T tokens. */
static double time_q8(Pools *p, const Shape *sh, bool from_memory, const float *x, int64_t T, float *y,
                      Q8Act *a, int reps) {
    double t[16];
    for (int r = -1; r < reps; r++) {
        Q8Weights w = q8_window(p, sh, from_memory);
        double t0 = now_seconds();
        q8_project(x, &w, T, a, y);
        if (r >= 0) t[r] = now_seconds() - t0;
    }
    return median(t, reps);
}

static double time_bf16(Pools *p, const Shape *sh, bool from_memory, const float *x, int64_t T, float *y,
                        int reps) {
    double t[16];
    for (int r = -1; r < reps; r++) {
        Tensor w = bf16_window(p, sh, from_memory);
        double t0 = now_seconds();
        if (T == 1)
            linear(x, &w, y);
        else
            linear_batch(x, &w, T, y);
        if (r >= 0) t[r] = now_seconds() - t0;
    }
    return median(t, reps);
}

/* ---- what the format costs in accuracy -------------------------------------------------
 * The choices behind the format, measured on a random layer: W [256, 1024] of normal
 * numbers (std 0.02, 1% of them 6 times larger, rounded to BF16 like a checkpoint's) and
 * 16 tokens of normal activations with every 97th channel 8 times larger (real
 * activations have such channels). Figure: |Y − Y_exact| / |Y_exact| over all outputs,
 * Y_exact in float64 from the unquantized numbers. Each variant is the numbers it
 * would multiply (scale · q), summed in float64, so only the format differs. */
#include <math.h>

/* v [n] -> the numbers group quantization of `group` stands for. scale16: the scale is
 * stored as fp16; qmax: the largest |q|; llama: q from the unrounded scale and rounded half away from zero
 * (llama.cpp's Q8_0), else q from the stored scale, ties to even (this format). */
static void fake_quant(const float *v, int64_t n, int group, int qmax, bool scale16, bool llama, float *out) {
    for (int64_t g = 0; g < n; g += group) {
        int len = n - g < group ? (int)(n - g) : group;
        float max = 0;
        for (int i = 0; i < len; i++) max = fmaxf(max, fabsf(v[g + i]));
        float d = max / (float)qmax, stored = scale16 ? f16_to_f32(f32_to_f16(d)) : d;
        float s = llama ? d : stored;
        for (int i = 0; i < len; i++) {
            float q = s == 0 ? 0 : llama ? roundf(v[g + i] / s) : rintf(v[g + i] / s);
            out[g + i] = stored * q;
        }
    }
}

static float normal(void) { /* Box–Muller */
    double u1 = ((double)(next_u64() >> 11) + 1) / 9007199254740993.0,
           u2 = (double)(next_u64() >> 11) / 9007199254740992.0;
    return (float)(sqrt(-2 * log(u1)) * cos(2 * M_PI * u2));
}

static void accuracy(void) {
    enum { OUT = 256, IN = 1024, T = 16 };
    rng = 0x853C49E6748FEA9Bull; /* the same numbers whatever ran before */
    float *w = xmalloc(OUT * IN * sizeof *w), *x = xmalloc(T * IN * sizeof *x);
    float *wq = xmalloc(OUT * IN * sizeof *wq), *xq = xmalloc(T * IN * sizeof *xq);
    double *exact = xmalloc(T * OUT * sizeof *exact);
    for (int i = 0; i < OUT * IN; i++) {
        float v = 0.02f * normal() * (next_u64() % 100 == 0 ? 6 : 1);
        w[i] = bf16_to_f32(f32_to_bf16(v));
    }
    for (int i = 0; i < T * IN; i++) x[i] = normal() * (i % IN % 97 == 0 ? 8 : 1);
    double norm = 0;
    for (int t = 0; t < T; t++)
        for (int o = 0; o < OUT; o++) {
            double sum = 0;
            for (int i = 0; i < IN; i++) sum += (double)w[o * IN + i] * x[t * IN + i];
            exact[t * OUT + o] = sum, norm += sum * sum;
        }
    const struct {
        const char *name;
        int group, xmax; /* xmax: the activations' largest |a|; 0: they stay float32 */
        bool w16, x16;   /* scales stored as fp16 */
        bool llama;      /* llama.cpp's rounding */
    } v[] = {
        {"Q8_ACT8: groups of 32, fp16 weight scales, int8 activations (float32 scales)", 32, 127, true, false,
         false},
        {"llama.cpp Q8_0 x Q8_0: the same groups, fp16 scales for both, half away from 0", 32, 127, true,
         true, true},
        {"Q8_ACT16: the same weights, activations as two bytes (|a| <= 32385)", 32, 32385, true, false,
         false},
        {"weights only (activations stay float32)", 32, 0, true, false, false},
        {"Q8_ACT8 with groups of 64", 64, 127, true, false, false},
        {"Q8_ACT8 with groups of 128", 128, 127, true, false, false},
        {"Q8_ACT8 with float32 weight scales", 32, 127, false, false, false},
    };
    printf("\naccuracy on a random layer [256, 1024], 16 tokens: |Y − Y_exact| / |Y_exact|\n");
    for (unsigned k = 0; k < ARRAY_LEN(v); k++) {
        for (int o = 0; o < OUT; o++)
            fake_quant(w + o * IN, IN, v[k].group, 127, v[k].w16, v[k].llama, wq + o * IN);
        for (int t = 0; t < T; t++)
            if (v[k].xmax)
                fake_quant(x + t * IN, IN, v[k].group, v[k].xmax, v[k].x16, v[k].llama, xq + t * IN);
            else
                memcpy(xq + t * IN, x + t * IN, IN * sizeof *xq);
        double err = 0;
        for (int t = 0; t < T; t++)
            for (int o = 0; o < OUT; o++) {
                double sum = 0;
                for (int i = 0; i < IN; i++) sum += (double)wq[o * IN + i] * xq[t * IN + i];
                err += (sum - exact[t * OUT + o]) * (sum - exact[t * OUT + o]);
            }
        printf("  %-82s %.3e\n", v[k].name, sqrt(err / norm));
    }
    free(w), free(x), free(wq), free(xq), free(exact);
}

int main(int argc, char **argv) {
    set_program_name(argv[0]);
    bool quick = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--accuracy") == 0) {
            accuracy();
            return 0;
        } else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: %s [--quick | --accuracy]\n"
                   "  times the 8-bit and the BF16 linear layer on the Qwen3.5-0.8B shapes\n"
                   "  for 1, 139 and 512 tokens\n"
                   "  --quick     3 rounds instead of 9\n"
                   "  --accuracy  only the table of what each variant of the format costs in accuracy\n",
                   argv[0]);
            return 0;
        } else
            die("unknown option %s (try --help)", argv[i]);
    }
    if (quick) rounds = 3;
    int threads = pool_threads();
    printf("8-bit linear layer (groups of 32, int8 + fp16 scale) on the Qwen3.5-0.8B shapes, activations as "
           "int8 (Q8_ACT8)\nor as two bytes (Q8_ACT16): %s kernels, %d workers, medians of %d rounds; BF16 "
           "beside "
           "it (%s)\n",
           q8_kernel_name(q8_best_kernel), threads, rounds, linear_kernel_name());

    int64_t max_in = 0, max_out = 0;
    for (int s = 0; s < N_SHAPES; s++) {
        if (shapes[s].in > max_in) max_in = shapes[s].in;
        if (shapes[s].out > max_out && shapes[s].out < 100000) max_out = shapes[s].out;
    }
    int64_t T_max = long_T[N_LONG - 1];
    float *x = xaligned_alloc((size_t)(T_max * max_in) * sizeof(float));
    int64_t y_n =
        T_max * max_out > 248320 ? T_max * max_out : 248320; /* [T, out], or the head's [1, 248320] */
    float *y = xaligned_alloc((size_t)y_n * sizeof(float));
    for (int64_t i = 0; i < T_max * max_in; i++) x[i] = uniform(1.0f);
    Q8Act act[2];
    q8_act_init(&act[0], T_max, max_in, Q8_ACT8);
    q8_act_init(&act[1], T_max, max_in, Q8_ACT16);

    Pools pools = {0};
    pools.quant_bytes = Q8_POOL;
    pools.quants = xaligned_alloc(Q8_POOL);
#ifdef MADV_HUGEPAGE
    { /* 2 MB pages where the system has them, as q8_pack() asks for its weights */
        uintptr_t huge = (uintptr_t)2 << 20, first = ((uintptr_t)pools.quants + huge - 1) & ~(huge - 1);
        madvise((void *)first, (((uintptr_t)pools.quants + Q8_POOL) & ~(huge - 1)) - first, MADV_HUGEPAGE);
    }
#endif
    /* Bytes 0x10 .. 0x3B: read as integers, q + 128 (any value does); read two at a time
     * as an fp16 scale, a normal number from 2^-11 to 0.9 (no denormals, no NaN). */
    for (size_t i = 0; i < Q8_POOL; i++) pools.quants[i] = (uint8_t)(0x10 + next_u64() % 44);
    pools.bf16_n = BF_POOL / sizeof(uint16_t);
    pools.bf16 = xaligned_alloc(BF_POOL);
    for (size_t i = 0; i < pools.bf16_n; i++) pools.bf16[i] = f32_to_bf16(uniform(0.05f));
    const void *region = pools.quants;
    size_t region_bytes = Q8_POOL;

    /* seconds[k][g][s][round]: k = 0 8-bit Q8_ACT8, 1 8-bit Q8_ACT16, 2 BF16; g = 0 one
     * token, 1.. the long T */
    enum { N_REG = 1 + N_LONG, N_K = 3 };
    double *seconds = xmalloc((size_t)(N_K * N_REG * N_SHAPES * rounds) * sizeof *seconds);
#define SECONDS(k, g, s) (seconds + (((size_t)(k)*N_REG + (size_t)(g)) * N_SHAPES + (size_t)(s)) * rounds)
    double *bw = xmalloc((size_t)rounds * sizeof *bw), *peak = xmalloc((size_t)rounds * sizeof *peak),
           *ipeak = xmalloc((size_t)rounds * sizeof *ipeak);
    for (int r = 0; r < rounds; r++) {
        bw[r] = machine_read_bandwidth(&region, &region_bytes, 1, 3);
        peak[r] = machine_fma_peak(3);
        ipeak[r] = machine_int8_peak(3);
        for (int s = 0; s < N_SHAPES; s++) {
            bool head = shapes[s].out > 100000;
            int reps = head ? 3 : 7;
            for (int k = 0; k < 2; k++)
                SECONDS(k, 0, s)[r] = time_q8(&pools, &shapes[s], true, x, 1, y, &act[k], reps);
            SECONDS(2, 0, s)[r] = time_bf16(&pools, &shapes[s], true, x, 1, y, reps);
            for (int g = 0; g < N_LONG; g++) {
                /* the head multiplies only the last token in a forward pass: 1 token */
                for (int k = 0; k < N_K; k++) SECONDS(k, 1 + g, s)
                [r] = head     ? 0
                      : k == 2 ? time_bf16(&pools, &shapes[s], false, x, long_T[g], y, 1)
                               : time_q8(&pools, &shapes[s], false, x, long_T[g], y, &act[k], 1);
            }
        }
    }
    double bw_med = median(bw, rounds), peak_med = median(peak, rounds), ipeak_med = median(ipeak, rounds);
    double t_med[N_K][N_REG][N_SHAPES];
    for (int k = 0; k < N_K; k++)
        for (int g = 0; g < N_REG; g++)
            for (int s = 0; s < N_SHAPES; s++) t_med[k][g][s] = median(SECONDS(k, g, s), rounds);

    printf("memory read bandwidth (STREAM-like sum over the %zu MB of 8-bit weights): %.1f GB/s\n",
           Q8_POOL >> 20, bw_med);
    printf("float32 multiply-add peak (%s): %.1f GFLOP/s\n", machine_fma_kind(), peak_med);
    if (ipeak_med > 0) printf("int8 dot-product peak (vpdpbusd loop): %.1f GOP/s\n", ipeak_med);

    printf("\n1 token, W read from memory (each call a different copy); 8-bit: 34 bytes per 32 weights\n");
    printf("%-17s %14s %8s | %7s %6s %6s | %7s %6s | %7s %6s %6s | %5s\n", "", "", "8-bit", "Q8_ACT8", "", "",
           "ACT16", "", "BF16", "", "", "BF16/");
    printf("%-17s %14s %8s | %7s %6s %6s | %7s %6s | %7s %6s %6s | %5s\n", "shape", "[out, in]", "MB", "ms",
           "GB/s", "of bw", "ms", "of bw", "ms", "GB/s", "of bw", "ACT8");
    for (int s = 0; s < N_SHAPES; s++) {
        double n = (double)(shapes[s].out * shapes[s].in);
        double mb8 = n * 34 / 32 / 1e6, mb16 = n * 2 / 1e6;
        double t8 = t_med[0][0][s], t8b = t_med[1][0][s], t16 = t_med[2][0][s];
        char dims[32];
        snprintf(dims, sizeof dims, "[%lld, %lld]", (long long)shapes[s].out, (long long)shapes[s].in);
        printf("%-17s %14s %8.3f | %7.3f %6.1f %5.0f%% | %7.3f %5.0f%% | %7.3f %6.1f %5.0f%% | %4.2fx\n",
               shapes[s].name, dims, mb8, t8 * 1e3, mb8 / 1e3 / t8, 100 * mb8 / 1e3 / t8 / bw_med, t8b * 1e3,
               100 * mb8 / 1e3 / t8b / bw_med, t16 * 1e3, mb16 / 1e3 / t16, 100 * mb16 / 1e3 / t16 / bw_med,
               t16 / t8);
    }

    for (int g = 0; g < N_LONG; g++) {
        int64_t T = long_T[g];
        printf("\n%lld tokens, W in cache (the cost is the arithmetic); %% of the float32 peak%s\n",
               (long long)T, ipeak_med > 0 ? " and of the int8 peak" : "");
        printf("%-17s %14s %7s | %7s %6s %5s %5s | %7s %6s %5s | %7s %6s %5s | %5s %5s\n", "", "", "",
               "Q8_ACT8", "", "", "", "ACT16", "", "", "BF16", "", "", "BF16/", "BF16/");
        printf("%-17s %14s %7s | %7s %6s %5s %5s | %7s %6s %5s | %7s %6s %5s | %5s %5s\n", "shape",
               "[out, in]", "GOP", "ms", "GOP/s", "fp32", "int8", "ms", "GOP/s", "int8", "ms", "GFLOP/s",
               "fp32", "ACT8", "ACT16");
        for (int s = 0; s < N_SHAPES; s++) {
            if (shapes[s].out > 100000) continue;
            double gop = 2.0 * (double)(shapes[s].out * shapes[s].in) * (double)T / 1e9;
            double t8 = t_med[0][1 + g][s], t8b = t_med[1][1 + g][s], t16 = t_med[2][1 + g][s];
            char dims[32], i8[8] = "-", i16[8] = "-"; /* no int8 peak where the compiler targets no VNNI */
            snprintf(dims, sizeof dims, "[%lld, %lld]", (long long)shapes[s].out, (long long)shapes[s].in);
            if (ipeak_med > 0) {
                snprintf(i8, sizeof i8, "%.0f%%", 100 * gop / t8 / ipeak_med);
                snprintf(i16, sizeof i16, "%.0f%%", 100 * gop / t8b / ipeak_med);
            }
            printf("%-17s %14s %7.3f | %7.3f %6.1f %4.0f%% %5s | %7.3f %6.1f %5s | %7.3f %6.1f %4.0f%% | "
                   "%4.2fx %4.2fx\n",
                   shapes[s].name, dims, gop, t8 * 1e3, gop / t8, 100 * gop / t8 / peak_med, i8, t8b * 1e3,
                   gop / t8b, i16, t16 * 1e3, gop / t16, 100 * gop / t16 / peak_med, t16 / t8, t16 / t8b);
        }
    }

    /* ---- one token's projections, and a 139-token prompt's ---- */
    double bytes8 = 0, bytes16 = 0, dec[N_K] = {0}, pre[N_K] = {0};
    for (int s = 0; s < N_SHAPES; s++) {
        double n = (double)(shapes[s].out * shapes[s].in) * shapes[s].per_token;
        bytes8 += n * 34 / 32, bytes16 += n * 2;
        for (int k = 0; k < N_K; k++) {
            dec[k] += t_med[k][0][s] * shapes[s].per_token;
            /* a prompt: every layer on all 139 tokens, the head on the last one only */
            pre[k] += shapes[s].out > 100000 ? t_med[k][0][s] : t_med[k][1][s] * shapes[s].per_token;
        }
    }
    const char *names[N_K] = {"8-bit Q8_ACT8 ", "8-bit Q8_ACT16", "BF16          "};
    printf("\nall the projections of one token (24 layers and the head), and of a %lld-token prompt:\n",
           (long long)long_T[0]);
    for (int k = 0; k < N_K; k++) {
        double bytes = k == 2 ? bytes16 : bytes8;
        printf(
            "  %s %5.0f MB in %6.2f ms = %5.1f GB/s, %3.0f%% of the read bandwidth: at most %3.0f tokens/s;"
            "  prompt %6.1f ms: at most %4.0f tokens/s\n",
            names[k], bytes / 1e6, dec[k] * 1e3, bytes / 1e9 / dec[k], 100 * bytes / 1e9 / dec[k] / bw_med,
            1 / dec[k], pre[k] * 1e3, (double)long_T[0] / pre[k]);
    }

    accuracy();

    q8_act_free(&act[0]), q8_act_free(&act[1]);
    free(x), free(y), free(pools.quants), free(pools.bf16), free(seconds), free(bw), free(peak), free(ipeak);
    return 0;
}
