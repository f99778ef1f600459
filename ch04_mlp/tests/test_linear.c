/* test_linear.c — the linear layer y = W x: hand-worked cases, the fast kernels
 * against the reference loop, and the promises linear.h makes (a batch row equals
 * the one-token result, nothing depends on the thread count).
 *
 * How close "close" is. Every test feeds both sides exactly the same float32 numbers
 * (weights widened exactly from their dtype), so the only differences come from the
 * order of the float32 additions. For a sum of n products the standard bound
 * (Higham, "Accuracy and Stability of Numerical Algorithms", §3.1) is
 *     |computed − exact| ≤ γ(n) · Σ|w_i x_i|,   γ(n) = n·u / (1 − n·u),  u = 2⁻²⁴,
 * where n is the number of roundings any one product goes through:
 *   reference: one running sum over `in` terms             -> n = in
 *   fast:      16 lane sums of ⌈in/16⌉ terms, then 4 halving
 *              levels, +1 for the product when it is not fused -> n = ⌈in/16⌉ + 5
 * so |fast − reference| ≤ (γ(in) + γ(⌈in/16⌉ + 5)) · Σ|w_i x_i|, checked per element.
 * This is a proof-backed tolerance, not a guess; a wrong index or a lost tail element
 * is off by a whole product, far outside it.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/pool.h"
#include "qwen/linear.h"
#include "qwen/tensor.h"
#include "tests/ahead_trial.h"
#include "tests/compare.h"
#include "workbook/util.h"
#include "tests/check_main.h"

/* ---- helpers ------------------------------------------------------------------------ */

/* A weight matrix [out, in] in the given dtype, in a buffer of exactly its size
 * (so the sanitizer notices any read past the end). */
typedef struct {
    Tensor t;
    void *buf;
} Weight;

static void weight_init(Weight *w, DType dt, int64_t out, int64_t in, const float *values) {
    int64_t n = out * in;
    w->buf = xmalloc((size_t)(n * dtype_size(dt)));
    for (int64_t i = 0; i < n; i++) {
        if (dt == DTYPE_F32)
            ((float *)w->buf)[i] = values[i];
        else if (dt == DTYPE_BF16)
            ((uint16_t *)w->buf)[i] = f32_to_bf16(values[i]);
        else
            ((uint16_t *)w->buf)[i] = f32_to_f16(values[i]);
    }
    w->t = (Tensor){
        .name = "w", .dtype = dt, .ndim = 2, .shape = {out, in}, .numel = n, .data = w->buf, .file = "test"};
}

static void weight_free(Weight *w) { free(w->buf); }

/* Deterministic uniform numbers in [-1, 1) (xorshift64*). */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static float uniform(void) {
    rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
    uint64_t r = rng_state * 0x2545F4914F6CDD1Dull;
    return (float)((double)(r >> 40) / (double)(1 << 23) - 1.0);
}

static float *random_floats(int64_t n) {
    float *v = xmalloc((size_t)n * sizeof *v);
    for (int64_t i = 0; i < n; i++) v[i] = uniform();
    return v;
}

static double gamma_n(int64_t n) {
    double u = ldexp(1.0, -24);
    return n * u / (1.0 - n * u);
}

/* The per-element bound of the header comment, for Y = X Wᵀ. bound: [T, out]. */
static void error_bounds(const Tensor *w, const float *x, int64_t T, double *bound) {
    int64_t out = w->shape[0], in = w->shape[1];
    double g = gamma_n(in) + gamma_n((in + 15) / 16 + 5);
    for (int64_t t = 0; t < T; t++)
        for (int64_t o = 0; o < out; o++) {
            double s = 0;
            for (int64_t i = 0; i < in; i++) s += fabs((double)tensor_get_f32(w, o * in + i) * x[t * in + i]);
            bound[t * out + o] = g * s;
        }
}

/* Reports like compare_f32 (atol = the largest bound) and then holds every element
 * to its own bound. */
