/* test_checkpoint.c — opening a model folder (qwen/weights.h, qwen/model.h's model_open).
 *
 * The folders are the tiny synthetic checkpoint in the real layout (index file, the
 * odd shard name, model.language_model. prefix, vision and mtp tensors, mixed
 * BF16/F32), written fresh for each test and then bent in one way: split over two
 * shards, rewritten as a single model.safetensors with the plain text-only prefix,
 * given an lm_head, or broken (a shard gone, an index that lies, a tensor missing,
 * a config.json that contradicts the shapes). Broken folders must give one line
 * naming the file and the problem.
 */
#include "helpers.h"
#include "qwen/model.h"
#include "qwen/weights.h"
#include "workbook/synthetic.h"

static const char SHARD1[] = "model.safetensors-00001-of-00001.safetensors";
static const char *const TEXT_PREFIX = "model.language_model.";

static char *scratch; /* this test's folder */
static char *tiny;    /* scratch/tiny: a fresh tiny checkpoint, one shard */

static void write_tiny(const char *dir, int shards, bool untied) {
    SynthOptions o = {.n_shards = shards, .untied_lm_head = untied};
    synth_config_tiny(&o.config);
    if (untied) o.config.tie_word_embeddings = false;
    Error err;
    ck_assert_msg(synth_write(dir, &o, &err), "%s", err.msg);
}

static void setup(void) {
    scratch = scratch_dir();
    tiny = in_dir(scratch, "tiny");
    write_tiny(tiny, 1, false);
}

static void teardown(void) {
    scratch_remove(scratch);
    free(scratch);
    free(tiny);
}

/* Opens dir as a demo does (model_open: every weight checked against the config),
 * and the checkpoint alone into ck. */
static void open_ok(Checkpoint *ck, const char *dir) {
    Error err;
    Model m;
    ck_assert_msg(model_open(&m, dir, &err), "%s", err.msg);
    model_close(&m);
    ck_assert_msg(ckpt_open(ck, dir, &err), "%s", err.msg);
}

/* Opening the model must fail with one line containing every fragment, and leave
 * the model empty. */
#define expect_open_error(folder, ...)                                                                       \
    do {                                                                                                     \
        Model m_;                                                                                            \
        Error err_ = {{0}};                                                                                  \
        bool opened_ = model_open(&m_, (folder), &err_);                                                     \
        if (opened_) model_close(&m_);                                                                       \
        ck_assert_msg(!opened_, "%s was accepted", (folder));                                                \
        ck_assert_error(err_, __VA_ARGS__);                                                                  \
        const Checkpoint *ck_ = &m_.ck;                                                                      \
        ck_assert(ck_->n_shards == 0 && ck_->shards == NULL && ck_->refs == NULL && ck_->dir == NULL);       \
        ck_assert(m_.layers == NULL);                                                                        \
    } while (0)

static const char *base_name(const char *path) { return strrchr(path, '/') + 1; }

/* ---- the real layout ------------------------------------------------------------ */

/* Parameters of the tiny model, by hand from synth_config_tiny (common/workbook/synthetic.c):
 * vocab V = 1024, hidden H = 64, MLP I = 128, layers L L L F; attention 4 query
 * heads, 2 kv heads, head_dim 32; DeltaNet 2 key heads, 4 value heads, 16 dims each,
 * kernel 4. Key width 2·16 = 32, value width 4·16 = 64, conv width 32+32+64 = 128.
 *   embed_tokens       V·H = 65,536       final norm   64
 *   per layer: 2 norms 2·64 = 128, MLP 3·I·H = 24,576
 *   DeltaNet: in_proj_qkv 128·64 = 8,192, in_proj_z 64·64 = 4,096, in_proj_b and
 *     in_proj_a 4·64 = 256 each, conv1d 128·1·4 = 512, dt_bias 4, A_log 4,
 *     norm 16, out_proj 64·64 = 4,096                          -> 17,432
 *   attention: q_proj (4·2·32)·64 = 16,384, k_proj and v_proj (2·32)·64 = 4,096
 *     each, o_proj 64·(4·32) = 8,192, q_norm and k_norm 32 each  -> 32,832
 *   total = 65,536 + 64 + 3·(17,432 + 24,576 + 128) + (32,832 + 24,576 + 128)
 *         = 65,600 + 126,408 + 57,536 = 249,544 */
#define TINY_TOTAL 249544

