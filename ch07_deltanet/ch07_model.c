/* ch07_model.c — 零件齐了，拼成完整的 Qwen3.5: the whole model, generating text.
 *
 * Every part of chapters 1–7 stacked into the 24-layer model (common/qwen/model.h):
 * embedding rows, 18 Gated DeltaNet and 6 full-attention layers each followed by
 * the SwiGLU MLP, the final RMSNorm, and the tied embedding as the output head.
 *
 * Without --prompt or --ids it walks through the assembly on the book's sentence,
 * in the book's voice (stdout):
 *   1. the layer pattern, the parameter count and the memory of the whole model;
 *   2. the equivalence the chapter promises, checked live: reading the prompt in one
 *      pass, or a part of it and then token by token, or in three pieces with the
 *      state handed over between them, gives the same logits;
 *   3. the memory ledger: what the model must remember after 100, 1000 and 3000
 *      tokens — the 6 attention layers' KV cache grows, the 18 DeltaNet layers'
 *      tables do not — against a model with 24 full-attention layers;
 *   4. a greedy continuation of the sentence, streamed.
 *
 * With --prompt TEXT (or --ids) it generates: the text streams to stdout as the
 * tokens come (never half a UTF-8 character; control characters escaped when stdout
 * is a terminal), and one summary line goes to stderr. --interactive is a multi-turn
 * chat that keeps the caches and tables between turns, so each turn reads only its
 * own tokens; a bad line (not UTF-8, a NUL byte, too long) is refused with one line
 * and the chat goes on. In a chat (--chat, --interactive) what the user writes is
 * text: only the chat template writes control tokens (tokenizer.h's tok_chat_encode).
 * --save-state and --load-state keep a conversation in a file (workbook/statefile.h).
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cJSON.h>

#include "kernels/pool.h"
#include "qwen/model.h"
#include "qwen/safetensors.h"
#include "qwen/sample.h"
#include "qwen/tokenizer.h"
#include "workbook/demo.h"
#include "workbook/jsonstr.h"
#include "workbook/sentence.h"
#include "workbook/statefile.h"
#include "workbook/textstream.h"
#include "workbook/utf8.h"
#include "workbook/util.h"

#define CHUNK           256       /* tokens per pass through the layers (model.h) */
#define WALK_NEW_TOKENS 20        /* the walkthrough's greedy continuation */
#define DEFAULT_NEW     256       /* -n when not given */
#define CHAT_LINE_MAX   (1 << 20) /* bytes of one line typed in --interactive (1 MiB) */
#define TOP_K_MAX       (1 << 30) /* the largest --top-k (and top_k in generation_config.json) */

/* ---- command line --------------------------------------------------------------------- */

typedef struct {
    DemoArgs common;        /* --model, --ids, --dump */
    const char *prompt;     /* --prompt TEXT */
    long n_new;             /* -n N: tokens to generate (-1: not given) */
    bool chat, think;       /* --chat, --think */
    bool interactive;       /* --interactive */
    bool reference;         /* --reference */
    double temp, top_p;     /* --temp, --top-p (NAN: not given) */
    long top_k;             /* --top-k (-1: not given) */
    uint64_t seed;          /* --seed */
    long threads;           /* --threads (0: the pool's default) */
    bool escape;            /* stdout is a terminal: generated control characters escaped */
    const char *save_state; /* --save-state FILE */
    const char *load_state; /* --load-state FILE */
    Quant quant;            /* --quant bf16|q8_0 */
    double quant_s;         /* seconds model_quantize took */
} Options;

static void usage(FILE *to) {
    fprintf(
        to,
        "usage: %s [--model DIR] [--prompt TEXT | --ids 1,2,3 | --interactive]\n"
        "         [-n N] [--chat [--think]] [--temp T] [--top-k K] [--top-p P] [--seed S]\n"
        "         [--threads N] [--dump FILE] [--save-state FILE] [--load-state FILE]\n"
        "         [--reference] [--quant q8_0] [--max-memory SIZE] [--help]\n"
        "The whole Qwen3.5 (chapter 7). No prompt: the assembly walked through on the\n"
        "book's sentence; a prompt: text to stdout, a summary line on stderr.\n" DEMO_HELP_MODEL
        "  --prompt TEXT      continue TEXT, in which <|im_end|> and the like are special\n"
        "                     tokens, as in Hugging Face (--chat: plain text, as typed)\n"
        "  --ids 1,2,3        the prompt as token ids (no tokenizer needed)\n"
        "  -n N               tokens to generate (default %d, fewer if the context ends)\n"
        "  --chat [--think]   the prompt in the chat template (--think: thinking on)\n"
        "  --interactive      a chat in the terminal, Ctrl-D ends it; a line holds at\n"
        "                     most 1 MiB (and what --max-memory leaves), typed as text\n"
        "  --temp T           sampling temperature (0: greedy); --top-k K and --top-p P\n"
        "                     filter; default: generation_config.json, else greedy;\n"
        "                     --seed S repeats a sampled run (default 0)\n"
        "  --dump FILE        write embed, layer.{i}, final_norm, logits of the prompt\n"
        "  --save-state FILE  at the end, replace FILE whole with every layer's state;\n"
        "  --load-state FILE  go on from such a state (the two may be the same file)\n"
        "  --quant q8_0       8-bit weights, quantized as the model opens (default bf16)\n"
        "  --threads N        worker threads; --reference: the readable loops (slow)\n" DEMO_HELP_MAX_MEMORY,
        program_name(), DEFAULT_NEW);
}