static bool within_bounds(const char *name, const char *shape, const float *got, const float *want,
                          const double *bound, int64_t n) {
    double worst = 0;
    for (int64_t i = 0; i < n; i++) worst = fmax(worst, bound[i]);
    bool ok = compare_f32(name, shape, got, want, n, worst, 0, NULL);
    for (int64_t i = 0; i < n; i++)
        if (!(fabs((double)got[i] - want[i]) <= bound[i])) {
            printf("     [%lld] got %.9g want %.9g: difference above its bound %.3g\n", (long long)i, got[i],
                   want[i], bound[i]);
            ok = false;
            break;
        }
    return ok;
}

static const DType all_dtypes[] = {DTYPE_BF16, DTYPE_F16, DTYPE_F32};

typedef void BatchFn(const float *x, const Tensor *w, int64_t T, float *y);

/* linear() takes one token; for a batch it is called token by token. */
static void linear_token_by_token(const float *x, const Tensor *w, int64_t T, float *y) {
    for (int64_t t = 0; t < T; t++) linear(x + t * w->shape[1], w, y + t * w->shape[0]);
}

static const struct {
    const char *name;
    BatchFn *fn;
} all_fns[] = {
    {"linear_ref", linear_ref},
    {"linear", linear_token_by_token},
    {"linear_batch", linear_batch},
    {"linear_batch_portable", linear_batch_portable},
};

/* ---- hand-worked cases ------------------------------------------------------------- */

/* W = [[1, 2, 3], [4, 5, 6]], two tokens:
 *   x0 = [1, 0.5, -1]:   y0 = [1 + 1 - 3, 4 + 2.5 - 6]            = [-1, 0.5]
 *   x1 = [0, -2, 0.25]:  y1 = [0 - 4 + 0.75, 0 - 10 + 1.5]        = [-3.25, -8.5]
 * Every number is exact in BF16, F16 and F32, so every function must give these exactly. */
START_TEST(test_hand_2x3) {
    const float wv[] = {1, 2, 3, 4, 5, 6};
    const float x[] = {1, 0.5f, -1, 0, -2, 0.25f};
    const float want[] = {-1, 0.5f, -3.25f, -8.5f};
    for (unsigned d = 0; d < ARRAY_LEN(all_dtypes); d++) {
        Weight w;
        weight_init(&w, all_dtypes[d], 2, 3, wv);
        for (unsigned f = 0; f < ARRAY_LEN(all_fns); f++) {
            float y[4] = {0};
            char name[64];
            snprintf(name, sizeof name, "%s %s", all_fns[f].name, dtype_name(all_dtypes[d]));
            all_fns[f].fn(x, &w.t, 2, y);
            ck_assert_msg(compare_f32(name, "2 x 2", y, want, 4, 0, 0, NULL),
                          "%s differs from the hand result", name);
        }
        weight_free(&w);
    }
}
END_TEST

/* The dtype conversions, from raw bits written by hand (not through f32_to_bf16):
 *   BF16 0x3FC0 = 1.5, 0xC0A0 = -5, 0x3E80 = 0.25
 *   F16  0x3E00 = 1.5, 0xC500 = -5, 0x3400 = 0.25
 * x = [2, 0.5, 4]:  y = 1.5·2 − 5·0.5 + 0.25·4 = 3 − 2.5 + 1 = 1.5 */
START_TEST(test_hand_bits) {
    const uint16_t bf16[] = {0x3FC0, 0xC0A0, 0x3E80};
    const uint16_t f16[] = {0x3E00, 0xC500, 0x3400};
    const float x[] = {2, 0.5f, 4};
    for (int d = 0; d < 2; d++) {
        uint16_t *bits = xmalloc(sizeof bf16);
        memcpy(bits, d == 0 ? bf16 : f16, sizeof bf16);
        Tensor w = {.name = "w",
                    .dtype = d == 0 ? DTYPE_BF16 : DTYPE_F16,
                    .ndim = 2,
                    .shape = {1, 3},
                    .numel = 3,
                    .data = bits};
        for (unsigned f = 0; f < ARRAY_LEN(all_fns); f++) {
            float y = 0;
            all_fns[f].fn(x, &w, 1, &y);
            ck_assert_msg(y == 1.5f, "%s %s: got %.9g, want 1.5", all_fns[f].name, dtype_name(w.dtype), y);
        }
        free(bits);
    }
}
END_TEST