START_TEST(tiny_checkpoint_in_the_real_layout) {
    Checkpoint ck;
    open_ok(&ck, tiny);
    ck_assert_str_eq(ck.dir, tiny);
    ck_assert_int_eq(ck.n_shards, 1);
    ck_assert_str_eq(base_name(ck.shards[0].path), SHARD1);
    /* 2 + 3·(2 + 9 + 3) + (2 + 6 + 3) = 55 text tensors; 2 vision + 2 mtp skipped */
    ck_assert_int_eq(ck.n_refs, 55);
    ck_assert_int_eq(ck.n_skipped, 4);
    ck_assert_str_eq(ck.synthetic, "random weights"); /* make_synthetic's mark */

    Config want;
    synth_config_tiny(&want);
    const Config *c = &ck.config;
    ck_assert(c->hidden_size == 64 && c->vocab_size == 1024 && c->intermediate_size == 128);
    ck_assert(c->num_hidden_layers == 4 && c->head_dim == 32 && c->rotary_dim == 8);
    ck_assert(c->linear_num_key_heads == 2 && c->linear_num_value_heads == 4);
    ck_assert_mem_eq(c->layer_types, want.layer_types, 4 * sizeof want.layer_types[0]); /* L L L F */

    int64_t total = 0;
    int f32 = 0;
    for (int i = 0; i < ck.n_refs; i++) {
        const Tensor *t = ck.refs[i];
        total += t->numel;
        f32 += t->dtype == DTYPE_F32;
        /* stored under the full name, known by the short one */
        ck_assert_msg(strncmp(t->name, TEXT_PREFIX, strlen(TEXT_PREFIX)) == 0, "%s", t->name);
        ck_assert_ptr_eq(ckpt_find(&ck, t->name + strlen(TEXT_PREFIX)), t);
        ck_assert_ptr_null(ckpt_find(&ck, t->name));
        /* BF16 everywhere but A_log and the gated-norm weight */
        bool want_f32 = strstr(t->name, "linear_attn.A_log") || strstr(t->name, "linear_attn.norm.weight");
        ck_assert_msg(t->dtype == (want_f32 ? DTYPE_F32 : DTYPE_BF16), "%s is %s", t->name,
                      dtype_name(t->dtype));
    }
    ck_assert_int_eq(total, TINY_TOTAL);
    ck_assert_int_eq(f32, 6); /* 3 DeltaNet layers × (A_log, norm.weight) */

    /* skipped parts are not reachable under any name */
    ck_assert_ptr_null(ckpt_find(&ck, "model.visual.blocks.0.norm1.weight"));
    ck_assert_ptr_null(ckpt_find(&ck, "visual.blocks.0.norm1.weight"));
    ck_assert_ptr_null(ckpt_find(&ck, "mtp.fc.weight"));
    ck_assert_ptr_null(ckpt_find(&ck, "fc.weight"));

    Model model;
    Error err;
    ck_assert_msg(model_open(&model, tiny, &err), "%s", err.msg);
    const Model *w = &model;
    ck_assert(w->tied);
    ck_assert_ptr_eq(w->lm_head, w->embed_tokens);
    ck_assert(w->embed_tokens->ndim == 2 && w->embed_tokens->shape[0] == 1024 &&
              w->embed_tokens->shape[1] == 64);
    ck_assert_ptr_eq(w->norm, ckpt_find(&model.ck, "norm.weight"));
    for (int i = 0; i < 4; i++) {
        const Layer *l = &w->layers[i];
        ck_assert_int_eq(l->type, i == 3 ? LAYER_FULL_ATTENTION : LAYER_LINEAR_ATTENTION);
        ck_assert(l->input_layernorm && l->post_attention_layernorm && l->mlp.w.gate_proj &&
                  l->mlp.w.up_proj && l->mlp.w.down_proj);
        ck_assert(l->mlp.w.down_proj->shape[0] == 64 && l->mlp.w.down_proj->shape[1] == 128);
        if (i < 3) {
            const DeltaNetWeights *n = &l->linear_attn.w;
            ck_assert(n->in_proj_qkv->shape[0] == 128 && n->in_proj_qkv->shape[1] == 64);
            ck_assert(n->conv1d->ndim == 3 && n->conv1d->shape[0] == 128 && n->conv1d->shape[1] == 1 &&
                      n->conv1d->shape[2] == 4);
            ck_assert(n->in_proj_z->shape[0] == 64 && n->in_proj_b->shape[0] == 4 &&
                      n->in_proj_a->shape[0] == 4);
            ck_assert(n->dt_bias->shape[0] == 4 && n->A_log->shape[0] == 4 && n->norm->shape[0] == 16);
            ck_assert(n->out_proj->shape[0] == 64 && n->out_proj->shape[1] == 64);
            ck_assert_ptr_null(l->self_attn.w.q_proj);
        } else {
            const AttnWeights *a = &l->self_attn.w;
            /* 4 heads × (32 query + 32 gate) rows */
            ck_assert(a->q_proj->shape[0] == 256 && a->q_proj->shape[1] == 64);
            ck_assert(a->k_proj->shape[0] == 64 && a->v_proj->shape[0] == 64);
            ck_assert(a->o_proj->shape[0] == 64 && a->o_proj->shape[1] == 128);
            ck_assert(a->q_norm->shape[0] == 32 && a->k_norm->shape[0] == 32);
            ck_assert_ptr_null(l->linear_attn.w.in_proj_qkv);
        }
    }
    model_close(&model);
    ck_assert_ptr_null(model.layers);
    ckpt_close(&ck);
    ck_assert_ptr_null(ck.dir);
}
END_TEST

