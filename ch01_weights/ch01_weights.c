/* ch01_weights — chapter 1: what is inside the checkpoint.
 *
 * Finds the model folder, opens config.json and the safetensors shard(s) (mapped,
 * not read), and prints what the book's first chapter looks at: the text config,
 * the layer pattern, the parameter count of every part, the dtypes, the memory.
 * Every number about the text model comes from shapes alone, so on the synthetic
 * checkpoint (`make synthetic`) it is the same as on the real download; the
 * skipped tensors and the size of the files are not, since the synthetic files
 * hold only small stand-ins for the vision tower and the mtp head.
 *
 *   ./ch01_weights [--model DIR] [--dump FILE TENSOR...] [--max-memory SIZE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/model.h"
#include "qwen/safetensors.h"
#include "workbook/demo.h"
#include "workbook/pyfmt.h"
#include "workbook/util.h"

static void usage(FILE *to) {
    fprintf(to,
            "usage: %s [--model DIR] [--dump FILE TENSOR...] [--max-memory SIZE] [--help]\n"
            "Chapter 1: opens the Qwen3.5-0.8B checkpoint and prints its config, layer\n"
            "pattern, parameter counts, dtypes and memory.\n"
            "  --model DIR    the model folder (else $QWEN35_MODEL, models/Qwen3.5-0.8B,\n"
            "                 or the Hugging Face cache)\n"
            "  --dump FILE TENSOR...\n"
            "                 write the named tensors (e.g. layers.0.linear_attn.A_log)\n"
            "                 to FILE as float32 safetensors (streamed: no tensor is held\n"
            "                 whole; the file system must have room for it)\n"
            "  --max-memory SIZE  the most memory to take, e.g. 8G (default: half of\n"
            "                 this machine's)\n",
            program_name());
}

static int64_t numel(const Tensor *t) { return t ? t->numel : 0; }

/* 10543264 -> "10.5M" (as the book writes f"{n / 1e6:.1f}M"). */
static const char *millions(int64_t n, char *buf) {
    sprintf(buf, "%.1fM", (double)n / 1e6);
    return buf;
}

/* Bytes in decimal units, two decimals: 1504791232 -> "1.50 GB", 525776 -> "525.78 KB"
 * (a test checkpoint is far below a gigabyte). */
static const char *size_str(double bytes, char *buf) {
    if (bytes >= 1e9)
        sprintf(buf, "%.2f GB", bytes / 1e9);
    else if (bytes >= 1e6)
        sprintf(buf, "%.2f MB", bytes / 1e6);
    else
        sprintf(buf, "%.2f KB", bytes / 1e3);
    return buf;
}

/* The first layer of the given type, or NULL. */
static const Layer *first_layer(const Model *m, LayerType t) {
    for (int i = 0; i < m->ck.config.num_hidden_layers; i++)
        if (m->layers[i].type == t) return &m->layers[i];
    return NULL;
}

