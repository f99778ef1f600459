/* ch02_embedding — chapter 2: from text to token ids to vectors.
 *
 * Reads the checkpoint's tokenizer.json, cuts the book's sentence into tokens
 * (showing each token as the file stores it and the text it stands for), turns
 * the ids back into text, then looks the ids up in the embedding table.
 *
 *   ./ch02_embedding [--model DIR | --tokenizer FILE] [--text TEXT] [--dump FILE]
 *   ./ch02_embedding --chat [--text TEXT] [--thinking]
 *   ./ch02_embedding --encode TEXT | --encode-jsonl FILE|- | --decode 1,2,3
 *
 * The last three are for scripts: they print only ids or text, one line per
 * input, and need only the tokenizer.
 *
 * A model folder without tokenizer.json (`make synthetic` without a tokenizer to
 * copy in, or the tests' tiny checkpoint): the demo run says on stderr that the
 * tokenizer half needs one and where to get it, then looks up the reference
 * script's ids (sentence.h) in the embedding table; --text, --chat and the
 * scripting flags, which cannot do without it, are errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "qwen/embedding.h"
#include "qwen/model.h"
#include "qwen/safetensors.h"
#include "qwen/tokenizer.h"
#include "workbook/demo.h"
#include "workbook/jsonstr.h"
#include "workbook/pyfmt.h"
#include "workbook/sentence.h"
#include "workbook/util.h"

static void usage(FILE *to) {
    fprintf(to,
            "usage: %s [--model DIR | --tokenizer FILE] [--text TEXT] [--dump FILE]\n"
            "          [--max-memory SIZE]\n"
            "       %s --chat [--text TEXT] [--thinking]\n"
            "       %s --encode TEXT | --encode-jsonl FILE|- | --decode 1,2,3\n"
            "Chapter 2: the tokenizer and the embedding table. Tokenizes the book's sentence,\n"
            "shows every token, decodes it back, and looks the ids up in the embedding table.\n"
            "  --model DIR        the model folder (else $QWEN35_MODEL, models/Qwen3.5-0.8B,\n"
            "                     or the Hugging Face cache); its tokenizer.json is used\n"
            "  --tokenizer FILE   use this tokenizer.json instead (no model needed; without\n"
            "                     --model the embedding part is skipped); a model folder\n"
            "                     without tokenizer.json gets only the embedding part, on\n"
            "                     the reference script's ids\n"
            "  --text TEXT        tokenize and embed TEXT instead of \"" BOOK_SENTENCE "\"\n"
            "  --dump FILE        write the embedded rows (embed [T, hidden]) and the ids\n"
            "                     to FILE as float32 safetensors\n"
            "  --chat             show the chat-template rendering of TEXT as a user message\n"
            "  --thinking         with --chat: thinking on (the 0.8B default is off)\n"
            "  --encode TEXT      print the ids of TEXT as one JSON array line\n"
            "  --encode-jsonl F   read one JSON string per line from F (- = stdin), print one\n"
            "                     JSON id array per line\n"
            "  --decode IDS       print the text of comma-separated ids\n"
            "  --max-memory SIZE  the most memory the run may take, e.g. 8G (default: half\n"
            "                     of this machine's)\n",
            program_name(), program_name(), program_name());
}

/* [100644, 104307] as Python prints a list (sep ", "), or compact JSON (sep ","). */
static void print_ids(FILE *to, const int *ids, int n, const char *sep) {
    fputc('[', to);
    for (int i = 0; i < n; i++) fprintf(to, "%s%d", i ? sep : "", ids[i]);
    fputc(']', to);
}

/* The text a token stands for, printable on one line: control characters as
 * escapes (\n, \t, ...); bytes that are only part of a character in hex. */
static void print_piece_text(const Tokenizer *tok, int id) {
    const char *s = tok_token(tok, id);
    unsigned char *bytes = xmalloc(strlen(s) + 1);
    int n = tok_token_bytes(tok, id, bytes, (int)strlen(s) + 1);
    if (!utf8_check((const char *)bytes, (size_t)n, NULL)) {
        printf("字节");
        for (int i = 0; i < n; i++) printf(" %02X", bytes[i]);
        printf("（不是完整的字符）");
    } else {
        for (int i = 0; i < n; i++) {
            unsigned char c = bytes[i];
            if (c == '\n')
                printf("\\n");
            else if (c == '\t')
                printf("\\t");
            else if (c == '\r')
                printf("\\r");
            else if (c < 0x20 || c == 0x7F)
                printf("\\x%02x", c);
            else
                putchar(c);
        }
    }
    free(bytes);
}

