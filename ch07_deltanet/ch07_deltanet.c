/* ch07_deltanet.c — chapter 7, part two: one Gated DeltaNet layer on real weights.
 *
 * The C twin of the book's ch07_deltanet.py; stdout is the book's printed block,
 * line for line:
 *
 *   1. The size of layer 0's DeltaNet (parameters, in_proj_qkv, conv1d) and each
 *      head's fixed forgetting speed exp(A_log).
 *   2. The layer on the book's short sentence and on the same sentence joined 20
 *      times with 。: the output shape and the time. The time grows with the text;
 *      the memory table does not: 16 tables of 128 × 128, 1 MB, against a
 *      full-attention layer's KV cache that grows by 4 KB with every token.
 *   3. The two gates on the real input: the range of the decay e^g and of β.
 *   4. The delta rule's defining property: the same (k, v) written six times with
 *      β = 0.5 is read back ever closer to v (the distance halves each time), while
 *      plain linear attention piles β·v on top at every write. The random k and v
 *      are PyTorch's after torch.manual_seed(0) (common/workbook/torch_rng.h), so these six
 *      lines are the book's to the last digit.
 *
 * The layer's input is the real one: the token ids' embedding rows through layer
 * 0's input_layernorm (chapters 2 and 3). Ids come from the model folder's
 * tokenizer.json, or directly from --ids (no tokenizer needed).
 *
 * Figures (plots/): the layer's time against the number of tokens, and the state
 * it keeps against a full-attention layer's KV cache.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/attention.h"
#include "qwen/deltanet.h"
#include "qwen/norm.h"
#include "qwen/tokenizer.h"
#include "qwen/weights.h"
#include "workbook/machine.h"
#include "workbook/demo.h"
#include "workbook/plot.h"
#include "workbook/sentence.h"
#include "workbook/torch_rng.h"
#include "workbook/util.h"

#define COPIES 20   /* the long text: the sentence 20 times … */
#define JOINER "。" /* … joined with a full stop */
#define LAYER  0    /* the layer the book looks at */

/* ---- command line ------------------------------------------------------------------ */

typedef struct {
    DemoArgs common;       /* --model, --ids (the short text's ids), --dump, --plot */
    const char *tokenizer; /* --tokenizer FILE, or NULL: the model folder's */
    long sep;              /* --sep ID: joins the copies of --ids (-1: nothing) */
} Options;

static void usage(FILE *to) {
    fprintf(to,
            "usage: %s [--model DIR] [--tokenizer FILE | --ids 1,2,3 [--sep ID]]\n"
            "          [--dump FILE] [--plot=png|ascii|none] [--max-memory SIZE] [--help]\n"
            "Chapter 7: layer 0's Gated DeltaNet on the book's sentence (" BOOK_SENTENCE ")\n"
            "and on the sentence joined 20 times with 。: shapes, times, the memory table,\n"
            "the gates on real input, and the delta rule writing one (k, v) six times.\n"
            "  --model DIR       the model folder (else $QWEN35_MODEL, models/Qwen3.5-0.8B,\n"
            "                    or the Hugging Face cache)\n"
            "  --tokenizer FILE  tokenize with this tokenizer.json (default: the model's)\n"
            "  --ids 1,2,3       the short text's token ids; no tokenizer needed. The long\n"
            "                    text is then 20 copies of them, joined with --sep ID (the\n"
            "                    id of 。) when given; e.g. the Qwen3 tokenizer's (7, 159):\n"
            "                    --ids 100644,104307,100832,3837,97639,85336,102077 --sep 1773\n"
            "                    Without --ids or a tokenizer: the reference script's 7 ids.\n"
            "  --dump FILE       write layer 0's input, every intermediate and its output for\n"
            "                    the short text (and input/output of the long one) to FILE\n"
            "                    as float32 safetensors, named as reference/qwen35_reference.py\n"
            "  --plot=MODE       png (default): plots/ch07_deltanet_time.png and\n"
            "                    ch07_deltanet_memory.png; ascii: also drawn in the terminal;\n"
            "                    none: no figures (and no extra timing runs)\n"
            "  --max-memory SIZE\n"
            "                    the most memory the run may take, e.g. 8G (default: half of\n"
            "                    this machine's); a request that needs more is refused up front\n",
            program_name());
}