/* A row longer than one 16-wide step and not a multiple of it (in = 37: two full steps
 * and a tail of 5), with x = 1:
 *   row 0: W[0][i] = i + 1             -> y = 1 + 2 + ... + 37 = 37·38/2 = 703
 *   row 1: W[1][i] = (−1)^i · (i + 1)  -> y = (1 − 2) + ... + (35 − 36) + 37 = −18 + 37 = 19
 * All partial sums are small integers, exact in float32: every function must match. */
START_TEST(test_hand_tail) {
    enum { IN = 37 };
    float wv[2 * IN], x[IN];
    for (int i = 0; i < IN; i++) {
        wv[i] = (float)(i + 1);
        wv[IN + i] = (float)((i % 2 ? -1 : 1) * (i + 1));
        x[i] = 1;
    }
    const float want[] = {703, 19};
    for (unsigned d = 0; d < ARRAY_LEN(all_dtypes); d++) {
        Weight w; /* integers up to 37 are exact in BF16 (8 bits of mantissa) and F16 */
        weight_init(&w, all_dtypes[d], 2, IN, wv);
        for (unsigned f = 0; f < ARRAY_LEN(all_fns); f++) {
            float y[2] = {0};
            char name[64];
            snprintf(name, sizeof name, "%s %s", all_fns[f].name, dtype_name(all_dtypes[d]));
            all_fns[f].fn(x, &w.t, 1, y);
            ck_assert_msg(compare_f32(name, "2", y, want, 2, 0, 0, NULL), "%s differs from the hand result",
                          name);
        }
        weight_free(&w);
    }
}
END_TEST

/* ---- fast kernels against the reference -------------------------------------------- */

/* Sizes around the kernels' edges: `in` below, at and around one 16-wide step and not a
 * multiple of it; `out` below, at and around one tile of 8 rows, and 100 (each of 2
 * threads cuts its 50 rows into 4 or 8 parts, with rows left over); T = 1, 2, 3 (one
 * group of 3 tokens), 5 and 139 (the book's long text: 46 groups and one left over). */
static const int64_t case_out[] = {1, 3, 8, 9, 17, 24, 100};
static const int64_t case_in[] = {1, 15, 16, 17, 33, 100};
static const int64_t case_T[] = {1, 2, 3, 5, 139};

/* linear() has no T: 139 one-token calls would only repeat the T = 1 case 139 times
 * (and take long on a busy machine), so it runs for the small T only. */
static bool skip_case(unsigned f, int64_t T) { return all_fns[f].fn == linear_token_by_token && T > 5; }

START_TEST(test_fast_vs_reference) {
    for (unsigned d = 0; d < ARRAY_LEN(all_dtypes); d++)
        for (unsigned f = 1; f < ARRAY_LEN(all_fns); f++) { /* every function but the reference */
            /* All cases of this dtype and function go into one long comparison. */
            int64_t total = 0;
            for (unsigned a = 0; a < ARRAY_LEN(case_out); a++)
                for (unsigned b = 0; b < ARRAY_LEN(case_in); b++)
                    for (unsigned c = 0; c < ARRAY_LEN(case_T); c++)
                        if (!skip_case(f, case_T[c])) total += case_T[c] * case_out[a];
            float *got = xmalloc((size_t)total * sizeof *got), *want = xmalloc((size_t)total * sizeof *want);
            double *bound = xmalloc((size_t)total * sizeof *bound);
            int64_t at = 0;
            for (unsigned a = 0; a < ARRAY_LEN(case_out); a++)
                for (unsigned b = 0; b < ARRAY_LEN(case_in); b++)
                    for (unsigned c = 0; c < ARRAY_LEN(case_T); c++) {
                        if (skip_case(f, case_T[c])) continue;
                        int64_t out = case_out[a], in = case_in[b], T = case_T[c];
                        float *wv = random_floats(out * in), *x = random_floats(T * in);
                        Weight w;
                        weight_init(&w, all_dtypes[d], out, in, wv);
                        linear_ref(x, &w.t, T, want + at);   /* [T, out] */
                        all_fns[f].fn(x, &w.t, T, got + at); /* [T, out] */
                        error_bounds(&w.t, x, T, bound + at);
                        at += T * out;
                        weight_free(&w);
                        free(wv), free(x);
                    }
            char name[96];
            snprintf(name, sizeof name, "%s vs linear_ref %s", all_fns[f].name, dtype_name(all_dtypes[d]));
            ck_assert_msg(within_bounds(name, "all sizes", got, want, bound, total), "%s", name);
            free(got), free(want), free(bound);
        }
}
END_TEST