/* A whole number in [lo, hi] for flag (util.h's rule: digits only), or death with
 * the flag's name. */
static uint64_t whole_number(const char *flag, const char *v, uint64_t lo, uint64_t hi) {
    uint64_t x;
    Error err;
    if (!parse_count(flag, v, lo, hi, &x, &err)) die("%s", err.msg);
    return x;
}

/* A real number for flag (util.h's rule: digits, a fraction, an exponent; no sign,
 * no hex), or death with the flag's name. */
static double real_number(const char *flag, const char *v) {
    double x;
    Error err;
    if (!parse_real(flag, v, &x, &err)) die("%s", err.msg);
    return x;
}

static bool own_flag(void *ctx, int argc, char **argv, int *i) {
    Options *o = ctx;
    const char *v;
    if ((v = demo_value("--prompt", argc, argv, i)))
        o->prompt = v;
    else if ((v = demo_value("-n", argc, argv, i)))
        o->n_new = whole_number("-n", v, 0, INT_MAX); /* the context caps the run */
    else if (strcmp(argv[*i], "--chat") == 0)
        o->chat = true;
    else if (strcmp(argv[*i], "--think") == 0)
        o->think = true;
    else if (strcmp(argv[*i], "--interactive") == 0)
        o->interactive = true;
    else if (strcmp(argv[*i], "--reference") == 0)
        o->reference = true;
    else if ((v = demo_value("--temp", argc, argv, i))) {
        o->temp = real_number("--temp", v);
        if (o->temp > FLT_MAX) die("--temp must be at most %g (a float), got '%s'", FLT_MAX, v);
    } else if ((v = demo_value("--top-k", argc, argv, i)))
        o->top_k = whole_number("--top-k", v, 0, TOP_K_MAX);
    else if ((v = demo_value("--top-p", argc, argv, i))) {
        o->top_p = real_number("--top-p", v);
        if (!(o->top_p > 0 && o->top_p <= 1)) die("--top-p must be in (0, 1], got '%s'", v);
    } else if ((v = demo_value("--seed", argc, argv, i)))
        o->seed = whole_number("--seed", v, 0, UINT64_MAX);
    else if ((v = demo_value("--threads", argc, argv, i)))
        o->threads = whole_number("--threads", v, 1, 1024);
    else if ((v = demo_value("--save-state", argc, argv, i)))
        o->save_state = v;
    else if ((v = demo_value("--load-state", argc, argv, i)))
        o->load_state = v;
    else if ((v = demo_value("--quant", argc, argv, i))) {
        if (!quant_parse(v, &o->quant)) {
            char shown[64];
            die("--quant takes one of %s, got '%s'", QUANT_NAMES, escape_text(v, shown, sizeof shown));
        }
    } else
        return false;
    return true;
}

static Options parse_args(int argc, char **argv) {
    Options o = {.n_new = -1, .temp = NAN, .top_p = NAN, .top_k = -1};
    o.common = demo_parse_args(argc, argv, false, usage, own_flag, &o);
    if (o.prompt && o.common.ids) die("--prompt and --ids go one at a time");
    if (o.interactive && (o.prompt || o.common.ids)) die("--interactive reads its prompts from the terminal");
    if (o.interactive && o.common.dump) die("--dump goes with a prompt, not with --interactive");
    if (o.common.dump && !o.prompt && !o.common.ids)
        die("--dump writes the tensors of a prompt: give --prompt TEXT or --ids 1,2,3 with it");
    if (o.think && !o.chat && !o.interactive) die("--think goes with --chat");
    if (o.prompt && !o.prompt[0]) die("--prompt: the prompt is empty");
    if (o.save_state && !o.prompt && !o.common.ids && !o.load_state && !o.interactive)
        die("--save-state saves a run: give --prompt TEXT, --ids 1,2,3, --load-state FILE or --interactive");
    if (o.threads > 0) pool_set_threads((int)o.threads);
    o.escape = isatty(STDOUT_FILENO);
    return o;
}

/* ---- shared pieces ------------------------------------------------------------------------------- */

/* Sizes for the book's units: MB = 2^20 bytes, KB = 2^10 bytes (as the chapter's
 * "1.0 MB" for 16 tables of 128 × 128 float32), GB = 10^9 bytes (as chapter 1). */
static double mib(double bytes) { return bytes / MIB; }

static void progress_bar(int64_t done, int64_t total, void *ctx) {
    const char *what = ctx;
    fprintf(stderr, "\r%s：%3.0f%%", what, 100.0 * (double)done / (double)total);
    if (done == total) fputc('\n', stderr);
}

/* Brings the mapped weights in from the disk before the first token, with a
 * progress line when stderr is a terminal (a cold checkpoint takes a while). */
static void touch_weights(Model *m) {
    bool tty = isatty(STDERR_FILENO);
    model_touch(m, tty ? progress_bar : NULL, "从磁盘读入权重");
}

/* Reads ids through the model (model_forward goes in passes of CHUNK tokens itself);
 * a long prompt on a terminal goes CHUNK tokens per call instead, to show how far it
 * is — without a trace, whose rows model_forward places. */
