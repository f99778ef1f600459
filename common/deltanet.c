/* deltanet.c — the Gated DeltaNet layer (see deltanet.h). */
#include "deltanet.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "activations.h"
#include "linear.h"
#include "norm.h"
#include "util.h"

void dn_dims(DeltaNetDims *d, const Config *c) {
    d->hidden = c->hidden_size;
    d->n_k = c->linear_num_key_heads;
    d->n_v = c->linear_num_value_heads;
    d->dk = c->linear_key_head_dim;
    d->dv = c->linear_value_head_dim;
    d->kernel = c->linear_conv_kernel_dim;
    d->key_dim = cfg_linear_key_dim(c);
    d->value_dim = cfg_linear_value_dim(c);
    d->conv_dim = cfg_linear_conv_dim(c);
    d->eps = (float)c->rms_norm_eps;
}

/* ---- the delta rule -------------------------------------------------------- */

/* One head, the formula as the book prints it: four loops per token.
 *   Sh: [dk, dv] the head's table, already holding the starting state
 *   kh: the key head this value head reads */
static void delta_rule_head_ref(const float *q, const float *k, const float *v, const float *g,
                                const float *beta, int T, int n_k, int n_v, int kh, int h, int dk, int dv,
                                float *Sh, float *out, float *pred) {
    for (int t = 0; t < T; t++) {
        const float *kt = k + ((size_t)t * n_k + kh) * dk; /* [dk] */
        const float *qt = q + ((size_t)t * n_k + kh) * dk; /* [dk] */
        const float *vt = v + ((size_t)t * n_v + h) * dv;  /* [dv] */
        float *ot = out + ((size_t)t * n_v + h) * dv;      /* [dv] */
        float decay = expf(g[(size_t)t * n_v + h]), b = beta[(size_t)t * n_v + h];

        /* 1. decay: multiply the whole table by a number in (0, 1], forgetting a little */
        for (int i = 0; i < dk; i++)
            for (int j = 0; j < dv; j++) Sh[i * dv + j] *= decay;
        /* 2. look up with k: what the table thinks v should be, pred = Sᵀk */
        for (int j = 0; j < dv; j++) pred[j] = 0;
        for (int i = 0; i < dk; i++)
            for (int j = 0; j < dv; j++) pred[j] += kt[i] * Sh[i * dv + j];
        /* 3. write only the difference (delta), β of it: S += k ((v − pred) β)ᵀ */
        for (int i = 0; i < dk; i++)
            for (int j = 0; j < dv; j++) Sh[i * dv + j] += kt[i] * ((vt[j] - pred[j]) * b);
        /* 4. look up with q to get this token's output, o = Sᵀq */
        for (int j = 0; j < dv; j++) ot[j] = 0;
        for (int i = 0; i < dk; i++)
            for (int j = 0; j < dv; j++) ot[j] += qt[i] * Sh[i * dv + j];
    }
}

/* Empty tables, or a copy of the given ones (unless they are already in place). */
static void start_tables(const float *S0, float *S, size_t n) {
    if (S0 == NULL)
        memset(S, 0, n * sizeof(float));
    else if (S0 != S)
        memcpy(S, S0, n * sizeof(float));
}

void delta_rule_ref(const float *q, const float *k, const float *v, const float *g, const float *beta, int T,
                    int n_k, int n_v, int dk, int dv, const float *S0, float *S, float *out) {
    size_t table = (size_t)dk * dv;
    start_tables(S0, S, (size_t)n_v * table);
    int rep = n_v / n_k;                               /* value head h reads key head h / rep */
    float *pred = xmalloc((size_t)dv * sizeof(float)); /* [dv] */
    for (int h = 0; h < n_v; h++)
        delta_rule_head_ref(q, k, v, g, beta, T, n_k, n_v, h / rep, h, dk, dv, S + h * table, out, pred);
    free(pred);
}