/* The flags only this demo has. */
static bool own_flag(void *ctx, int argc, char **argv, int *i) {
    Options *o = ctx;
    const char *v;
    if ((v = demo_value("--tokenizer", argc, argv, i))) {
        o->tokenizer = v;
    } else if ((v = demo_value("--sep", argc, argv, i))) {
        uint64_t sep;
        if (!parse_count("--sep", v, 0, 100000000, &sep, NULL))
            die("--sep needs one token id (a whole number from 0 to 100000000), got '%s'", v);
        o->sep = (long)sep;
    } else {
        return false;
    }
    return true;
}

static Options parse_args(int argc, char **argv) {
    Options o = {.sep = -1};
    o.common = demo_parse_args(argc, argv, true, usage, own_flag, &o);
    if (o.common.ids && o.tokenizer) die("--ids and --tokenizer go one at a time");
    if (o.sep >= 0 && !o.common.ids) die("--sep goes with --ids");
    return o;
}

/* The long text from the short one's ids: COPIES copies, joined with sep (-1: none). */
static void copies_of(const TokenIds *short_ids, long sep, TokenIds *long_ids) {
    for (int c = 0; c < COPIES; c++) {
        if (c > 0 && sep >= 0) tok_ids_push(long_ids, (int)sep);
        for (int i = 0; i < short_ids->n; i++) tok_ids_push(long_ids, short_ids->ids[i]);
    }
}

/* The book's two texts through a tokenizer.json: the sentence, and
 * "。".join([sentence] * 20). */
static void tokenize_texts(const char *path, TokenIds *short_ids, TokenIds *long_ids) {
    Tokenizer tok;
    Error err;
    if (!tok_load(&tok, path, &err)) die("%s", err.msg);
    size_t one = strlen(BOOK_SENTENCE), joiner = strlen(JOINER);
    char *long_text = xmalloc(COPIES * (one + joiner) + 1), *w = long_text;
    for (int c = 0; c < COPIES; c++) {
        if (c > 0) memcpy(w, JOINER, joiner), w += joiner;
        memcpy(w, BOOK_SENTENCE, one), w += one;
    }
    *w = '\0';
    if (!tok_encode(&tok, BOOK_SENTENCE, one, short_ids, &err) ||
        !tok_encode(&tok, long_text, strlen(long_text), long_ids, &err))
        die("%s", err.msg);
    free(long_text);
    tok_free(&tok);
}

/* The short and the long text's ids, in this order: --tokenizer FILE; --ids (the long
 * text then 20 copies joined with --sep); the model folder's tokenizer.json;
 * otherwise the reference script's ids (common/workbook/sentence.h says so on stderr), the
 * long text 20 copies of them. notice receives the line that says how the long text
 * was made. */
static void text_ids(const Options *o, const Checkpoint *ck, TokenIds *short_ids, TokenIds *long_ids,
                     char *notice, size_t notice_size) {
    *short_ids = (TokenIds){0};
    *long_ids = (TokenIds){0};
    int vocab = ck->config.vocab_size;
    Error err;
    if (o->tokenizer) {
        tokenize_texts(o->tokenizer, short_ids, long_ids);
        return;
    }
    if (o->common.ids) {
        if (!ids_parse(o->common.ids, vocab, short_ids, &err)) die("%s", err.msg);
        if (o->sep >= vocab) die("--sep: id %ld is outside the vocabulary (0 .. %d)", o->sep, vocab - 1);
        copies_of(short_ids, o->sep, long_ids);
        snprintf(notice, notice_size, "%s: 长文本是 --ids 重复 %d 遍，%s\n", program_name(), COPIES,
                 o->sep >= 0 ? "中间用 --sep 的 id 连起来" : "中间不加「。」（要加就用 --sep ID）");
        return;
    }
    char *path = path_join(ck->dir, "tokenizer.json");
    if (is_file(path)) {
        tokenize_texts(path, short_ids, long_ids);
    } else {
        char label[128];
        if (!sentence_ids(ck, NULL, short_ids, label, sizeof label, &err)) die("%s", err.msg);
        copies_of(short_ids, -1, long_ids);
        snprintf(notice, notice_size, "%s: 长文本是这 %lld 个 id 重复 %d 遍\n", program_name(),
                 (long long)short_ids->n, COPIES);
    }
    free(path);
}

