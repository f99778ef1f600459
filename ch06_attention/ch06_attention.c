/* ch06_attention — chapter 6: gated full attention on real weights.
 *
 * Runs layer 3, the first of the six full-attention layers, on the book's
 * sentence 今天天气不错，我们去公园 and prints what the chapter looks at: how q_proj
 * splits into query and gate per head, how 8 query heads share 2 KV heads (GQA),
 * what q_norm / k_norm do to the scale, where the last token looks, the range of
 * the output gate, the KV cache's cost per token (the number chapter 7 compares its
 * fixed-size memory table against), and that decoding token by token with the
 * cache gives exactly the full pass. The attention weights of every head are drawn
 * as a heatmap (plots/ch06_attention.png).
 *
 * The input. In the whole model, layer 3 reads the residual stream after layers
 * 0–2 (three DeltaNet layers, chapter 7). Like the book's chapter-by-chapter
 * scripts, this demo builds it from the parts written so far: the sentence's
 * embedding rows through layer 3's input_layernorm. The attention is the real
 * layer's; only its input is the chapter's stand-in.
 *
 *   ./ch06_attention [--model DIR] [--ids 1,2,3] [--dump FILE] [--plot=png|ascii|none]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/attention.h"
#include "qwen/linear.h"
#include "qwen/norm.h"
#include "qwen/rope.h"
#include "qwen/safetensors.h"
#include "qwen/tokenizer.h"
#include "qwen/weights.h"
#include "workbook/demo.h"
#include "workbook/plot.h"
#include "workbook/sentence.h"
#include "workbook/util.h"

static void usage(FILE *to) {
    fprintf(
        to,
        "usage: %s [--model DIR] [--ids 1,2,3] [--dump FILE]\n"
        "          [--plot=png|ascii|none] [--max-memory SIZE] [--help]\n"
        "\n"
        "Chapter 6: the first full-attention layer (layer 3) on the book's sentence:\n"
        "query/gate split, GQA, q/k norm, each head's attention weights (heatmap), the\n"
        "gate's range, the KV cache's cost per token, and token-by-token decoding with\n"
        "the cache checked against the full pass.\n"
        "\n" DEMO_HELP_MODEL "  --ids 1,2,3        token ids instead of the sentence (also \"[1, 2, 3]\");\n"
        "                     without them, a folder with no tokenizer.json runs the\n"
        "                     reference script's 7 ids\n"
        "  --dump FILE        write ids, embed, layer.3.input_norm,\n"
        "                     layer.3.self_attn.{q_raw, gate, q, k, v, probs, attn,\n"
        "                     gated, out} and rope.{cos, sin} to FILE (float32\n"
        "                     safetensors, named as reference/qwen35_reference.py)\n"
        "  --plot=MODE        png (default): plots/ch06_attention.png (+ .dat, .gp);\n"
        "                     ascii: the same, the heatmap also drawn on stderr; none\n" DEMO_HELP_MAX_MEMORY
        "  --help             this text\n",
        program_name());
}

/* One token's text for labels ("公园"). Control characters are shown as \n, \x1b etc.;
 * a token that is only part of a character (a byte-level piece of a rare
 * character) is shown by its bytes, e.g. <e5 85>. Without a tokenizer: "#id". */