/* The fast path: the same four steps and the same arithmetic, one sweep per token.
 *
 * Steps 1–2 of a token must see the whole table before step 3 can start (pred sums
 * over every row), so the four-loop version sweeps a 64 KB table twice per token. But
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

/* One sweep over a head's table Sh [dk, nvec·16]:
 *   token t (steps 3, 4):     kw, qw [dk] and its difference delta [dv] → read [dv]
 *   token t + 1 (steps 1, 2): decay and kl [dk]                          → pred [dv]
 * The first sweep has no token t (kw, qw, delta all zero) and the last no token t + 1
 * (decay 1, kl zero): adding 0 and multiplying by 1 leave a row unchanged. */
static inline __attribute__((always_inline)) void sweep(const int nvec, float *restrict Sh, int dk,
                                                        const float *kw, const float *qw, const float *delta,
                                                        float decay, const float *kl, float *read,
                                                        float *pred) {
    Vec16 d[MAX_VECS], o[MAX_VECS], p[MAX_VECS];
#pragma GCC unroll 8
    for (int c = 0; c < nvec; c++) d[c] = vec_load(delta + c * VEC), o[c] = (Vec16){0}, p[c] = (Vec16){0};
    for (int i = 0; i < dk; i++) {
        float *restrict row = Sh + (size_t)i * nvec * VEC;
        float kwi = kw[i], qwi = qw[i], kli = kl[i];
#pragma GCC unroll 8
        for (int c = 0; c < nvec; c++) {
            Vec16 s = vec_load(row + c * VEC);
            s += kwi * d[c]; /* 3. write token t's difference */
            o[c] += qwi * s; /* 4. token t reads with q */
            s *= decay;      /* 1. token t + 1 decays the table */
            p[c] += kli * s; /* 2. token t + 1 looks up with k */
            vec_store(row + c * VEC, s);
        }
    }
#pragma GCC unroll 8
    for (int c = 0; c < nvec; c++) vec_store(read + c * VEC, o[c]), vec_store(pred + c * VEC, p[c]);
}

/* One head over T tokens with T + 1 sweeps, or T when the table starts empty: then
 * the first sweep (decaying zeros, looking up zeros) is skipped, since its pred is
 * exactly 0. */
static inline __attribute__((always_inline)) void
delta_rule_head_fast(const int nvec, const float *q, const float *k, const float *v, const float *g,
                     const float *beta, int T, int n_k, int n_v, int kh, int h, int dk, float *Sh, float *out,
                     bool empty, const float *zeros) {
    int dv = nvec * VEC;
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
        const float *kw = has_t ? k + ((size_t)t * n_k + kh) * dk : zeros;
        const float *qw = has_t ? q + ((size_t)t * n_k + kh) * dk : zeros;
        const float *kl = has_next ? k + ((size_t)(t + 1) * n_k + kh) * dk : zeros;
        float decay = has_next ? expf(g[(size_t)(t + 1) * n_v + h]) : 1.0f;
        float *read = has_t ? out + ((size_t)t * n_v + h) * dv : unused;
        sweep(nvec, Sh, dk, kw, qw, has_t ? delta : zeros, decay, kl, read, pred);
        if (has_next) { /* 3. (next sweep) the difference token t + 1 will write, β of it */
            const float *vn = v + ((size_t)(t + 1) * n_v + h) * dv;
            float b = beta[(size_t)(t + 1) * n_v + h];
            for (int j = 0; j < dv; j++) delta[j] = (vn[j] - pred[j]) * b;
        }
    }
}