/* A real layer's shape: in_proj_b [16, 1024] for the 6 tokens of the book's sentence, and
 * a slice of down_proj (in = 3584) for 5 tokens. */
START_TEST(test_real_shapes) {
    const int64_t shapes[][3] = {{16, 1024, 6}, {40, 3584, 5}};
    for (unsigned s = 0; s < ARRAY_LEN(shapes); s++) {
        int64_t out = shapes[s][0], in = shapes[s][1], T = shapes[s][2];
        float *wv = random_floats(out * in), *x = random_floats(T * in);
        float *got = xmalloc((size_t)(T * out) * sizeof *got),
              *want = xmalloc((size_t)(T * out) * sizeof *want);
        double *bound = xmalloc((size_t)(T * out) * sizeof *bound);
        Weight w;
        weight_init(&w, DTYPE_BF16, out, in, wv);
        linear_ref(x, &w.t, T, want);
        error_bounds(&w.t, x, T, bound);
        linear_batch(x, &w.t, T, got);
        char shape[64];
        snprintf(shape, sizeof shape, "%lld x %lld", (long long)T, (long long)out);
        ck_assert(within_bounds("linear_batch BF16", shape, got, want, bound, T * out));
        weight_free(&w);
        free(wv), free(x), free(got), free(want), free(bound);
    }
}
END_TEST

/* ---- the promises of linear.h ------------------------------------------------------ */

/* Row t of linear_batch equals linear() on token t bit for bit: each output is summed
 * by the same steps in the same order whatever tile it falls in — also when the rows
 * are widened into a panel block by block and the running sums wait between the blocks
 * (from 12 tokens on): rows of 9000 are 9 blocks of 1024, the last one partial, and 139
 * and 300 tokens go by in chunks of 32 or fewer (as many rows of 9000 as fit in 5/8 of
 * the second-level cache, kernels/linear.c: 32 on any core with less than 1.8 MB of
 * it), the last one shorter. Tolerance: none. */
START_TEST(test_batch_row_equals_one_token) {
    const int64_t T_list[] = {2, 3, 5, 139, 300}, shapes[][2] = {{21, 45}, {50, 9000}};
    for (unsigned d = 0; d < ARRAY_LEN(all_dtypes); d++)
        for (unsigned c = 0; c < ARRAY_LEN(T_list) * ARRAY_LEN(shapes); c++) {
            int64_t out = shapes[c % 2][0], in = shapes[c % 2][1], T = T_list[c / 2];
            float *wv = random_floats(out * in), *x = random_floats(T * in);
            float *batch = xmalloc((size_t)(T * out) * sizeof *batch),
                  *one = xmalloc((size_t)out * sizeof *one);
            Weight w;
            weight_init(&w, all_dtypes[d], out, in, wv);
            linear_batch(x, &w.t, T, batch);
            for (int64_t t = 0; t < T; t++) {
                linear(x + t * in, &w.t, one);
                ck_assert_msg(memcmp(one, batch + t * out, (size_t)out * sizeof *one) == 0,
                              "%s T=%lld: batch row %lld differs from linear() on that token",
                              dtype_name(all_dtypes[d]), (long long)T, (long long)t);
            }
            weight_free(&w);
            free(wv), free(x), free(batch), free(one);
        }
}
END_TEST

/* 1, 2 and 3 workers give identical bits: the worker count only decides who computes
 * an output, never how. A matrix of several tasks (kernels/linear.c cuts its rows into
 * tasks of 256 KB), the last one partial, with rows left over from the tiles in each.
 * Tolerance: none. */
