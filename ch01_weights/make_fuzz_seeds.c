/* make_fuzz_seeds — writes the starting inputs of chapter 1's fuzz harnesses.
 *
 *   ch01_weights/make_fuzz_seeds ch01_weights/fuzz/seeds
 *
 * Each harness (ch01_weights/fuzz/fuzz_NAME.c) starts from small, valid inputs
 * that reach deep into its parser, and libFuzzer mutates them from there:
 *
 *   fuzz_config/       the config.json of the tiny, the full-size and a "micro"
 *                      synthetic checkpoint, and the older flat text-only layout
 *   fuzz_safetensors/  the micro checkpoint's shard (real tensor names, BF16 and
 *                      F32), the hand-typed file of test_safetensors.c (every dtype,
 *                      a scalar, an empty tensor, a gap) and its misaligned one
 *   fuzz_checkpoint/   the micro checkpoint as one input (config.json, index and
 *                      shard joined by fuzz_checkpoint.c's separator), the same in
 *                      the single-file layout, and with an untied lm_head
 *   fuzz_cli_numbers/  a few arguments of --seed, --shards, --sep, --max-memory
 *
 * The micro checkpoint is the tiny one's architecture (L then F, gated attention,
 * more value heads than key heads) at hidden size 8 and a 32-token vocabulary, so
 * a whole checkpoint is a few kilobytes. Everything is deterministic: running the
 * tool again writes the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/safetensors.h"
#include "workbook/synthetic.h"
#include "workbook/util.h"

#define FUZZ_SPLIT "\n--8<--\n" /* as in fuzz/fuzz_checkpoint.c */

static const char SHARD[] = "model.safetensors-00001-of-00001.safetensors";

static void micro_config(Config *c) {
    synth_config_tiny(c);
    c->vocab_size = 32;
    c->hidden_size = 8;
    c->intermediate_size = 16;
    c->num_hidden_layers = 2;
    c->layer_types[0] = LAYER_LINEAR_ATTENTION;
    c->layer_types[1] = LAYER_FULL_ATTENTION;
    c->max_position_embeddings = 64;
    c->num_attention_heads = 2;
    c->num_key_value_heads = 1;
    c->head_dim = 8;
    c->rotary_dim = 2; /* 8 × 0.25 */
    c->linear_num_key_heads = 1;
    c->linear_num_value_heads = 2;
    c->linear_key_head_dim = 4;
    c->linear_value_head_dim = 4;
}

static void put(const char *dir, const char *name, const void *data, size_t len) {
    Error err;
    char *path = path_join(dir, name);
    if (!make_dirs(dir, &err) || !write_file(path, data, len, &err)) die("%s", err.msg);
    fprintf(stderr, "  %s (%zu bytes)\n", path, len);
    free(path);
}

static char *slurp(const char *dir, const char *name, size_t *len) {
    Error err;
    char *path = path_join(dir, name), *s = read_file(path, len, &err);
    if (!s) die("%s", err.msg);
    free(path);
    return s;
}

/* A synthetic checkpoint written to a scratch folder under out (then removed). */
static void write_checkpoint(const char *dir, const Config *c, bool untied) {
    SynthOptions o = {.config = *c, .n_shards = 1, .untied_lm_head = untied};
    if (untied) o.config.tie_word_embeddings = false;
    Error err;
    if (!synth_write(dir, &o, &err)) die("%s", err.msg);
}

static void remove_checkpoint(const char *dir) {
    static const char *const files[] = {"config.json", "generation_config.json",
                                        "model.safetensors.index.json", SHARD};
    for (size_t i = 0; i < ARRAY_LEN(files); i++) {
        char *p = path_join(dir, files[i]);
        remove(p);
        free(p);
    }
    remove(dir);
}

/* config.json, separator, index (or nothing), separator, shard. */
static void put_joined(const char *out, const char *name, const char *ck, bool with_index) {
    size_t lc, li = 0, ls;
    char *config = slurp(ck, "config.json", &lc), *shard = slurp(ck, SHARD, &ls);
    char *index = with_index ? slurp(ck, "model.safetensors.index.json", &li) : NULL;
    size_t sep = strlen(FUZZ_SPLIT), n = lc + sep + li + sep + ls;
    char *all = xmalloc(n), *p = all;
    memcpy(p, config, lc), p += lc;
    memcpy(p, FUZZ_SPLIT, sep), p += sep;
    if (index) memcpy(p, index, li), p += li;
    memcpy(p, FUZZ_SPLIT, sep), p += sep;
    memcpy(p, shard, ls);
    put(out, name, all, n);
    free(all), free(config), free(shard), free(index);
}

/* [8-byte length][header padded with spaces so the data starts at mod8][data] */
static void put_safetensors(const char *dir, const char *name, const char *header, int mod8,
                            const unsigned char *data, size_t len) {
    size_t n = strlen(header);
    while ((8 + n) % 8 != (size_t)mod8) n++;
    unsigned char *file = xcalloc(8 + n + len, 1);
    for (int i = 0; i < 8; i++) file[i] = (unsigned char)((uint64_t)n >> (8 * i));
    memset(file + 8, ' ', n);
    memcpy(file + 8, header, strlen(header));
    memcpy(file + 8 + n, data, len);
    put(dir, name, file, 8 + n + len);
    free(file);
}

