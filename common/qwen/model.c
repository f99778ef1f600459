/* model.c — the whole Qwen3.5 (see model.h). */
#include "model.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "embedding.h"
#include "linear.h"
#include "norm.h"
#include "workbook/buffers.h"

static bool load_layer(const Checkpoint *ck, int i, Layer *l, Error *err) {
    int64_t H = ck->config.hidden_size;
    l->type = ck->config.layer_types[i];
    if (!(l->input_layernorm = ckpt_layer_tensor(ck, i, "input_layernorm.weight", 1, (int64_t[]){H}, err)) ||
        !(l->post_attention_layernorm =
              ckpt_layer_tensor(ck, i, "post_attention_layernorm.weight", 1, (int64_t[]){H}, err)) ||
        !mlp_load(&l->mlp, ck, i, err))
        return false;
    if (l->type == LAYER_FULL_ATTENTION) return attn_load(&l->self_attn, ck, i, err);
    return dn_load(&l->linear_attn, ck, i, err);
}

bool model_open(Model *m, const char *dir, Error *err) {
    memset(m, 0, sizeof *m);
    if (!ckpt_open(&m->ck, dir, err)) return false;
    const Config *c = &m->ck.config;
    int64_t V = c->vocab_size, H = c->hidden_size;
    bool ok = (m->embed_tokens = ckpt_expect(&m->ck, "embed_tokens.weight", 2, (int64_t[]){V, H}, err)) &&
              (m->norm = ckpt_expect(&m->ck, "norm.weight", 1, (int64_t[]){H}, err));
    if (ok) {
        m->tied = ckpt_find(&m->ck, "lm_head.weight") == NULL;
        m->lm_head =
            m->tied ? m->embed_tokens : ckpt_expect(&m->ck, "lm_head.weight", 2, (int64_t[]){V, H}, err);
        ok = m->lm_head != NULL && emb_init(&m->embed, m->embed_tokens, err) &&
             emb_init(&m->head, m->lm_head, err);
    }
    if (ok) {
        m->layers = xcalloc((size_t)c->num_hidden_layers, sizeof *m->layers);
        for (int i = 0; ok && i < c->num_hidden_layers; i++) ok = load_layer(&m->ck, i, &m->layers[i], err);
    }
    if (!ok) model_close(m);
    return ok;
}

/* Drops the 8-bit weights: the model multiplies by the checkpoint's again. */
static void unpack(Model *m) {
    for (int i = 0; i < m->n_packed; i++) q8_free(m->packed[i].q8);
    free(m->packed);
    m->packed = NULL, m->n_packed = 0;
    m->quant = QUANT_BF16;
}

void model_close(Model *m) {
    unpack(m);
    for (int i = 0; m->layers && i < m->ck.config.num_hidden_layers; i++)
        if (m->layers[i].type == LAYER_LINEAR_ATTENTION) dn_free(&m->layers[i].linear_attn);
    ckpt_close(&m->ck);
    free(m->layers);
    memset(m, 0, sizeof *m);
}

/* ---- 8-bit weights ------------------------------------------------------------------ */

static const char *const QUANT_NAME[] = {[QUANT_BF16] = "bf16", [QUANT_Q8_0] = "q8_0"};

const char *quant_name(Quant q) { return QUANT_NAME[q]; }

bool quant_parse(const char *s, Quant *q) {
    for (size_t i = 0; i < ARRAY_LEN(QUANT_NAME); i++)
        if (strcmp(s, QUANT_NAME[i]) == 0) {
            *q = (Quant)i;
            return true;
        }
    return false;
}

/* The range of the activations' integers (quant.h), chosen by measuring the whole
 * model: bench_model --quant q8_0 --quick on the full synthetic checkpoint, 2 threads,
 * the logits of the 139-token prompt against those of the checkpoint's weights:
 *
 *                prefill of 139   decode after 139   worst relative RMS   same top token
 *     Q8_ACT8    423 tok/s        38.4 tok/s         0.120                134 of 139
 *     Q8_ACT16   243-253 tok/s    36.0-37.7 tok/s    0.061                136 of 139
 *
 * Q8_ACT16 halves the error (to that of the weights alone) for a decode a few percent
 * slower, within the noise of the machine, and a prefill still far above the goal (151
 * tok/s). One range for prefill and decode, so that they agree bit for bit (model.h). */
#define MODEL_Q8_RANGE Q8_ACT16

/* Appends the stack of the n matrices w (packed into *q8) to list (when there is one)
 * at *n_list. */