static void read_tokens(const Model *m, RunState *s, const int *ids, int n, const ModelTrace *trace) {
    Error err;
    bool show = !trace && n > 4 * CHUNK && isatty(STDERR_FILENO);
    int step = show ? CHUNK : n;
    for (int t0 = 0; t0 < n; t0 += step) {
        int k = n - t0 < step ? n - t0 : step;
        if (!model_forward(m, s, ids + t0, k, trace, &err)) die("%s", err.msg);
        if (show) fprintf(stderr, "\rprefill：%d / %d 个 token", t0 + k, n);
    }
    if (show) fputc('\n', stderr);
}

/* The ids that end a generated text: <|im_end|>, <|endoftext|> and the config's eos. */
typedef struct {
    int ids[CONFIG_MAX_EOS + 2];
    int n;
} StopIds;

static StopIds stop_ids(const Model *m, const Tokenizer *tok) {
    StopIds s = {.n = 0};
    const char *names[] = {"<|im_end|>", "<|endoftext|>"};
    for (size_t i = 0; tok && i < ARRAY_LEN(names); i++) {
        int id = tok_token_id(tok, names[i]);
        if (id >= 0) s.ids[s.n++] = id;
    }
    const Config *c = &m->ck.config;
    for (int i = 0; i < c->n_eos; i++) {
        bool seen = false;
        for (int j = 0; j < s.n; j++) seen |= s.ids[j] == c->eos_token_ids[i];
        if (!seen) s.ids[s.n++] = c->eos_token_ids[i];
    }
    return s;
}

static bool is_stop(const StopIds *s, int id) {
    for (int i = 0; i < s->n; i++)
        if (s->ids[i] == id) return true;
    return false;
}

/* What happened during one generation, for the summary line. */
typedef struct {
    int generated;
    double decode_s; /* time of the token-by-token part */
    bool stopped;    /* ended on a stop token */
    bool full;       /* ended because the context is full */
} GenStats;

/* stdout is where the text goes: once a write to it fails (a closed pipe, a full
 * disk), nobody reads what follows, so the run stops at once. */
static void stdout_failed(int error) { die("cannot write to stdout: %s", strerror(error ? error : EIO)); }

static void flush_stdout(void) {
    if (fflush(stdout) != 0 || ferror(stdout)) stdout_failed(errno);
}

/* Generates up to n tokens after what s has read: sample from s->logits, print, and
 * read the token back in, so that the state holds every token shown — but for one
 * sampled when the context is full, which is shown and not read (there is no
 * position left for it). Appends the tokens read to seen, which therefore always
 * matches the state. */
static GenStats generate(const Model *m, RunState *s, Sampler *smp, const StopIds *stop, TextStream *out,
                         int n, TokenIds *seen) {
    GenStats g = {0};
    double t0 = now_seconds();
    Error err;
    for (int i = 0; i < n; i++) {
        int id = sample_next(smp, s->logits);
        if (id < 0) { /* a NaN or an infinity: no token drawn from them would mean anything */
            int bad = first_nonfinite(s->logits, smp->vocab);
            die("the logits after %lld tokens are %s (logit %d is the first): the weights or the state hold "
                "numbers that are not finite or overflow",
                (long long)s->pos, isnan(s->logits[bad]) ? "NaN" : "infinite", bad);
        }
        g.generated++;
        bool end = is_stop(stop, id);
        if (!end && !text_stream_token(out, id)) stdout_failed(out->error);
        if (s->max_pos > 0 && s->pos + 1 > s->max_pos) { /* no position left to read it at */
            g.full = !end;
            break;
        }
        if (!model_forward(m, s, &id, 1, NULL, &err)) die("%s", err.msg);
        tok_ids_push(seen, id);
        if (end) {
            g.stopped = true;
            break;
        }
    }
    if (!text_stream_end(out)) stdout_failed(out->error);
    g.decode_s = now_seconds() - t0;
    return g;
}

/* At most n of the tokens generated after `at` positions can be read (the last one
 * shown is not, when the context is full): the memory to plan for. */
static int64_t readable(const RunState *s, int64_t at, int n) {
    int64_t room = s->max_pos > 0 ? s->max_pos - at : INT64_MAX;
    return room < n ? (room > 0 ? room : 0) : n;
}

/* The state to start from (--load-state), or death naming the file. */
static void load_state(const char *path, const Model *m, RunState *s, TokenIds *seen, Sampler *smp) {
    Error err;
    if (!state_load(path, m, s, seen, &smp->rng, &err)) die("%s", err.msg);
}

/* --save-state: the state after the run, replacing the file whole. */
static void save_state(const char *path, const Model *m, const RunState *s, const TokenIds *seen,
                       const Sampler *smp) {
    Error err;
    if (!state_save(path, m, s, seen, smp->rng, &err)) die("%s", err.msg);
    fprintf(stderr, "%s: 读过 %lld 个 token 之后的状态（%.1f MB）已写到 %s\n", program_name(),
            (long long)seen->n, mib((double)run_state_bytes(s)), path);
}

/* Largest |a − b| over n values. */
static double max_diff(const float *a, const float *b, size_t n) {
    double d = 0;
    for (size_t i = 0; i < n; i++) d = fmax(d, fabs((double)a[i] - b[i]));
    return d;
}

/* ---- the walkthrough ------------------------------------------------------------------------- */