/* ---- the layer's input and timing -------------------------------------------------- */

/* Layer 0's real input: embedding rows, then input_layernorm.   x: [T, hidden] */
static float *layer_input(const Model *m, const TokenIds *ids) {
    Error err;
    size_t n = (size_t)ids->n * m->ck.config.hidden_size;
    float *embed = xaligned_alloc(n * sizeof(float)), *x = xaligned_alloc(n * sizeof(float));
    if (!sentence_layer_input(m, ids->ids, ids->n, LAYER, embed, x, &err)) die("%s", err.msg);
    free(embed);
    return x;
}

/* The layer on x [T, hidden] from an empty state, reps times after one warm-up run
 * (which also brings the memory-mapped weights in from the file, as the book's
 * loader had read them before its timing); the median time in ms. */
static double time_layer(const DeltaNet *dn, const float *x, int T, float *y, DeltaNetActs *acts, int reps) {
    DeltaNetState st;
    dn_state_init(&st, &dn->d);
    double *ms = xmalloc((size_t)reps * sizeof *ms);
    for (int r = -1; r < reps; r++) {
        dn_state_reset(&st);
        double t0 = now_seconds();
        dn_forward(dn, acts, x, T, &st, y, PATH_FAST);
        if (r >= 0) ms[r] = (now_seconds() - t0) * 1e3;
    }
    double ms_median = median(ms, reps);
    free(ms);
    dn_state_free(&st);
    return ms_median;
}

/* ---- part 4: one (k, v) written six times -------------------------------------------- */

enum { WRITES = 6, DK = 128 };

/* The book's experiment, line for line: k = normalize(randn(128)), v = randn(128),
 * both repeated for 6 tokens; delta_rule(q = k, k, v, g = 0, β = 0.5), which (as the
 * book's delta_rule does) l2-normalizes q and k and divides q by sqrt(128); plain =
 * cumsum(0.5 v). Prints the distance of what is read back from v after each write. */
static void rewrite_experiment(void) {
    TorchRng rng;
    rng_init(&rng, 0); /* torch.manual_seed(0) */
    float k[DK], v[DK];
    rng_randn(&rng, DK, k);
    /* F.normalize: x / max(‖x‖, 1e-12) */
    double ss = 0;
    for (int i = 0; i < DK; i++) ss += (double)k[i] * k[i];
    float norm = (float)sqrt(ss);
    for (int i = 0; i < DK; i++) k[i] /= fmaxf(norm, 1e-12f);
    rng_randn(&rng, DK, v);

    float q[WRITES * DK], kk[WRITES * DK], vv[WRITES * DK], g[WRITES], beta[WRITES]; /* [6, 128], [6] */
    for (int t = 0; t < WRITES; t++) {
        memcpy(kk + t * DK, k, sizeof k);
        memcpy(vv + t * DK, v, sizeof v);
        g[t] = 0.0f;    /* no decay */
        beta[t] = 0.5f; /* half way each time */
    }
    l2norm(kk, WRITES, DK, L2NORM_EPS, kk); /* inside the book's delta_rule: q, k ← l2norm, q / sqrt(dk) */
    float sqrt_dk = sqrtf((float)DK);
    for (int i = 0; i < WRITES * DK; i++) q[i] = kk[i] / sqrt_dk;
    float out[WRITES * DK], S[DK * DK];
    delta_rule(q, kk, vv, g, beta, WRITES, 1, 1, DK, DK, NULL, S, out);

    float plain[DK] = {0}; /* S += β k vᵀ with no look-up: reading gives t × β × v */
    for (int t = 0; t < WRITES; t++) {
        double d_delta = 0, d_plain = 0;
        for (int j = 0; j < DK; j++) {
            plain[j] += 0.5f * v[j];
            float a = out[t * DK + j] * sqrt_dk - v[j], b = plain[j] - v[j];
            d_delta += (double)a * a;
            d_plain += (double)b * b;
        }
        printf("  写入 %d 次后读出的值和 v 的距离：delta 规则 %6.3f，普通线性注意力 %6.3f\n", t + 1,
               (double)(float)sqrt(d_delta), (double)(float)sqrt(d_plain));
    }
}

