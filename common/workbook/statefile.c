/* statefile.c — a generation's state as a file (see statefile.h). */
#include "statefile.h"

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qwen/safetensors.h"

#define N_DIMS 12

/* The "__metadata__" key that records which weights made the state (model.h's Quant):
 * its logits and every number in its tables came from them, so the same run goes on
 * only with the same weights. A state without it was written before there was a
 * choice: by the checkpoint's weights. */
#define WEIGHTS_KEY "workbook.weights"

/* The sizes a state belongs to; a state file must carry exactly these. */
static void model_dims(const Config *c, float dims[N_DIMS]) {
    const int v[N_DIMS] = {c->vocab_size,
                           c->hidden_size,
                           c->num_hidden_layers,
                           c->num_key_value_heads,
                           c->head_dim,
                           c->linear_num_key_heads,
                           c->linear_num_value_heads,
                           c->linear_key_head_dim,
                           c->linear_value_head_dim,
                           c->linear_conv_kernel_dim,
                           c->intermediate_size,
                           c->num_attention_heads};
    for (int i = 0; i < N_DIMS; i++) dims[i] = (float)v[i];
}

/* The names of layer i's two tensors: "layers.{i}.kv.k" and ".kv.v", or ".conv" and ".tables". */
static void layer_names(const Model *m, int i, char a[64], char b[64]) {
    bool attn = m->layers[i].type == LAYER_FULL_ATTENTION;
    snprintf(a, 64, "layers.%d.%s", i, attn ? "kv.k" : "conv");
    snprintf(b, 64, "layers.%d.%s", i, attn ? "kv.v" : "tables");
}

/* ---- saving ------------------------------------------------------------------------ */

/* A layer's keys or values as the file keeps them, [n, kv_heads, d] (attention.h's
 * kv_rows; the cache holds them a head at a time). */
typedef struct {
    const KVCache *kv;
    bool values;
} KVSource;

static void kv_generate(void *ctx, int64_t first, int64_t count, float *out) {
    const KVSource *src = ctx;
    kv_rows(src->kv, src->values, first, count, out);
}

bool state_save(const char *path, const Model *m, const RunState *s, const TokenIds *seen, uint64_t rng,
                Error *err) {
    const Config *c = &m->ck.config;
    StWriter w;
    stw_init(&w);
    float dims[N_DIMS], parts[4], *tokens = xmalloc(sizeof(float) * (size_t)(seen->n ? seen->n : 1));
    model_dims(c, dims);
    for (int i = 0; i < 4; i++) parts[i] = (float)((rng >> (16 * i)) & 0xFFFF);
    for (int64_t i = 0; i < seen->n; i++) tokens[i] = (float)seen->ids[i];
    stw_set_metadata(&w, WEIGHTS_KEY, quant_name(m->quant));
    stw_add(&w, "model.dims", DTYPE_F32, 1, (int64_t[]){N_DIMS}, dims);
    stw_add(&w, "tokens", DTYPE_F32, 1, (int64_t[]){seen->n}, tokens);
    stw_add(&w, "logits", DTYPE_F32, 1, (int64_t[]){c->vocab_size}, s->logits);
    stw_add(&w, "sampler.rng", DTYPE_F32, 1, (int64_t[]){4}, parts);
    KVSource *kv = xcalloc(2 * (size_t)c->num_hidden_layers, sizeof *kv);
    for (int i = 0; i < c->num_hidden_layers; i++) {
        const LayerState *l = &s->layers[i];
        char a[64], b[64];
        layer_names(m, i, a, b);
        if (m->layers[i].type == LAYER_FULL_ATTENTION) {
            int64_t shape[3] = {l->kv.len, l->kv.n_kv_heads, l->kv.head_dim};
            kv[2 * i] = (KVSource){&l->kv, false};
            kv[2 * i + 1] = (KVSource){&l->kv, true};
            stw_add_generated(&w, a, DTYPE_F32, 3, shape, kv_generate, &kv[2 * i]);
            stw_add_generated(&w, b, DTYPE_F32, 3, shape, kv_generate, &kv[2 * i + 1]);
        } else {
            const DeltaNetDims *d = &m->layers[i].linear_attn.d;
            stw_add(&w, a, DTYPE_F32, 2, (int64_t[]){d->kernel - 1, d->conv_dim}, l->dn.conv);
            stw_add(&w, b, DTYPE_F32, 3, (int64_t[]){d->n_v, d->dk, d->dv}, l->dn.S);
        }
    }
    bool ok = check_disk_space(path, stw_data_bytes(&w), err) && stw_write(&w, path, NULL, err);
    stw_free(&w);
    free(kv);
    free(tokens);
    return ok;
}