/* The workbook's names: the prefix removed in one place, the other parts skipped. */
START_TEST(prefix_and_skip_rules) {
    static const struct {
        const char *stored, *text; /* text NULL: skipped */
    } cases[] = {
        {"model.language_model.layers.0.mlp.up_proj.weight", "layers.0.mlp.up_proj.weight"},
        {"model.language_model.embed_tokens.weight", "embed_tokens.weight"},
        {"model.language_model.norm.weight", "norm.weight"},
        {"model.layers.3.self_attn.q_proj.weight", "layers.3.self_attn.q_proj.weight"}, /* text-only layout */
        {"model.embed_tokens.weight", "embed_tokens.weight"},
        {"lm_head.weight", "lm_head.weight"},
        {"model.visual.patch_embed.proj.weight", NULL},
        {"model.visual.blocks.0.attn.qkv.weight", NULL},
        {"visual.merger.mlp.0.weight", NULL},
        {"mtp.fc.weight", NULL},
        {"mtp.layers.0.mlp.up_proj.weight", NULL},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        const char *got = ckpt_text_name(cases[i].stored);
        if (!cases[i].text)
            ck_assert_msg(got == NULL, "%s should be skipped, got %s", cases[i].stored, got);
        else {
            ck_assert_msg(got != NULL, "%s was skipped", cases[i].stored);
            ck_assert_str_eq(got, cases[i].text);
        }
    }
}
END_TEST

/* Two shards: every tensor is found in the shard the index names, with the same
 * bytes as in the one-shard checkpoint (the values are a hash of name and index). */
START_TEST(two_shards_through_the_index) {
    char *two = in_dir(scratch, "two");
    write_tiny(two, 2, false);
    Checkpoint one_ck, two_ck;
    open_ok(&one_ck, tiny);
    open_ok(&two_ck, two);
    ck_assert_int_eq(two_ck.n_shards, 2);
    ck_assert_str_eq(base_name(two_ck.shards[0].path), "model.safetensors-00001-of-00002.safetensors");
    ck_assert_str_eq(base_name(two_ck.shards[1].path), "model.safetensors-00002-of-00002.safetensors");
    ck_assert_int_eq(two_ck.n_refs, one_ck.n_refs);
    ck_assert_int_eq(two_ck.n_skipped, one_ck.n_skipped);

    char *index_path = in_dir(two, "model.safetensors.index.json"), *index_text = slurp(index_path, NULL);
    cJSON *index = cJSON_Parse(index_text);
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(index, "weight_map");
    int in_shard[2] = {0, 0};
    for (int i = 0; i < one_ck.n_refs; i++) {
        const Tensor *a = one_ck.refs[i];
        const char *name = a->name + strlen(TEXT_PREFIX);
        const Tensor *b = ckpt_find(&two_ck, name);
        ck_assert_msg(b != NULL, "%s is missing from the two-shard checkpoint", name);
        ck_assert(a->dtype == b->dtype && a->ndim == b->ndim && a->numel == b->numel);
        ck_assert_mem_eq(a->shape, b->shape, sizeof a->shape);
        ck_assert_msg(memcmp(a->data, b->data, (size_t)a->numel * (size_t)dtype_size(a->dtype)) == 0,
                      "%s differs", name);
        const cJSON *file = cJSON_GetObjectItemCaseSensitive(map, b->name);
        ck_assert_msg(cJSON_IsString(file), "the index does not list %s", b->name);
        ck_assert_str_eq(base_name(b->file), file->valuestring);
        in_shard[b->file == two_ck.shards[1].path]++;
    }
    ck_assert_msg(in_shard[0] > 0 && in_shard[1] > 0, "text tensors per shard: %d and %d", in_shard[0],
                  in_shard[1]);
    ck_assert_int_eq(in_shard[0] + in_shard[1], 55);
    cJSON_Delete(index);
    free(index_text);
    free(index_path);
    ckpt_close(&one_ck);
    ckpt_close(&two_ck);
    free(two);
}
END_TEST

/* The index is followed, never a file-name pattern: stray shard-like files next to
 * it (even garbage, even a model.safetensors) are not opened. */