static void print_anatomy(const Model *m, double quant_s) {
    const Config *c = &m->ck.config;
    char pattern[CONFIG_MAX_LAYERS + 1];
    cfg_layer_pattern(c, pattern);
    int n_lin = cfg_count_layers(c, LAYER_LINEAR_ATTENTION),
        n_full = cfg_count_layers(c, LAYER_FULL_ATTENTION);
    printf("零件齐了，拼成完整的 Qwen3.5：%d 层，排列 %s（L = Gated DeltaNet %d 层，F = 全注意力 %d 层）\n",
           c->num_hidden_layers, pattern, n_lin, n_full);
    printf("  每一层：h = x + 混合层(RMSNorm(x))，out = h + MLP(RMSNorm(h))；%d 层之后再过一次 RMSNorm，"
           "和词嵌入表的每一行做点积，得到 %d 个 logits\n",
           c->num_hidden_layers, c->vocab_size);

    const Layer *lin = NULL, *full = NULL;
    int64_t norms = m->norm->numel;
    for (int i = 0; i < c->num_hidden_layers; i++) {
        const Layer *l = &m->layers[i];
        if (l->type == LAYER_LINEAR_ATTENTION && !lin) lin = l;
        if (l->type == LAYER_FULL_ATTENTION && !full) full = l;
        norms += l->input_layernorm->numel + l->post_attention_layernorm->numel;
    }
    int64_t total = model_param_count(m);
    printf("参数 %.1fM：词嵌入 %.1fM%s", (double)total / 1e6, (double)m->embed_tokens->numel / 1e6,
           m->tied ? "（输出层和它共用）" : "");
    if (!m->tied) printf(" + 输出层 %.1fM", (double)m->lm_head->numel / 1e6);
    if (lin) printf(" + %d × 线性注意力 %.2fM", n_lin, (double)dn_param_count(&lin->linear_attn) / 1e6);
    if (full) printf(" + %d × 全注意力 %.2fM", n_full, (double)attn_param_count(&full->self_attn) / 1e6);
    printf(" + %d × MLP %.2fM + 各处 norm %.2fM\n", c->num_hidden_layers,
           (double)mlp_param_count(&m->layers[0].mlp) / 1e6, (double)norms / 1e6);
    if (m->quant == QUANT_BF16)
        printf("权重 %.2f GB（按文件里存的 bf16 原样使用，不转成 fp32；全转 fp32 要 %.2f GB）\n",
               (double)model_weight_bytes(m) / 1e9, (double)total * 4 / 1e9);
    else
        printf("权重 %.2f GB（--quant %s：每个投影矩阵和输出层换成 8 位整数，每 32 个一组、一个 fp16 缩放，"
               "打开模型时从 bf16 量化，用了 %.1f s；norm、DeltaNet 的小张量和词嵌入查表仍读文件里的原值）\n",
               (double)model_weight_bytes(m) / 1e9, quant_name(m->quant), quant_s);
}

/* Logits of every position of ids [T] in one pass, into [T, V]. */
static float *one_pass_logits(const Model *m, RunState *s, const int *ids, int T) {
    int V = m->ck.config.vocab_size;
    float *logits = xmalloc((size_t)T * V * sizeof(float));
    ModelTrace tr = {.logits = logits};
    run_reset(s);
    read_tokens(m, s, ids, T, &tr);
    return logits;
}

/* The same logits with the text read in pieces (lens, summing to T), the state
 * carried from each piece to the next. */
static float *pieces_logits(const Model *m, RunState *s, const int *ids, const int *lens, int n_pieces) {
    int V = m->ck.config.vocab_size, T = 0;
    for (int p = 0; p < n_pieces; p++) T += lens[p];
    float *logits = xmalloc((size_t)T * V * sizeof(float));
    run_reset(s);
    for (int p = 0, t = 0; p < n_pieces; t += lens[p++]) {
        ModelTrace tr = {.logits = logits + (size_t)t * V};
        read_tokens(m, s, ids + t, lens[p], &tr);
    }
    return logits;
}

static void print_equivalence(const Model *m, RunState *s, const TokenIds *ids) {
    int T = ids->n, V = m->ck.config.vocab_size;
    double t0 = now_seconds();
    float *whole = one_pass_logits(m, s, ids->ids, T);
    double ms = (now_seconds() - t0) * 1e3;
    int next = argmax(whole + (size_t)(T - 1) * V, V);
    printf("一次 prefill %d 个 token：%.0f ms，读完之后下一个 token 最可能是 id %d（logit %.2f）\n", T, ms,
           next, whole[(size_t)(T - 1) * V + next]);

    /* the first half in one pass, then one token at a time */
    int first = (T + 1) / 2, *lens = xmalloc(sizeof(int) * (size_t)T), n = 0;
    lens[n++] = first;
    for (int t = first; t < T; t++) lens[n++] = 1;
    float *split = pieces_logits(m, s, ids->ids, lens, n);
    printf("前 %d 个 prefill + 后 %d 个逐个 decode：与一次 prefill 的 logits 最大差 %g\n", first, T - first,
           max_diff(split, whole, (size_t)T * V));
    free(split);

    /* three pieces, the state handed from each to the next */
    if (T >= 3) {
        int three[3] = {T / 3, T / 3, T - 2 * (T / 3)};
        float *thirds = pieces_logits(m, s, ids->ids, three, 3);
        printf(
            "分三段 prefill（%d + %d + %d 个 token，记忆表和 KV cache 在段与段之间交接）：与一次 prefill 的 "
            "logits 最大差 %g\n",
            three[0], three[1], three[2], max_diff(thirds, whole, (size_t)T * V));
        free(thirds);
    }
    free(lens);
    free(whole);
}

/* What generating must keep, from the config alone: a full-attention layer's K and V
 * per token, a DeltaNet layer's tables and conv history once. */