static char *token_label(const Tokenizer *tok, int id) {
    char buf[64];
    const char *stored = tok ? tok_token(tok, id) : NULL;
    if (!stored) {
        snprintf(buf, sizeof buf, "#%d", id);
        return xstrdup(buf);
    }
    int cap = (int)strlen(stored) + 1;
    unsigned char *bytes = xmalloc((size_t)cap);
    int len = tok_token_bytes(tok, id, bytes, cap);
    size_t bad;
    char *label = xmalloc(4 * (size_t)(len > 0 ? len : 1) + 3), *o = label;
    if (len < 0 || !utf8_check((const char *)bytes, (size_t)len, &bad)) {
        o += sprintf(o, "<");
        for (int i = 0; i < len; i++) o += sprintf(o, i ? " %02x" : "%02x", bytes[i]);
        sprintf(o, ">");
    } else {
        for (int i = 0; i < len; i++) {
            unsigned char c = bytes[i];
            if (c == '\n')
                *o++ = '\\', *o++ = 'n';
            else if (c == '\t')
                *o++ = '\\', *o++ = 't';
            else if (c == '\r')
                *o++ = '\\', *o++ = 'r';
            else if (c < 0x20 || c == 0x7f) /* an escape sequence from the file never reaches the terminal */
                o += sprintf(o, "\\x%02x", c);
            else
                *o++ = (char)c;
        }
        *o = '\0';
    }
    free(bytes);
    return label;
}

/* ---- small statistics ----------------------------------------------------------- */

/* Smallest and largest per-head RMS over all [rows] vectors of length d. */
static void head_rms_range(const float *x, int rows, int d, double *lo, double *hi) {
    *lo = INFINITY, *hi = -INFINITY;
    for (int r = 0; r < rows; r++) {
        double v = rms_of(x + (size_t)r * d, (size_t)d);
        if (v < *lo) *lo = v;
        if (v > *hi) *hi = v;
    }
}

/* ---- the heatmap ---------------------------------------------------------------- */

/* Every head's [T, T] weights as tiles of one picture (up to 4 heads per row of
 * tiles), separated by a blank row and column; the masked future stays blank too.
 * Each tile gets its own token ticks and its head's name in its empty corner. */
static void plot_heads(const float *probs, int Hq, int T, int layer, char **labels, PlotMode mode) {
    int gc = Hq <= 4 ? Hq : (Hq + 1) / 2; /* heads per row of tiles */
    int gr = (Hq + gc - 1) / gc;
    int rows = gr * (T + 1) - 1, cols = gc * (T + 1) - 1;
    float *m = xmalloc((size_t)rows * cols * sizeof(float)); /* [rows, cols] */
    for (size_t i = 0; i < (size_t)rows * cols; i++) m[i] = NAN;
    const char **rl =
        xcalloc((size_t)rows, sizeof *rl); /* [rows]: row labels (the terminal drawing uses them) */
    /* Ticks: every token's text for a short input; for a long one, positions at a
     * round step (0, 50, 100, ...), at most 5 per tile. */
    bool by_position = T > 24;
    int step = 1;
    if (by_position)
        for (int k = 0; step * 5 < T; k++)
            step = (k % 3 == 0 ? 1 : k % 3 == 1 ? 2 : 5) * (int)pow(10, k / 3 + 1);
    Text extra = {0}, xt = {0}, yt = {0};
    for (int h = 0; h < Hq; h++) {
        int r0 = (h / gc) * (T + 1), c0 = (h % gc) * (T + 1);
        for (int t = 0; t < T; t++) {
            rl[r0 + t] = labels[t];
            for (int j = 0; j <= t; j++)
                m[(size_t)(r0 + t) * cols + c0 + j] = probs[((size_t)h * T + t) * T + j];
        }
        for (int t = 0; t < T; t += step) {
            char pos[16];
            snprintf(pos, sizeof pos, "%d", t);
            const char *tick = by_position ? pos : labels[t];
            if (h / gc == 0) { /* x ticks: one set per tile column */
                text_add(&xt, "%s", xt.len ? ", " : "");
                plot_quote(&xt, tick);
                text_add(&xt, " %d", c0 + t);
            }
            if (h % gc == 0) { /* y ticks: one set per tile row */
                text_add(&yt, "%s", yt.len ? ", " : "");
                plot_quote(&yt, tick);
                text_add(&yt, " %d", r0 + t);
            }
        }
        /* the head's name in its tile's empty upper-right corner (the future) */
        text_add(&extra, "set label '头 %d' at %d, %d right front\n", h, c0 + T - 1, r0);
    }
    text_add(&extra, "set xtics (%s) rotate by -45\nset ytics (%s)\n", xt.s, yt.s);
    char title[160];
    snprintf(title, sizeof title, "第 %d 层 %d 个头的注意力权重（行：提问的 token，列：被看的 token）", layer,
             Hq);
    Plot p = {.name = "ch06_attention", .title = title, .extra = extra.s};
    PlotOptions po = {.mode = mode, .png_width = 1100, .png_height = 640};
    plot_heatmap(&p, m, rows, cols, rl, NULL, &po);
    free(m);
    free(rl);
    free(extra.s), free(xt.s), free(yt.s);
}