/* ---- figures ---------------------------------------------------------------------------- */

/* Time for the whole text at once and token by token, at growing lengths; the state
 * the layer keeps against a full-attention layer's KV cache. */
static void plot_figures(const Model *m, const DeltaNet *dn, const TokenIds *text, const PlotOptions *opt) {
    const Config *c = &m->ck.config;
    static const int lengths[] = {1, 16, 32, 64, 128, 192, 256, 384, 512};
    enum { N = (int)ARRAY_LEN(lengths) };
    int max_T = lengths[N - 1];
    /* Long inputs: the long text's ids over and over. */
    TokenIds ids = {0};
    for (int i = 0; i < max_T; i++) tok_ids_push(&ids, text->ids[i % text->n]);
    float *x = layer_input(m, &ids);
    float *y = xaligned_alloc((size_t)max_T * c->hidden_size * sizeof(float));
    DeltaNetActs acts;
    dn_acts_init(&acts, &dn->d, max_T);
    double n[N], whole[N], stepwise[N];
    fprintf(stderr, "%s: 为了画图，在 %d 种长度上给这一层计时……\n", program_name(), N);
    for (int i = 0; i < N; i++) {
        n[i] = lengths[i];
        whole[i] = time_layer(dn, x, lengths[i], y, &acts, 3);
    }
    /* token by token: the cumulative time after each length */
    DeltaNetState st;
    dn_state_init(&st, &dn->d);
    double t0 = now_seconds();
    for (int t = 0, i = 0; t < max_T; t++) {
        dn_forward(dn, &acts, x + (size_t)t * c->hidden_size, 1, &st, y, PATH_FAST);
        if (t + 1 == lengths[i]) stepwise[i++] = (now_seconds() - t0) * 1e3;
    }
    dn_state_free(&st);
    PlotSeries time_series[2] = {
        {"整段一次读完（所有 token 的投影一起算）", n, whole, N, PLOT_LINESPOINTS, "#1f77b4"},
        {"逐个 token 读（生成时），累计", n, stepwise, N, PLOT_LINESPOINTS, "#d95f02"},
    };
    char title[160];
    snprintf(title, sizeof title, "第 %d 层的 Gated DeltaNet：时间随 token 数线性增长", LAYER);
    Plot pt = {.name = "ch07_deltanet_time",
               .title = title,
               .xlabel = "token 数",
               .ylabel = "时间（ms）",
               .xmin = 0,
               .xmax = max_T * 1.05,
               .key = "top left"};
    plot_lines(&pt, time_series, 2, opt);

    /* Memory: the DeltaNet's state is the tables plus the conv history, whatever the
     * length; a full-attention layer keeps K and V of every token (fp32). */
    const DeltaNetDims *d = &dn->d;
    AttnDims a;
    attn_dims(&a, c);
    double tables_mb = (double)dn_table_bytes(d) / MIB, conv_mb = (double)dn_conv_bytes(d) / MIB;
    double kv_per_token_mb = (double)attn_kv_bytes_per_token(&a) / MIB;
    enum { M = 65 };
    double tok[M], dn_mb[M], kv_mb[M];
    int span = 1024;
    for (int i = 0; i < M; i++) {
        tok[i] = (double)span * i / (M - 1);
        dn_mb[i] = tables_mb + conv_mb;
        kv_mb[i] = kv_per_token_mb * tok[i];
    }
    double cross = (tables_mb + conv_mb) / kv_per_token_mb;
    char dn_title[160], kv_title[160], extra[256];
    snprintf(dn_title, sizeof dn_title,
             "Gated DeltaNet：%d 张 %d × %d 的记忆表（%.1f MB）+ 卷积缓存（%.0f KB）", d->n_v, d->dk, d->dv,
             tables_mb, conv_mb * 1024);
    snprintf(kv_title, sizeof kv_title, "全注意力：KV cache，每个 token %.0f KB", kv_per_token_mb * 1024);
    snprintf(extra, sizeof extra,
             "set arrow from %.1f, graph 0 to %.1f, graph 1 nohead dashtype 2\n"
             "set label '%.0f 个 token 时一样大' at %.1f, graph 0.9\n",
             cross, cross, cross, cross * 1.05);
    PlotSeries mem_series[2] = {
        {dn_title, tok, dn_mb, M, PLOT_LINES, "#d95f02"},
        {kv_title, tok, kv_mb, M, PLOT_LINES, "#1f77b4"},
    };
    Plot pm = {.name = "ch07_deltanet_memory",
               .title = "一层边读边要存多少：DeltaNet 的状态不随长度变大",
               .xlabel = "已经读了多少个 token",
               .ylabel = "存的状态（MB，float32）",
               .xmin = 0,
               .xmax = span,
               .ymin = 0,
               .key = "bottom right", /* clear of both lines and of the label at the cross-over */
               .extra = extra};
    plot_lines(&pm, mem_series, 2, opt);
    dn_acts_free(&acts);
    free(x), free(y);
    tok_ids_free(&ids);
}