static void print_ledger(const Model *m) {
    const Config *c = &m->ck.config;
    int n_lin = cfg_count_layers(c, LAYER_LINEAR_ATTENTION),
        n_full = cfg_count_layers(c, LAYER_FULL_ATTENTION);
    int L = c->num_hidden_layers;
    AttnDims a;
    DeltaNetDims d;
    attn_dims(&a, c);
    dn_dims(&d, c);
    double kv_token = (double)attn_kv_bytes_per_token(&a); /* one layer, one token */
    double tables = (double)dn_table_bytes(&d), conv = (double)dn_conv_bytes(&d);
    printf("生成时要记住的状态（fp32）：全注意力每层每个 token 加 %g KB；DeltaNet 每层固定 %.2f MB"
           "（%d 个头的记忆表 %.2f MB + 卷积缓存 %.0f KB），和长度无关\n",
           kv_token / 1024, mib(tables + conv), d.n_v, mib(tables), conv / 1024);
    const int lengths[] = {100, 1000, 3000};
    for (size_t i = 0; i < ARRAY_LEN(lengths); i++) {
        double n = lengths[i], kv = n_full * kv_token * n, fixed = n_lin * (tables + conv);
        printf("  %4d 个 token：%d 层全注意力的 KV cache %.1f MB，%d 层 DeltaNet %.1f MB，合计 %.1f MB；"
               "要是 %d 层全是全注意力：%.1f MB\n",
               lengths[i], n_full, mib(kv), n_lin, mib(fixed), mib(kv + fixed), L, mib(L * kv_token * n));
    }
    if (n_lin > 0) {
        double cross = (tables + conv) / kv_token; /* n_full·a·n + n_lin·f = L·a·n  ⇔  n = f / a */
        printf(
            "  交叉点：%.0f 个 token 时一层全注意力的 KV cache 和一层 DeltaNet 的状态一样大；过了这个长度，"
            "全是全注意力的模型就比这个混合结构存得多，而且越来越多\n",
            cross);
    }
}

static void walkthrough(Model *m, RunState *s, const Tokenizer *tok, const Options *o) {
    print_anatomy(m, o->quant_s);
    TokenIds ids;
    char label[256], idbuf[256];
    Error err;
    if (!sentence_ids(&m->ck, NULL, &ids, label, sizeof label, &err)) die("%s", err.msg);
    printf("输入：%s %s\n", label, ids_str(ids.ids, ids.n, idbuf, sizeof idbuf));
    fflush(stdout);
    touch_weights(m);
    print_equivalence(m, s, &ids);
    print_ledger(m);

    /* a greedy continuation, streamed */
    run_reset(s);
    read_tokens(m, s, ids.ids, ids.n, NULL);
    Sampler greedy;
    sampler_init(&greedy, m->ck.config.vocab_size, 0, 0, 1, 0);
    StopIds stop = stop_ids(m, tok);
    int n = o->n_new >= 0 ? (int)o->n_new : WALK_NEW_TOKENS;
    int64_t can_read = readable(s, s->pos, n);
    if (can_read < n) n = (int)can_read + 1; /* the last one shown is not read */
    demo_require_memory(run_bytes(m, CHUNK, s->pos + can_read), "the greedy continuation");
    printf("贪心续写 %d 个 token：%s", n, tok ? BOOK_SENTENCE : "");
    flush_stdout();
    TextStream out = {.tok = tok, .to = stdout, .escape = o->escape};
    TokenIds seen = {0};
    generate(m, s, &greedy, &stop, &out, n, &seen);
    printf("\n");
    sampler_free(&greedy);
    tok_ids_free(&seen);
    tok_ids_free(&ids);
}

/* ---- the sampling settings ---------------------------------------------------------------- */

/* A number of generation_config.json in [lo, hi] (a whole one when whole), or death
 * naming the file and the key. Absent: false, *out untouched. */
static bool config_number(const cJSON *g, const char *key, double lo, double hi, bool whole, const char *path,
                          double *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(g, key);
    if (!v) return false;
    double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!(x >= lo && x <= hi) || (whole && x != floor(x)))
        die("%s: \"%s\" must be %s from %.15g to %.15g", path, key, whole ? "a whole number" : "a number", lo,
            hi);
    *out = x;
    return true;
}

/* temperature / top_k / top_p from the flags, else from generation_config.json
 * (when it asks for sampling), else greedy. The file is optional; one that is there
 * but is not JSON, or holds one of these keys with a value that is not a setting,
 * is an error naming it (it would otherwise quietly mean greedy decoding). */
static void sampling_settings(const Options *o, const Model *m, double *temp, long *top_k, double *top_p) {
    *temp = 0, *top_k = 0, *top_p = 1;
    char *path = path_join(m->ck.dir, "generation_config.json");
    bool missing;
    if (file_problem(path, &missing) && missing) {
        free(path);
        path = NULL;
    }
    if (path) {
        Error err;
        size_t len;
        char *json = read_file(path, &len, &err);
        cJSON *g = json ? json_parse_document(json, len, path, &err) : NULL;
        if (!g) die("%s", err.msg);
        if (!cJSON_IsObject(g)) die("%s: not a JSON object", path);
        const cJSON *sample = cJSON_GetObjectItemCaseSensitive(g, "do_sample");
        if (sample && !cJSON_IsBool(sample)) die("%s: \"do_sample\" must be true or false", path);
        double t = 0, k = 0, p = 1;
        config_number(g, "temperature", 0, FLT_MAX, false, path, &t);
        config_number(g, "top_k", 0, TOP_K_MAX, true, path, &k);
        if (config_number(g, "top_p", 0, 1, false, path, &p) && p == 0)
            die("%s: \"top_p\" must be above 0 (1 keeps every token)", path);
        if (cJSON_IsTrue(sample)) *temp = t, *top_k = (long)k, *top_p = p;
        cJSON_Delete(g);
        free(json);
        free(path);
    }
    if (!isnan(o->temp)) *temp = o->temp;
    if (o->top_k >= 0) *top_k = o->top_k;
    if (!isnan(o->top_p)) *top_p = o->top_p;
}

