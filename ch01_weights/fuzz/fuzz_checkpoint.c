/* fuzz_checkpoint.c — model_open on a whole model folder made from the input
 * (qwen/model.h, qwen/weights.h).
 *
 * The input is split at the first two FUZZ_SPLIT lines into config.json, the index
 * and one shard:
 *
 *     config.json bytes  FUZZ_SPLIT  index bytes  FUZZ_SPLIT  shard bytes
 *
 * An empty index part means the single-file layout (the shard is written as
 * model.safetensors, no index); otherwise the shard is
 * model.safetensors-00001-of-00001.safetensors and the index says what it says.
 * A folder that model_open accepts must give every layer exactly the tensors the
 * config implies, recomputed here from the config's numbers (not from the layers'
 * own dims): each with the expected shape, its bytes inside a shard's data area
 * or in the shard's aligned copies. A folder it refuses must get one line that
 * names the folder or a file in it.
 */
#include <stdint.h>

#include "qwen/model.h"
#include "tests/fuzz.h"

#define FUZZ_SPLIT "\n--8<--\n"

static const char SHARD[] = "model.safetensors-00001-of-00001.safetensors";
static const char *const FILES[] = {"config.json", "model.safetensors.index.json", "model.safetensors", SHARD,
                                    NULL};

/* Where the bytes of t live: inside one shard's data area, or an aligned copy. */
static void check_bytes(const Checkpoint *ck, const Tensor *t) {
    size_t bytes = (size_t)t->numel * (size_t)dtype_size(t->dtype);
    for (int s = 0; s < ck->n_shards; s++) {
        const SafeTensors *st = &ck->shards[s];
        const unsigned char *lo = st->map, *hi = lo + st->size, *p = t->data;
        if (p >= lo && p <= hi) {
            FUZZ_CHECK(p >= lo + 8 && (size_t)(hi - p) >= bytes, "%s: bytes outside its shard", t->name);
            return;
        }
        for (int c = 0; c < st->n_copies; c++)
            if (st->copies[c] == t->data) return;
    }
    FUZZ_CHECK(bytes == 0, "%s: its bytes are in no shard", t->name);
}

static void check_shape(const Checkpoint *ck, const Tensor *t, const char *what, int ndim, int64_t a,
                        int64_t b, int64_t c) {
    FUZZ_CHECK(t != NULL, "%s was not loaded", what);
    const int64_t want[3] = {a, b, c};
    FUZZ_CHECK(t->ndim == ndim, "%s has %d dimensions, want %d", what, t->ndim, ndim);
    for (int d = 0; d < ndim; d++)
        FUZZ_CHECK(t->shape[d] == want[d], "%s: dimension %d is %lld, the config implies %lld", what, d,
                   (long long)t->shape[d], (long long)want[d]);
    int64_t numel = 1;
    for (int d = 0; d < ndim; d++) numel *= t->shape[d];
    FUZZ_CHECK(t->numel == numel, "%s: numel %lld", what, (long long)t->numel);
    check_bytes(ck, t);
}