START_TEST(index_is_followed_not_globbed) {
    static const char *const strays[] = {"model.safetensors", "model-00001-of-00001.safetensors",
                                         "model.safetensors-00002-of-00002.safetensors"};
    for (size_t i = 0; i < ARRAY_LEN(strays); i++) {
        char *p = in_dir(tiny, strays[i]);
        write_bytes(p, "not a safetensors file", 22);
        free(p);
    }
    Checkpoint ck;
    open_ok(&ck, tiny);
    ck_assert_int_eq(ck.n_shards, 1);
    ck_assert_str_eq(base_name(ck.shards[0].path), SHARD1);
    ckpt_close(&ck);
}
END_TEST

/* Rewrites the tiny checkpoint into dst as one model.safetensors (no index): each
 * stored tensor copied with its dtype and bytes, renamed from the multimodal prefix
 * to new_prefix (NULL keeps it), except `drop`; `twice` is written a second time
 * under the plain "model." prefix. */
static void write_single(const char *dst, const char *new_prefix, const char *drop, const char *twice) {
    Error err;
    ck_assert_msg(make_dirs(dst, &err), "%s", err.msg);
    char *from = in_dir(tiny, "config.json"), *to = in_dir(dst, "config.json"), *text = slurp(from, NULL);
    write_bytes(to, text, strlen(text));
    free(text);
    free(from);
    free(to);

    char *shard = in_dir(tiny, SHARD1);
    SafeTensors st;
    ck_assert_msg(st_open(&st, shard, &err), "%s", err.msg);
    StWriter w;
    stw_init(&w);
    float **values = xcalloc((size_t)st.count * 2, sizeof *values);
    int n_values = 0;
    for (int i = 0; i < st.count; i++) {
        const Tensor *t = &st.tensors[i];
        if (drop && strcmp(t->name, drop) == 0) continue;
        float *v = values[n_values++] = xmalloc((size_t)(t->numel ? t->numel : 1) * sizeof(float));
        tensor_read_f32(t, 0, t->numel, v); /* widening is exact, so writing back gives the same bytes */
        char name[256];
        bool prefixed = strncmp(t->name, TEXT_PREFIX, strlen(TEXT_PREFIX)) == 0;
        snprintf(name, sizeof name, "%s%s", prefixed && new_prefix ? new_prefix : "",
                 prefixed && new_prefix ? t->name + strlen(TEXT_PREFIX) : t->name);
        stw_add(&w, name, t->dtype, t->ndim, t->shape, v);
        if (twice && strcmp(t->name, twice) == 0) {
            snprintf(name, sizeof name, "model.%s", t->name + strlen(TEXT_PREFIX));
            stw_add(&w, name, t->dtype, t->ndim, t->shape, v);
        }
    }
    char *out = in_dir(dst, "model.safetensors");
    ck_assert_msg(stw_write(&w, out, NULL, &err), "%s", err.msg);
    stw_free(&w);
    for (int i = 0; i < n_values; i++) free(values[i]);
    free(values);
    free(out);
    free(shard);
    st_close(&st);
}

/* Without an index, a single model.safetensors; a text-only file says "model."
 * where the multimodal one says "model.language_model.". */
START_TEST(single_file_with_the_plain_prefix) {
    char *plain = in_dir(scratch, "plain"), *full = in_dir(scratch, "full");
    write_single(plain, "model.", NULL, NULL);
    write_single(full, NULL, NULL, NULL);
    Checkpoint a, b, ref;
    open_ok(&a, plain);
    open_ok(&b, full);
    open_ok(&ref, tiny);
    ck_assert_int_eq(a.n_shards, 1);
    ck_assert_str_eq(base_name(a.shards[0].path), "model.safetensors");
    ck_assert_ptr_null(a.synthetic); /* written here, not by make_synthetic: no mark */
    ck_assert_str_eq(ref.synthetic, "random weights");
    ck_assert_int_eq(a.n_refs, 55);
    ck_assert_int_eq(b.n_refs, 55);
    ck_assert_int_eq(a.n_skipped, 4);
    const Tensor *t = ckpt_find(&a, "layers.0.linear_attn.A_log");
    ck_assert_ptr_nonnull(t);
    ck_assert_str_eq(t->name, "model.layers.0.linear_attn.A_log");
    ck_assert_int_eq(t->dtype, DTYPE_F32);
    const Tensor *r = ckpt_find(&ref, "layers.0.linear_attn.A_log");
    ck_assert_mem_eq(t->data, r->data, 16);
    const Tensor *e = ckpt_find(&a, "embed_tokens.weight"), *re = ckpt_find(&ref, "embed_tokens.weight");
    ck_assert_mem_eq(e->data, re->data, 1024 * 64 * 2);
    ck_assert_ptr_nonnull(ckpt_find(&b, "layers.3.self_attn.q_proj.weight"));
    ckpt_close(&a);
    ckpt_close(&b);
    ckpt_close(&ref);
    free(plain);
    free(full);
}
END_TEST