static void add_stack(PackedMatrix *list, int *n_list, const Tensor *const *w, int n, Q8Weights *q8) {
    if (list) {
        list[*n_list] = (PackedMatrix){.n = n, .q8 = q8};
        for (int i = 0; i < n; i++) list[*n_list].w[i] = w[i];
    }
    (*n_list)++;
}

/* Everything the 8-bit model multiplies by, into list (NULL: only counted): the one list
 * the packing, the release of the BF16 pages and the sizes follow. Matrices that read the
 * same input are one stack. The output head comes first: it is the largest (a third of
 * the bytes), so its BF16 pages are given back before any layer's come in, and never
 * sit beside all the packed ones. */
static int matrices(Model *m, PackedMatrix *list) {
    int n = 0;
    add_stack(list, &n, &m->lm_head, 1, &m->head_q8);
    for (int i = 0; i < m->ck.config.num_hidden_layers; i++) {
        Layer *l = &m->layers[i];
        if (l->type == LAYER_FULL_ATTENTION) {
            const AttnWeights *w = &l->self_attn.w;
            AttnQ8 *q8 = &l->self_attn.q8;
            add_stack(list, &n, (const Tensor *[]){w->q_proj, w->k_proj, w->v_proj}, 3, &q8->qkv);
            add_stack(list, &n, &w->o_proj, 1, &q8->o_proj);
        } else {
            const DeltaNetWeights *w = &l->linear_attn.w;
            DeltaNetQ8 *q8 = &l->linear_attn.q8;
            add_stack(list, &n, (const Tensor *[]){w->in_proj_qkv, w->in_proj_z, w->in_proj_b, w->in_proj_a},
                      4, &q8->in_proj);
            add_stack(list, &n, &w->out_proj, 1, &q8->out_proj);
        }
        const MlpWeights *w = &l->mlp.w;
        MlpQ8 *q8 = &l->mlp.q8;
        add_stack(list, &n, (const Tensor *[]){w->gate_proj, w->up_proj}, 2, &q8->gate_up);
        add_stack(list, &n, &w->down_proj, 1, &q8->down_proj);
    }
    return n;
}

/* The bytes a stack takes packed. */
static uint64_t stack_bytes(const PackedMatrix *p) {
    int64_t outs[Q8_MAX_PARTS];
    for (int i = 0; i < p->n; i++) outs[i] = p->w[i]->shape[0];
    return q8_stack_bytes(outs, p->n, p->w[0]->shape[1]);
}

uint64_t model_quant_bytes(const Model *m, Quant q) {
    if (q == QUANT_BF16) return 0;
    Model *mm = (Model *)m; /* matrices() only reads it here: the list goes to a copy */
    int n = matrices(mm, NULL);
    PackedMatrix *list = xmalloc((size_t)n * sizeof *list);
    matrices(mm, list);
    uint64_t bytes = 0;
    for (int i = 0; i < n; i++) bytes = size_add(bytes, stack_bytes(&list[i]));
    free(list);
    return bytes;
}

bool model_quantize(Model *m, Quant q, Error *err) {
    if (q == m->quant) return true;
    if (q == QUANT_BF16)
        return error_set(err, "model_quantize: 8-bit weights cannot go back to the checkpoint's");
    char what[64 + PATH_MAX];
    snprintf(what, sizeof what, "the 8-bit weights of %s", m->ck.dir);
    if (!mem_check(model_quant_bytes(m, q), what, err)) return false;
    int n = matrices(m, NULL);
    m->packed = xcalloc((size_t)n, sizeof *m->packed);
    matrices(m, m->packed);
    for (int i = 0; i < n; i++) {
        const PackedMatrix *p = &m->packed[i];
        if (!q8_pack_stack(p->w, p->n, p->q8, err)) { /* q8_pack_stack leaves nothing behind */
            unpack(m);
            return false;
        }
        m->n_packed = i + 1;
        for (int j = 0; j < p->n; j++) ckpt_release_pages(&m->ck, p->w[j]); /* the 8-bit form is read now */
    }
    m->quant = q;
    return true;
}

/* Whether t is one of the packed matrices (its pages given back to the file). */
static bool is_packed(const Model *m, const Tensor *t) {
    for (int i = 0; i < m->n_packed; i++)
        for (int j = 0; j < m->packed[i].n; j++)
            if (m->packed[i].w[j] == t) return true;
    return false;
}

int64_t model_param_count(const Model *m) {
    int64_t n = 0;
    for (int i = 0; i < m->ck.n_refs; i++) n += m->ck.refs[i]->numel;
    return n;
}