static void check_model(const Model *m) {
    const Checkpoint *ck = &m->ck;
    const Config *c = &ck->config;
    int64_t V = c->vocab_size, H = c->hidden_size, I = c->intermediate_size, Hq = c->num_attention_heads,
            Hkv = c->num_key_value_heads, d = c->head_dim, nk = c->linear_num_key_heads,
            nv = c->linear_num_value_heads, dk = c->linear_key_head_dim, dv = c->linear_value_head_dim,
            K = c->linear_conv_kernel_dim;
    int64_t C = 2 * nk * dk + nv * dv; /* the convolution's channels: q | k | v */
    check_shape(ck, m->embed_tokens, "embed_tokens", 2, V, H, 0);
    check_shape(ck, m->norm, "norm", 1, H, 0, 0);
    check_shape(ck, m->lm_head, "lm_head", 2, V, H, 0);
    FUZZ_CHECK(m->tied == (ckpt_find(ck, "lm_head.weight") == NULL), "tied is wrong");
    for (int i = 0; i < c->num_hidden_layers; i++) {
        const Layer *l = &m->layers[i];
        FUZZ_CHECK(l->type == c->layer_types[i], "layer %d has the wrong type", i);
        check_shape(ck, l->input_layernorm, "input_layernorm", 1, H, 0, 0);
        check_shape(ck, l->post_attention_layernorm, "post_attention_layernorm", 1, H, 0, 0);
        check_shape(ck, l->mlp.w.gate_proj, "gate_proj", 2, I, H, 0);
        check_shape(ck, l->mlp.w.up_proj, "up_proj", 2, I, H, 0);
        check_shape(ck, l->mlp.w.down_proj, "down_proj", 2, H, I, 0);
        FUZZ_CHECK(l->mlp.d.hidden == H && l->mlp.d.intermediate == I, "layer %d: MLP dims", i);
        if (l->type == LAYER_FULL_ATTENTION) {
            const AttnWeights *w = &l->self_attn.w;
            const AttnDims *ad = &l->self_attn.d;
            check_shape(ck, w->q_proj, "q_proj", 2, Hq * 2 * d, H, 0);
            check_shape(ck, w->k_proj, "k_proj", 2, Hkv * d, H, 0);
            check_shape(ck, w->v_proj, "v_proj", 2, Hkv * d, H, 0);
            check_shape(ck, w->o_proj, "o_proj", 2, H, Hq * d, 0);
            check_shape(ck, w->q_norm, "q_norm", 1, d, 0, 0);
            check_shape(ck, w->k_norm, "k_norm", 1, d, 0, 0);
            FUZZ_CHECK(ad->n_heads == Hq && ad->n_kv_heads == Hkv && ad->head_dim == d &&
                           (int64_t)ad->group * Hkv == Hq && ad->hidden == H,
                       "layer %d: attention dims", i);
        } else {
            const DeltaNetWeights *w = &l->linear_attn.w;
            const DeltaNetDims *dd = &l->linear_attn.d;
            check_shape(ck, w->in_proj_qkv, "in_proj_qkv", 2, C, H, 0);
            check_shape(ck, w->in_proj_z, "in_proj_z", 2, nv * dv, H, 0);
            check_shape(ck, w->in_proj_b, "in_proj_b", 2, nv, H, 0);
            check_shape(ck, w->in_proj_a, "in_proj_a", 2, nv, H, 0);
            check_shape(ck, w->conv1d, "conv1d", 3, C, 1, K);
            check_shape(ck, w->dt_bias, "dt_bias", 1, nv, 0, 0);
            check_shape(ck, w->A_log, "A_log", 1, nv, 0, 0);
            check_shape(ck, w->norm, "linear_attn.norm", 1, dv, 0, 0);
            check_shape(ck, w->out_proj, "out_proj", 2, H, nv * dv, 0);
            FUZZ_CHECK(dd->conv_dim == C && dd->key_dim == nk * dk && dd->value_dim == nv * dv &&
                           dd->n_k == nk && dd->n_v == nv && dd->dk == dk && dd->dv == dv &&
                           dd->kernel == K && dd->hidden == H,
                       "layer %d: DeltaNet dims", i);
        }
    }
}

/* The next part of [*p, end) up to FUZZ_SPLIT (or the end). */
static void next_part(const uint8_t **p, const uint8_t *end, const uint8_t **part, size_t *len) {
    size_t n = (size_t)(end - *p), sep = strlen(FUZZ_SPLIT);
    const uint8_t *at = n >= sep ? memmem(*p, n, FUZZ_SPLIT, sep) : NULL;
    *part = *p;
    *len = at ? (size_t)(at - *p) : n;
    *p = at ? at + sep : end;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *dir = fuzz_scratch_dir("fuzz_checkpoint", FILES);
    for (const char *const *f = FILES; *f; f++) { /* what the last input left */
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, *f);
        unlink(path);
    }
    const uint8_t *p = data, *end = data + size, *config, *index, *shard;
    size_t config_len, index_len, shard_len;
    next_part(&p, end, &config, &config_len);
    next_part(&p, end, &index, &index_len);
    shard = p, shard_len = (size_t)(end - p);
    fuzz_write(dir, "config.json", config, config_len);
    if (index_len) fuzz_write(dir, "model.safetensors.index.json", index, index_len);
    fuzz_write(dir, index_len ? SHARD : "model.safetensors", shard, shard_len);

    Model m;
    Error err = {{0}};
    if (!model_open(&m, dir, &err)) {
        fuzz_check_error(&err, dir);
        FUZZ_CHECK(m.layers == NULL && m.ck.shards == NULL && m.ck.dir == NULL,
                   "a failed open left something");
        return 0;
    }
    check_model(&m);
    model_close(&m);
    return 0;
}