static void print_summary(const Model *w, const char *dir, const char *source, double load_ms) {
    const Checkpoint *ck = &w->ck;
    const Config *c = &ck->config;
    char a[32], b[32], d[32], e[32], pattern[CONFIG_MAX_LAYERS + 1];
    int n_text = ck->n_refs;

    printf("找到模型：%s（来自 %s）\n", dir, source);
    printf("打开 %d 个分片用了 %.0f ms（mmap 只读文件头，权重用到时才从磁盘读）：文本部分 %d 个张量，"
           "跳过视觉塔和 mtp 的 %d 个\n",
           ck->n_shards, load_ms, n_text, ck->n_skipped);
    printf("文本配置：隐藏维度 %d，%d 层，词表 %d 行，MLP 中间维度 %d，RMSNorm eps = %g\n", c->hidden_size,
           c->num_hidden_layers, c->vocab_size, c->intermediate_size, c->rms_norm_eps);
    printf("  全注意力：%d 个 query 头共用 %d 个 KV 头，每头 %d 维；RoPE 只转前 %d 维，theta = %.0f\n",
           c->num_attention_heads, c->num_key_value_heads, c->head_dim, c->rotary_dim, c->rope_theta);
    printf("  线性注意力（Gated DeltaNet）：%d 个 key 头、%d 个 value 头，每头 %d / %d 维，短卷积窗口 %d\n",
           c->linear_num_key_heads, c->linear_num_value_heads, c->linear_key_head_dim,
           c->linear_value_head_dim, c->linear_conv_kernel_dim);
    cfg_layer_pattern(c, pattern);
    printf("层的排列（L = 线性注意力，F = 全注意力）：%s\n", pattern);

    printf("参数量（只看形状就能算出来）：\n");
    printf("  词嵌入 embed_tokens [%lld, %lld]：%s%s\n", (long long)w->embed_tokens->shape[0],
           (long long)w->embed_tokens->shape[1], millions(numel(w->embed_tokens), a),
           w->tied ? "（输出层和它共用同一个矩阵，不另算）" : "");
    if (!w->tied) printf("  输出层 lm_head：%s\n", millions(numel(w->lm_head), a));
    const Layer *lin = first_layer(w, LAYER_LINEAR_ATTENTION);
    if (lin) {
        const DeltaNetWeights *n = &lin->linear_attn.w;
        printf("  一层线性注意力 %s：in_proj_qkv %s，in_proj_z %s，out_proj %s，conv1d 只有 %lld 个\n",
               millions(dn_param_count(&lin->linear_attn), a), millions(numel(n->in_proj_qkv), b),
               millions(numel(n->in_proj_z), d), millions(numel(n->out_proj), e),
               (long long)numel(n->conv1d));
    }
    const Layer *full = first_layer(w, LAYER_FULL_ATTENTION);
    if (full) {
        const AttnWeights *t = &full->self_attn.w;
        printf("  一层全注意力 %s：q_proj %s（query 和 gate 各占一半，各 %s），k_proj、v_proj 各 %s，o_proj "
               "%s\n",
               millions(attn_param_count(&full->self_attn), a), millions(numel(t->q_proj), b),
               millions(numel(t->q_proj) / 2, d), millions(numel(t->k_proj), e),
               millions(numel(t->o_proj), a + 16));
    }
    const Mlp *m = &w->layers[0].mlp;
    printf("  一层 MLP %s：gate_proj、up_proj、down_proj 各 %s\n", millions(mlp_param_count(m), a),
           millions(numel(m->w.gate_proj), b));

    int64_t total = 0, bytes = 0, by_dtype[3] = {0};
    for (int i = 0; i < n_text; i++) {
        total += ck->refs[i]->numel;
        bytes += ck->refs[i]->numel * dtype_size(ck->refs[i]->dtype);
        by_dtype[ck->refs[i]->dtype]++;
    }
    printf("  文本部分合计 %s（%s 个）：%d 层线性注意力 + %d 层全注意力 + %d 个 MLP + 词嵌入 + 各处 norm\n",
           millions(total, a), py_grouped(total, b, sizeof b), cfg_count_layers(c, LAYER_LINEAR_ATTENTION),
           cfg_count_layers(c, LAYER_FULL_ATTENTION), c->num_hidden_layers);

    /* Which tensors are not BF16: in the real checkpoint, A_log and the gated-norm weight. */
    printf("数据类型：BF16 %lld 个张量，F32 %lld 个，F16 %lld 个", (long long)by_dtype[DTYPE_BF16],
           (long long)by_dtype[DTYPE_F32], (long long)by_dtype[DTYPE_F16]);
    char seen[4][64] = {{0}};
    int n_seen = 0;
    for (int i = 0; i < n_text; i++) {
        const Tensor *t = ck->refs[i];
        if (t->dtype != DTYPE_F32) continue;
        const char *role = ckpt_text_name(t->name), *dot;
        if (strncmp(role, "layers.", 7) == 0 && (dot = strchr(role + 7, '.')))
            role = dot + 1; /* drop "layers.N." */
        bool known = false;
        for (int k = 0; k < n_seen; k++) known |= strcmp(seen[k], role) == 0;
        if (!known && n_seen < 4) snprintf(seen[n_seen++], sizeof seen[0], "%s", role);
    }
    for (int k = 0; k < n_seen; k++) { /* names from the file: never a raw control character on stdout */
        char shown[256];
        printf("%s%s", k ? "、" : "（F32 的是 ", escape_text(seen[k], shown, sizeof shown));
    }
    printf("%s\n", n_seen ? "：精度要紧的少数几个）" : "");
    /* The whole download against what the model uses: the shards hold the vision
     * tower and the mtp head too (and each its header). */
    uint64_t file_bytes = 0;
    for (int i = 0; i < ck->n_shards; i++) file_bytes += ck->shards[i].size;
    char f[32], g[32], h[32];
    printf("内存：分片文件共 %s%s，其中文本权重 %s；文本权重全换成 fp32 要 %s\n",
           size_str((double)file_bytes, f), ck->n_skipped ? "（视觉塔和 mtp 也在里面）" : "",
           size_str((double)bytes, g), size_str((double)total * 4, h));
}

