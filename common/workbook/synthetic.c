/* synthetic.c — a random-weight checkpoint in the real layout (see synthetic.h). */
#include "synthetic.h"

#include <cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/pool.h"
#include "qwen/safetensors.h"
#include "qwen/weights.h"
#include "strmap.h"

void synth_config_full(Config *c) {
    memset(c, 0, sizeof *c);
    snprintf(c->model_type, sizeof c->model_type, "qwen3_5_text");
    c->vocab_size = 248320;
    c->hidden_size = 1024;
    c->intermediate_size = 3584;
    c->num_hidden_layers = 24;
    for (int i = 0; i < 24; i++)
        c->layer_types[i] = (i + 1) % 4 == 0 ? LAYER_FULL_ATTENTION : LAYER_LINEAR_ATTENTION;
    c->rms_norm_eps = 1e-6;
    c->tie_word_embeddings = true;
    c->max_position_embeddings = 262144;
    c->num_attention_heads = 8;
    c->num_key_value_heads = 2;
    c->head_dim = 256;
    c->rope_theta = 10000000;
    c->partial_rotary_factor = 0.25;
    c->rotary_dim = 64;
    c->linear_num_key_heads = 16;
    c->linear_num_value_heads = 16;
    c->linear_key_head_dim = 128;
    c->linear_value_head_dim = 128;
    c->linear_conv_kernel_dim = 4;
    c->eos_token_ids[0] = 248046; /* <|im_end|> */
    c->eos_token_ids[1] = 248044; /* <|endoftext|> */
    c->n_eos = 2;
}

void synth_config_tiny(Config *c) {
    synth_config_full(c);
    c->vocab_size = 1024;
    c->hidden_size = 64;
    c->intermediate_size = 128;
    c->num_hidden_layers = 4; /* L L L F */
    c->max_position_embeddings = 4096;
    c->num_attention_heads = 4;
    c->num_key_value_heads = 2;
    c->head_dim = 32;
    c->rotary_dim = 8;
    c->linear_num_key_heads = 2; /* fewer key heads than value heads, as in larger Qwen3.5 */
    c->linear_num_value_heads = 4;
    c->linear_key_head_dim = 16;
    c->linear_value_head_dim = 16;
}

void synth_config_mid(Config *c) {
    synth_config_full(c);
    c->vocab_size = 3001;
    c->num_hidden_layers = 4; /* L L L F */
}

/* ---- deterministic values ---------------------------------------------------- */

/* How one tensor's values are drawn: uniform in offset ± scale, or log-spaced. */
typedef struct {
    uint64_t seed;
    float offset, scale;
    bool log_spaced; /* A_log: element h = log(0.001 · 1300^(h / (n − 1))) */
    int64_t n;
} Draw;

/* splitmix64: a good 64-bit mix of (seed, index), exact on every machine. */
static uint64_t mix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* generate's random draws, in tasks of GEN_TASK numbers over the cores: each number
 * depends only on its index, so the file is the same whoever draws it. */
#define GEN_TASK 65536

typedef struct {
    const Draw *d;
    int64_t first, count;
    float *out;
} GenJob;

static void generate_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const GenJob *j = ctx;
    int64_t from = task * GEN_TASK, to = from + GEN_TASK < j->count ? from + GEN_TASK : j->count;
    for (int64_t i = from; i < to; i++) {
        uint64_t r = mix64(j->d->seed ^ mix64((uint64_t)(j->first + i)));
        float u = (float)(r >> 40) * 0x1p-24f; /* [0, 1) with 24 random bits */
        j->out[i] = j->d->offset + j->d->scale * (2.0f * u - 1.0f);
    }
}

static void generate(void *ctx, int64_t first, int64_t count, float *out) {
    const Draw *d = ctx;
    if (d->log_spaced) {
        for (int64_t i = 0; i < count; i++) {
            double t = d->n > 1 ? (double)(first + i) / (double)(d->n - 1) : 1.0;
            out[i] = (float)(log(0.001) + t * (log(1.3) - log(0.001)));
        }
        return;
    }
    GenJob job = {d, first, count, out};
    pool_run((count + GEN_TASK - 1) / GEN_TASK, generate_task, &job);
}