START_TEST(test_thread_count) {
    int64_t out = 1003, in = 541;
    const int64_t T_list[] = {1, 139};
    int saved = pool_threads();
    for (unsigned c = 0; c < ARRAY_LEN(T_list); c++)
        for (int portable = 0; portable < 2; portable++) {
            int64_t T = T_list[c];
            float *wv = random_floats(out * in), *x = random_floats(T * in);
            float *y[3];
            Weight w;
            weight_init(&w, DTYPE_BF16, out, in, wv);
            for (int n = 1; n <= 3; n++) {
                pool_set_threads(n);
                y[n - 1] = xmalloc((size_t)(T * out) * sizeof(float));
                (portable ? linear_batch_portable : linear_batch)(x, &w.t, T, y[n - 1]);
            }
            for (int n = 2; n <= 3; n++)
                ck_assert_msg(memcmp(y[0], y[n - 1], (size_t)(T * out) * sizeof(float)) == 0,
                              "%s T=%lld: %d threads differ from 1 thread", portable ? "portable" : "fast",
                              (long long)T, n);
            printf("OK   %s T=%lld: 1, 2 and 3 threads agree bit for bit\n",
                   portable ? "linear_batch_portable" : "linear_batch", (long long)T);
            for (int n = 0; n < 3; n++) free(y[n]);
            weight_free(&w);
            free(wv), free(x);
        }
    pool_set_threads(saved);
}
END_TEST

/* A stack of matrices of one input in one call gives each matrix exactly what a call
 * of its own gives: the DeltaNet's in_proj shapes scaled down (many rows, a few, 16 and
 * 16), one of them float32 (a stack may mix dtypes), for one token, a few tokens and
 * enough tokens for the packed panel, on 1, 2 and 3 workers. Tolerance: none. */
START_TEST(test_stack_equals_one_by_one) {
    const int64_t outs[] = {1030, 77, 16, 16}, in = 300, T_list[] = {1, 5, 40};
    const DType dts[] = {DTYPE_BF16, DTYPE_BF16, DTYPE_F32, DTYPE_BF16};
    int saved = pool_threads();
    Weight w[4];
    const Tensor *wt[4];
    for (int i = 0; i < 4; i++) {
        float *wv = random_floats(outs[i] * in);
        weight_init(&w[i], dts[i], outs[i], in, wv);
        wt[i] = &w[i].t;
        free(wv);
    }
    for (unsigned c = 0; c < ARRAY_LEN(T_list); c++)
        for (int threads = 1; threads <= 3; threads++) {
            pool_set_threads(threads);
            int64_t T = T_list[c];
            float *x = random_floats(T * in), *one[4], *stacked[4];
            for (int i = 0; i < 4; i++) {
                one[i] = xmalloc((size_t)(T * outs[i]) * sizeof(float));
                stacked[i] = xmalloc((size_t)(T * outs[i]) * sizeof(float));
                (T == 1 ? linear(x, wt[i], one[i]) : linear_batch(x, wt[i], T, one[i]));
            }
            for (int n = 1; n <= 4; n++) { /* the first n of them */
                linear_stack(x, wt, n, T, stacked);
                for (int i = 0; i < n; i++)
                    ck_assert_msg(memcmp(one[i], stacked[i], (size_t)(T * outs[i]) * sizeof(float)) == 0,
                                  "T=%lld, %d threads: matrix %d of a stack of %d differs from its own call",
                                  (long long)T, threads, i, n);
            }
            for (int i = 0; i < 4; i++) free(one[i]), free(stacked[i]);
            free(x);
        }
    printf("OK   linear_stack == linear/linear_batch per matrix bit for bit, stacks of 1-4, T 1/5/40, 1-3 "
           "threads\n");
    for (int i = 0; i < 4; i++) weight_free(&w[i]);
    pool_set_threads(saved);
}
END_TEST

/* Called from inside a task of the pool (e.g. a loop over heads), each call runs on its
 * own worker and must still give the same bits as a call from outside. */
typedef struct {
    const float *x;
    const Tensor *w;
    int64_t T;
    float *y; /* [tasks, T, out] */
} Inside;
static void inside_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const Inside *in = ctx;
    linear_batch(in->x, in->w, in->T, in->y + task * in->T * in->w->shape[0]);
}

START_TEST(test_inside_parallel_region) {
    int64_t out = 37, in = 29, T = 5;
    float *wv = random_floats(out * in), *x = random_floats(T * in);
    Weight w;
    weight_init(&w, DTYPE_BF16, out, in, wv);
    float *outside = xmalloc((size_t)(T * out) * sizeof(float));
    float *inside = xmalloc((size_t)(2 * T * out) * sizeof(float)); /* [2 tasks, T, out] */
    linear_batch(x, &w.t, T, outside);
    Inside job = {x, &w.t, T, inside};
    pool_run(2, inside_task, &job);
    for (int n = 0; n < 2; n++)
        ck_assert_msg(memcmp(outside, inside + n * T * out, (size_t)(T * out) * sizeof(float)) == 0,
                      "call from task %d of the pool differs", n);
    free(outside), free(inside), free(wv), free(x);
    weight_free(&w);
}
END_TEST

