/* deltanet.c — the Gated DeltaNet layer (see deltanet.h). */
#include "deltanet.h"

#include <math.h>
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

void delta_rule_ref(const float *q, const float *k, const float *v, const float *g, const float *beta, int T,
                    int n_k, int n_v, int dk, int dv, const float *S0, float *S, float *out) {
    size_t table = (size_t)dk * dv;
    if (S0 == NULL) memset(S, 0, (size_t)n_v * table * sizeof(float)); /* empty tables at the start */
    else if (S0 != S) memcpy(S, S0, (size_t)n_v * table * sizeof(float));
    int rep = n_v / n_k;               /* value heads per key head */
    float *pred = xmalloc((size_t)dv * sizeof(float)); /* [dv] */
    for (int h = 0; h < n_v; h++) {
        float *Sh = S + h * table; /* [dk, dv]: row i is the slot of key dimension i */
        for (int t = 0; t < T; t++) {
            const float *kt = k + ((size_t)t * n_k + h / rep) * dk; /* [dk] */
            const float *qt = q + ((size_t)t * n_k + h / rep) * dk; /* [dk] */
            const float *vt = v + ((size_t)t * n_v + h) * dv;       /* [dv] */
            float *ot = out + ((size_t)t * n_v + h) * dv;           /* [dv] */
            float decay = expf(g[(size_t)t * n_v + h]), b = beta[(size_t)t * n_v + h];

            /* 1. decay: multiply the whole table by a number in (0, 1], forgetting a little */
            for (int i = 0; i < dk; i++)
                for (int j = 0; j < dv; j++) Sh[i * dv + j] *= decay;
            /* 2. look up with k: what the table thinks v should be, pred = Sᵀk */
            for (int j = 0; j < dv; j++) pred[j] = 0;
            for (int i = 0; i < dk; i++)
                for (int j = 0; j < dv; j++) pred[j] += kt[i] * Sh[i * dv + j];
            /* 3. write only the difference (delta), β of it: S += k (v − pred)ᵀ β */
            for (int i = 0; i < dk; i++)
                for (int j = 0; j < dv; j++) Sh[i * dv + j] += kt[i] * ((vt[j] - pred[j]) * b);
            /* 4. look up with q to get this token's output, o = Sᵀq */
            for (int j = 0; j < dv; j++) ot[j] = 0;
            for (int i = 0; i < dk; i++)
                for (int j = 0; j < dv; j++) ot[j] += qt[i] * Sh[i * dv + j];
        }
    }
    free(pred);
}

/* One head over T tokens: the same four steps, with step 1 folded into step 2's
 * pass over the table and step 3 into step 4's, so the table is swept twice per
 * token instead of four times. Every number is computed by the same operations in
 * the same order as in delta_rule_ref, so the results are identical. */
static void delta_rule_head(const float *q, const float *k, const float *v, const float *g, const float *beta,
                            int T, int n_k, int n_v, int kh, int h, int dk, int dv, float *restrict Sh,
                            float *restrict out, float *restrict pred, float *restrict delta) {
    for (int t = 0; t < T; t++) {
        const float *restrict kt = k + ((size_t)t * n_k + kh) * dk; /* [dk] */
        const float *restrict qt = q + ((size_t)t * n_k + kh) * dk; /* [dk] */
        const float *restrict vt = v + ((size_t)t * n_v + h) * dv;  /* [dv] */
        float *restrict ot = out + ((size_t)t * n_v + h) * dv;      /* [dv] */
        float decay = expf(g[(size_t)t * n_v + h]), b = beta[(size_t)t * n_v + h];

        /* 1. decay the table, and 2. look up with k: pred = Sᵀk, row by row */
        for (int j = 0; j < dv; j++) pred[j] = 0;
        for (int i = 0; i < dk; i++) {
            float *restrict row = Sh + (size_t)i * dv;
            float ki = kt[i];
#pragma omp simd
            for (int j = 0; j < dv; j++) {
                row[j] *= decay;
                pred[j] += ki * row[j];
            }
        }
        /* 3. the difference to write, β of it */
#pragma omp simd
        for (int j = 0; j < dv; j++) delta[j] = (vt[j] - pred[j]) * b;
        /* 3. write it into the slots of k, and 4. read the new table with q: o = Sᵀq */
        for (int j = 0; j < dv; j++) ot[j] = 0;
        for (int i = 0; i < dk; i++) {
            float *restrict row = Sh + (size_t)i * dv;
            float ki = kt[i], qi = qt[i];
#pragma omp simd
            for (int j = 0; j < dv; j++) {
                row[j] += ki * delta[j];
                ot[j] += qi * row[j];
            }
        }
    }
}

