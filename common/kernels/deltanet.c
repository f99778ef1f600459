/* kernels/deltanet.c — the fast paths of the Gated DeltaNet's pieces: the delta rule
 * in one sweep per token, the gated norm and the short convolution (both with
 * kernels/activations.c's SiLU, 16 at a time).
 *
 * Speed code. The formulas, written plainly, are in qwen/deltanet.c (delta_rule_ref,
 * causal_conv_silu_ref) and qwen/norm.c (gated_rmsnorm); the tests
 * (ch07_deltanet/tests/test_deltanet.c) hold every function here to them.
 */
#include "qwen/deltanet.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/activations.h"
#include "kernels/pool.h"
#include "workbook/util.h"

/* ---- the delta rule in one sweep per token ------------------------------------ */

/* The same four steps and the same arithmetic as delta_rule_ref, one sweep per token.
 *
 * Steps 1–2 of a token must see the whole table before step 3 can start (pred sums
 * over every row), so the readable version sweeps a 64 KB table four times per token
 * (decay, look up, write, read), and any version at least twice. But
 * steps 3–4 of token t and steps 1–2 of token t + 1 can share a sweep: row by row,
 *
 *     3. write token t's difference into the row      4. add the row to token t's read
 *     1. decay the row for token t + 1                 2. add the row to token t + 1's look-up
 *
 * Each row is then loaded and stored once per token, and the two running sums
 * (token t's output, token t + 1's pred; dv numbers each) stay in registers. Every
 * number goes through exactly the operations of the four loops, in the same order,
 * so the results are the same to the last bit (the tests check it).
 *
 * A row of dv = 128 numbers is 8 vectors of 16 (GCC/Clang vector extensions: one
 * AVX-512 register each, two AVX ones on other machines). */
typedef float Vec16 __attribute__((vector_size(64)));
#define VEC      16
#define MAX_VECS 8 /* rows of 16, 32, 64 or 128 numbers take the vector path */