/* ---- --dump ---------------------------------------------------------------------------- */

/* Token ids as float32 (as the reference stores them). */
static float *ids_as_floats(DumpSet *ds, const char *name, const TokenIds *ids) {
    float *f = dump_buffer(ds, name, 1, (int64_t[]){ids->n});
    for (int t = 0; t < ids->n; t++) f[t] = (float)ids->ids[t];
    return f;
}

/* Key-head vectors [T, n_k, dk] as the reference stores them, [T, n_v, dk]. */
static void per_value_head(DumpSet *ds, const char *name, const float *x, int T, const DeltaNetDims *d) {
    dn_repeat_key_heads(d, x, T, dump_buffer(ds, name, 3, (int64_t[]){T, d->n_v, d->dk}));
}

/* Layer 0 on the short text, every intermediate, named as
 * reference/qwen35_reference.py names them; the long text's input and output. */
static void dump(const char *path, const DeltaNet *dn, const TokenIds *texts[2], float *inputs[2],
                 float *outputs[2], DeltaNetActs *a) {
    const DeltaNetDims *d = &dn->d;
    int64_t T = texts[0]->n, TL = texts[1]->n;
    /* The tables after the short text: one more run, keeping its state. */
    DeltaNetState st;
    dn_state_init(&st, d);
    dn_forward(dn, a, inputs[0], (int)T, &st, outputs[0], PATH_FAST);
    DumpSet ds;
    dump_init(&ds);
    ids_as_floats(&ds, "ids", texts[0]);
    dump_add(&ds, "layer.0.input_norm", 2, (int64_t[]){T, d->hidden}, inputs[0]);
    dump_add(&ds, "layer.0.linear_attn.qkv", 2, (int64_t[]){T, d->conv_dim}, a->qkv);
    dump_add(&ds, "layer.0.linear_attn.conv", 2, (int64_t[]){T, d->conv_dim}, a->conv);
    per_value_head(&ds, "layer.0.linear_attn.q", a->q, (int)T, d);
    per_value_head(&ds, "layer.0.linear_attn.k", a->k, (int)T, d);
    dump_add(&ds, "layer.0.linear_attn.v", 3, (int64_t[]){T, d->n_v, d->dv}, a->v);
    dump_add(&ds, "layer.0.linear_attn.beta", 2, (int64_t[]){T, d->n_v}, a->beta);
    dump_add(&ds, "layer.0.linear_attn.g", 2, (int64_t[]){T, d->n_v}, a->g);
    dump_add(&ds, "layer.0.linear_attn.core", 3, (int64_t[]){T, d->n_v, d->dv}, a->core);
    dump_add(&ds, "layer.0.linear_attn.state", 3, (int64_t[]){d->n_v, d->dk, d->dv}, st.S);
    dump_add(&ds, "layer.0.linear_attn.z", 2, (int64_t[]){T, d->value_dim}, a->z);
    dump_add(&ds, "layer.0.linear_attn.normed", 2, (int64_t[]){T, d->value_dim}, a->normed);
    dump_add(&ds, "layer.0.linear_attn.out", 2, (int64_t[]){T, d->hidden}, outputs[0]);
    ids_as_floats(&ds, "long.ids", texts[1]);
    dump_add(&ds, "long.layer.0.input_norm", 2, (int64_t[]){TL, d->hidden}, inputs[1]);
    dump_add(&ds, "long.layer.0.linear_attn.out", 2, (int64_t[]){TL, d->hidden}, outputs[1]);
    dump_write(&ds, path);
    dump_free(&ds);
    dn_state_free(&st);
}