/* ---- generating from a prompt --------------------------------------------------------------- */

/* The prompt's ids: --ids, or --prompt through the tokenizer: as it is (a marker
 * such as <|im_end|> in it is its special token, as Hugging Face's tokenizer does by
 * default), or with --chat in the chat template, where the prompt is the user's text
 * and only the template writes control tokens. */
static TokenIds prompt_ids(const Options *o, const Model *m, const Tokenizer *tok) {
    TokenIds ids = {0};
    Error err;
    if (o->common.ids) {
        if (!ids_parse(o->common.ids, m->ck.config.vocab_size, &ids, &err)) die("%s", err.msg);
        return ids;
    }
    if (!o->prompt) return ids;
    if (!tok) die("%s has no tokenizer.json: give the prompt as --ids 1,2,3", m->ck.dir);
    ChatMessage msg = {"user", o->prompt};
    bool ok = o->chat ? tok_chat_encode(tok, &msg, 1, true, o->think, &ids, &err)
                      : tok_encode(tok, o->prompt, strlen(o->prompt), &ids, &err);
    if (!ok) die("--prompt: %s", err.msg);
    if (ids.n == 0) die("--prompt: the prompt has no tokens");
    return ids;
}

static double peak_rss_mb(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_maxrss / 1024; /* KiB on Linux */
}

static void write_dump(const char *path, const Model *m, const TokenIds *ids, const ModelTrace *tr) {
    const Config *c = &m->ck.config;
    int T = ids->n, H = c->hidden_size;
    DumpSet d;
    dump_init(&d);
    float *idf = dump_buffer(&d, "ids", 1, (int64_t[]){T});
    for (int t = 0; t < T; t++) idf[t] = (float)ids->ids[t];
    dump_add(&d, "embed", 2, (int64_t[]){T, H}, tr->embed);
    char(*names)[32] = xmalloc(sizeof *names * (size_t)c->num_hidden_layers);
    for (int i = 0; i < c->num_hidden_layers; i++) {
        snprintf(names[i], sizeof names[i], "layer.%d", i);
        dump_add(&d, names[i], 2, (int64_t[]){T, H}, tr->layer[i]);
    }
    dump_add(&d, "final_norm", 2, (int64_t[]){T, H}, tr->final_norm);
    dump_add(&d, "logits", 2, (int64_t[]){T, c->vocab_size}, tr->logits);
    dump_write(&d, path);
    dump_free(&d);
    free(names);
}