int64_t model_weight_bytes(const Model *m) {
    int64_t n = 0;
    for (int i = 0; i < m->ck.n_refs; i++)
        if (!is_packed(m, m->ck.refs[i])) n += m->ck.refs[i]->numel * dtype_size(m->ck.refs[i]->dtype);
    for (int i = 0; i < m->n_packed; i++) n += (int64_t)stack_bytes(&m->packed[i]);
    return n;
}

/* ---- the run state ---------------------------------------------------------------- */

/* The widest input of any packed matrix: the numbers the run state's quantized input
 * must hold per token. */
static int64_t widest_input(const Model *m) {
    int64_t in = 0;
    for (int i = 0; i < m->n_packed; i++) in = m->packed[i].q8->in > in ? m->packed[i].q8->in : in;
    return in;
}

/* The run state's own buffers for passes of chunk tokens: the one place their sizes
 * are written (the blocks list theirs). */
static int run_buffers(RunState *s, const Config *c, int64_t chunk, BufferSpec *b) {
    uint64_t stream = size_mul((uint64_t)chunk, (uint64_t)c->hidden_size);
    b[0] = (BufferSpec){&s->x, stream};                       /* [chunk, hidden] */
    b[1] = (BufferSpec){&s->normed, stream};                  /* [chunk, hidden] */
    b[2] = (BufferSpec){&s->out, stream};                     /* [chunk, hidden] */
    b[3] = (BufferSpec){&s->logits, (uint64_t)c->vocab_size}; /* [vocab] */
    return 4;
}

void run_init(RunState *s, const Model *m, int chunk) {
    const Config *c = &m->ck.config;
    if (chunk < 1) chunk = 1;
    memset(s, 0, sizeof *s);
    s->chunk = chunk;
    s->max_pos = c->max_position_embeddings;
    BufferSpec b[4];
    s->memory = buffers_alloc(b, run_buffers(s, c, chunk, b));
    if (m->quant == QUANT_Q8_0) q8_act_init(&s->xq, chunk, widest_input(m), MODEL_Q8_RANGE);
    s->n_layers = c->num_hidden_layers;
    s->layers = xcalloc((size_t)s->n_layers, sizeof *s->layers);
    bool any_attn = false, any_dn = false;
    for (int i = 0; i < c->num_hidden_layers; i++) {
        const Layer *l = &m->layers[i];
        s->layers[i].type = l->type;
        if (l->type == LAYER_FULL_ATTENTION) {
            kv_init(&s->layers[i].kv, &l->self_attn.d, 0);
            if (!any_attn) attn_acts_init(&s->attn, &l->self_attn.d, chunk);
            any_attn = true;
        } else {
            dn_state_init(&s->layers[i].dn, &l->linear_attn.d);
            if (!any_dn) dn_acts_init(&s->dn, &l->linear_attn.d, chunk);
            any_dn = true;
        }
    }
    mlp_acts_init(&s->mlp, &m->layers[0].mlp.d, chunk);
    rope_init_config(&s->rope, c, 0);
    if (m->quant == QUANT_Q8_0) s->mlp.xq = s->attn.xq = s->dn.xq = &s->xq; /* one buffer, used in turn */
}

void run_free(RunState *s) {
    for (int i = 0; s->layers && i < s->n_layers; i++) {
        kv_free(&s->layers[i].kv);
        dn_state_free(&s->layers[i].dn);
    }
    free(s->layers);
    attn_acts_free(&s->attn);
    dn_acts_free(&s->dn);
    mlp_acts_free(&s->mlp);
    rope_free(&s->rope);
    q8_act_free(&s->xq);
    free(s->memory);
    memset(s, 0, sizeof *s);
}

void run_reset(RunState *s) {
    for (int i = 0; i < s->n_layers; i++) {
        if (s->layers[i].type == LAYER_FULL_ATTENTION)
            kv_reset(&s->layers[i].kv);
        else
            dn_state_reset(&s->layers[i].dn);
    }
    s->pos = 0;
}

uint64_t run_bytes(const Model *m, int chunk, int64_t n) {
    const Config *c = &m->ck.config;
    RunState s;
    BufferSpec b[4];
    uint64_t bytes = buffers_bytes(b, run_buffers(&s, c, chunk, b));
    bytes = size_add(bytes, mlp_acts_bytes(&m->layers[0].mlp.d, chunk));
    bytes = size_add(bytes, rope_table_bytes(c->rotary_dim, n));
    if (m->quant == QUANT_Q8_0)
        bytes = size_add(bytes, size_add(model_quant_bytes(m, m->quant),
                                         q8_act_bytes(chunk, widest_input(m), MODEL_Q8_RANGE)));
    bool attn = false, dn = false;
    for (int i = 0; i < c->num_hidden_layers; i++) {
        const Layer *l = &m->layers[i];
        if (l->type == LAYER_FULL_ATTENTION) {
            bytes = size_add(bytes, kv_cache_bytes(&l->self_attn.d, n));
            if (!attn) bytes = size_add(bytes, attn_acts_bytes(&l->self_attn.d, chunk, n));
            attn = true;
        } else {
            bytes = size_add(bytes, dn_state_bytes(&l->linear_attn.d));
            if (!dn) bytes = size_add(bytes, dn_acts_bytes(&l->linear_attn.d, chunk));
            dn = true;
        }
    }
    return bytes;
}