/* The files test_safetensors.c types by hand. */
static void hand_made(const char *dir) {
    static const char hand[] = "{\"__metadata__\":{\"format\":\"pt\",\"note\":\"typed by hand\"},"
                               "\"w.f32\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]},"
                               "\"w.bf16\":{\"dtype\":\"BF16\",\"shape\":[3],\"data_offsets\":[16,22]},"
                               "\"w.f16\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[22,26]},"
                               "\"w.scalar\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[28,32]},"
                               "\"w.empty\":{\"dtype\":\"BF16\",\"shape\":[0,4],\"data_offsets\":[32,32]}}";
    static const unsigned char hand_data[32] = {
        0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x20, 0xC0, 0x00, 0x00, 0x20, 0x3E, 0x00, 0x00, 0x80, 0x47,
        0x80, 0x3F, 0x00, 0xBF, 0x49, 0x40, 0x00, 0x3C, 0xFF, 0xFB, 0x00, 0x00, 0x00, 0x00, 0x28, 0x42};
    put_safetensors(dir, "hand.safetensors", hand, 0, hand_data, sizeof hand_data);
    static const char misaligned[] = "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,12]},"
                                     "\"b\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[12,16]},"
                                     "\"c\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[17,21]},"
                                     "\"d\":{\"dtype\":\"BF16\",\"shape\":[1],\"data_offsets\":[21,23]},"
                                     "\"e\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[23,27]}}";
    static const unsigned char mis_data[27] = {0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x20, 0xC0, 0x00,
                                               0x00, 0x28, 0x42, 0x49, 0x40, 0x00, 0xBF, 0xEE, 0x00,
                                               0x00, 0x20, 0x3E, 0x80, 0xBF, 0x00, 0x3C, 0xFF, 0x7B};
    put_safetensors(dir, "misaligned.safetensors", misaligned, 1, mis_data, sizeof mis_data);
}

/* The older text-only layout of test_config.c. */
static const char FLAT_CONFIG[] =
    "{\"architectures\": [\"Qwen3_5ForCausalLM\"], \"model_type\": \"qwen3_5_text\",\n"
    " \"vocab_size\": 151936, \"hidden_size\": 512, \"intermediate_size\": 1536, \"num_hidden_layers\": 6,\n"
    " \"full_attention_interval\": 3,\n"
    " \"num_attention_heads\": 4, \"num_key_value_heads\": 1, \"head_dim\": 128,\n"
    " \"linear_num_key_heads\": 4, \"linear_num_value_heads\": 8,\n"
    " \"linear_key_head_dim\": 64, \"linear_value_head_dim\": 32, \"linear_conv_kernel_dim\": 4,\n"
    " \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": false, \"eos_token_id\": [151645, 151643],\n"
    " \"rope_theta\": 1000000, \"partial_rotary_factor\": 0.5, \"rope_scaling\": null}\n";

int main(int argc, char **argv) {
    set_program_name(argv[0]);
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(argc == 2 ? stdout : stderr, "usage: %s SEEDS_DIR   (e.g. ch01_weights/fuzz/seeds)\n",
                program_name());
        return argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) ? 0 : 1;
    }
    char *cfg_dir = path_join(argv[1], "fuzz_config"), *st_dir = path_join(argv[1], "fuzz_safetensors");
    char *ck_dir = path_join(argv[1], "fuzz_checkpoint"), *tmp = path_join(argv[1], "tmp-checkpoint");
    Config micro, tiny, full;
    micro_config(&micro);
    synth_config_tiny(&tiny);
    synth_config_full(&full);
    const struct {
        const char *name;
        const Config *c;
    } configs[] = {{"tiny.json", &tiny}, {"full.json", &full}, {"micro.json", &micro}};
    for (size_t i = 0; i < ARRAY_LEN(configs); i++) { /* only config.json is kept (the shard is holes) */
        SynthOptions o = {.config = *configs[i].c, .n_shards = 1, .zeros = true};
        Error err;
        if (!synth_write(tmp, &o, &err)) die("%s", err.msg);
        size_t len;
        char *json = slurp(tmp, "config.json", &len);
        put(cfg_dir, configs[i].name, json, len);
        free(json);
        remove_checkpoint(tmp);
    }
    put(cfg_dir, "flat.json", FLAT_CONFIG, strlen(FLAT_CONFIG));

    write_checkpoint(tmp, &micro, false);
    size_t len;
    char *shard = slurp(tmp, SHARD, &len);
    put(st_dir, "micro.safetensors", shard, len);
    free(shard);
    hand_made(st_dir);
    put_joined(ck_dir, "micro", tmp, true);
    put_joined(ck_dir, "micro-single-file", tmp, false);
    remove_checkpoint(tmp);
    write_checkpoint(tmp, &micro, true);
    put_joined(ck_dir, "micro-lm-head", tmp, true);
    remove_checkpoint(tmp);
    /* numbers: the first byte picks the parser (fuzz_cli_numbers.c), the rest is the argument */
    static const struct {
        const char *name, *bytes;
        size_t len;
    } numbers[] = {{"count-max",
                    "\0"
                    "18446744073709551615",
                    21},
                   {"shards",
                    "\1"
                    "2",
                    2},
                   {"sep",
                    "\2"
                    "1773",
                    5},
                   {"size-8G",
                    "\3"
                    "8G",
                    3},
                   {"size-1.5GiB",
                    "\3"
                    "1.5GiB",
                    7},
                   {"size-fraction",
                    "\3"
                    "0.0015K",
                    8},
                   {"size-bytes",
                    "\3"
                    "512",
                    4}};
    char *num_dir = path_join(argv[1], "fuzz_cli_numbers");
    for (size_t i = 0; i < ARRAY_LEN(numbers); i++)
        put(num_dir, numbers[i].name, numbers[i].bytes, numbers[i].len);
    free(num_dir);
    free(cfg_dir), free(st_dir), free(ck_dir), free(tmp);
    return 0;
}