/* ---- the output head ----------------------------------------------------------------- */

START_TEST(untied_lm_head_is_used) {
    char *untied = in_dir(scratch, "untied");
    write_tiny(untied, 1, true);
    Checkpoint ck;
    open_ok(&ck, untied);
    ck_assert(!ck.config.tie_word_embeddings);
    Model m;
    Error err;
    ck_assert_msg(model_open(&m, untied, &err), "%s", err.msg);
    ck_assert(!m.tied);
    const Tensor *head = m.lm_head, *embed = m.embed_tokens;
    ck_assert_ptr_ne(head, embed);
    ck_assert_str_eq(head->name, "lm_head.weight");
    ck_assert(head->ndim == 2 && head->shape[0] == 1024 && head->shape[1] == 64);
    ck_assert_ptr_eq(head, ckpt_find(&m.ck, "lm_head.weight"));
    ck_assert_msg(memcmp(head->data, embed->data, 1024 * 64 * 2) != 0,
                  "lm_head holds the embedding's values");
    ck_assert_int_eq(ck.n_refs, 56);
    model_close(&m);
    ckpt_close(&ck);
    free(untied);
}
END_TEST

/* docs/checkpoint.md §2: a file that does have lm_head.weight uses it — even when
 * config.json says the embeddings are tied. */
START_TEST(stored_lm_head_wins_over_the_tie_flag) {
    char *untied = in_dir(scratch, "untied"), *config = in_dir(untied, "config.json");
    write_tiny(untied, 1, true);
    json_file_edit(config, "tie_word_embeddings", "true");
    Checkpoint ck;
    open_ok(&ck, untied);
    ck_assert(ck.config.tie_word_embeddings);
    Model m;
    Error err;
    ck_assert_msg(model_open(&m, untied, &err), "%s", err.msg);
    ck_assert(!m.tied);
    ck_assert_str_eq(m.lm_head->name, "lm_head.weight");
    model_close(&m);
    ckpt_close(&ck);
    free(untied);
    free(config);
}
END_TEST

/* ---- broken folders ---------------------------------------------------------------- */

START_TEST(missing_folder_or_files) {
    char *nowhere = in_dir(scratch, "no-such-model");
    expect_open_error(nowhere, nowhere, "is missing");

    char *config = in_dir(tiny, "config.json");
    expect_open_error(config, config, "is a regular file, not a folder");

    char *empty = in_dir(scratch, "empty"); /* no config.json */
    Error err;
    ck_assert(make_dirs(empty, &err));
    char *empty_config = in_dir(empty, "config.json");
    expect_open_error(empty, empty_config, "cannot open", "No such file");

    /* config.json but neither an index nor model.safetensors */
    char *shard = in_dir(tiny, SHARD1), *index = in_dir(tiny, "model.safetensors.index.json");
    ck_assert_int_eq(remove(index), 0);
    ck_assert_int_eq(remove(shard), 0);
    expect_open_error(tiny, tiny, "neither model.safetensors.index.json nor model.safetensors");
    free(nowhere);
    free(config);
    free(empty);
    free(empty_config);
    free(shard);
    free(index);
}
END_TEST

/* Something is there, but not a regular file: it is named for what it is, never
 * reported as missing, and a named pipe never blocks the open. */