void delta_rule(const float *q, const float *k, const float *v, const float *g, const float *beta, int T,
                int n_k, int n_v, int dk, int dv, const float *S0, float *S, float *out) {
    size_t table = (size_t)dk * dv;
    int rep = n_v / n_k;                     /* value head h reads key head h / rep */
    int nvec = dv % VEC == 0 ? dv / VEC : 0; /* vectors per row; 0: rows that are not whole vectors */
    if (nvec != 8 && nvec != 4 && nvec != 2 && nvec != 1) nvec = 0;
    int nz = dk > dv ? dk : dv;
    float *zeros = xcalloc((size_t)nz, sizeof(float)); /* [max(dk, dv)] */
#pragma omp parallel
    {
        float *pred = nvec ? NULL : xmalloc((size_t)dv * sizeof(float)); /* [dv] */
#pragma omp for schedule(static)
        for (int h = 0; h < n_v; h++) {
            float *Sh = S + h * table; /* [dk, dv] */
            start_tables(S0 ? S0 + h * table : NULL, Sh, table);
            /* A constant row width lets the compiler keep the running sums in registers. */
            int kh = h / rep;
            switch (nvec) {
            case 8:
                delta_rule_head_fast(8, q, k, v, g, beta, T, n_k, n_v, kh, h, dk, Sh, out, S0 == NULL, zeros);
                break;
            case 4:
                delta_rule_head_fast(4, q, k, v, g, beta, T, n_k, n_v, kh, h, dk, Sh, out, S0 == NULL, zeros);
                break;
            case 2:
                delta_rule_head_fast(2, q, k, v, g, beta, T, n_k, n_v, kh, h, dk, Sh, out, S0 == NULL, zeros);
                break;
            case 1:
                delta_rule_head_fast(1, q, k, v, g, beta, T, n_k, n_v, kh, h, dk, Sh, out, S0 == NULL, zeros);
                break;
            default:
                delta_rule_head_ref(q, k, v, g, beta, T, n_k, n_v, kh, h, dk, dv, Sh, out, pred);
            }
        }
        free(pred);
    }
    free(zeros);
}

/* ---- SiLU over many numbers ------------------------------------------------ */

/* e^x as plain arithmetic that the compiler turns into vector instructions, so a
 * whole row of SiLUs runs 16 at a time (the C library's expf does one number at a
 * time, and was most of the convolution's time on a 159-token text). The classic
 * recipe (Cephes' expf): write x = n·ln 2 + r with n a whole number and |r| ≤ ln 2 / 2,
 * take e^r from a degree-6 polynomial, and multiply by 2^n, which is just n put
 * into the exponent bits. Within 1 float32 step (ulp) of the exact value for
 * −87 ≤ x ≤ 88; x is clamped to that range (e^x is then at most 1.7e38, and at
 * least 1.6e−38, a normal float). */
static inline float exp_vec(float x) {
    x = x < -87.0f ? -87.0f : x;
    x = x > 88.0f ? 88.0f : x;
    /* n = round(x / ln 2): adding and removing 1.5·2^23 leaves the nearest whole number */
    float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
    /* r = x − n·ln 2, with ln 2 in two parts (0.693359375 is exact in a few bits), so
     * the product n·ln 2 loses nothing */
    float r = x - n * 0.693359375f + n * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f; /* e^r */
    union {
        int32_t bits;
        float value;
    } two_n = {.bits = ((int32_t)n + 127) << 23}; /* 2^n */
    return p * two_n.value;
}

/* y = silu(x) = x · sigmoid(x) = x / (1 + e^−x), n numbers (y may be x). Within 2e-7
 * relative of the exact value (the tests hold it to siluf). */
void silu_vec(float *y, const float *x, int64_t n) {
#pragma omp simd
    for (int64_t i = 0; i < n; i++) y[i] = x[i] / (1.0f + exp_vec(-x[i]));
}

/* ---- the gated RMSNorm of the output ---------------------------------------- */

