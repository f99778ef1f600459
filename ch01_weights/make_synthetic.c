/* make_synthetic — writes a random-weight checkpoint in the real Qwen3.5-0.8B layout.
 *
 *   make synthetic                      (= make_synthetic --size full --out models/Qwen3.5-0.8B-synthetic)
 *   ch01_weights/make_synthetic --size tiny --out /tmp/tiny
 *   ch01_weights/make_synthetic --size mid --out /tmp/mid
 *
 * See common/workbook/synthetic.h for the layout and how the values are chosen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workbook/synthetic.h"
#include "workbook/util.h"

/* A whole positive number, or a clear error ("--shards 2x" is not 2). */
static int positive_arg(const char *flag, const char *text) {
    uint64_t v;
    Error err;
    if (!parse_count(flag, text, 1, 1 << 30, &v, &err)) die("%s", err.msg);
    return (int)v;
}

static void usage(FILE *to) {
    fprintf(to,
            "usage: %s --out DIR [--size full|mid|tiny] [--shards N] [--zeros] [--lm-head]\n"
            "          [--vocab N] [--tokenizer FILE]\n"
            "Writes a random-weight checkpoint in the exact layout of Qwen/Qwen3.5-0.8B:\n"
            "config.json (text_config, rope_parameters), model.safetensors.index.json and\n"
            "model.safetensors-00001-of-00001.safetensors (BF16, A_log and the gated-norm\n"
            "weight in F32, the model.language_model. prefix, vision and mtp stand-ins).\n"
            "  --size full    the real 0.8B shapes (~1.5 GB; the default)\n"
            "  --size mid     the real layer widths, 4 layers, vocab 3001 (~170 MB; tests)\n"
            "  --size tiny    the same architecture at hidden size 64 (for tests)\n"
            "  --shards N     split the tensors over N shard files\n"
            "  --zeros        all weights zero, stored as holes (shape-only, no disk space)\n"
            "  --lm-head      also write an untied lm_head.weight\n"
            "  --vocab N      override the vocabulary size (e.g. to fit a real tokenizer)\n"
            "  --tokenizer F  copy F in as tokenizer.json\n",
            program_name());
}

int main(int argc, char **argv) {
    set_program_name(argv[0]);
    SynthOptions o = {.n_shards = 1};
    const char *out = NULL, *size = "full";
    int vocab = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--out") == 0 && has_value)
            out = argv[++i];
        else if (strcmp(a, "--size") == 0 && has_value)
            size = argv[++i];
        else if (strcmp(a, "--shards") == 0 && has_value)
            o.n_shards = positive_arg(a, argv[++i]);
        else if (strcmp(a, "--vocab") == 0 && has_value)
            vocab = positive_arg(a, argv[++i]);
        else if (strcmp(a, "--tokenizer") == 0 && has_value)
            o.tokenizer = argv[++i];
        else if (strcmp(a, "--zeros") == 0)
            o.zeros = true;
        else if (strcmp(a, "--lm-head") == 0)
            o.untied_lm_head = true;
        else
            die("unknown or incomplete option '%s' (see --help)", a);
    }
    if (!out) die("--out DIR is required (see --help)");
    if (strcmp(size, "full") == 0)
        synth_config_full(&o.config);
    else if (strcmp(size, "mid") == 0)
        synth_config_mid(&o.config);
    else if (strcmp(size, "tiny") == 0)
        synth_config_tiny(&o.config);
    else
        die("--size must be full, mid or tiny, not '%s'", size);
    if (vocab > 0) o.config.vocab_size = vocab;
    if (o.untied_lm_head) o.config.tie_word_embeddings = false;

    double t0 = now_seconds();
    Error err;
    if (!synth_write(out, &o, &err)) die("%s", err.msg);
    fprintf(stderr, "%s: %s 尺寸、%s的 checkpoint 已写到 %s（%.1f s）", program_name(), size,
            o.zeros ? "权重全零" : "随机权重", out, now_seconds() - t0);
    if (o.tokenizer)
        fprintf(stderr, "，tokenizer.json 复制自 %s\n", o.tokenizer);
    else /* what the demos then do: sentence.h, ch02_embedding.c */
        fprintf(
            stderr,
            "，里面没有 tokenizer.json：ch02_embedding 只跑查表那一半，其余的 demo 用参考脚本的 token id\n");
    return 0;
}