static bool ends_with(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Picks the distribution from the tensor's role (see synthetic.h). */
static Draw draw_for(const char *name, int ndim, const int64_t *shape) {
    Draw d = {hash_bytes(name, strlen(name)), 0.0f, 0.1f, false, shape[0]};
    if (ends_with(name, "A_log"))
        d.log_spaced = true;
    else if (ends_with(name, "dt_bias"))
        d.offset = 1.0f, d.scale = 1.0f;
    else if (ends_with(name, "linear_attn.norm.weight"))
        d.offset = 1.0f;
    else if (ends_with(name, "conv1d.weight"))
        d.scale = sqrtf(3.0f / (float)shape[2]);
    else if (ends_with(name, "embed_tokens.weight") || ends_with(name, "lm_head.weight"))
        d.scale = 1.0f;
    else if (ndim >= 2)
        d.scale = sqrtf(3.0f / (float)shape[ndim - 1]);
    /* everything else (1-D norm weights, stand-ins) keeps ±0.1 around 0 */
    return d;
}

/* ---- the list of tensors -------------------------------------------------------- */

typedef struct {
    char name[128];
    DType dtype;
    int ndim;
    int64_t shape[5];
    Draw draw;
} Spec;

typedef struct {
    Spec *items;
    int count, cap;
} SpecList;

static void add(SpecList *l, DType dtype, int ndim, const int64_t *shape, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void add(SpecList *l, DType dtype, int ndim, const int64_t *shape, const char *fmt, ...) {
    if (l->count == l->cap)
        l->items = xrealloc(l->items, (size_t)(l->cap = l->cap ? 2 * l->cap : 64) * sizeof(Spec));
    Spec *s = &l->items[l->count++];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->name, sizeof s->name, fmt, ap);
    va_end(ap);
    s->dtype = dtype;
    s->ndim = ndim;
    memcpy(s->shape, shape, (size_t)ndim * sizeof(int64_t));
    s->draw = draw_for(s->name, ndim, shape);
}

#define SHAPE(...)                                                                                           \
    (int64_t[]) { __VA_ARGS__ }
#define NDIM(...)                   (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
#define ADD(dtype, shape_list, ...) add(&l, dtype, NDIM shape_list, SHAPE shape_list, __VA_ARGS__)

static SpecList tensor_list(const SynthOptions *o) {
    const Config *c = &o->config;
    const int64_t H = c->hidden_size, I = c->intermediate_size, V = c->vocab_size, d = c->head_dim;
    const int64_t Hq = c->num_attention_heads, Hkv = c->num_key_value_heads, Hv = c->linear_num_value_heads;
    const int64_t conv = cfg_linear_conv_dim(c), vdim = cfg_linear_value_dim(c),
                  K = c->linear_conv_kernel_dim;
    const char *P = "model.language_model.";
    SpecList l = {0};
    ADD(DTYPE_BF16, (V, H), "%sembed_tokens.weight", P);
    for (int i = 0; i < c->num_hidden_layers; i++) {
        ADD(DTYPE_BF16, (H), "%slayers.%d.input_layernorm.weight", P, i);
        if (c->layer_types[i] == LAYER_LINEAR_ATTENTION) {
            ADD(DTYPE_F32, (Hv), "%slayers.%d.linear_attn.A_log", P, i);
            ADD(DTYPE_BF16, (conv, 1, K), "%slayers.%d.linear_attn.conv1d.weight", P, i);
            ADD(DTYPE_BF16, (Hv), "%slayers.%d.linear_attn.dt_bias", P, i);
            ADD(DTYPE_BF16, (Hv, H), "%slayers.%d.linear_attn.in_proj_a.weight", P, i);
            ADD(DTYPE_BF16, (Hv, H), "%slayers.%d.linear_attn.in_proj_b.weight", P, i);
            ADD(DTYPE_BF16, (conv, H), "%slayers.%d.linear_attn.in_proj_qkv.weight", P, i);
            ADD(DTYPE_BF16, (vdim, H), "%slayers.%d.linear_attn.in_proj_z.weight", P, i);
            ADD(DTYPE_F32, (c->linear_value_head_dim), "%slayers.%d.linear_attn.norm.weight", P, i);
            ADD(DTYPE_BF16, (H, vdim), "%slayers.%d.linear_attn.out_proj.weight", P, i);
        } else {
            ADD(DTYPE_BF16, (d), "%slayers.%d.self_attn.k_norm.weight", P, i);
            ADD(DTYPE_BF16, (Hkv * d, H), "%slayers.%d.self_attn.k_proj.weight", P, i);
            ADD(DTYPE_BF16, (H, Hq * d), "%slayers.%d.self_attn.o_proj.weight", P, i);
            ADD(DTYPE_BF16, (d), "%slayers.%d.self_attn.q_norm.weight", P, i);
            ADD(DTYPE_BF16, (Hq * 2 * d, H), "%slayers.%d.self_attn.q_proj.weight", P, i);
            ADD(DTYPE_BF16, (Hkv * d, H), "%slayers.%d.self_attn.v_proj.weight", P, i);
        }
        ADD(DTYPE_BF16, (H, I), "%slayers.%d.mlp.down_proj.weight", P, i);
        ADD(DTYPE_BF16, (I, H), "%slayers.%d.mlp.gate_proj.weight", P, i);
        ADD(DTYPE_BF16, (I, H), "%slayers.%d.mlp.up_proj.weight", P, i);
        ADD(DTYPE_BF16, (H), "%slayers.%d.post_attention_layernorm.weight", P, i);
    }
    ADD(DTYPE_BF16, (H), "%snorm.weight", P);
    if (o->untied_lm_head) ADD(DTYPE_BF16, (V, H), "lm_head.weight");
    /* Stand-ins for the parts a text reader must skip: the vision tower and the
     * multi-token-prediction head (small shapes; only their names matter). */
    ADD(DTYPE_BF16, (16, 3, 2, 4, 4), "model.visual.patch_embed.proj.weight");
    ADD(DTYPE_BF16, (16), "model.visual.blocks.0.norm1.weight");
    ADD(DTYPE_BF16, (H, 2 * H), "mtp.fc.weight");
    ADD(DTYPE_BF16, (H), "mtp.norm.weight");
    return l;
}

/* ---- config.json ------------------------------------------------------------------ */

static cJSON *int_array(const int *v, int n) {
    cJSON *a = cJSON_CreateArray();
    for (int i = 0; i < n; i++) cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i]));
    return a;
}

