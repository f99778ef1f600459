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
 *   token t (steps 3, 4):      its key k_write and query q_read [dk] and its difference
 *                              delta [dv] → read [dv]
 *   token t + 1 (steps 1, 2):  decay and its key k_look [dk] → pred [dv]
 * The first sweep has no token t (k_write, q_read, delta all zero) and the last no
 * token t + 1 (decay 1, k_look zero): adding 0 and multiplying by 1 leave a row
 * unchanged. empty: the table holds zeros (it is not read, only written). */
static inline __attribute__((always_inline)) void sweep(const int n_vecs, const bool empty,
                                                        float *restrict Sh, int dk, const float *k_write,
                                                        const float *q_read, const float *delta, float decay,
                                                        const float *k_look, float *read, float *pred) {
    Vec16 d[MAX_VECS], o[MAX_VECS], p[MAX_VECS];
#pragma GCC unroll 8
    for (int c = 0; c < n_vecs; c++) d[c] = vec_load(delta + c * VEC), o[c] = (Vec16){0}, p[c] = (Vec16){0};
    for (int i = 0; i < dk; i++) {
        float *restrict row = Sh + (size_t)i * n_vecs * VEC;
        float kw_i = k_write[i], q_i = q_read[i], kl_i = k_look[i];
#pragma GCC unroll 8
        for (int c = 0; c < n_vecs; c++) {
            Vec16 s = empty ? (Vec16){0} : vec_load(row + c * VEC); /* an empty table is not read */
            s += kw_i * d[c];                                       /* 3. write token t's difference */
            o[c] += q_i * s;                                        /* 4. token t reads with q */
            s *= decay;                                             /* 1. token t + 1 decays the table */
            p[c] += kl_i * s;                                       /* 2. token t + 1 looks up with k */
            vec_store(row + c * VEC, s);
        }
    }
#pragma GCC unroll 8
    for (int c = 0; c < n_vecs; c++) vec_store(read + c * VEC, o[c]), vec_store(pred + c * VEC, p[c]);
}

/* One head over T tokens with T + 1 sweeps, or T when the table starts empty: then
 * the first sweep (decaying zeros, looking up zeros) is skipped, since its pred is
 * exactly 0, and the next one writes the table without reading it. */
static inline __attribute__((always_inline)) void
delta_rule_head_fast(const int n_vecs, const float *q, const float *k, const float *v, const float *g,
                     const float *beta, int T, int n_k, int n_v, int kh, int h, int dk, float *Sh, float *out,
                     bool empty, const float *zeros) {
    int dv = n_vecs * VEC;
    float pred[MAX_VECS * VEC], delta[MAX_VECS * VEC], unused[MAX_VECS * VEC];
    int first = -1;
    if (empty && T > 0) {
        memset(pred, 0, sizeof pred);
        first = 0;
    }
    for (int t = first; t < T; t++) {
        bool has_t = t >= 0, has_next = t + 1 < T;
        if (has_t && t == first) { /* 3. (token 0 on an empty table) the difference is v, β of it */
            const float *vt = v + ((size_t)t * n_v + h) * dv;
            float b = beta[(size_t)t * n_v + h];
            for (int j = 0; j < dv; j++) delta[j] = (vt[j] - pred[j]) * b;
        }
        const float *k_write = has_t ? k + ((size_t)t * n_k + kh) * dk : zeros;
        const float *q_read = has_t ? q + ((size_t)t * n_k + kh) * dk : zeros;
        const float *k_look = has_next ? k + ((size_t)(t + 1) * n_k + kh) * dk : zeros;
        float decay = has_next ? expf(g[(size_t)(t + 1) * n_v + h]) : 1.0f;
        float *read = has_t ? out + ((size_t)t * n_v + h) * dv : unused;
        if (t == first && empty)
            sweep(n_vecs, true, Sh, dk, k_write, q_read, delta, decay, k_look, read, pred);
        else
            sweep(n_vecs, false, Sh, dk, k_write, q_read, has_t ? delta : zeros, decay, k_look, read, pred);
        if (has_next) { /* 3. (next sweep) the difference token t + 1 will write, β of it */
            const float *vn = v + ((size_t)(t + 1) * n_v + h) * dv;
            float b = beta[(size_t)(t + 1) * n_v + h];
            for (int j = 0; j < dv; j++) delta[j] = (vn[j] - pred[j]) * b;
        }
    }
}