bool state_check_target(const char *path, const Model *m, const char *load_path, Error *err) {
    if (!check_writable(path, err)) return false;
    if (load_path && same_file(path, load_path)) return true; /* the conversation goes on in its file */
    static const char *const own[] = {"config.json", "model.safetensors.index.json", "tokenizer.json",
                                      "generation_config.json"};
    for (size_t i = 0; i < ARRAY_LEN(own); i++) {
        char *file = path_join(m->ck.dir, own[i]);
        bool same = same_file(path, file);
        free(file);
        if (same)
            return error_set(err, "%s is the model's %s (in %s): a state saved there would destroy it", path,
                             own[i], m->ck.dir);
    }
    for (int i = 0; i < m->ck.n_shards; i++)
        if (same_file(path, m->ck.shards[i].path))
            return error_set(err, "%s is the model's weights (%s): a state saved there would destroy them",
                             path, m->ck.shards[i].path);
    return true;
}

/* ---- loading ----------------------------------------------------------------------- */

/* True unless path is a regular file that does not even start like safetensors (an
 * 8-byte header length that fits in the file, then '{'): then "not a state file" says
 * more than the reader's complaint about a header length. */
static bool starts_like_safetensors(const char *path) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return true; /* st_open has said why */
    struct stat sb;
    bool like = true;
    if (!fd_problem(fd) && fstat(fd, &sb) == 0) {
        unsigned char b[9];
        uint64_t len = 0;
        bool got = pread(fd, b, 9, 0) == 9;
        for (int i = 7; got && i >= 0; i--) len = len << 8 | b[i];
        like =
            got && len >= 2 && len <= ST_MAX_HEADER_BYTES && len <= (uint64_t)sb.st_size - 8 && b[8] == '{';
    }
    close(fd);
    return like;
}

/* The float32 tensor `name` of st with exactly this shape and finite numbers only;
 * NULL with one line in err naming the file, the tensor and the first bad index. */
static const float *state_tensor(const SafeTensors *st, const char *name, int ndim, const int64_t *shape,
                                 Error *err) {
    const Tensor *t = st_find(st, name);
    if (!t) {
        error_set(err, "%s: not a state of this model: no tensor %s", st->path, name);
        return NULL;
    }
    bool ok = t->dtype == DTYPE_F32 && t->ndim == ndim;
    for (int i = 0; ok && i < ndim; i++) ok = t->shape[i] == shape[i];
    if (!ok) {
        char got[96];
        return error_set(err, "%s: %s is %s %s, which is not the state of this model", st->path, name,
                         dtype_name(t->dtype), shape_str(t, got, sizeof got)),
               NULL;
    }
    const float *v = t->data;
    for (int64_t i = 0; i < t->numel; i++)
        if (!isfinite(v[i]))
            return error_set(err, "%s: %s[%lld] is %s: a saved state holds finite numbers only", st->path,
                             name, (long long)i, isnan(v[i]) ? "NaN" : "infinite"),
                   NULL;
    return v;
}