/* ---- main ----------------------------------------------------------------------- */

int main(int argc, char **argv) {
    set_program_name(argv[0]);
    DemoArgs opt = demo_parse_args(argc, argv, true, usage, NULL, NULL);

    Error err;
    Model m;
    demo_open_model(&m, opt.model);
    const Config *c = &m.ck.config;
    int layer = -1, n_full = 0;
    for (int i = 0; i < c->num_hidden_layers; i++)
        if (c->layer_types[i] == LAYER_FULL_ATTENTION) {
            if (layer < 0) layer = i;
            n_full++;
        }
    if (layer < 0) die("%s: config.json has no full-attention layer", m.ck.dir);
    const Attention *at = &m.layers[layer].self_attn;
    int H = at->d.hidden, Hq = at->d.n_heads, Hkv = at->d.n_kv_heads, d = at->d.head_dim;

    /* The token ids (--ids, else the sentence through tokenizer.json, else the
     * reference's ids) and, when there is a tokenizer, each token's text for labels. */
    TokenIds ids;
    char source_label[256];
    if (!sentence_ids(&m.ck, opt.ids, &ids, source_label, sizeof source_label, &err)) die("%s", err.msg);
    int T = ids.n;
    /* What the run allocates for T tokens, before any of it: the attention weights
     * [Hq, T, T] (and the figure's tiles of them), four [T, H] tensors, k before its
     * norm, the layer's buffers for the full pass and for the decode, two KV caches,
     * the RoPE table, the labels, and the dumped ids, cos and sin. */
    {
        uint64_t TT = size_mul(T, T), half = (uint64_t)c->rotary_dim / 2;
        int gc = Hq <= 4 ? Hq : (Hq + 1) / 2, gr = (Hq + gc - 1) / gc;
        uint64_t tiles = opt.plot == PLOT_NONE ? 0 : size_mul(size_mul(gr, T + 1), size_mul(gc, T + 1));
        uint64_t n_floats =
            size_add(size_add(size_mul(Hq, TT), tiles),
                     size_add(size_mul(4, size_mul(T, H)), size_mul(T, size_add(Hkv * d, 2 * half + 1))));
        uint64_t need = size_add(floats(n_floats), size_add(attn_acts_bytes(&at->d, T, T),
                                                            attn_acts_bytes(&at->d, (T + 1) / 2, T)));
        need = size_add(need,
                        size_add(size_mul(2, kv_cache_bytes(&at->d, T)), rope_table_bytes(c->rotary_dim, T)));
        need = size_add(need, size_mul(T, 64)); /* labels and their pointers */
        char what[64];
        snprintf(what, sizeof what, "the demo on %d tokens", T);
        demo_require_memory(need, what);
    }
    Tokenizer tok_storage, *tok = NULL;
    char *tok_path = path_join(m.ck.dir, "tokenizer.json");
    if (is_file(tok_path)) {
        if (!tok_load(&tok_storage, tok_path, &err)) die("%s", err.msg);
        tok = &tok_storage;
    }
    char **labels = xmalloc((size_t)T * sizeof *labels);
    for (int t = 0; t < T; t++) labels[t] = token_label(tok, ids.ids[t]);

    /* The layer's input, as the chapter builds it: embedding rows → input_layernorm. */
    float *embed = xmalloc((size_t)T * H * sizeof(float)); /* [T, H] */
    float *x = xmalloc((size_t)T * H * sizeof(float));     /* [T, H] */
    if (!sentence_layer_input(&m, ids.ids, T, layer, embed, x, &err)) die("%s", err.msg);

    /* The full pass, keeping every intermediate (the buffers of AttnActs, and the
     * attention weights, which it keeps on request). */
    size_t nq = (size_t)T * Hq * d, nk = (size_t)T * Hkv * d;
    AttnActs acts;
    attn_acts_init(&acts, &at->d, T);
    float *probs = xmalloc((size_t)Hq * T * T * sizeof(float)); /* [Hq, T, T] */
    acts.probs = probs;
    float *out = xmalloc((size_t)T * H * sizeof(float)); /* [T, H] */
    RopeTable rope;
    rope_init_config(&rope, c, T);
    KVCache kv;
    kv_init(&kv, &at->d, T);
    attn_forward(at, &acts, x, T, &kv, &rope, out, PATH_FAST);
    const float *q_raw = acts.q_raw, *gate = acts.gate, *q = acts.q, *k = acts.k, *v = acts.v,
                *attn = acts.attn, *gated = acts.gated;
    /* k before its norm, for the scale line: k_proj once more (the layer keeps only the normed k) */
    float *k_raw = xmalloc(nk * sizeof(float)); /* [T, Hkv, d] */
    linear_batch(x, at->w.k_proj, T, k_raw);

    /* ---- what the chapter prints ---- */
    const AttnWeights *w = &at->w;
    int64_t n_params = attn_param_count(at);
    char full_layers[256] = "";
    for (int i = 0, n = 0; i < c->num_hidden_layers; i++)
        if (c->layer_types[i] == LAYER_FULL_ATTENTION) {
            size_t used = strlen(full_layers);
            snprintf(full_layers + used, sizeof full_layers - used, "%s%d", n++ ? "、" : "", i);
        }
    printf("第 %d 层是第一个全注意力层（%d 层里第 %s 层是全注意力），一层 %.1fM 参数：\n", layer,
           c->num_hidden_layers, full_layers, (double)n_params / 1e6);
    printf("  q_proj [%lld, %lld]：%d 个头 × %d，每头前 %d 是 query、后 %d 是门（gate）\n",
           (long long)w->q_proj->shape[0], (long long)w->q_proj->shape[1], Hq, 2 * d, d, d);
    printf("  k_proj、v_proj 各 [%lld, %lld]：%d 个 KV 头 × %d；o_proj [%lld, %lld]；q_norm、k_norm 各 %d "
           "个权重\n",
           (long long)w->k_proj->shape[0], (long long)w->k_proj->shape[1], Hkv, d,
           (long long)w->o_proj->shape[0], (long long)w->o_proj->shape[1], d);

    char idbuf[512];
    printf("输入：%s %s：", source_label, ids_str(ids.ids, T, idbuf, sizeof idbuf));
    for (int t = 0; t < T && t < 24; t++) printf("%s%s", t ? " | " : "", labels[t]);
    printf("%s（查词嵌入，过第 %d 层的 input_layernorm）\n", T > 24 ? " | ……" : "", layer);

    printf("GQA：%d 个 query 头共用 %d 个 KV 头，每 %d 个一组：", Hq, Hkv, at->d.group);
    for (int g = 0; g < Hkv; g++) {
        int first = -1, last = -1;
        for (int h = 0; h < Hq; h++)
            if (attn_kv_head(&at->d, h) == g) last = h, first = first < 0 ? h : first;
        printf("%s头 %d–%d 读 KV 头 %d", g ? "，" : "", first, last, g);
    }
    printf("\n");

    double lo0, hi0, lo1, hi1, lo2, hi2, lo3, hi3;
    head_rms_range(q_raw, T * Hq, d, &lo0, &hi0);
    head_rms_range(q, T * Hq, d, &lo1, &hi1);
    head_rms_range(k_raw, T * Hkv, d, &lo2, &hi2);
    head_rms_range(k, T * Hkv, d, &lo3, &hi3);
    printf("q_norm、k_norm 把每个头拉到同一尺度：query 每头的 RMS 从 [%.2f, %.2f] 变成 [%.2f, %.2f]，"
           "key 从 [%.2f, %.2f] 变成 [%.2f, %.2f]\n",
           lo0, hi0, lo1, hi1, lo2, hi2, lo3, hi3);

    printf("最后一个 token「%s」在每个头里怎么分配注意力：\n", labels[T - 1]);
    for (int h = 0; h < Hq; h++) {
        const float *row = probs + ((size_t)h * T + (T - 1)) * T; /* [T]: the last token's weights */
        int best = 0;
        for (int j = 1; j < T; j++)
            if (row[j] > row[best]) best = j;
        printf("  头 %d（KV 头 %d）：", h, attn_kv_head(&at->d, h));
        if (T <= 12) {
            for (int j = 0; j < T; j++) printf("%s%.2f", j ? " " : "", row[j]);
            printf("，最看重「%s」", labels[best]);
        } else { /* a long input: the three largest weights */
            int top[3] = {-1, -1, -1};
            for (int r = 0; r < 3; r++)
                for (int j = 0; j < T; j++)
                    if (j != top[0] && j != top[1] && (top[r] < 0 || row[j] > row[top[r]])) top[r] = j;
            for (int r = 0; r < 3 && r < T; r++)
                printf("%s位置 %d「%s」%.2f", r ? "，" : "", top[r], labels[top[r]], row[top[r]]);
        }
        printf("\n");
    }

    double gsum = 0, glo = INFINITY, ghi = -INFINITY;
    size_t closed = 0, open = 0;
    for (size_t i = 0; i < nq; i++) {
        double s = 1.0 / (1.0 + exp(-(double)gate[i])); /* sigmoid(gate) */
        gsum += s;
        glo = s < glo ? s : glo;
        ghi = s > ghi ? s : ghi;
        closed += s < 0.1;
        open += s > 0.9;
    }
    printf("门 sigmoid(gate) 的范围 [%.2f, %.2f]，平均 %.2f；小于 0.1 的占 %.0f%%（几乎关上），大于 0.9 的占 "
           "%.0f%%（几乎全开）\n",
           glo, ghi, gsum / (double)nq, 100.0 * (double)closed / (double)nq,
           100.0 * (double)open / (double)nq);
    printf("乘门之前注意力输出的 RMS %.3f，乘门之后 %.3f；o_proj 写回残差流 [%d, %d]，RMS %.3f\n",
           rms_of(attn, nq), rms_of(gated, nq), T, H, rms_of(out, (size_t)T * H));

    size_t per_token = attn_kv_bytes_per_token(&at->d);
    printf(
        "KV cache：每个 token 每层存 K、V 各 %d 个头 × %d 维，fp32 是 2 × %d × %d × 4 = %zu 字节 = %g KB\n",
        Hkv, d, Hkv, d, per_token, (double)per_token / 1024);
    printf("  这 %d 个 token 共 %g KB；%d 个全注意力层加起来每个 token %g KB；", T,
           (double)per_token * T / 1024, n_full, (double)per_token * n_full / 1024);
    if (c->max_position_embeddings > 0)
        printf("最长上下文 %d 个 token 时每层 %.1f GB", c->max_position_embeddings,
               (double)per_token * c->max_position_embeddings / (1 << 30));
    printf("\n");
    printf("  不用 GQA（%d 个头各存自己的 K、V）每个 token 每层要 %g KB，是现在的 %d 倍\n", Hq,
           (double)per_token * at->d.group / 1024, at->d.group);

    /* Token by token: the first half as a prompt, then one token at a time. */
    int prefill = (T + 1) / 2;
    float *dec = xmalloc((size_t)T * H * sizeof(float)); /* [T, H] */
    KVCache kv2;
    kv_init(&kv2, &at->d, 0);
    AttnActs acts2; /* its own buffers: the full pass's intermediates are still to be drawn and dumped */
    attn_acts_init(&acts2, &at->d, prefill);
    attn_forward(at, &acts2, x, prefill, &kv2, &rope, dec, PATH_FAST);
    for (int t = prefill; t < T; t++)
        attn_forward(at, &acts2, x + (size_t)t * H, 1, &kv2, &rope, dec + (size_t)t * H, PATH_FAST);
    attn_acts_free(&acts2);
    double maxdiff = 0;
    for (size_t i = 0; i < (size_t)T * H; i++) maxdiff = fmax(maxdiff, fabs((double)dec[i] - out[i]));
    printf("逐 token 解码：先整段算前 %d 个 token，再带着 KV cache 一个一个算后 %d "
           "个，和整段一起算的输出最大差 %.3g\n",
           prefill, T - prefill, maxdiff);
    fflush(stdout);

    if (opt.plot != PLOT_NONE) plot_heads(probs, Hq, T, layer, labels, opt.plot);

    if (opt.dump) {
        char names[12][64];
        const char *parts[] = {"q_raw", "gate", "q", "k", "v", "probs", "attn", "gated", "out"};
        for (int i = 0; i < 9; i++)
            snprintf(names[i], sizeof names[i], "layer.%d.self_attn.%s", layer, parts[i]);
        snprintf(names[9], sizeof names[9], "layer.%d.input_norm", layer);
        float *idf = xmalloc((size_t)T * sizeof(float)); /* [T] */
        for (int t = 0; t < T; t++) idf[t] = (float)ids.ids[t];
        int half = rope.half;
        float *cosv = xmalloc((size_t)T * half * sizeof(float)),
              *sinv = xmalloc((size_t)T * half * sizeof(float));
        for (int t = 0; t < T; t++) {
            memcpy(cosv + (size_t)t * half, rope_cos(&rope, t), (size_t)half * sizeof(float));
            memcpy(sinv + (size_t)t * half, rope_sin(&rope, t), (size_t)half * sizeof(float));
        }
        DumpSet dd;
        dump_init(&dd);
        dump_add(&dd, "ids", 1, (int64_t[]){T}, idf);
        dump_add(&dd, "embed", 2, (int64_t[]){T, H}, embed);
        dump_add(&dd, names[9], 2, (int64_t[]){T, H}, x);
        dump_add(&dd, names[0], 3, (int64_t[]){T, Hq, d}, q_raw);
        dump_add(&dd, names[1], 3, (int64_t[]){T, Hq, d}, gate);
        dump_add(&dd, names[2], 3, (int64_t[]){T, Hq, d}, q);
        dump_add(&dd, names[3], 3, (int64_t[]){T, Hkv, d}, k);
        dump_add(&dd, names[4], 3, (int64_t[]){T, Hkv, d}, v);
        dump_add(&dd, names[5], 3, (int64_t[]){Hq, T, T}, probs);
        dump_add(&dd, names[6], 2, (int64_t[]){T, Hq * d}, attn);
        dump_add(&dd, names[7], 2, (int64_t[]){T, Hq * d}, gated);
        dump_add(&dd, names[8], 2, (int64_t[]){T, H}, out);
        dump_add(&dd, "rope.cos", 2, (int64_t[]){T, half}, cosv);
        dump_add(&dd, "rope.sin", 2, (int64_t[]){T, half}, sinv);
        dump_write(&dd, opt.dump);
        dump_free(&dd);
        free(idf);
        free(cosv);
        free(sinv);
    }

    kv_free(&kv);
    kv_free(&kv2);
    rope_free(&rope);
    free(dec);
    attn_acts_free(&acts);
    free(k_raw), free(probs), free(out);
    free(embed), free(x);
    for (int t = 0; t < T; t++) free(labels[t]);
    free(labels);
    tok_ids_free(&ids);
    if (tok) tok_free(tok);
    free(tok_path);
    model_close(&m);
    return 0;
}