static void run_prompt(const Options *o, Model *m, RunState *s, const Tokenizer *tok, Sampler *smp) {
    const Config *c = &m->ck.config;
    int H = c->hidden_size, V = c->vocab_size, L = c->num_hidden_layers;
    TokenIds seen = {0};
    if (o->load_state) load_state(o->load_state, m, s, &seen, smp);
    TokenIds ids = prompt_ids(o, m, tok);
    if (!o->load_state && ids.n == 0) die("no prompt: give --prompt TEXT or --ids 1,2,3");
    if (s->max_pos > 0 && s->pos + ids.n > s->max_pos)
        die("the prompt has %lld tokens, but the context holds %lld (max_position_embeddings in "
            "%s/config.json)%s",
            (long long)ids.n, (long long)s->max_pos, m->ck.dir, s->pos ? ", the loaded state included" : "");

    /* what the run will hold at its end: the state of every token read (the context
     * caps -n), the --dump tensors */
    int n_new = o->n_new >= 0 ? (int)o->n_new : DEFAULT_NEW;
    int64_t at_end = s->pos + ids.n + readable(s, s->pos + ids.n, n_new);
    uint64_t dump_bytes = o->common.dump ? floats(size_mul((uint64_t)ids.n, (uint64_t)(L + 2) * H + V)) : 0;
    char what[96];
    snprintf(what, sizeof what, "a text of %lld tokens", (long long)at_end);
    demo_require_memory(size_add(run_bytes(m, CHUNK, at_end), dump_bytes), what);

    ModelTrace tr = {0};
    if (o->common.dump) {
        tr.embed = xmalloc(sizeof(float) * (size_t)ids.n * H);
        tr.final_norm = xmalloc(sizeof(float) * (size_t)ids.n * H);
        tr.logits = xmalloc(sizeof(float) * (size_t)ids.n * V);
        tr.layer = xcalloc((size_t)L, sizeof *tr.layer);
        for (int i = 0; i < L; i++) tr.layer[i] = xmalloc(sizeof(float) * (size_t)ids.n * H);
    }

    TextStream out = {.tok = tok, .to = stdout, .escape = o->escape};
    if (o->prompt && !o->chat && !o->load_state) { /* a completion: the prompt, then what follows */
        if (o->escape)
            write_escaped(stdout, o->prompt, strlen(o->prompt));
        else
            fputs(o->prompt, stdout);
        flush_stdout();
    }
    touch_weights(m);
    double t0 = now_seconds();
    read_tokens(m, s, ids.ids, ids.n, o->common.dump ? &tr : NULL);
    double prefill_s = now_seconds() - t0;
    for (int i = 0; i < ids.n; i++) tok_ids_push(&seen, ids.ids[i]);

    StopIds stop = stop_ids(m, tok);
    double t1 = now_seconds();
    GenStats g = generate(m, s, smp, &stop, &out, n_new, &seen);
    if (g.generated > 0 || o->prompt) printf("\n");
    flush_stdout();
    if (g.full)
        fprintf(stderr, "%s: 上下文满了（%lld 个 token），生成到此为止\n", program_name(),
                (long long)s->max_pos);

    /* The summary: rates only for what ran (no prefill after a loaded state alone, no
     * decoding with -n 0). */
    Text line = {0};
    const char *sep = "";
    text_add(&line, "%s: 提示 %lld 个 token，生成 %d 个；", program_name(), (long long)ids.n, g.generated);
    if (ids.n > 0) {
        text_add(&line, "prefill %.1f tok/s", prefill_s > 0 ? ids.n / prefill_s : 0);
        sep = "，";
    }
    if (g.generated > 0) {
        text_add(&line, "%sdecode %.2f tok/s，第一个 token 用了 %.2f s", sep,
                 g.decode_s > 0 ? g.generated / g.decode_s : 0, (t1 - t0) + g.decode_s / g.generated);
        sep = "，";
    }
    text_add(&line, "%s权重 %.2f GB", *sep ? "；" : "", (double)model_weight_bytes(m) / 1e9);
    if (m->quant != QUANT_BF16) text_add(&line, "（%s，量化用了 %.1f s）", quant_name(m->quant), o->quant_s);
    text_add(&line, "，状态 %.1f MB，内存峰值 %.0f MB%s\n", mib((double)run_state_bytes(s)), peak_rss_mb(),
             s->path == PATH_READABLE ? "（--reference：逐个 token 走朴素循环）" : "");
    fputs(line.s, stderr);
    free(line.s);

    if (o->common.dump) {
        write_dump(o->common.dump, m, &ids, &tr);
        for (int i = 0; i < L; i++) free(tr.layer[i]);
        free(tr.layer), free(tr.embed), free(tr.final_norm), free(tr.logits);
    }
    if (o->save_state) save_state(o->save_state, m, s, &seen, smp);
    tok_ids_free(&ids);
    tok_ids_free(&seen);
}

/* ---- a chat in the terminal ---------------------------------------------------------------- */

/* One line on stderr about a line the chat could not take; the chat goes on. An
 * error, so in English. */
static void refuse_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void refuse_line(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", program_name());
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "; nothing of it was read, the chat goes on\n");
    va_end(ap);
}

/* The bytes the next line may take: CHAT_LINE_MAX, or less when the memory limit
 * leaves less beside the conversation and its next answer. */
static size_t line_budget(const Model *m, const RunState *s, int n_new) {
    uint64_t limit = mem_limit(), used = run_bytes(m, CHUNK, s->pos + readable(s, s->pos, n_new));
    uint64_t room = limit > used ? limit - used : 0;
    return room < CHAT_LINE_MAX ? (size_t)room : CHAT_LINE_MAX;
}

/* The ids of one turn, after what is already read: the end of the last answer if the
 * model did not close it, a newline, then the user's message in the chat template
 * and the opening of the assistant's answer. The message is text as typed (a typed
 * "<|im_end|>" stays text); only the template writes control tokens. */
static bool turn_ids(const Tokenizer *tok, const TokenIds *seen, bool closed, const char *line, bool think,
                     TokenIds *ids, Error *err) {
    if (seen->n > 0) {
        const char *before = closed ? "\n" : "<|im_end|>\n"; /* the template's own text: markers parsed */
        if (!tok_encode(tok, before, strlen(before), ids, err)) return false;
    }
    ChatMessage msg = {"user", line};
    return tok_chat_encode(tok, &msg, 1, true, think, ids, err);
}