static TokenIds encode_or_die(const Tokenizer *tok, const char *text) {
    TokenIds ids = {0};
    Error err;
    if (!tok_encode(tok, text, strlen(text), &ids, &err)) die("%s", err.msg);
    return ids;
}

/* Number of characters (code points) of valid UTF-8 text. */
static int count_chars(const char *s) {
    int n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* ---- the scripting flags ------------------------------------------------- */

/* One JSON string per line -> one JSON id array per line. The line is decoded
 * with its length (workbook/jsonstr.h), so "a\u0000b" is three characters. */
static void encode_jsonl(const Tokenizer *tok, const char *path) {
    bool from_stdin = strcmp(path, "-") == 0;
    const char *name = from_stdin ? "stdin" : path;
    Error err;
    FILE *in = from_stdin ? stdin : xfopen(path, "r", &err);
    if (!in) die("%s", err.msg);
    char *line = NULL;
    size_t cap = 0;
    long n_line = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, in)) >= 0) {
        n_line++;
        char *text;
        size_t text_len;
        if (!json_string_decode(line, (size_t)len, &text, &text_len, &err))
            die("%s:%ld: not a JSON string (each line must be one, e.g. \"text\"; an empty text is \"\"): %s",
                name, n_line, err.msg);
        TokenIds ids = {0};
        if (!tok_encode(tok, text, text_len, &ids, &err)) die("%s:%ld: %s", name, n_line, err.msg);
        print_ids(stdout, ids.ids, ids.n, ",");
        putchar('\n');
        tok_ids_free(&ids);
        free(text);
    }
    if (ferror(in)) die("cannot read %s", name);
    free(line);
    if (!from_stdin) fclose(in);
}

/* ---- the demo ------------------------------------------------------------ */

static void show_tokenizer(const Tokenizer *tok, double load_ms) {
    char a[32], b[32], c[32];
    printf("分词器：%s（读取 %.0f ms）\n", tok->path, load_ms);
    printf("词表：%s 个 BPE token + %d 个附加 token = %s 个 id；合并规则 %s 条\n",
           py_grouped(tok->n_vocab, a, sizeof a), tok->n_added, py_grouped(tok->n_ids, b, sizeof b),
           py_grouped(tok->n_merges, c, sizeof c));
    static const char *const named[] = {"<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>"};
    int shown = 0;
    for (size_t i = 0; i < ARRAY_LEN(named); i++) {
        int id = tok_token_id(tok, named[i]);
        if (id < 0) continue;
        printf("%s%s = %d", shown++ ? "，" : "附加 token 先整段切出来，不走 BPE：", named[i], id);
    }
    if (shown) printf("\n");
}

static void show_tokens(const Tokenizer *tok, const char *text, const TokenIds *ids) {
    printf("\"%s\"：%d 个字，%zu 个 UTF-8 字节 → %lld 个 token\n", text, count_chars(text), strlen(text),
           (long long)ids->n);
    for (int i = 0; i < ids->n; i++) {
        printf("  %6d  %s  ", ids->ids[i], tok_token(tok, ids->ids[i]));
        print_piece_text(tok, ids->ids[i]);
        printf("\n");
    }
    printf("ids = ");
    print_ids(stdout, ids->ids, ids->n, ", ");
    printf("\n");
    Error err;
    char *back = tok_decode(tok, ids->ids, ids->n, NULL, &err);
    if (!back) die("%s", err.msg);
    printf("解码回去：\"%s\"%s\n", back,
           strcmp(back, text) == 0 ? "，和原文一模一样" : "（NFC 规范化之后的写法）");
    free(back);
}

/* The largest power of two p such that rows is the smallest multiple of p that
 * holds n_ids, or 0 when there is none (then the table is not a rounding-up). */