static char *config_json(const Config *c) {
    cJSON *root = cJSON_CreateObject();
    cJSON *arch = cJSON_AddArrayToObject(root, "architectures");
    cJSON_AddItemToArray(arch, cJSON_CreateString("Qwen3_5ForConditionalGeneration"));
    cJSON_AddStringToObject(root, "model_type", "qwen3_5");
    cJSON_AddBoolToObject(root, "tie_word_embeddings", c->tie_word_embeddings);
    cJSON *t = cJSON_AddObjectToObject(root, "text_config");
    cJSON_AddStringToObject(t, "model_type", "qwen3_5_text");
    cJSON_AddNumberToObject(t, "vocab_size", c->vocab_size);
    cJSON_AddNumberToObject(t, "hidden_size", c->hidden_size);
    cJSON_AddNumberToObject(t, "intermediate_size", c->intermediate_size);
    cJSON_AddNumberToObject(t, "num_hidden_layers", c->num_hidden_layers);
    cJSON *types = cJSON_AddArrayToObject(t, "layer_types");
    for (int i = 0; i < c->num_hidden_layers; i++)
        cJSON_AddItemToArray(types, cJSON_CreateString(c->layer_types[i] == LAYER_FULL_ATTENTION
                                                           ? "full_attention"
                                                           : "linear_attention"));
    cJSON_AddNumberToObject(t, "full_attention_interval", 4);
    cJSON_AddNumberToObject(t, "num_attention_heads", c->num_attention_heads);
    cJSON_AddNumberToObject(t, "num_key_value_heads", c->num_key_value_heads);
    cJSON_AddNumberToObject(t, "head_dim", c->head_dim);
    cJSON_AddNumberToObject(t, "linear_num_key_heads", c->linear_num_key_heads);
    cJSON_AddNumberToObject(t, "linear_num_value_heads", c->linear_num_value_heads);
    cJSON_AddNumberToObject(t, "linear_key_head_dim", c->linear_key_head_dim);
    cJSON_AddNumberToObject(t, "linear_value_head_dim", c->linear_value_head_dim);
    cJSON_AddNumberToObject(t, "linear_conv_kernel_dim", c->linear_conv_kernel_dim);
    cJSON_AddNumberToObject(t, "rms_norm_eps", c->rms_norm_eps);
    cJSON_AddNumberToObject(t, "max_position_embeddings", c->max_position_embeddings);
    cJSON_AddItemToObject(t, "eos_token_id", cJSON_CreateNumber(c->eos_token_ids[c->n_eos > 1 ? 1 : 0]));
    cJSON_AddStringToObject(t, "hidden_act", "silu");
    cJSON *rope = cJSON_AddObjectToObject(t, "rope_parameters");
    cJSON_AddStringToObject(rope, "rope_type", "default");
    cJSON_AddNumberToObject(rope, "rope_theta", c->rope_theta);
    cJSON_AddNumberToObject(rope, "partial_rotary_factor", c->partial_rotary_factor);
    int pairs = c->rotary_dim / 2, sections[3] = {pairs - 2 * (pairs / 3), pairs / 3, pairs / 3};
    if (pairs == 32) sections[0] = 11, sections[1] = 11, sections[2] = 10; /* the real split */
    cJSON_AddItemToObject(rope, "mrope_section", int_array(sections, 3));
    cJSON_AddBoolToObject(rope, "mrope_interleaved", true);
    cJSON *vision = cJSON_AddObjectToObject(root, "vision_config");
    cJSON_AddStringToObject(vision, "model_type", "qwen3_5");
    cJSON_AddNumberToObject(vision, "hidden_size", 16);
    char *s = cJSON_Print(root);
    cJSON_Delete(root);
    return s;
}