/* ---- what a run takes ------------------------------------------------------------------ */

/* Everything the run allocates, added up before any of it is: for both texts the
 * layer's input, its output and its buffers (both kept for the dump), the embedding
 * rows of the longer one while its input is made, the state, the figures' 512-token
 * runs and the dump's extra copies. 65,536 --ids make a long text of 1.3 M tokens. */
static void require_memory(const Options *o, const DeltaNetDims *d, const TokenIds *short_ids,
                           const TokenIds *long_ids) {
    uint64_t need = size_add(dn_state_bytes(d), floats(size_mul(long_ids->n, d->hidden)));
    const TokenIds *texts[2] = {short_ids, long_ids};
    for (int i = 0; i < 2; i++)
        need = size_add(need, size_add(floats(size_mul(2 * (uint64_t)texts[i]->n, d->hidden)),
                                       dn_acts_bytes(d, texts[i]->n)));
    if (o->common.plot != PLOT_NONE)
        need = size_add(need, size_add(floats(3 * 512 * (uint64_t)d->hidden), dn_acts_bytes(d, 512)));
    if (o->common.dump)
        need = size_add(need, floats(size_add(size_mul(2 * (uint64_t)short_ids->n, (uint64_t)d->n_v * d->dk),
                                              long_ids->n)));
    need = size_add(need, size_mul(size_add(short_ids->n, long_ids->n), sizeof(int)));
    char what[128];
    snprintf(what, sizeof what, "layer %d on %lld tokens and on the long text of %lld", LAYER,
             (long long)short_ids->n, (long long)long_ids->n);
    demo_require_memory(need, what);
}