START_TEST(not_a_regular_file_is_named_for_what_it_is) {
    char *index = in_dir(tiny, "model.safetensors.index.json"), *shard = in_dir(tiny, SHARD1);
    char *saved = in_dir(scratch, "saved-index"), *config = in_dir(tiny, "config.json");
    ck_assert_int_eq(rename(index, saved), 0);

    /* the single-file layout, but model.safetensors is a folder (or a pipe) */
    char *single = in_dir(tiny, "model.safetensors");
    ck_assert_int_eq(mkdir(single, 0755), 0);
    expect_open_error(tiny, single, "is a folder, not a regular file");
    ck_assert_int_eq(rmdir(single), 0);
    ck_assert_int_eq(mkfifo(single, 0644), 0);
    expect_open_error(tiny, single, "is a named pipe (FIFO), not a regular file");
    ck_assert_int_eq(remove(single), 0);

    /* the index: a folder, a pipe, a symbolic link loop */
    ck_assert_int_eq(mkdir(index, 0755), 0);
    expect_open_error(tiny, index, "is a folder, not a regular file");
    ck_assert_int_eq(rmdir(index), 0);
    ck_assert_int_eq(mkfifo(index, 0644), 0);
    expect_open_error(tiny, index, "named pipe");
    ck_assert_int_eq(remove(index), 0);
    ck_assert_int_eq(symlink("model.safetensors.index.json", index), 0); /* points at itself */
    expect_open_error(tiny, index, "symbolic link loop");
    ck_assert_int_eq(remove(index), 0);
    ck_assert_int_eq(rename(saved, index), 0);

    /* the shard the index names */
    char *moved = in_dir(scratch, "shard");
    ck_assert_int_eq(rename(shard, moved), 0);
    ck_assert_int_eq(mkfifo(shard, 0644), 0);
    expect_open_error(tiny, "names shard", SHARD1, "named pipe (FIFO), not a regular file");
    ck_assert_int_eq(remove(shard), 0);
    ck_assert_int_eq(mkdir(shard, 0755), 0);
    expect_open_error(tiny, "names shard", SHARD1, "is a folder, not a regular file");
    ck_assert_int_eq(rmdir(shard), 0);
    ck_assert_int_eq(symlink(SHARD1, shard), 0);
    expect_open_error(tiny, "names shard", SHARD1, "symbolic link loop");
    ck_assert_int_eq(remove(shard), 0);
    ck_assert_int_eq(symlink("gone.safetensors", shard), 0);
    expect_open_error(tiny, "names shard", SHARD1, "symbolic link to something missing");
    ck_assert_int_eq(remove(shard), 0);
    ck_assert_int_eq(rename(moved, shard), 0);

    /* config.json as a pipe: an error, not a wait for a writer that never comes */
    char *cfg_saved = in_dir(scratch, "config");
    ck_assert_int_eq(rename(config, cfg_saved), 0);
    ck_assert_int_eq(mkfifo(config, 0644), 0);
    expect_open_error(tiny, config, "named pipe (FIFO), not a regular file");
    ck_assert_int_eq(remove(config), 0);
    ck_assert_int_eq(rename(cfg_saved, config), 0);

    Checkpoint ck; /* put back together, it opens again */
    open_ok(&ck, tiny);
    ckpt_close(&ck);
    free(index), free(shard), free(saved), free(config), free(single), free(moved), free(cfg_saved);
}
END_TEST

START_TEST(index_names_a_missing_shard) {
    char *shard = in_dir(tiny, SHARD1);
    ck_assert_int_eq(remove(shard), 0);
    expect_open_error(tiny, "model.safetensors.index.json", "names shard", SHARD1, "missing");

    char *two = in_dir(scratch, "two"), *second = in_dir(two, "model.safetensors-00002-of-00002.safetensors");
    write_tiny(two, 2, false);
    ck_assert_int_eq(remove(second), 0);
    expect_open_error(two, "model.safetensors.index.json", "names shard",
                      "model.safetensors-00002-of-00002.safetensors", "missing");
    free(shard);
    free(two);
    free(second);
}
END_TEST

/* Adds or changes weight_map[tensor] = value (JSON text) in dir's index. */
static void index_set(const char *dir, const char *tensor, const char *value) {
    char *path = in_dir(dir, "model.safetensors.index.json"), *text = slurp(path, NULL);
    cJSON *root = cJSON_Parse(text), *map = cJSON_GetObjectItemCaseSensitive(root, "weight_map");
    cJSON_DeleteItemFromObjectCaseSensitive(map, tensor);
    cJSON_AddItemToObject(map, tensor, cJSON_Parse(value));
    char *out = cJSON_PrintUnformatted(root);
    write_bytes(path, out, strlen(out));
    cJSON_Delete(root);
    free(out);
    free(text);
    free(path);
}

START_TEST(index_names_a_tensor_its_shard_lacks) {
    index_set(tiny, "model.language_model.layers.9.mlp.up_proj.weight",
              "\"model.safetensors-00001-of-00001.safetensors\"");
    char *index = in_dir(tiny, "model.safetensors.index.json");
    expect_open_error(tiny, index, "model.language_model.layers.9.mlp.up_proj.weight", SHARD1,
                      "does not contain it");

    /* two shards, and the index sends a tensor of shard 1 to shard 2 */
    char *two = in_dir(scratch, "two"), *two_index = in_dir(two, "model.safetensors.index.json");
    write_tiny(two, 2, false);
    index_set(two, "model.language_model.embed_tokens.weight",
              "\"model.safetensors-00002-of-00002.safetensors\"");
    expect_open_error(two, two_index, "model.language_model.embed_tokens.weight",
                      "model.safetensors-00002-of-00002.safetensors", "does not contain it");
    free(index);
    free(two);
    free(two_index);
}
END_TEST