static int padding_multiple(int rows, int n_ids) {
    int best = 0;
    for (long p = 2; p <= rows && p <= 1 << 20; p *= 2)
        if (rows % p == 0 && rows - n_ids >= 0 && rows - n_ids < p) best = (int)p;
    return best;
}

/* Dies unless the embedding half fits the memory limit: it allocates the T rows
 * [T, hidden] and the ids [T] as float32 (both kept for --dump). Called before
 * anything is printed. */
static void require_memory(const Model *m, int T) {
    char what[64];
    snprintf(what, sizeof what, "the demo on %d tokens", T);
    uint64_t hidden = (uint64_t)m->ck.config.hidden_size;
    demo_require_memory(floats(size_add(size_mul((uint64_t)T, hidden), (uint64_t)T)), what);
}

/* The embedding half: the ids' rows of the table. tok may be NULL (a model folder
 * without tokenizer.json): then the rows carry no token text and the padding of the
 * table is not compared with a vocabulary. */
static void show_embedding(const Model *m, const Tokenizer *tok, const TokenIds *ids, const char *dump_path) {
    Embedding emb;
    Error err;
    if (!emb_init(&emb, m->embed_tokens, &err)) die("%s", err.msg);
    const Tensor *t = emb.table;
    char a[32], b[32], c[32];
    printf("嵌入表 embed_tokens：[%d, %d]，%s，%.1fM 个参数，%.1f MB\n", emb.vocab, emb.hidden,
           dtype_name(t->dtype), (double)t->numel / 1e6, (double)t->numel * dtype_size(t->dtype) / 1e6);
    int p = tok ? padding_multiple(emb.vocab, tok->n_ids) : 0;
    if (tok && emb.vocab > tok->n_ids && p)
        printf("  %s 行 = %s 个 id 向上补到 %d 的倍数，多出的 %s 行没有 token 会用到\n",
               py_grouped(emb.vocab, a, sizeof a), py_grouped(tok->n_ids, b, sizeof b), p,
               py_grouped(emb.vocab - tok->n_ids, c, sizeof c));
    else if (tok && emb.vocab > tok->n_ids)
        printf("  分词器只用到前 %s 行，后面 %s 行没有 token 会用到\n", py_grouped(tok->n_ids, a, sizeof a),
               py_grouped(emb.vocab - tok->n_ids, b, sizeof b));

    DumpSet dump;
    dump_init(&dump);
    float *x = dump_buffer(&dump, "embed", 2, (int64_t[]){ids->n, emb.hidden}); /* [T, hidden] */
    float *ids_f = dump_buffer(&dump, "ids", 1, (int64_t[]){ids->n});           /* [T] */
    for (int i = 0; i < ids->n; i++) ids_f[i] = (float)ids->ids[i];
    if (!emb_lookup(&emb, ids->ids, ids->n, x, &err)) die("%s", err.msg);
    printf("查表：%lld 个 id → 形状 (1, %lld, %d) 的 float32，只读了这 %lld 行（%s "
           "字节），整张表一个数也没转换\n",
           (long long)ids->n, (long long)ids->n, emb.hidden, (long long)ids->n,
           py_grouped((long long)ids->n * emb.hidden * dtype_size(t->dtype), a, sizeof a));
    for (int i = 0; i < ids->n; i++) {
        const float *row = x + (size_t)i * emb.hidden;
        printf("  %6d  [", ids->ids[i]);
        for (int k = 0; k < 4 && k < emb.hidden; k++) printf("%s%.4f", k ? ", " : "", row[k]);
        printf(", ...]  范数 %.3f", emb_norm(row, emb.hidden));
        if (tok) {
            printf("  ");
            print_piece_text(tok, ids->ids[i]);
        }
        printf("\n");
    }
    if (m->tied)
        printf("输出层：没有 lm_head.weight（tie_word_embeddings = true），最后的 h "
               "和这张表的每一行做点积得到 %s 个 "
               "logits\n",
               py_grouped(emb.vocab, a, sizeof a));
    else
        printf("输出层：这个 checkpoint 有单独的 lm_head.weight（tie_word_embeddings = false）\n");
    fflush(stdout);
    dump_write(&dump, dump_path); /* nothing without --dump */
    dump_free(&dump);
}