/* ---- main ------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
    set_program_name(argv[0]);
    Options opt = parse_args(argc, argv);
    Model m;
    demo_open_model(&m, opt.common.model);
    const Config *c = &m.ck.config;
    if (m.layers[LAYER].type != LAYER_LINEAR_ATTENTION)
        die("%s: layer %d is not a linear-attention (Gated DeltaNet) layer", m.ck.dir, LAYER);
    const DeltaNet *dn = &m.layers[LAYER].linear_attn;
    const DeltaNetWeights *w = &dn->w;
    const DeltaNetDims *d = &dn->d;

    TokenIds short_ids, long_ids; /* the two texts, read before anything is printed */
    char notice[256] = "";        /* how the long text was made: said once the run is known to fit */
    text_ids(&opt, &m.ck, &short_ids, &long_ids, notice, sizeof notice);
    if (short_ids.n == 0) die("the short text has no tokens");
    require_memory(&opt, d, &short_ids, &long_ids);
    fputs(notice, stderr);

    /* 1. the layer's size, and each head's fixed forgetting speed */
    printf("一层线性注意力 %.1fM 参数：in_proj_qkv %.1fM，conv1d 只有 %lld 个\n",
           (double)dn_param_count(dn) / 1e6, (double)w->in_proj_qkv->numel / 1e6,
           (long long)w->conv1d->numel);
    float a_min = INFINITY, a_max = -INFINITY;
    for (int h = 0; h < d->n_v; h++) {
        float speed = expf(tensor_get_f32(w->A_log, h)); /* exp(A_log) = −neg_A */
        a_min = fminf(a_min, speed), a_max = fmaxf(a_max, speed);
    }
    printf("每个头固定的遗忘速度 exp(A_log)：最小 %.2f，最大 %.2f（越大忘得越快）\n", a_min, a_max);

    /* 2. a short and a long text: the time grows with the length, the table does not */
    const TokenIds *texts[2] = {&short_ids, &long_ids};
    float *inputs[2], *outputs[2];
    DeltaNetActs acts[2];
    for (int i = 0; i < 2; i++) {
        int T = texts[i]->n;
        inputs[i] = layer_input(&m, texts[i]);
        outputs[i] = xaligned_alloc((size_t)T * d->hidden * sizeof(float));
        dn_acts_init(&acts[i], d, T);
        double ms = time_layer(dn, inputs[i], T, outputs[i], &acts[i], T > 64 ? 5 : 21);
        printf("  %3d 个 token：输出 (1, %d, %d)，%.0f ms\n", T, T, d->hidden, ms);
    }
    AttnDims ad;
    attn_dims(&ad, c);
    printf("记忆表：每个头 [%d, %d]，%d 个头共 %.1f MB，和 token 数无关；全注意力的 KV cache 每个 token 要加 "
           "%.0f KB\n",
           d->dk, d->dv, d->n_v, (double)dn_table_bytes(d) / MIB, (double)attn_kv_bytes_per_token(&ad) / KIB);

    /* 3. the decay e^g and the write strength β on the short text (kept from its run) */
    const DeltaNetActs *a = &acts[0];
    float g_min = INFINITY, g_max = -INFINITY, b_min = INFINITY, b_max = -INFINITY;
    for (size_t i = 0; i < (size_t)short_ids.n * d->n_v; i++) {
        float decay = expf(a->g[i]);
        g_min = fminf(g_min, decay), g_max = fmaxf(g_max, decay);
        b_min = fminf(b_min, a->beta[i]), b_max = fmaxf(b_max, a->beta[i]);
    }
    printf("第 %d 层对这 %lld 个 token：衰减 exp(g) 的范围 [%.2f, %.2f]，β 的范围 [%.2f, %.2f]\n", LAYER,
           (long long)short_ids.n, g_min, g_max, b_min, b_max);

    /* 4. the same (k, v) written six times */
    rewrite_experiment();
    fflush(stdout);

    if (opt.common.plot != PLOT_NONE) {
        PlotOptions po = {.mode = opt.common.plot};
        plot_figures(&m, dn, &long_ids, &po);
    }

    if (opt.common.dump) dump(opt.common.dump, dn, texts, inputs, outputs, &acts[0]);

    for (int i = 0; i < 2; i++) {
        free(inputs[i]), free(outputs[i]);
        dn_acts_free(&acts[i]);
    }
    tok_ids_free(&short_ids), tok_ids_free(&long_ids);
    model_close(&m);
    return 0;
}