START_TEST(broken_index) {
    char *path = in_dir(tiny, "model.safetensors.index.json");
    write_bytes(path, "{\"weight_map\": {", 16);
    expect_open_error(tiny, path, "not valid JSON");
    write_bytes(path, "{\"weight_map\": {}}\n}", 20); /* a second closing brace: more after the value */
    expect_open_error(tiny, path, "more after the JSON value");
    write_bytes(path, "{\"weight_map\": {\"a\\u0000b\": \"x\"}}", 33); /* a name cut short at U+0000 */
    expect_open_error(tiny, path, "\\u0000");
    write_bytes(path, "{\"metadata\": {}}", 16);
    expect_open_error(tiny, path, "weight_map");
    write_bytes(path, "{\"weight_map\": []}", 18);
    expect_open_error(tiny, path, "weight_map");
    write_bytes(path, "{\"weight_map\": {}}", 18);
    expect_open_error(tiny, path, "weight_map", "empty");
    write_bytes(path, "{\"weight_map\": {\"model.language_model.norm.weight\": 1}}", 55);
    expect_open_error(tiny, path, "model.language_model.norm.weight", "not a file name");
    /* a shard outside the folder is refused, whether or not it exists */
    static const char escape[] = "{\"weight_map\": {\"model.language_model.norm.weight\": "
                                 "\"../tiny/model.safetensors-00001-of-00001.safetensors\"}}";
    write_bytes(path, escape, strlen(escape));
    expect_open_error(tiny, "model.safetensors.index.json", "../tiny/", "plain file name");
    static const char *const not_plain[] = {"\"\"", "\".\"", "\"..\"", "\"/etc/passwd\""};
    for (size_t i = 0; i < ARRAY_LEN(not_plain); i++) {
        char *text = str_printf("{\"weight_map\": {\"model.language_model.norm.weight\": %s}}", not_plain[i]);
        write_bytes(path, text, strlen(text));
        expect_open_error(tiny, "model.safetensors.index.json", "plain file name");
        free(text);
    }
    free(path);
}
END_TEST

/* Every text tensor the config calls for must be there: leave one out at a time. */
static const char *const NEEDED[] = {
    "model.language_model.embed_tokens.weight",
    "model.language_model.norm.weight",
    "model.language_model.layers.0.input_layernorm.weight",
    "model.language_model.layers.1.linear_attn.A_log",
    "model.language_model.layers.2.mlp.up_proj.weight",
    "model.language_model.layers.2.linear_attn.norm.weight",
    "model.language_model.layers.3.self_attn.k_norm.weight",
    "model.language_model.layers.3.post_attention_layernorm.weight",
};

START_TEST(tensor_missing) {
    char *dst = in_dir(scratch, "missing");
    write_single(dst, NULL, NEEDED[_i], NULL);
    char want[160];
    snprintf(want, sizeof want, "tensor %s is missing", NEEDED[_i] + strlen(TEXT_PREFIX));
    expect_open_error(dst, dst, want);
    free(dst);
}
END_TEST

START_TEST(the_same_tensor_twice) {
    char *dst = in_dir(scratch, "twice");
    write_single(dst, NULL, NULL, "model.language_model.norm.weight"); /* also as model.norm.weight */
    char *file = in_dir(dst, "model.safetensors");
    expect_open_error(dst, file, "second copy", "norm.weight");
    free(dst);
    free(file);
}
END_TEST

/* A config.json that does not describe the tensors is refused on open, naming the
 * tensor, its shape, and the shape the config implies. */
typedef struct {
    const char *key, *value;
    const char *says;
} Contradiction;

static const Contradiction CONTRADICTIONS[] = {
    {"text_config.vocab_size", "2048",
     "tensor embed_tokens.weight has shape [1024, 64], but config.json implies [2048, 64]"},
    {"text_config.hidden_size", "32",
     "tensor embed_tokens.weight has shape [1024, 64], but config.json implies [1024, 32]"},
    {"text_config.intermediate_size", "96",
     "tensor layers.0.mlp.gate_proj.weight has shape [128, 64], but config.json implies [96, 64]"},
    {"text_config.linear_value_head_dim", "32", /* conv width 2·32 + 4·32 = 192 */
     "tensor layers.0.linear_attn.in_proj_qkv.weight has shape [128, 64], but config.json implies [192, 64]"},
    {"text_config.linear_conv_kernel_dim", "3",
     "tensor layers.0.linear_attn.conv1d.weight has shape [128, 1, 4], but config.json implies [128, 1, 3]"},
    {"text_config.num_key_value_heads", "4",
     "tensor layers.3.self_attn.k_proj.weight has shape [64, 64], but config.json implies [128, 64]"},
    {"text_config.num_attention_heads", "8", /* 8 heads × (32 query + 32 gate) */
     "tensor layers.3.self_attn.q_proj.weight has shape [256, 64], but config.json implies [512, 64]"},
    /* layer 0 declared full attention: its attention tensors are not there */
    {"text_config.layer_types.0", "\"full_attention\"", "tensor layers.0.self_attn.q_proj.weight is missing"},
};