static inline Vec16 vec_load(const float *p) {
    Vec16 v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void vec_store(float *p, Vec16 v) { memcpy(p, &v, sizeof v); }

/* One sweep over a head's table Sh [dk, n_vecs·16]:
 *   write, token t (steps 3, 4):    its key k_write and query q_read [dk] and its
 *                                   difference delta [dv] → read [dv]
 *   look, token t + 1 (steps 1, 2): decay and its key k_look [dk] → pred [dv]
 * The first sweep of a given table has no token t to write, and the last sweep no
 * token t + 1 to look up: their steps are left out (a decoded token's two sweeps do
 * half the arithmetic of two full ones), not done with zeros, which would also turn
 * a −0 of the table into +0 where the four loops keep it. empty: the table holds
 * zeros (it is not read, only written). */
static inline __attribute__((always_inline)) void sweep(const int n_vecs, const bool empty, const bool write,
                                                        const bool look, float *restrict Sh, int dk,
                                                        const float *k_write, const float *q_read,
                                                        const float *delta, float decay, const float *k_look,
                                                        float *read, float *pred) {
    Vec16 d[MAX_VECS], o[MAX_VECS], p[MAX_VECS];
#pragma GCC unroll 8
    for (int c = 0; c < n_vecs; c++) {
        d[c] = write ? vec_load(delta + c * VEC) : (Vec16){0};
        o[c] = p[c] = (Vec16){0};
    }
    for (int i = 0; i < dk; i++) {
        float *restrict row = Sh + (size_t)i * n_vecs * VEC;
        float kw_i = write ? k_write[i] : 0, q_i = write ? q_read[i] : 0, kl_i = look ? k_look[i] : 0;
#pragma GCC unroll 8
        for (int c = 0; c < n_vecs; c++) {
            Vec16 s = empty ? (Vec16){0} : vec_load(row + c * VEC); /* an empty table is not read */
            if (write) {
                s += kw_i * d[c]; /* 3. write token t's difference */
                o[c] += q_i * s;  /* 4. token t reads with q */
            }
            if (look) {
                s *= decay;       /* 1. token t + 1 decays the table */
                p[c] += kl_i * s; /* 2. token t + 1 looks up with k */
            }
            vec_store(row + c * VEC, s);
        }
    }
#pragma GCC unroll 8
    for (int c = 0; c < n_vecs; c++) {
        if (write) vec_store(read + c * VEC, o[c]);
        if (look) vec_store(pred + c * VEC, p[c]);
    }
}

/* One head over T tokens with T + 1 sweeps, or T when the table starts empty: then
 * there is nothing to decay or look up before token 0 (its pred is exactly 0), and
 * token 0's sweep writes the table without reading it. */
static inline __attribute__((always_inline)) void
delta_rule_head_fast(const int n_vecs, const float *q, const float *k, const float *v, const float *g,
                     const float *beta, int T, int n_k, int n_v, int kh, int h, int dk, float *Sh, float *out,
                     bool empty) {
    int dv = n_vecs * VEC;
    float pred[MAX_VECS * VEC], delta[MAX_VECS * VEC];
    if (empty)
        memset(pred, 0, sizeof pred);
    else /* steps 1–2 of token 0 */
        sweep(n_vecs, false, false, true, Sh, dk, NULL, NULL, NULL, expf(g[h]), k + (size_t)kh * dk, NULL,
              pred);
    for (int t = 0; t < T; t++) {
        const float *vt = v + ((size_t)t * n_v + h) * dv; /* 3. the difference token t writes, β of it */
        float b = beta[(size_t)t * n_v + h];
        for (int j = 0; j < dv; j++) delta[j] = (vt[j] - pred[j]) * b;
        const float *kt = k + ((size_t)t * n_k + kh) * dk, *qt = q + ((size_t)t * n_k + kh) * dk;
        float *read = out + ((size_t)t * n_v + h) * dv;
        bool first = empty && t == 0;
        if (t + 1 < T) { /* steps 3–4 of token t, 1–2 of token t + 1 */
            float decay = expf(g[(size_t)(t + 1) * n_v + h]);
            const float *k_look = k + ((size_t)(t + 1) * n_k + kh) * dk;
            if (first)
                sweep(n_vecs, true, true, true, Sh, dk, kt, qt, delta, decay, k_look, read, pred);
            else
                sweep(n_vecs, false, true, true, Sh, dk, kt, qt, delta, decay, k_look, read, pred);
        } else if (first) { /* steps 3–4 of the last token */
            sweep(n_vecs, true, true, false, Sh, dk, kt, qt, delta, 1, NULL, read, NULL);
        } else {
            sweep(n_vecs, false, true, false, Sh, dk, kt, qt, delta, 1, NULL, read, NULL);
        }
    }
}

/* delta_rule's arguments, for its tasks: one head each. */
typedef struct DeltaRuleJob {
    const float *q, *k, *v, *g, *beta;
    int T, n_k, n_v, dk, dv;
    const float *S0;
    float *S, *out;
    void (*head)(const struct DeltaRuleJob *j, int h, float *Sh, bool empty); /* for the row width */
} DeltaRuleJob;

/* One head's tokens at a row width of N vectors: a constant, so that the compiler
 * keeps the running sums in registers. */
#define HEAD_OF_WIDTH(N)                                                                                     \
    static void head_##N(const DeltaRuleJob *j, int h, float *Sh, bool empty) {                              \
        delta_rule_head_fast(N, j->q, j->k, j->v, j->g, j->beta, j->T, j->n_k, j->n_v,                       \
                             h / (j->n_v / j->n_k), h, j->dk, Sh, j->out, empty);                            \
    }
HEAD_OF_WIDTH(8)
HEAD_OF_WIDTH(4)
HEAD_OF_WIDTH(2)
HEAD_OF_WIDTH(1)

static void delta_rule_task(void *ctx, int64_t h, int worker) {
    (void)worker;
    const DeltaRuleJob *j = ctx;
    size_t table = (size_t)j->dk * j->dv;
    float *Sh = j->S + h * table; /* [dk, dv] */
    /* a given table is copied in; an empty one is written by its first sweep */
    if (j->S0 != NULL && j->S0 != j->S) memcpy(Sh, j->S0 + h * table, table * sizeof(float));
    j->head(j, (int)h, Sh, j->S0 == NULL);
}

void delta_rule(const float *q, const float *k, const float *v, const float *g, const float *beta, int T,
                int n_k, int n_v, int dk, int dv, const float *S0, float *S, float *out) {
    int n_vecs = dv % VEC == 0 ? dv / VEC : 0; /* vectors per row; 0: rows that are not whole vectors */
    void (*head)(const DeltaRuleJob *, int, float *, bool) = n_vecs == 8   ? head_8
                                                             : n_vecs == 4 ? head_4
                                                             : n_vecs == 2 ? head_2
                                                             : n_vecs == 1 ? head_1
                                                                           : NULL;
    if (T == 0 || !head) {
        delta_rule_ref(q, k, v, g, beta, T, n_k, n_v, dk, dv, S0, S, out); /* the plain loops */
        return;
    }
    DeltaRuleJob job = {q, k, v, g, beta, T, n_k, n_v, dk, dv, S0, S, out, head};
    pool_run(n_v, delta_rule_task, &job); /* the heads are independent: shared out over the cores */
}

