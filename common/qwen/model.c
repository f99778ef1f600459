/* model.c — the whole Qwen3.5 (see model.h). */
#include "model.h"

#include <stdlib.h>
#include <string.h>

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
        m->lm_head = m->tied ? m->embed_tokens
                             : ckpt_expect(&m->ck, "lm_head.weight", 2, (int64_t[]){V, H}, err);
        ok = m->lm_head != NULL;
    }
    if (ok) {
        m->layers = xcalloc((size_t)c->num_hidden_layers, sizeof *m->layers);
        for (int i = 0; ok && i < c->num_hidden_layers; i++) ok = load_layer(&m->ck, i, &m->layers[i], err);
    }
    if (!ok) model_close(m);
    return ok;
}

void model_close(Model *m) {
    ckpt_close(&m->ck);
    free(m->layers);
    memset(m, 0, sizeof *m);
}