int64_t run_kv_bytes(const RunState *s) {
    int64_t n = 0;
    for (int i = 0; i < s->n_layers; i++)
        if (s->layers[i].type == LAYER_FULL_ATTENTION) n += kv_bytes_used(&s->layers[i].kv);
    return n;
}

int64_t run_state_bytes(const RunState *s) {
    int64_t n = run_kv_bytes(s);
    for (int i = 0; i < s->n_layers; i++) {
        const DeltaNetState *dn = &s->layers[i].dn;
        if (s->layers[i].type == LAYER_LINEAR_ATTENTION)
            n += (int64_t)((dn->conv_floats + dn->table_floats) * sizeof(float));
    }
    return n;
}

/* ---- the forward pass --------------------------------------------------------------- */

/* x += y, n numbers: the residual connection. */
static void add_to(float *x, const float *y, size_t n) {
    for (size_t i = 0; i < n; i++) x[i] += y[i];
}

/* RMSNorm of `rows` rows: the readable loops, or on the fast path their twin (the same
 * bits, kernels/norm.c). */
static void norm_rows(const RunState *s, const float *x, const Tensor *w, int64_t rows, int n, float eps, float *y) {
    (s->path == PATH_READABLE ? rmsnorm : rmsnorm_fast)(x, w, rows, n, eps, y);
}

/* Decoder layer i on the T tokens in s->x [T, hidden], in place:
 *     x ← x + Mixer(RMSNorm(x; input_layernorm))          the mixer reads and extends the layer's state
 *     x ← x + MLP(RMSNorm(x; post_attention_layernorm)) */
static void decoder_layer(const Model *m, int i, RunState *s, int T) {
    const Layer *l = &m->layers[i];
    LayerState *st = &s->layers[i];
    int H = m->ck.config.hidden_size;
    float eps = (float)m->ck.config.rms_norm_eps;
    size_t n = (size_t)T * H;

    norm_rows(s, s->x, l->input_layernorm, T, H, eps, s->normed);
    if (l->type == LAYER_FULL_ATTENTION)
        attn_forward(&l->self_attn, &s->attn, s->normed, T, &st->kv, &s->rope, s->out, s->path);
    else
        dn_forward(&l->linear_attn, &s->dn, s->normed, T, &st->dn, s->out, s->path);
    add_to(s->x, s->out, n);

    norm_rows(s, s->x, l->post_attention_layernorm, T, H, eps, s->normed);
    mlp_forward(&l->mlp, &s->mlp, s->normed, T, s->out, s->path);
    add_to(s->x, s->out, n);
}

/* logits = lm_head · h for T hidden states h [T, hidden]: chapter 2's tied head
 * (emb_logits), or its 8-bit rows. */
static void output_head(const Model *m, RunState *s, const float *h, int T, float *logits) {
    if (m->quant == QUANT_BF16) {
        emb_logits(&m->head, h, T, logits, s->path);
        return;
    }
    ProjInput in = proj_input(h, T, m->ck.config.hidden_size, &s->xq, s->path);
    proj_apply(&in, m->lm_head, &m->head_q8, logits);
}

/* T ≤ s->chunk tokens through the whole model. t0: where they sit in the call's
 * trace. last: the call's last piece, whose last token gives s->logits. */