void gated_norm_heads(float *y, const float *o, const float *z, const float *w, int n_heads, int dv,
                      float eps) {
    silu_vec(y, z, (int64_t)n_heads * dv); /* the gate silu(z) first, 16 at a time */
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

void causal_conv_silu(const float *x, int T, int C, int kernel, const float *w, float *state, float *out) {
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
            silu_vec(o, o, n);
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

/* ---- the layer --------------------------------------------------------------- */

void dn_init(DeltaNet *dn, const Config *c, const DeltaNetWeights *w) {
    memset(dn, 0, sizeof *dn);
    dn_dims(&dn->d, c);
    const DeltaNetDims *d = &dn->d;
    dn->w = w;
    /* conv1d.weight is [conv_dim, 1, kernel]: the taps of one channel together.
     * Stored tap-major instead, so tap j of all channels is one contiguous row. */
    float *taps = xmalloc((size_t)d->conv_dim * d->kernel * sizeof(float)); /* [conv_dim, kernel] */
    tensor_read_f32(w->conv1d, 0, (int64_t)d->conv_dim * d->kernel, taps);
    dn->conv_w = xaligned_alloc((size_t)d->kernel * d->conv_dim * sizeof(float)); /* [kernel, conv_dim] */
    for (int ch = 0; ch < d->conv_dim; ch++)
        for (int j = 0; j < d->kernel; j++)
            dn->conv_w[(size_t)j * d->conv_dim + ch] = taps[(size_t)ch * d->kernel + j];
    free(taps);
    dn->neg_A = xmalloc((size_t)d->n_v * sizeof(float));
    dn->dt_bias = xmalloc((size_t)d->n_v * sizeof(float));
    tensor_read_f32(w->A_log, 0, d->n_v, dn->neg_A);
    for (int h = 0; h < d->n_v; h++) dn->neg_A[h] = -expf(dn->neg_A[h]);
    tensor_read_f32(w->dt_bias, 0, d->n_v, dn->dt_bias);
    dn->norm_w = xmalloc((size_t)d->dv * sizeof(float));
    tensor_read_f32(w->norm, 0, d->dv, dn->norm_w);
}

void dn_free(DeltaNet *dn) {
    free(dn->conv_w);
    free(dn->neg_A);
    free(dn->dt_bias);
    free(dn->norm_w);
    memset(dn, 0, sizeof *dn);
}

void dn_state_init(DeltaNetState *s, const DeltaNetDims *d) {
    s->conv =
        xaligned_alloc((size_t)(d->kernel - 1) * d->conv_dim * sizeof(float)); /* [kernel − 1, conv_dim] */
    s->S = xaligned_alloc((size_t)d->n_v * d->dk * d->dv * sizeof(float));
    dn_state_reset(s, d);
}

void dn_state_reset(DeltaNetState *s, const DeltaNetDims *d) {
    memset(s->conv, 0, (size_t)(d->kernel - 1) * d->conv_dim * sizeof(float));
    memset(s->S, 0, (size_t)d->n_v * d->dk * d->dv * sizeof(float));
    s->n_tokens = 0;
}

void dn_state_free(DeltaNetState *s) {
    free(s->conv);
    free(s->S);
    memset(s, 0, sizeof *s);
}

void dn_acts_init(DeltaNetActs *a, const DeltaNetDims *d, int cap) {
    size_t T = (size_t)cap;
    a->cap = cap;
    a->qkv = xaligned_alloc(T * d->conv_dim * sizeof(float));
    a->conv = xaligned_alloc(T * d->conv_dim * sizeof(float));
    a->q = xaligned_alloc(T * d->key_dim * sizeof(float));
    a->k = xaligned_alloc(T * d->key_dim * sizeof(float));
    a->v = xaligned_alloc(T * d->value_dim * sizeof(float));
    a->beta = xaligned_alloc(T * d->n_v * sizeof(float));
    a->g = xaligned_alloc(T * d->n_v * sizeof(float));
    a->core = xaligned_alloc(T * d->value_dim * sizeof(float));
    a->z = xaligned_alloc(T * d->value_dim * sizeof(float));
    a->normed = xaligned_alloc(T * d->value_dim * sizeof(float));
}

void dn_acts_free(DeltaNetActs *a) {
    float *bufs[] = {a->qkv, a->conv, a->q, a->k, a->v, a->beta, a->g, a->core, a->z, a->normed};
    for (size_t i = 0; i < ARRAY_LEN(bufs); i++) free(bufs[i]);
    memset(a, 0, sizeof *a);
}

/* One token: linear() streams the weights once; several: linear_batch() reuses
 * each weight row for every token. Both give the same bits for a token. */
static void project(const Tensor *w, const float *x, int T, float *y) {
    if (T == 1)
        linear(w, x, y);
    else
        linear_batch(w, x, T, y);
}

void dn_forward(const DeltaNet *dn, const float *x, int T, float *y, DeltaNetState *state,
                DeltaNetActs *acts) {
    const DeltaNetDims *d = &dn->d;
    const DeltaNetWeights *w = dn->w;
    DeltaNetActs own_acts;
    DeltaNetState own_state;
    if (!acts || acts->cap < T) {
        if (acts) die("dn_forward: activation buffers hold %d tokens, not %d", acts->cap, T);
        dn_acts_init(&own_acts, d, T);
        acts = &own_acts;
    }
    if (!state) {
        dn_state_init(&own_state, d);
        state = &own_state;
    }
    DeltaNetActs *a = acts;

    /* The four projections of the token (all T tokens at once). */
    project(w->in_proj_qkv, x, T, a->qkv); /* [T, conv_dim] */
    project(w->in_proj_z, x, T, a->z);     /* [T, value_dim] */
    project(w->in_proj_b, x, T, a->beta);  /* [T, n_v], b before the sigmoid */
    project(w->in_proj_a, x, T, a->g);     /* [T, n_v], a before it becomes g */

    /* q, k and v are not projected directly: every channel first sees its own last
     * kernel tokens through the causal convolution, then SiLU. */
    causal_conv_silu(a->qkv, T, d->conv_dim, d->kernel, dn->conv_w, state->conv, a->conv);

    /* Per token: split into q | k | v (heads of dk / dv consecutive numbers), make
     * each head of q and k unit length (q also / sqrt(dk), so what is read keeps
     * its scale), and the two gates, one number per head: β how strongly to write,
     * g the log of the decay (always ≤ 0, so e^g ∈ (0, 1]). */
    float sqrt_dk = sqrtf((float)d->dk);
#pragma omp parallel for schedule(static)
    for (int t = 0; t < T; t++) {
        const float *c = a->conv + (size_t)t * d->conv_dim; /* [conv_dim] */
        float *q = a->q + (size_t)t * d->key_dim;           /* [n_k, dk] */
        float *k = a->k + (size_t)t * d->key_dim;           /* [n_k, dk] */
        l2norm(q, c, d->n_k, d->dk, L2NORM_EPS);
        l2norm(k, c + d->key_dim, d->n_k, d->dk, L2NORM_EPS);
        for (int i = 0; i < d->key_dim; i++) q[i] /= sqrt_dk;
        memcpy(a->v + (size_t)t * d->value_dim, c + 2 * d->key_dim, (size_t)d->value_dim * sizeof(float));
        for (int h = 0; h < d->n_v; h++) {
            size_t i = (size_t)t * d->n_v + h;
            a->beta[i] = sigmoidf(a->beta[i]);
            a->g[i] = dn->neg_A[h] * softplusf(a->g[i] + dn->dt_bias[h]);
        }
    }

    /* The memory tables, token by token (the heads in parallel). */
    delta_rule(a->q, a->k, a->v, a->g, a->beta, T, d->n_k, d->n_v, d->dk, d->dv,
               state->n_tokens == 0 ? NULL : state->S, state->S, a->core); /* no tokens yet: empty tables */

    /* Normalize each head's output and gate it with silu(z). */
#pragma omp parallel for schedule(static)
    for (int t = 0; t < T; t++) {
        size_t at = (size_t)t * d->value_dim;
        gated_norm_heads(a->normed + at, a->core + at, a->z + at, dn->norm_w, d->n_v, d->dv, d->eps);
    }
    /* And back to the residual stream. */
    project(w->out_proj, a->normed, T, y); /* [T, hidden] */
    state->n_tokens += T;

    if (state == &own_state) dn_state_free(&own_state);
    if (acts == &own_acts) dn_acts_free(&own_acts);
}

int64_t dn_param_count(const DeltaNetWeights *w) {
    const Tensor *all[] = {w->in_proj_qkv, w->in_proj_z, w->in_proj_b, w->in_proj_a, w->conv1d,
                           w->dt_bias,     w->A_log,     w->norm,      w->out_proj};
    int64_t n = 0;
    for (size_t i = 0; i < ARRAY_LEN(all); i++) n += all[i]->numel;
    return n;
}