static void show_chat(const Tokenizer *tok, const char *text, bool thinking) {
    ChatMessage msg = {"user", text};
    char *prompt = tok_chat_render(&msg, 1, true, thinking);
    TokenIds ids = encode_or_die(tok, prompt);
    printf("聊天模板（ChatML，%s）：\n%s\n",
           thinking ? "思考模式：生成提示以 <think> 开头，模型先写推理"
                    : "Qwen3.5-0.8B 默认不思考：生成提示后面跟一个空的 <think></think>",
           prompt);
    printf("共 %lld 个 token：", (long long)ids.n);
    print_ids(stdout, ids.ids, ids.n, ", ");
    printf("\n");
    tok_ids_free(&ids);
    free(prompt);
}

/* The flag of the one mode that needs a tokenizer, for messages ("--encode"), or NULL. */
static const char *mode_flag(const char *encode_text, const char *jsonl_path, const char *decode_list,
                             bool chat) {
    return encode_text   ? "--encode"
           : jsonl_path  ? "--encode-jsonl"
           : decode_list ? "--decode"
           : chat        ? "--chat"
                         : NULL;
}

int main(int argc, char **argv) {
    set_program_name(argv[0]);
    const char *model_flag = NULL, *tokenizer_path = NULL, *text = BOOK_SENTENCE, *dump_path = NULL;
    const char *encode_text = NULL, *jsonl_path = NULL, *decode_list = NULL;
    bool chat = false, thinking = false, text_given = false;
    int n_modes = 0;
    for (int i = 1; i < argc; i++) {
        const char *v; /* a value may start with '-': it is taken as is */
        if (demo_is_help(argv[i])) {
            usage(stdout);
            return 0;
        } else if ((v = demo_value("--model", argc, argv, &i))) {
            model_flag = v;
        } else if ((v = demo_value("--tokenizer", argc, argv, &i))) {
            tokenizer_path = v;
        } else if ((v = demo_value("--text", argc, argv, &i))) {
            text = v, text_given = true;
        } else if ((v = demo_value("--dump", argc, argv, &i))) {
            dump_path = v;
        } else if ((v = demo_value("--max-memory", argc, argv, &i))) {
            demo_max_memory(v);
        } else if ((v = demo_value("--encode", argc, argv, &i))) {
            encode_text = v, n_modes++;
        } else if ((v = demo_value("--encode-jsonl", argc, argv, &i))) {
            jsonl_path = v, n_modes++;
        } else if ((v = demo_value("--decode", argc, argv, &i))) {
            decode_list = v, n_modes++;
        } else if (strcmp(argv[i], "--chat") == 0) {
            chat = true, n_modes++;
        } else if (strcmp(argv[i], "--thinking") == 0) {
            thinking = true;
        } else {
            demo_unknown(argv[i]);
        }
    }
    if (n_modes > 1) die("--encode, --encode-jsonl, --decode and --chat go one at a time");
    if (dump_path && n_modes) die("--dump belongs to the demo run, not to --encode/--decode/--chat");
    if (thinking && !chat) die("--thinking only applies to --chat");
    if (dump_path) demo_check_dump(dump_path); /* before the run, not after it */

    /* The tokenizer: --tokenizer FILE, else the model folder's tokenizer.json.
     * The model folder is looked for only when something needs it: its
     * tokenizer, or the embedding table in the demo run. */
    Error err;
    const char *source = NULL;
    char *dir = NULL, *owned_path = NULL;
    if (!tokenizer_path || (!n_modes && (model_flag || dump_path))) {
        dir = model_find(model_flag, &source, &err);
        if (!dir) die("%s", err.msg);
    }
    bool have_tokenizer = true;
    if (!tokenizer_path) {
        tokenizer_path = owned_path = path_join(dir, "tokenizer.json");
        /* Only a missing file is "missing": a directory, a FIFO or an unreadable
         * file of that name is for tok_load to name. */
        struct stat st;
        if (stat(tokenizer_path, &st) != 0 && errno == ENOENT) {
            const char *needs = mode_flag(encode_text, jsonl_path, decode_list, chat);
            if (!needs && text_given) needs = "--text";
            if (needs)
                die("%s: no tokenizer.json in the model folder, and %s needs one (copy it there from the "
                    "Qwen3.5-0.8B download, or pass --tokenizer FILE)",
                    tokenizer_path, needs);
            have_tokenizer = false;
        }
    }

    if (!have_tokenizer) { /* the demo run without its first half */
        const int ref[] = REFERENCE_IDS;
        TokenIds ids = {0};
        for (size_t i = 0; i < ARRAY_LEN(ref); i++) tok_ids_push(&ids, ref[i]);
        Model m;
        if (!model_open(&m, dir, &err)) die("%s", err.msg);
        demo_note_checkpoint(&m);
        for (int i = 0; i < ids.n; i++)
            if (ids.ids[i] >= m.ck.config.vocab_size)
                die("%s/config.json: vocab_size %d is too small for the reference ids", dir,
                    m.ck.config.vocab_size);
        require_memory(&m, ids.n);
        fprintf(stderr,
                "%s: 模型目录里没有 tokenizer.json，分词这一半跳过了，查表用参考脚本的 %lld 个 token id"
                "（要看分词：把 Qwen3.5-0.8B 下载里的 tokenizer.json 复制进来，或者用 --tokenizer FILE）\n",
                program_name(), (long long)ids.n);
        show_embedding(&m, NULL, &ids, dump_path);
        model_close(&m);
        tok_ids_free(&ids);
        if (fflush(stdout) != 0 || ferror(stdout)) die("cannot write to stdout");
        free(owned_path);
        free(dir);
        return 0;
    }

    Tokenizer tok;
    double t0 = now_seconds();
    if (!tok_load(&tok, tokenizer_path, &err)) die("%s", err.msg);
    double load_ms = (now_seconds() - t0) * 1000;

    if (encode_text) {
        TokenIds ids = encode_or_die(&tok, encode_text);
        print_ids(stdout, ids.ids, ids.n, ",");
        putchar('\n');
        tok_ids_free(&ids);
    } else if (jsonl_path) {
        encode_jsonl(&tok, jsonl_path);
    } else if (decode_list) {
        /* The same parser as the other demos' --ids; whether each id is a token
         * is for tok_decode to say, with the file's name. */
        TokenIds ids;
        if (!ids_parse_as("--decode", decode_list, 0, &ids, &err)) die("%s", err.msg);
        size_t len;
        char *s = tok_decode(&tok, ids.ids, ids.n, &len, &err);
        if (!s) die("%s", err.msg);
        fwrite(s, 1, len, stdout); /* the text may hold U+0000 */
        putchar('\n');
        free(s);
        tok_ids_free(&ids);
    } else if (chat) {
        show_chat(&tok, text, thinking);
    } else {
        /* Everything that can fail before anything is printed: the text, the model,
         * the memory its rows take. */
        TokenIds ids = encode_or_die(&tok, text);
        Model m;
        if (dir && !model_open(&m, dir, &err)) die("%s", err.msg);
        if (dir) {
            demo_note_checkpoint(&m);
            require_memory(&m, ids.n);
        }
        show_tokenizer(&tok, load_ms);
        show_tokens(&tok, text, &ids);
        /* The book's chapter 7 runs the same sentence joined 20 times with "。". */
        size_t n = strlen(BOOK_SENTENCE);
        char *joined = xmalloc(20 * n + 19 * strlen("。") + 1), *p = joined;
        for (int i = 0; i < 20; i++) p += sprintf(p, "%s%s", i ? "。" : "", BOOK_SENTENCE);
        TokenIds long_ids = encode_or_die(&tok, joined);
        printf("第 7 章的长输入（这句话用「。」连 20 遍，%d 个字）：%lld 个 token\n", count_chars(joined),
               (long long)long_ids.n);
        tok_ids_free(&long_ids);
        free(joined);

        if (dir) {
            show_embedding(&m, &tok, &ids, dump_path);
            model_close(&m);
        } else {
            fprintf(stderr, "%s: 只给了 --tokenizer，没有模型，查表这一半跳过了（加上 --model DIR 就有）\n",
                    program_name());
        }
        tok_ids_free(&ids);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) die("cannot write to stdout");
    tok_free(&tok);
    free(owned_path);
    free(dir);
    return 0;
}