static void forward_piece(const Model *m, RunState *s, const int *ids, int T, int t0, bool last,
                          const ModelTrace *tr) {
    const Config *c = &m->ck.config;
    int H = c->hidden_size, V = c->vocab_size;
    size_t row = (size_t)H * sizeof(float);
    float eps = (float)c->rms_norm_eps;

    /* x = E[ids]: the embedding rows (model_forward checked the ids). With 8-bit weights
     * too, the checkpoint's exact rows: the 8-bit head's rows would cost nothing in time
     * (a token reads one row) but made the logits' error larger (measured as above: worst
     * relative RMS 0.078 instead of 0.061, same top token at 135 of 139 instead of 136). */
    Error unused;
    emb_lookup(&m->embed, ids, T, s->x, &unused);
    if (tr && tr->embed) memcpy(tr->embed + (size_t)t0 * H, s->x, (size_t)T * row);

    for (int i = 0; i < c->num_hidden_layers; i++) {
        decoder_layer(m, i, s, T);
        if (tr && tr->layer && tr->layer[i]) memcpy(tr->layer[i] + (size_t)t0 * H, s->x, (size_t)T * row);
    }
    s->pos += T;

    /* logits = lm_head · RMSNorm(x; norm): for every token when the trace wants them,
     * otherwise only for the last token of the call (the next-token prediction) */
    if (tr && (tr->final_norm || tr->logits)) {
        norm_rows(s, s->x, m->norm, T, H, eps, s->normed);
        if (tr->final_norm) memcpy(tr->final_norm + (size_t)t0 * H, s->normed, (size_t)T * row);
        if (tr->logits) {
            float *logits = tr->logits + (size_t)t0 * V; /* [T, V] */
            output_head(m, s, s->normed, T, logits);
            if (last) memcpy(s->logits, logits + (size_t)(T - 1) * V, (size_t)V * sizeof(float));
            return;
        }
    }
    if (last) {
        norm_rows(s, s->x + (size_t)(T - 1) * H, m->norm, 1, H, eps, s->normed);
        output_head(m, s, s->normed, 1, s->logits);
    }
}

bool model_forward(const Model *m, RunState *s, const int *ids, int T, const ModelTrace *trace, Error *err) {
    const Config *c = &m->ck.config;
    if (T < 0) return error_set(err, "model_forward: %d tokens", T);
    for (int t = 0; t < T; t++)
        if (ids[t] < 0 || ids[t] >= c->vocab_size)
            return error_set(err, "token id %d is outside the vocabulary (0 .. %d)", ids[t],
                             c->vocab_size - 1);
    if (s->max_pos > 0 && s->pos + T > s->max_pos)
        return error_set(
            err,
            "%lld tokens do not fit in the context: max_position_embeddings is %lld in %s/config.json "
            "(%lld already read)",
            (long long)(s->pos + T), (long long)s->max_pos, m->ck.dir, (long long)s->pos);
    int step = s->path == PATH_READABLE ? 1 : s->chunk; /* the readable path reads one token at a time */
    for (int t0 = 0; t0 < T; t0 += step) {
        int n = T - t0 < step ? T - t0 : step;
        forward_piece(m, s, ids + t0, n, t0, t0 + n == T, trace);
    }
    return true;
}

/* ---- bringing the weights in ------------------------------------------------------ */

bool model_reads_whole(const Model *m, const Tensor *t) {
    return m->quant == QUANT_BF16 || !(is_packed(m, t) || t == m->embed_tokens);
}

/* Tensors in the order of their addresses: a shard's bytes front to back. */
static int by_address(const void *a, const void *b) {
    const char *x = (*(const Tensor *const *)a)->data, *y = (*(const Tensor *const *)b)->data;
    return (x > y) - (x < y);
}

void model_touch(Model *m, void (*progress)(int64_t done, int64_t total, void *ctx), void *ctx) {
    const long page = 4096;
    int n = 0;
    int64_t total = 0, done = 0;
    const Tensor **whole = xmalloc((size_t)m->ck.n_refs * sizeof *whole + 1);
    for (int i = 0; i < m->ck.n_refs; i++)
        if (model_reads_whole(m, m->ck.refs[i])) {
            whole[n++] = m->ck.refs[i];
            total += m->ck.refs[i]->numel * dtype_size(m->ck.refs[i]->dtype);
        }
    qsort(whole, (size_t)n, sizeof *whole, by_address);
    /* Tensors that follow each other in a file are one run of bytes: at each tensor, the
     * run so far is held, which moves the whole 2 MB pieces up to its end not held yet
     * (a piece that straddles two tensors too). */
    const char *run = NULL, *run_end = NULL;
    for (int i = 0; i < n; i++) {
        const Tensor *t = whole[i];
        const unsigned char *p = t->data;
        int64_t bytes = t->numel * dtype_size(t->dtype);
        if ((const char *)p != run_end) run = (const char *)p; /* a new run */
        run_end = (const char *)p + bytes;
        ckpt_hold(&m->ck, run, run_end);
        volatile unsigned char sink = 0;
        for (int64_t b = 0; b < bytes; b += page) sink ^= p[b]; /* one read per page brings the rest in */
        (void)sink;
        done += bytes;
        if (progress) progress(done, total, ctx);
    }
    free(whole);
}
