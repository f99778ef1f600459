/* deltanet.c — the Gated DeltaNet layer (see deltanet.h). */
#include "deltanet.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "activations.h"
#include "kernels/pool.h"
#include "linear.h"
#include "norm.h"
#include "workbook/buffers.h"
#include "workbook/util.h"

void dn_dims(DeltaNetDims *d, const Config *c) {
    d->hidden = c->hidden_size;
    d->n_k = c->linear_num_key_heads;
    d->n_v = c->linear_num_value_heads;
    d->dk = c->linear_key_head_dim;
    d->dv = c->linear_value_head_dim;
    d->kernel = c->linear_conv_kernel_dim;
    /* within CONFIG_MAX_WIDTH for a config cfg_parse read (config.h), so they fit an int */
    d->key_dim = (int)cfg_linear_key_dim(c);
    d->value_dim = (int)cfg_linear_value_dim(c);
    d->conv_dim = (int)cfg_linear_conv_dim(c);
    d->eps = (float)c->rms_norm_eps;
}

void dn_repeat_key_heads(const DeltaNetDims *d, const float *x, int T, float *y) {
    for (int t = 0; t < T; t++)
        for (int h = 0; h < d->n_v; h++)
            memcpy(y + ((size_t)t * d->n_v + h) * d->dk, x + ((size_t)t * d->n_k + dn_key_head(d, h)) * d->dk,
                   (size_t)d->dk * sizeof(float));
}

/* ---- the delta rule -------------------------------------------------------- */

/* One head, the formula as the book prints it, step by step per token.
 *   Sh: [dk, dv] the head's table, already holding the starting state
 *   kh: the key head this value head reads */