/* ---- the gated RMSNorm of the output ---------------------------------------- */

void gated_norm_heads(const float *o, const float *z, const float *w, int n_heads, int dv, float eps,
                      float *y) {
    silu_vec(z, (int64_t)n_heads * dv, y); /* the gate silu(z) first, 16 at a time */
    for (int h = 0; h < n_heads; h++) {
        const float *oh = o + (size_t)h * dv; /* [dv] */
        float *yh = y + (size_t)h * dv;       /* [dv], holding silu(z) */
        float ss = 0;
#pragma omp simd reduction(+ : ss)
        for (int j = 0; j < dv; j++) ss += oh[j] * oh[j];
        float inv = 1.0f / sqrtf(ss / dv + eps); /* 1 / rms(o) */
        for (int j = 0; j < dv; j++) yh[j] = w[j] * (oh[j] * inv) * yh[j];
    }
}

/* ---- the short convolution ------------------------------------------------- */

#define CONV_BLOCK 512 /* channels per task: 12 tasks for the 6144 channels */
#define MAX_KERNEL 16  /* the longest convolution the fast path takes (this model's: 4) */

typedef struct {
    const float *x, *w;
    int T, C, kernel;
    float *state; /* [kernel − 1, C]: read, then moved on */
    float *out;
} ConvJob;

/* The outputs of one block of channels, for every token, and the block's part of the
 * new history. Think of the rows as one window: the kernel − 1 rows of state, then the T
 * rows of x; token t's output uses window rows t … t + kernel − 1, and the new history
 * is the window's last kernel − 1 rows, which are rows 1 … kernel − 1 of the last
 * token's window.
 *
 * Each 16 channels' sum stays in a register over the taps and is stored once, and all
 * the rows a token reads are read in the same pass. (One pass per tap, adding its
 * products into the output row in memory, read the rows two at a time and stored and
 * loaded the output again for every tap: a conv job took 20–35% longer.) The last token's
 * pass also moves the history, right where it has just read those rows: for each
 * channel every row is read before any is written, and row r takes row r + 1, so no
 * row is overwritten before it is read. */
static void conv_task(void *ctx, int64_t blk, int worker) {
    (void)worker;
    const ConvJob *j = ctx;
    int C = j->C, K = j->kernel, hist = K - 1;
    int c0 = (int)blk * CONV_BLOCK, n = C - c0 < CONV_BLOCK ? C - c0 : CONV_BLOCK;
    const float *w = j->w + c0; /* tap k of these channels at w + k·C */
    float *state = j->state + c0;
    for (int t = 0; t < j->T; t++) {
        float *restrict o = j->out + (size_t)t * C + c0; /* [n] */
        const float *src[MAX_KERNEL];                    /* window rows t … t + K − 1 */
        for (int k = 0; k < K; k++) {
            int r = t + k;
            src[k] = (r < hist ? j->state + (size_t)r * C : j->x + (size_t)(r - hist) * C) + c0;
        }
        bool last = t == j->T - 1;
        int c = 0;
        for (; c + VEC <= n; c += VEC) { /* 16 channels at a time */
            Vec16 sum = (Vec16){0};
            for (int k = 0; k < K; k++) sum += vec_load(w + (size_t)k * C + c) * vec_load(src[k] + c);
            vec_store(o + c, sum);
            if (last) /* history row r ← window row r + 1 */
                for (int r = 0; r < hist; r++) vec_store(state + (size_t)r * C + c, vec_load(src[r + 1] + c));
        }
        for (; c < n; c++) { /* the channels left over, one at a time */
            float sum = 0;
            for (int k = 0; k < K; k++) sum += w[(size_t)k * C + c] * src[k][c];
            o[c] = sum;
            if (last)
                for (int r = 0; r < hist; r++) state[(size_t)r * C + c] = src[r + 1][c];
        }
        silu_vec(o, n, o);
    }
}

void causal_conv_silu(const float *x, const float *w, int T, int C, int kernel, float *state, float *out) {
    if (T == 0) return;        /* no new token: the history stays as it is */
    if (kernel > MAX_KERNEL) { /* the plain loops */
        causal_conv_silu_ref(x, w, T, C, kernel, state, out);
        return;
    }
    /* the channels are independent (depthwise): the cores share them out */
    ConvJob job = {x, w, T, C, kernel, state, out};
    pool_run((C + CONV_BLOCK - 1) / CONV_BLOCK, conv_task, &job);
}