/* Weights that start 2 bytes past a 64-byte boundary, as a BF16 tensor may in a
 * memory-mapped safetensors file, in a buffer that ends exactly with the last row, and
 * inputs that end exactly with the last token: no load may stray outside (the
 * sanitizer build checks), and the result must not change. */
START_TEST(test_unaligned_weights) {
    int64_t out = 19, in = 51, T = 7;
    float *wv = random_floats(out * in), *x = random_floats(T * in);
    Weight w;
    weight_init(&w, DTYPE_BF16, out, in, wv);
    uint16_t *shifted = xaligned_alloc((size_t)(out * in + 1) * 2);
    memcpy(shifted + 1, w.buf, (size_t)(out * in) * 2);
    Tensor moved = w.t;
    moved.data = shifted + 1;
    float *a = xmalloc((size_t)(T * out) * sizeof *a), *b = xmalloc((size_t)(T * out) * sizeof *b);
    linear_batch(x, &w.t, T, a);
    linear_batch(x, &moved, T, b);
    ck_assert_msg(memcmp(a, b, (size_t)(T * out) * sizeof *a) == 0, "result depends on the weights' address");
    linear(x, &moved, b);
    ck_assert_msg(memcmp(a, b, (size_t)out * sizeof *a) == 0,
                  "linear() result depends on the weights' address");
    free(shifted), free(a), free(b), free(wv), free(x);
    weight_free(&w);
}
END_TEST

/* The one-token call whose trials of asking ahead test_asking_ahead follows. */
typedef struct {
    const float *x;
    const Tensor *w;
} OneToken;

static void one_token(void *ctx, float *y) {
    const OneToken *c = ctx;
    linear(c->x, c->w, y);
}

/* Through the trials of asking ahead (kernels/linear.c), every one-token call gives the
 * same bits (tests/ahead_trial.h). Rows of 2 KB in BF16, so that each of a tile's
 * streams has lines 2 KB further on to ask for. Tolerance: none. */
START_TEST(test_asking_ahead) {
    int64_t out = 64, in = 1024;
    float *wv = random_floats(out * in), *x = random_floats(in);
    Weight w;
    weight_init(&w, DTYPE_BF16, out, in, wv);
    check_asking_ahead("linear()", one_token, &(OneToken){x, &w.t}, out, linear_asks_ahead);
    weight_free(&w);
    free(wv), free(x);
}
END_TEST

int main(void) {
    Suite *s = suite_create("linear");
    TCase *hand = tcase_create("hand-worked");
    tcase_set_timeout(hand, 60); /* generous: the machine may be busy with other work */
    tcase_add_test(hand, test_hand_2x3);
    tcase_add_test(hand, test_hand_bits);
    tcase_add_test(hand, test_hand_tail);
    suite_add_tcase(s, hand);
    TCase *ref = tcase_create("fast vs reference");
    tcase_set_timeout(ref, 60); /* the sanitizer build is slow */
    tcase_add_test(ref, test_fast_vs_reference);
    tcase_add_test(ref, test_real_shapes);
    suite_add_tcase(s, ref);
    TCase *promise = tcase_create("promises");
    tcase_set_timeout(promise, 60);
    tcase_add_test(promise, test_batch_row_equals_one_token);
    tcase_add_test(promise, test_thread_count);
    tcase_add_test(promise, test_stack_equals_one_by_one);
    tcase_add_test(promise, test_inside_parallel_region);
    tcase_add_test(promise, test_unaligned_weights);
    tcase_add_test(promise, test_asking_ahead);
    suite_add_tcase(s, promise);

    /* Check runs each test in a child process that may end without flushing stdout:
     * line buffering keeps the comparison lines of a failing test. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("linear kernels: %s\n", linear_kernel_name());
    return run_suite(s, CK_FORK_GETENV);
}