static void interactive(const Options *o, Model *m, RunState *s, const Tokenizer *tok, Sampler *smp) {
    if (!tok) die("%s has no tokenizer.json, which a chat needs", m->ck.dir);
    TokenIds seen = {0};
    if (o->load_state) load_state(o->load_state, m, s, &seen, smp);
    StopIds stop = stop_ids(m, tok);
    int im_end = tok_token_id(tok, "<|im_end|>");
    bool closed = seen.n == 0 || (im_end >= 0 && seen.ids[seen.n - 1] == im_end);
    int n_new = o->n_new >= 0 ? (int)o->n_new : DEFAULT_NEW;
    demo_synthetic_notice(); /* a chat goes on and on: the notice comes first */
    touch_weights(m);
    fprintf(stderr, "和模型对话：每轮只读这一轮的新 token，之前的都在 KV cache 和记忆表里。Ctrl-D 结束。\n");
    char *line = NULL;
    size_t cap = 0, len = 0;
    Error err;
    for (int turn = 1;;) {
        fprintf(stderr, "\n你> ");
        size_t max = line_budget(m, s, n_new);
        LineStatus got = read_line(stdin, max, &line, &cap, &len);
        if (got == LINE_EOF) break;                     /* Ctrl-D: the normal end */
        if (got == LINE_ERROR || got == LINE_ENDLESS) { /* no more lines to be had: keep what there is */
            int e = errno;
            if (o->save_state) save_state(o->save_state, m, s, &seen, smp);
            if (got == LINE_ERROR) die("cannot read stdin: %s", strerror(e));
            die("stdin: no line break in %u MiB, which is not lines of text", (LINE_SKIP_MAX >> 20) + 1);
        }
        if (got == LINE_TOO_LONG) {
            refuse_line("the line is longer than the %zu bytes a line may take (1 MiB, or what --max-memory "
                        "leaves)",
                        max);
            continue;
        }
        while (len > 0 && line[len - 1] == '\r') line[--len] = '\0';
        if (len == 0) continue;
        const char *nul = memchr(line, '\0', len);
        size_t bad;
        if (nul) {
            refuse_line("the line holds a NUL byte at offset %zu", (size_t)(nul - line));
            continue;
        }
        if (!utf8_check(line, len, &bad)) {
            refuse_line("the line is not valid UTF-8: byte 0x%02X at offset %zu", (unsigned char)line[bad],
                        bad);
            continue;
        }
        TokenIds ids = {0};
        if (!turn_ids(tok, &seen, closed, line, o->think, &ids, &err)) {
            refuse_line("%s", err.msg);
            tok_ids_free(&ids);
            continue;
        }
        if (s->max_pos > 0 && s->pos + ids.n >= s->max_pos) {
            refuse_line(
                "with the chat template the line is %lld tokens, and the context has %lld of its %lld "
                "positions left, with room for an answer",
                (long long)ids.n, (long long)(s->max_pos - s->pos), (long long)s->max_pos);
            tok_ids_free(&ids);
            continue;
        }
        if (!mem_check(run_bytes(m, CHUNK, s->pos + ids.n + readable(s, s->pos + ids.n, n_new)),
                       "the conversation with this line", &err)) {
            refuse_line("%s", err.msg);
            tok_ids_free(&ids);
            continue;
        }
        int64_t kv_before = run_state_bytes(s);
        double t0 = now_seconds();
        read_tokens(m, s, ids.ids, (int)ids.n, NULL);
        double prefill_s = now_seconds() - t0;
        for (int64_t i = 0; i < ids.n; i++) tok_ids_push(&seen, ids.ids[i]);
        TextStream out = {.tok = tok, .to = stdout, .escape = o->escape};
        GenStats g = generate(m, s, smp, &stop, &out, n_new, &seen);
        printf("\n");
        flush_stdout();
        closed = g.stopped;
        if (g.full)
            fprintf(stderr, "（上下文满了：%lld 个 token 都用完了，这一轮的回答停在这里；Ctrl-D 结束）\n",
                    (long long)s->max_pos);
        /* How the state grew this turn: only the attention layers' caches grow. */
        int64_t after = run_state_bytes(s), kv_total = run_kv_bytes(s);
        fprintf(
            stderr,
            "[第 %d 轮：读入 %lld 个新 token（%.1f tok/s），生成 %d 个（%.2f tok/s）；至今 %lld 个 token。"
            "KV cache %.2f MB（这一轮 +%.2f MB），DeltaNet 状态 %.2f MB（不变）]\n",
            turn++, (long long)ids.n, prefill_s > 0 ? ids.n / prefill_s : 0, g.generated,
            g.decode_s > 0 ? g.generated / g.decode_s : 0, (long long)s->pos, mib((double)kv_total),
            mib((double)(after - kv_before)), mib((double)(after - kv_total)));
        tok_ids_free(&ids);
    }
    fprintf(stderr, "\n");
    free(line);
    if (o->save_state) save_state(o->save_state, m, s, &seen, smp);
    tok_ids_free(&seen);
}

/* ---- main ------------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
    set_program_name(argv[0]);
    Options o = parse_args(argc, argv);
    Model m;
    demo_open_model(&m, o.common.model);
    const Config *c = &m.ck.config;

    Tokenizer tok_storage, *tok = NULL;
    char *tok_path = path_join(m.ck.dir, "tokenizer.json");
    if (is_file(tok_path)) {
        Error err;
        if (!tok_load(&tok_storage, tok_path, &err)) die("%s", err.msg);
        tok = &tok_storage;
    }
    free(tok_path);
    Error err;
    if (o.save_state && !state_check_target(o.save_state, &m, o.load_state, &err)) /* before any token */
        die("--save-state: %s", err.msg);

    double t0 = now_seconds();
    if (!model_quantize(&m, o.quant, &err)) die("%s", err.msg);
    o.quant_s = now_seconds() - t0;

    RunState s;
    run_init(&s, &m, CHUNK);
    s.path = o.reference ? PATH_READABLE : PATH_FAST;
    double temp, top_p;
    long top_k;
    sampling_settings(&o, &m, &temp, &top_k, &top_p);
    Sampler smp;
    sampler_init(&smp, c->vocab_size, (float)temp, (int)top_k, (float)top_p, o.seed);

    if (o.interactive)
        interactive(&o, &m, &s, tok, &smp);
    else if (o.prompt || o.common.ids || o.load_state)
        run_prompt(&o, &m, &s, tok, &smp);
    else
        walkthrough(&m, &s, tok, &o);

    flush_stdout();
    sampler_free(&smp);
    run_free(&s);
    if (tok) tok_free(tok);
    model_close(&m);
    return 0;
}