static void delta_rule_head_ref(const float *q, const float *k, const float *v, const float *g,
                                const float *beta, int T, int n_k, int n_v, int kh, int h, int dk, int dv,
                                float *Sh, float *out) {
    for (int t = 0; t < T; t++) {
        const float *kt = k + ((size_t)t * n_k + kh) * dk; /* [dk] */
        const float *qt = q + ((size_t)t * n_k + kh) * dk; /* [dk] */
        const float *vt = v + ((size_t)t * n_v + h) * dv;  /* [dv] */
        float *ot = out + ((size_t)t * n_v + h) * dv;      /* [dv] */
        float decay = expf(g[(size_t)t * n_v + h]), b = beta[(size_t)t * n_v + h];

        /* 1. decay: multiply the whole table by a number in (0, 1], forgetting a little */
        for (int i = 0; i < dk; i++)
            for (int j = 0; j < dv; j++) Sh[i * dv + j] *= decay;
        /* 2–3. for each value dimension j (a column of the table): */
        for (int j = 0; j < dv; j++) {
            /* 2. look up with k: what the table thinks v_j should be, pred_j = Σ_i k_i S_ij */
            float pred = 0;
            for (int i = 0; i < dk; i++) pred += kt[i] * Sh[i * dv + j];
            /* 3. write only the difference (delta), β of it: S_ij += k_i (v_j − pred_j) β */
            for (int i = 0; i < dk; i++) Sh[i * dv + j] += kt[i] * ((vt[j] - pred) * b);
        }
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
    int rep = n_v / n_k; /* value head h reads key head h / rep */
    for (int h = 0; h < n_v; h++)
        delta_rule_head_ref(q, k, v, g, beta, T, n_k, n_v, h / rep, h, dk, dv, S + h * table, out);
}

/* ---- the short convolution ----------------------------------------------------- */

void causal_conv_silu_ref(const float *x, const float *w, int T, int C, int kernel, float *state,
                          float *out) {
    int hist = kernel - 1; /* pre-conv vectors kept from before the first new token */
    /* Token t's window is rows t … t + kernel − 1 of (the hist rows of state, then x). */
    for (int t = 0; t < T; t++)
        for (int c = 0; c < C; c++) {
            float sum = 0.0f;
            for (int j = 0; j < kernel; j++) {
                int r = t + j;
                float in = r < hist ? state[(size_t)r * C + c] : x[(size_t)(r - hist) * C + c];
                sum += w[(size_t)j * C + c] * in; /* tap j of channel c */
            }
            out[(size_t)t * C + c] = siluf(sum);
        }
    /* The new history: the last hist rows of the window, oldest first. */
    for (int r = 0; r < hist; r++) {
        int from = T + r; /* row of the window */
        const float *src = from < hist ? state + (size_t)from * C : x + (size_t)(from - hist) * C;
        if (from != r) memmove(state + (size_t)r * C, src, (size_t)C * sizeof(float));
    }
}

/* ---- the layer --------------------------------------------------------------- */

/* The small weights as float32, converted once: each size written once. */
static int dn_small_buffers(DeltaNet *dn, BufferSpec *b) {
    const DeltaNetDims *d = &dn->d;
    b[0] = (BufferSpec){&dn->taps, (uint64_t)d->kernel * (uint64_t)d->conv_dim}; /* [kernel, conv_dim] */
    b[1] = (BufferSpec){&dn->norm_w, (uint64_t)d->dv};                           /* [dv] */
    b[2] = (BufferSpec){&dn->neg_A, (uint64_t)d->n_v};                           /* [n_v] */
    b[3] = (BufferSpec){&dn->dt_bias, (uint64_t)d->n_v};                         /* [n_v] */
    return 4;
}

/* conv1d.weight is [conv_dim, 1, kernel], the taps of a channel together; the
 * convolution wants tap j of every channel in one row. A_log becomes −exp(A_log),
 * the head's fixed forgetting speed. */
static void dn_convert_small(DeltaNet *dn) {
    const DeltaNetDims *d = &dn->d;
    const DeltaNetWeights *w = &dn->w;
    BufferSpec b[4];
    dn->memory = buffers_alloc(b, dn_small_buffers(dn, b));
    for (int ch = 0; ch < d->conv_dim; ch++)
        for (int j = 0; j < d->kernel; j++)
            dn->taps[(size_t)j * d->conv_dim + ch] = tensor_get_f32(w->conv1d, (int64_t)ch * d->kernel + j);
    tensor_read_f32(w->norm, 0, d->dv, dn->norm_w);
    for (int h = 0; h < d->n_v; h++) {
        dn->neg_A[h] = -expf(tensor_get_f32(w->A_log, h));
        dn->dt_bias[h] = tensor_get_f32(w->dt_bias, h);
    }
}

void dn_free(DeltaNet *dn) {
    free(dn->memory);
    dn->memory = NULL;
    dn->taps = dn->norm_w = dn->neg_A = dn->dt_bias = NULL;
}

bool dn_load(DeltaNet *dn, const Checkpoint *ck, int layer, Error *err) {
    memset(dn, 0, sizeof *dn);
    dn_dims(&dn->d, &ck->config);
    const DeltaNetDims *d = &dn->d;
    int64_t H = d->hidden, C = d->conv_dim, V = d->value_dim, Hv = d->n_v, K = d->kernel, dv = d->dv;
    DeltaNetWeights *w = &dn->w;
    bool ok =
        (w->in_proj_qkv =
             ckpt_layer_tensor(ck, layer, "linear_attn.in_proj_qkv.weight", 2, (int64_t[]){C, H}, err)) &&
        (w->in_proj_z =
             ckpt_layer_tensor(ck, layer, "linear_attn.in_proj_z.weight", 2, (int64_t[]){V, H}, err)) &&
        (w->in_proj_b =
             ckpt_layer_tensor(ck, layer, "linear_attn.in_proj_b.weight", 2, (int64_t[]){Hv, H}, err)) &&
        (w->in_proj_a =
             ckpt_layer_tensor(ck, layer, "linear_attn.in_proj_a.weight", 2, (int64_t[]){Hv, H}, err)) &&
        (w->conv1d =
             ckpt_layer_tensor(ck, layer, "linear_attn.conv1d.weight", 3, (int64_t[]){C, 1, K}, err)) &&
        (w->dt_bias = ckpt_layer_tensor(ck, layer, "linear_attn.dt_bias", 1, (int64_t[]){Hv}, err)) &&
        (w->A_log = ckpt_layer_tensor(ck, layer, "linear_attn.A_log", 1, (int64_t[]){Hv}, err)) &&
        (w->norm = ckpt_layer_tensor(ck, layer, "linear_attn.norm.weight", 1, (int64_t[]){dv}, err)) &&
        (w->out_proj =
             ckpt_layer_tensor(ck, layer, "linear_attn.out_proj.weight", 2, (int64_t[]){H, V}, err));
    if (ok) dn_convert_small(dn);
    return ok;
}

int64_t dn_param_count(const DeltaNet *dn) {
    const DeltaNetWeights *w = &dn->w;
    const Tensor *all[] = {w->in_proj_qkv, w->in_proj_z, w->in_proj_b, w->in_proj_a, w->conv1d,
                           w->dt_bias,     w->A_log,     w->norm,      w->out_proj};
    int64_t n = 0;
    for (size_t i = 0; i < ARRAY_LEN(all); i++) n += all[i]->numel;
    return n;
}

void dn_state_init(DeltaNetState *s, const DeltaNetDims *d) {
    *s = (DeltaNetState){.conv_floats = dn_conv_bytes(d) / sizeof(float),
                         .table_floats = dn_table_bytes(d) / sizeof(float)};
    BufferSpec b[2] = {{&s->conv, s->conv_floats}, {&s->S, s->table_floats}};
    s->memory = buffers_alloc(b, 2);
    dn_state_reset(s);
}

void dn_state_reset(DeltaNetState *s) {
    memset(s->conv, 0, s->conv_floats * sizeof(float));
    memset(s->S, 0, s->table_floats * sizeof(float));
    s->n_tokens = 0;
}

void dn_state_free(DeltaNetState *s) {
    free(s->memory);
    memset(s, 0, sizeof *s);
}

/* the tables [n_v, dk, dv] and the conv history [kernel − 1, conv_dim] */
size_t dn_table_bytes(const DeltaNetDims *d) { return (size_t)d->n_v * d->dk * d->dv * sizeof(float); }
size_t dn_conv_bytes(const DeltaNetDims *d) { return (size_t)(d->kernel - 1) * d->conv_dim * sizeof(float); }
size_t dn_state_bytes(const DeltaNetDims *d) { return dn_table_bytes(d) + dn_conv_bytes(d); }

/* DeltaNetActs's buffers for cap tokens: the one place their sizes are written. */
static int dn_buffers(DeltaNetActs *a, const DeltaNetDims *d, int64_t cap, BufferSpec *b) {
    uint64_t T = (uint64_t)cap;
    int n = 0;
    b[n++] = (BufferSpec){&a->qkv, size_mul(T, (uint64_t)d->conv_dim)};     /* [cap, conv_dim] */
    b[n++] = (BufferSpec){&a->conv, size_mul(T, (uint64_t)d->conv_dim)};    /* [cap, conv_dim] */
    b[n++] = (BufferSpec){&a->q, size_mul(T, (uint64_t)d->key_dim)};        /* [cap, n_k, dk] */
    b[n++] = (BufferSpec){&a->k, size_mul(T, (uint64_t)d->key_dim)};        /* [cap, n_k, dk] */
    b[n++] = (BufferSpec){&a->v, size_mul(T, (uint64_t)d->value_dim)};      /* [cap, n_v, dv] */
    b[n++] = (BufferSpec){&a->beta, size_mul(T, (uint64_t)d->n_v)};         /* [cap, n_v] */
    b[n++] = (BufferSpec){&a->g, size_mul(T, (uint64_t)d->n_v)};            /* [cap, n_v] */
    b[n++] = (BufferSpec){&a->core, size_mul(T, (uint64_t)d->value_dim)};   /* [cap, n_v, dv] */
    b[n++] = (BufferSpec){&a->z, size_mul(T, (uint64_t)d->value_dim)};      /* [cap, value_dim] */
    b[n++] = (BufferSpec){&a->normed, size_mul(T, (uint64_t)d->value_dim)}; /* [cap, value_dim] */
    return n;
}
enum { DN_BUFFERS = 10 };

void dn_acts_init(DeltaNetActs *a, const DeltaNetDims *d, int cap) {
    BufferSpec b[DN_BUFFERS];
    *a = (DeltaNetActs){.cap = cap};
    a->memory = buffers_alloc(b, dn_buffers(a, d, cap, b));
}

uint64_t dn_acts_bytes(const DeltaNetDims *d, int64_t cap) {
    DeltaNetActs a;
    BufferSpec b[DN_BUFFERS];
    return buffers_bytes(b, dn_buffers(&a, d, cap, b));
}

void dn_acts_free(DeltaNetActs *a) {
    free(a->memory);
    memset(a, 0, sizeof *a);
}

/* dn_forward's per-token steps, as pool tasks: token t of job's buffers. */
typedef struct {
    const DeltaNet *dn;
    DeltaNetActs *a;
    bool fast; /* the fast path: l2norm's twin (the same bits) */
} DnJob;

/* Splits token t's convolved vector into q | k | v (heads of dk / dv consecutive
 * numbers), makes each head of q and k unit length (q also / sqrt(dk), so what is read
 * keeps its scale), and turns its two gates into what the delta rule takes, one number
 * per head: β how strongly to write, g the log of the decay (always ≤ 0, so
 * e^g ∈ (0, 1]). */
static void split_token(void *ctx, int64_t t, int worker) {
    (void)worker;
    const DeltaNet *dn = ((DnJob *)ctx)->dn;
    DeltaNetActs *a = ((DnJob *)ctx)->a;
    const DeltaNetDims *d = &dn->d;
    const float *c = a->conv + (size_t)t * d->conv_dim; /* [conv_dim] */
    float *q = a->q + (size_t)t * d->key_dim;           /* [n_k, dk] */
    float *k = a->k + (size_t)t * d->key_dim;           /* [n_k, dk] */
    void (*l2)(const float *, int64_t, int, float, float *) = ((DnJob *)ctx)->fast ? l2norm_fast : l2norm;
    l2(c, d->n_k, d->dk, L2NORM_EPS, q);
    l2(c + d->key_dim, d->n_k, d->dk, L2NORM_EPS, k);
    float sqrt_dk = sqrtf((float)d->dk);
    for (int i = 0; i < d->key_dim; i++) q[i] /= sqrt_dk;
    memcpy(a->v + (size_t)t * d->value_dim, c + 2 * d->key_dim, (size_t)d->value_dim * sizeof(float));
    for (int h = 0; h < d->n_v; h++) {
        size_t i = (size_t)t * d->n_v + h;
        a->beta[i] = sigmoidf(a->beta[i]);
        a->g[i] = dn->neg_A[h] * softplusf(a->g[i] + dn->dt_bias[h]); /* −exp(A_log) · softplus(a + dt_bias) */
    }
}

/* Token t's heads normalized and gated (the fast path's gated_rmsnorm). */
static void gated_norm_token(void *ctx, int64_t t, int worker) {
    (void)worker;
    const DeltaNet *dn = ((DnJob *)ctx)->dn;
    DeltaNetActs *a = ((DnJob *)ctx)->a;
    const DeltaNetDims *d = &dn->d;
    size_t at = (size_t)t * d->value_dim;
    gated_norm_heads(a->core + at, a->z + at, dn->norm_w, d->n_v, d->dv, d->eps, a->normed + at);
}

void dn_forward(const DeltaNet *dn, DeltaNetActs *a, const float *x, int T, DeltaNetState *state, float *y,
                Path path) {
    const DeltaNetDims *d = &dn->d;
    const DeltaNetWeights *w = &dn->w;
    if (T > a->cap) die("dn_forward: buffers for %d tokens, called with %d", a->cap, T);
    bool ref = path == PATH_READABLE;

    /* The four projections of the token (all T tokens at once), all of the same x:
     * qkv [T, conv_dim], z [T, value_dim], and b and a [T, n_v], before the sigmoid and
     * before a becomes g. */
    ProjInput in = proj_input(x, T, d->hidden, a->xq, path);
    proj_stack(&in, (const Tensor *[]){w->in_proj_qkv, w->in_proj_z, w->in_proj_b, w->in_proj_a}, 4,
               &dn->q8.in_proj, (float *[]){a->qkv, a->z, a->beta, a->g});

    /* q, k and v are not projected directly: every channel first sees its own last
     * kernel tokens through the causal convolution, then SiLU. */
    (ref ? causal_conv_silu_ref : causal_conv_silu)(a->qkv, dn->taps, T, d->conv_dim, d->kernel, state->conv,
                                                    a->conv);

    /* Per token: q | k | v split, q and k made unit length, the gates β and g
     * (split_token). */
    DnJob job = {dn, a, !ref};
    pool_run(T, split_token, &job); /* the tokens are independent: shared out over the cores */

    /* The memory tables, token by token (the heads in parallel). No tokens yet: the
     * tables are empty. */
    const float *S0 = state->n_tokens == 0 ? NULL : state->S;
    (ref ? delta_rule_ref : delta_rule)(a->q, a->k, a->v, a->g, a->beta, T, d->n_k, d->n_v, d->dk, d->dv, S0,
                                        state->S, a->core);

    /* Normalize each head's output and gate it with silu(z). */
    if (ref) {
        gated_rmsnorm(a->core, a->z, w->norm, (int64_t)T * d->n_v, d->dv, d->eps, a->normed);
    } else {
        pool_run(T, gated_norm_token, &job); /* the same per token, the gate 16 at a time */
    }
    /* And back to the residual stream. */
    in = proj_input(a->normed, T, d->value_dim, a->xq, path);
    proj_apply(&in, w->out_proj, &dn->q8.out_proj, y); /* [T, hidden] */
    state->n_tokens += T;
}