static bool write_json(const char *dir, const char *file, cJSON *root, Error *err) {
    char *text = cJSON_Print(root), *path = path_join(dir, file);
    bool ok = write_file(path, text, strlen(text), err);
    free(text);
    free(path);
    return ok;
}

static bool copy_file(const char *from, const char *dir, const char *file, Error *err) {
    size_t len;
    char *data = read_file(from, &len, err), *to = path_join(dir, file);
    bool ok = data && write_file(to, data, len, err);
    free(data);
    free(to);
    return ok;
}

bool synth_write(const char *dir, const SynthOptions *o, Error *err) {
    int n_shards = o->n_shards > 0 ? o->n_shards : 1;
    if (!make_dirs(dir, err)) return false;
    char *cfg = config_json(&o->config), *cfg_path = path_join(dir, "config.json");
    bool ok = write_file(cfg_path, cfg, strlen(cfg), err);
    free(cfg);
    free(cfg_path);

    cJSON *gen = cJSON_CreateObject();
    cJSON_AddItemToObject(gen, "eos_token_id", int_array(o->config.eos_token_ids, o->config.n_eos));
    ok = ok && write_json(dir, "generation_config.json", gen, err);
    cJSON_Delete(gen);
    if (ok && o->tokenizer) ok = copy_file(o->tokenizer, dir, "tokenizer.json", err);

    /* Tensors go to shards in order, the first n/S to shard 1 and so on. */
    SpecList l = tensor_list(o);
    cJSON *index = cJSON_CreateObject();
    cJSON *meta = cJSON_AddObjectToObject(index, "metadata");
    cJSON *map = cJSON_AddObjectToObject(index, "weight_map");
    uint64_t total = 0;
    for (int s = 0; ok && s < n_shards; s++) {
        char file[96];
        snprintf(file, sizeof file, "model.safetensors-%05d-of-%05d.safetensors", s + 1, n_shards);
        StWriter w;
        stw_init(&w);
        stw_set_metadata(&w, SYNTHETIC_MARK, o->zeros ? "all zeros" : "random weights");
        for (int i = l.count * s / n_shards; i < l.count * (s + 1) / n_shards; i++) {
            Spec *t = &l.items[i];
            if (o->zeros)
                stw_add(&w, t->name, t->dtype, t->ndim, t->shape, NULL);
            else
                stw_add_generated(&w, t->name, t->dtype, t->ndim, t->shape, generate, &t->draw);
            cJSON_AddStringToObject(map, t->name, file);
        }
        char *path = path_join(dir, file);
        uint64_t bytes = 0;
        ok = stw_write(&w, path, &bytes, err);
        total += bytes;
        free(path);
        stw_free(&w);
    }
    cJSON_AddNumberToObject(meta, "total_size", (double)total);
    ok = ok && write_json(dir, "model.safetensors.index.json", index, err);
    cJSON_Delete(index);
    free(l.items);
    return ok;
}