/* Everything of state_load but opening and closing the file. */
static bool load_tensors(const SafeTensors *st, const Model *m, RunState *s, TokenIds *seen, uint64_t *rng,
                         Error *err) {
    const Config *c = &m->ck.config;
    const char *path = st->path;
    if (!st_find(st, "model.dims"))
        return error_set(err, "%s is not a state file: it has no tensor model.dims (--save-state writes one)",
                         path);
    float dims[N_DIMS];
    model_dims(c, dims);
    const float *got = state_tensor(st, "model.dims", 1, (int64_t[]){N_DIMS}, err);
    if (!got) return false;
    if (memcmp(got, dims, sizeof dims) != 0)
        return error_set(err, "%s: the state of another model (its sizes differ from %s)", path, m->ck.dir);
    const char *made = st_metadata(st, WEIGHTS_KEY);
    Quant q = QUANT_BF16;
    if (made && !quant_parse(made, &q)) {
        char shown[64];
        return error_set(err, "%s: made with weights \"%s\", which are none of %s", path,
                         escape_text(made, shown, sizeof shown), QUANT_NAMES);
    }
    if (q != m->quant)
        return error_set(
            err, "%s: a state made with %s weights, and this run has %s weights (--quant %s goes on from it)",
            path, quant_name(q), quant_name(m->quant), quant_name(q));

    /* the tokens: as many as the context allows and the memory holds */
    const Tensor *tt = st_find(st, "tokens");
    if (!tt || tt->ndim != 1) return error_set(err, "%s: no token list (a tensor tokens [n])", path);
    int64_t n = tt->shape[0];
    if (s->max_pos > 0 && n > s->max_pos)
        return error_set(err,
                         "%s: %lld tokens, more than the context allows (max_position_embeddings %lld in %s)",
                         path, (long long)n, (long long)s->max_pos, m->ck.dir);
    if (n > INT_MAX) return error_set(err, "%s: %lld tokens, more than a state can hold", path, (long long)n);
    char what[64 + PATH_MAX];
    snprintf(what, sizeof what, "the state in %s (%lld tokens)", path, (long long)n);
    if (!mem_check(size_add(run_bytes(m, s->chunk, n), size_mul((uint64_t)n, sizeof(int))), what, err))
        return false;
    const float *tokens = state_tensor(st, "tokens", 1, (int64_t[]){n}, err);
    if (!tokens) return false;
    for (int64_t i = 0; i < n; i++) {
        float v = tokens[i];
        if (!(v >= 0 && v < c->vocab_size && v == floorf(v)))
            return error_set(err, "%s: tokens[%lld] is not a token id", path, (long long)i);
    }

    const float *logits = state_tensor(st, "logits", 1, (int64_t[]){c->vocab_size}, err);
    const float *parts = logits ? state_tensor(st, "sampler.rng", 1, (int64_t[]){4}, err) : NULL;
    if (!parts) return false;
    uint64_t r = 0;
    for (int i = 0; i < 4; i++) {
        if (!(parts[i] >= 0 && parts[i] < 65536 && parts[i] == floorf(parts[i])))
            return error_set(err, "%s: sampler.rng is damaged", path);
        r |= (uint64_t)parts[i] << (16 * i);
    }
    if (r == 0) return error_set(err, "%s: sampler.rng is damaged (a generator is never 0)", path);

    /* every layer's state, checked before any of it is used */
    const float **layer = xcalloc(2 * (size_t)c->num_hidden_layers, sizeof *layer);
    bool ok = true;
    for (int i = 0; ok && i < c->num_hidden_layers; i++) {
        char a[64], b[64];
        layer_names(m, i, a, b);
        if (m->layers[i].type == LAYER_FULL_ATTENTION) {
            const KVCache *kv = &s->layers[i].kv;
            int64_t shape[3] = {n, kv->n_kv_heads, kv->head_dim};
            ok = (layer[2 * i] = state_tensor(st, a, 3, shape, err)) &&
                 (layer[2 * i + 1] = state_tensor(st, b, 3, shape, err));
        } else {
            const DeltaNetDims *d = &m->layers[i].linear_attn.d;
            ok = (layer[2 * i] = state_tensor(st, a, 2, (int64_t[]){d->kernel - 1, d->conv_dim}, err)) &&
                 (layer[2 * i + 1] = state_tensor(st, b, 3, (int64_t[]){d->n_v, d->dk, d->dv}, err));
        }
    }

    if (ok) { /* all of it is sound: now it becomes the run's state */
        seen->ids = xrealloc(seen->ids, sizeof *seen->ids * (size_t)(n ? n : 1));
        seen->cap = n ? n : 1;
        for (int64_t i = 0; i < n; i++) seen->ids[i] = (int)tokens[i];
        seen->n = n;
        memcpy(s->logits, logits, sizeof(float) * (size_t)c->vocab_size);
        *rng = r;
        for (int i = 0; i < c->num_hidden_layers; i++) {
            LayerState *l = &s->layers[i];
            if (m->layers[i].type == LAYER_FULL_ATTENTION) {
                kv_append(&l->kv, layer[2 * i], layer[2 * i + 1], (int)n); /* into the empty cache */
            } else {
                const DeltaNetDims *d = &m->layers[i].linear_attn.d;
                memcpy(l->dn.conv, layer[2 * i], sizeof(float) * (size_t)(d->kernel - 1) * d->conv_dim);
                memcpy(l->dn.S, layer[2 * i + 1], sizeof(float) * (size_t)d->n_v * d->dk * d->dv);
                l->dn.n_tokens = n;
            }
        }
        s->pos = n;
    }
    free(layer);
    return ok;
}

bool state_load(const char *path, const Model *m, RunState *s, TokenIds *seen, uint64_t *rng, Error *err) {
    run_reset(s);
    seen->n = 0;
    SafeTensors st;
    if (!st_open(&st, path, err)) {
        if (!starts_like_safetensors(path))
            error_set(err, "%s is not a state file (--save-state writes safetensors, and this is not one)",
                      path);
        return false;
    }
    bool ok = load_tensors(&st, m, s, seen, rng, err);
    st_close(&st);
    if (!ok) run_reset(s);
    return ok;
}