/* Fills out with elements first .. first + count − 1 of a tensor, widened to float32:
 * the writer asks for a tensor chunk by chunk, so no tensor is ever held whole. */
static void widen_chunk(void *ctx, int64_t first, int64_t count, float *out) {
    tensor_read_f32(ctx, first, count, out);
}

/* --dump: the named tensors, described to the writer before anything is printed: a
 * name the checkpoint lacks, or a file the disk has no room for (float32 is twice
 * the BF16 bytes), is an error before the run. */
static void dump_plan(StWriter *w, const Checkpoint *ck, const char *path, char **names, int n) {
    stw_init(w);
    for (int i = 0; i < n; i++) {
        const char *short_name = ckpt_text_name(names[i]);
        const Tensor *t = short_name ? ckpt_find(ck, short_name) : NULL;
        if (!t) die("--dump: no tensor named %s in %s", names[i], ck->dir);
        stw_add_generated(w, short_name, DTYPE_F32, t->ndim, t->shape, widen_chunk, (void *)t);
    }
    Error err;
    if (!check_disk_space(path, stw_data_bytes(w), &err)) die("--dump: %s", err.msg);
}

/* --dump: the tensors, widened to float32 a chunk at a time, into one safetensors file. */
static void dump(StWriter *w, const char *path) {
    Error err;
    if (!stw_write(w, path, NULL, &err)) die("%s", err.msg);
    fprintf(stderr, "%s: %d 个张量（float32）已写到 %s\n", program_name(), w->count, path);
}

int main(int argc, char **argv) {
    set_program_name(argv[0]);
    const char *model_flag = NULL, *dump_path = NULL;
    char **dump_names = NULL;
    int n_dump = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc) {
            model_flag = argv[++i];
        } else if (strcmp(argv[i], "--max-memory") == 0 && i + 1 < argc) {
            demo_max_memory(argv[++i]);
        } else if (strcmp(argv[i], "--dump") == 0 && i + 2 < argc) {
            dump_path = argv[++i];
            dump_names = &argv[i + 1];
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) i++, n_dump++;
            if (n_dump == 0) die("--dump %s needs at least one tensor name (see --help)", dump_path);
        } else {
            die("unknown or incomplete option '%s' (see --help)", argv[i]);
        }
    }
    if (dump_path) demo_check_dump(dump_path); /* before the model is even looked for */

    Error err;
    const char *source;
    char *dir = model_find(model_flag, &source, &err);
    if (!dir) die("%s", err.msg);
    Model m;
    double t0 = now_seconds();
    if (!model_open(&m, dir, &err)) die("%s", err.msg);
    double load_ms = (now_seconds() - t0) * 1000;
    StWriter plan;
    if (dump_path) dump_plan(&plan, &m.ck, dump_path, dump_names, n_dump);

    print_summary(&m, dir, source, load_ms);
    if (dump_path) {
        dump(&plan, dump_path);
        stw_free(&plan);
    }
    model_close(&m);
    free(dir);
    return 0;
}