/* What a sweep reads for a token that is not there: zeros, for keys and queries of up
 * to MAX_DK dimensions and differences of up to MAX_VECS · 16. */
#define MAX_DK 1024
static const float zeros[MAX_DK > MAX_VECS *VEC ? MAX_DK : MAX_VECS *VEC];

void delta_rule(const float *q, const float *k, const float *v, const float *g, const float *beta, int T,
                int n_k, int n_v, int dk, int dv, const float *S0, float *S, float *out) {
    int n_vecs = dv % VEC == 0 ? dv / VEC : 0; /* vectors per row; 0: rows that are not whole vectors */
    if (T == 0 || dk > MAX_DK || (n_vecs != 8 && n_vecs != 4 && n_vecs != 2 && n_vecs != 1)) {
        delta_rule_ref(q, k, v, g, beta, T, n_k, n_v, dk, dv, S0, S, out); /* the plain loops */
        return;
    }
    size_t table = (size_t)dk * dv;
    int rep = n_v / n_k; /* value head h reads key head h / rep */
#pragma omp parallel for schedule(static)
    for (int h = 0; h < n_v; h++) {
        float *Sh = S + h * table; /* [dk, dv] */
        /* a given table is copied in; an empty one is written by its first sweep */
        if (S0 != NULL && S0 != S) memcpy(Sh, S0 + h * table, table * sizeof(float));
        /* A constant row width lets the compiler keep the running sums in registers. */
        int kh = h / rep;
        bool empty = S0 == NULL;
        switch (n_vecs) {
        case 8:
            delta_rule_head_fast(8, q, k, v, g, beta, T, n_k, n_v, kh, h, dk, Sh, out, empty, zeros);
            break;
        case 4:
            delta_rule_head_fast(4, q, k, v, g, beta, T, n_k, n_v, kh, h, dk, Sh, out, empty, zeros);
            break;
        case 2:
            delta_rule_head_fast(2, q, k, v, g, beta, T, n_k, n_v, kh, h, dk, Sh, out, empty, zeros);
            break;
        case 1:
            delta_rule_head_fast(1, q, k, v, g, beta, T, n_k, n_v, kh, h, dk, Sh, out, empty, zeros);
            break;
        }
    }
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

#define CONV_BLOCK 512 /* channels per piece of work: 12 pieces for the 6144 channels */

void causal_conv_silu(const float *x, const float *w, int T, int C, int kernel, float *state, float *out) {
    int hist = kernel - 1; /* pre-conv vectors kept from before the first new token */
    /* Think of the rows as one window: the hist rows of state, then the T rows of x.
     * Token t's output uses window rows t … t + kernel − 1. The channels are
     * independent (depthwise), so the cores share them out. */
    int n_blocks = (C + CONV_BLOCK - 1) / CONV_BLOCK;
#pragma omp parallel for schedule(static)
    for (int blk = 0; blk < n_blocks; blk++) {
        int c0 = blk * CONV_BLOCK, n = C - c0 < CONV_BLOCK ? C - c0 : CONV_BLOCK;
        for (int t = 0; t < T; t++) {
            float *restrict o = out + (size_t)t * C + c0; /* [n] */
            for (int c = 0; c < n; c++) o[c] = 0;
            for (int j = 0; j < kernel; j++) {
                int r = t + j;
                const float *restrict src =
                    (r < hist ? state + (size_t)r * C : x + (size_t)(r - hist) * C) + c0;
                const float *restrict wj = w + (size_t)j * C + c0; /* tap j of these channels */
#pragma omp simd
                for (int c = 0; c < n; c++) o[c] += wj[c] * src[c];
            }
            silu_vec(o, n, o);
        }
    }
    /* The new history: the last hist rows of the window. */
    if (hist == 0) return;
    if (T >= hist) {
        memcpy(state, x + (size_t)(T - hist) * C, (size_t)hist * C * sizeof(float));
    } else {
        memmove(state, state + (size_t)T * C, (size_t)(hist - T) * C * sizeof(float));
        memcpy(state + (size_t)(hist - T) * C, x, (size_t)T * C * sizeof(float));
    }
}