START_TEST(shape_contradicts_config) {
    const Contradiction *c = &CONTRADICTIONS[_i];
    char *config = in_dir(tiny, "config.json"), *shard = in_dir(tiny, SHARD1);
    json_file_edit(config, c->key, c->value);
    if (strstr(c->says, "is missing"))
        expect_open_error(tiny, tiny, c->says);
    else
        expect_open_error(tiny, shard, c->says); /* names the file holding the tensor */
    free(config);
    free(shard);
}
END_TEST

/* Widths that wrap around in 32 bits. With 2 key heads of 1073741840 dims the key
 * width is 2147483680 and the convolution's 2 × 2147483680 + 64 channels are 128
 * modulo 2^32: exactly the tiny checkpoint's in_proj_qkv [128, 64], while every
 * tensor that uses the head dims raw (dt_bias, A_log, norm) does not involve the key
 * head dim. Computed in int, the folder opened, and the first layer then sized its
 * buffers with the wrapped numbers. Now the config is refused on open. */
START_TEST(widths_that_wrap_around_are_refused) {
    char *config = in_dir(tiny, "config.json");
    json_file_edit(config, "text_config.linear_key_head_dim", "1073741840");
    expect_open_error(tiny, config, "text_config.linear_key_head_dim is 1073741840, more than the 1048576");
    /* within each bound, the product over its own: also refused, naming both keys */
    json_file_edit(config, "text_config.linear_key_head_dim", "1048576");
    expect_open_error(tiny, config, "linear_num_key_heads × text_config.linear_key_head_dim = 2 × 1048576");
    free(config);
}
END_TEST

START_TEST(bad_config_or_shard_in_the_folder) {
    char *config = in_dir(tiny, "config.json"), *shard = in_dir(tiny, SHARD1);
    char *original = slurp(config, NULL);
    json_file_edit(config, "text_config.head_dim", NULL);
    expect_open_error(tiny, config, "missing key text_config.head_dim");
    write_bytes(config, original, strlen(original));
    json_file_edit(config, "text_config.layer_types.1", "\"mamba\"");
    expect_open_error(tiny, config, "layer_types[1]", "unknown layer type");

    /* a shard cut short (an interrupted download) */
    write_bytes(config, original, strlen(original));
    ck_assert_int_eq(truncate(shard, 100000), 0);
    expect_open_error(tiny, shard, "beyond the");
    ck_assert_int_eq(truncate(shard, 1000), 0); /* inside the header */
    expect_open_error(tiny, shard, "header length", "past the end");
    free(config);
    free(shard);
    free(original);
}
END_TEST

int main(void) {
    Suite *s = suite_create("checkpoint");
    TCase *good = tcase_with_scratch("layouts");
    tcase_add_checked_fixture(good, setup, teardown);
    tcase_set_timeout(good, 60);
    tcase_add_test(good, tiny_checkpoint_in_the_real_layout);
    tcase_add_test(good, prefix_and_skip_rules);
    tcase_add_test(good, two_shards_through_the_index);
    tcase_add_test(good, index_is_followed_not_globbed);
    tcase_add_test(good, single_file_with_the_plain_prefix);
    tcase_add_test(good, untied_lm_head_is_used);
    tcase_add_test(good, stored_lm_head_wins_over_the_tie_flag);
    suite_add_tcase(s, good);

    TCase *bad = tcase_with_scratch("bad input");
    tcase_add_checked_fixture(bad, setup, teardown);
    tcase_set_timeout(bad, 60);
    tcase_add_test(bad, missing_folder_or_files);
    tcase_add_test(bad, not_a_regular_file_is_named_for_what_it_is);
    tcase_add_test(bad, index_names_a_missing_shard);
    tcase_add_test(bad, index_names_a_tensor_its_shard_lacks);
    tcase_add_test(bad, broken_index);
    tcase_add_loop_test(bad, tensor_missing, 0, (int)ARRAY_LEN(NEEDED));
    tcase_add_test(bad, the_same_tensor_twice);
    tcase_add_loop_test(bad, shape_contradicts_config, 0, (int)ARRAY_LEN(CONTRADICTIONS));
    tcase_add_test(bad, widths_that_wrap_around_are_refused);
    tcase_add_test(bad, bad_config_or_shard_in_the_folder);
    suite_add_tcase(s, bad);
    return run_suite(s);
}