void delta_rule(const float *q, const float *k, const float *v, const float *g, const float *beta, int T, int n_k,
                int n_v, int dk, int dv, const float *S0, float *S, float *out) {
    size_t table = (size_t)dk * dv;
    int rep = n_v / n_k; /* value head h reads key head h / rep */
#pragma omp parallel
    {
        float *pred = xaligned_alloc((size_t)dv * sizeof(float));  /* [dv] */
        float *delta = xaligned_alloc((size_t)dv * sizeof(float)); /* [dv] */
#pragma omp for schedule(static)
        for (int h = 0; h < n_v; h++) {
            float *Sh = S + h * table; /* [dk, dv] */
            if (S0 == NULL) memset(Sh, 0, table * sizeof(float));
            else if (S0 != S) memcpy(Sh, S0 + h * table, table * sizeof(float));
            delta_rule_head(q, k, v, g, beta, T, n_k, n_v, h / rep, h, dk, dv, Sh, out, pred, delta);
        }
        free(pred);
        free(delta);
    }
}

/* ---- the short convolution ------------------------------------------------- */

void causal_conv_silu(const float *x, int T, int C, int kernel, const float *w, float *state, float *out) {
    int hist = kernel - 1; /* pre-conv vectors kept from before the first new token */
    /* Think of the rows as one window: the hist rows of state, then the T rows of x.
     * Token t's output uses window rows t … t + kernel − 1. */
#pragma omp parallel for schedule(static) if (T > 1)
    for (int t = 0; t < T; t++) {
        float *restrict o = out + (size_t)t * C; /* [C] */
        for (int c = 0; c < C; c++) o[c] = 0;
        for (int j = 0; j < kernel; j++) {
            int r = t + j;
            const float *restrict src = r < hist ? state + (size_t)r * C : x + (size_t)(r - hist) * C;
            const float *restrict wj = w + (size_t)j * C; /* tap j of every channel */
#pragma omp simd
            for (int c = 0; c < C; c++) o[c] += wj[c] * src[c];
        }
        for (int c = 0; c < C; c++) o[c] = siluf(o[c]);
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
        for (int j = 0; j < d->kernel; j++) dn->conv_w[(size_t)j * d->conv_dim + ch] = taps[(size_t)ch * d->kernel + j];
    free(taps);
    dn->neg_A = xmalloc((size_t)d->n_v * sizeof(float));
    dn->dt_bias = xmalloc((size_t)d->n_v * sizeof(float));
    tensor_read_f32(w->A_log, 0, d->n_v, dn->neg_A);
    for (int h = 0; h < d->n_v; h++) dn->neg_A[h] = -expf(dn->neg_A[h]);
    tensor_read_f32(w->dt_bias, 0, d->n_v, dn->dt_bias);
}

void dn_free(DeltaNet *dn) {
    free(dn->conv_w);
    free(dn->neg_A);
    free(dn->dt_bias);
    memset(dn, 0, sizeof *dn);
}

void dn_state_init(DeltaNetState *s, const DeltaNetDims *d) {
    s->conv = xaligned_alloc((size_t)(d->kernel - 1) * d->conv_dim * sizeof(float) + 64);
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
    if (T == 1) linear(w, x, y);
    else linear_batch(w, x, T, y);
}

void dn_forward(const DeltaNet *dn, const float *x, int T, float *y, DeltaNetState *state, DeltaNetActs *acts) {
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

    /* Split into q | k | v, heads of dk (dv) consecutive numbers. */
    for (int t = 0; t < T; t++) {
        const float *c = a->conv + (size_t)t * d->conv_dim;
        memcpy(a->q + (size_t)t * d->key_dim, c, (size_t)d->key_dim * sizeof(float));
        memcpy(a->k + (size_t)t * d->key_dim, c + d->key_dim, (size_t)d->key_dim * sizeof(float));
        memcpy(a->v + (size_t)t * d->value_dim, c + 2 * d->key_dim, (size_t)d->value_dim * sizeof(float));
    }
    /* Unit-length q and k per head; q also / sqrt(dk), so what is read keeps its scale. */
    l2norm(a->q, a->q, T * d->n_k, d->dk, L2NORM_EPS);
    l2norm(a->k, a->k, T * d->n_k, d->dk, L2NORM_EPS);
    float sqrt_dk = sqrtf((float)d->dk);
    for (size_t i = 0; i < (size_t)T * d->key_dim; i++) a->q[i] /= sqrt_dk;

    /* The two gates, one number per head and token: β how strongly to write,
     * g the log of the decay (always ≤ 0, so e^g ∈ (0, 1]). */
    for (int t = 0; t < T; t++)
        for (int h = 0; h < d->n_v; h++) {
            size_t i = (size_t)t * d->n_v + h;
            a->beta[i] = sigmoidf(a->beta[i]);
            a->g[i] = dn->neg_A[h] * softplusf(a->g[i] + dn->dt_bias[h]);
        }

    /* The memory tables, token by token. */
    delta_rule(a->q, a->k, a->v, a->g, a->beta, T, d->n_k, d->n_v, d->dk, d->dv, state->S, state->S, a->core);

    /* Normalize each head's output, gate it with silu(z), and back to the residual stream. */
    gated_rmsnorm(a->normed, a->core, a->z, T * d->n_v, d->dv, w->norm, d->eps);
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
