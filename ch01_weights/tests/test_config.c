/* test_config.c — reading config.json (common/qwen/config.h).
 *
 * REAL_CONFIG below is typed from docs/checkpoint.md §3: the layout of the file in the
 * Qwen/Qwen3.5-0.8B download (a vision-language config: the text model's settings
 * nested in "text_config", RoPE settings in "rope_parameters" with M-RoPE sections,
 * an explicit "layer_types" list, and a "vision_config" whose hidden_size must not
 * be mistaken for the text model's). FLAT_CONFIG is the older text-only layout:
 * every key at the top, rope_theta / partial_rotary_factor directly there, no
 * layer_types (the full_attention_interval rule instead).
 *
 * Every broken variant is made from REAL_CONFIG by changing one thing, and must
 * give one line naming the file and the key.
 */
#include <math.h>

#include "helpers.h"
#include "qwen/config.h"

#define LLLF "\"linear_attention\", \"linear_attention\", \"linear_attention\", \"full_attention\""

static const char REAL_CONFIG[] =
    "{\n"
    "  \"architectures\": [\"Qwen3_5ForConditionalGeneration\"],\n"
    "  \"model_type\": \"qwen3_5\",\n"
    "  \"tie_word_embeddings\": true,\n"
    "  \"text_config\": {\n"
    "    \"model_type\": \"qwen3_5_text\",\n"
    "    \"vocab_size\": 248320,\n"
    "    \"hidden_size\": 1024,\n"
    "    \"intermediate_size\": 3584,\n"
    "    \"num_hidden_layers\": 24,\n"
    "    \"layer_types\": [" LLLF ", " LLLF ", " LLLF ", " LLLF ", " LLLF ", " LLLF "],\n"
    "    \"full_attention_interval\": 4,\n"
    "    \"num_attention_heads\": 8,\n"
    "    \"num_key_value_heads\": 2,\n"
    "    \"head_dim\": 256,\n"
    "    \"linear_num_key_heads\": 16,\n"
    "    \"linear_num_value_heads\": 16,\n"
    "    \"linear_key_head_dim\": 128,\n"
    "    \"linear_value_head_dim\": 128,\n"
    "    \"linear_conv_kernel_dim\": 4,\n"
    "    \"rms_norm_eps\": 1e-06,\n"
    "    \"max_position_embeddings\": 262144,\n"
    "    \"tie_word_embeddings\": true,\n"
    "    \"eos_token_id\": 248044,\n"
    "    \"hidden_act\": \"silu\",\n"
    "    \"rope_parameters\": {\n"
    "      \"rope_type\": \"default\",\n"
    "      \"rope_theta\": 10000000,\n"
    "      \"partial_rotary_factor\": 0.25,\n"
    "      \"mrope_section\": [11, 11, 10],\n"
    "      \"mrope_interleaved\": true\n"
    "    }\n"
    "  },\n"
    "  \"vision_config\": {\"model_type\": \"qwen3_5\", \"depth\": 12, \"hidden_size\": 768}\n"
    "}\n";

/* A text-only model of the same family in the older spelling: 6 layers, full
 * attention every 3rd, RoPE on half of each 128-dim head. */
static const char FLAT_CONFIG[] =
    "{\"architectures\": [\"Qwen3_5ForCausalLM\"], \"model_type\": \"qwen3_5_text\",\n"
    " \"vocab_size\": 151936, \"hidden_size\": 512, \"intermediate_size\": 1536, \"num_hidden_layers\": 6,\n"
    " \"full_attention_interval\": 3,\n"
    " \"num_attention_heads\": 4, \"num_key_value_heads\": 1, \"head_dim\": 128,\n"
    " \"linear_num_key_heads\": 4, \"linear_num_value_heads\": 8,\n"
    " \"linear_key_head_dim\": 64, \"linear_value_head_dim\": 32, \"linear_conv_kernel_dim\": 4,\n"
    " \"rms_norm_eps\": 1e-05, \"tie_word_embeddings\": false, \"eos_token_id\": [151645, 151643],\n"
    " \"rope_theta\": 1000000, \"partial_rotary_factor\": 0.5, \"rope_scaling\": null}\n";

static const char *const PATH = "/models/somewhere/config.json"; /* only used in messages */

static void parse_ok(Config *c, const char *json) {
    Error err;
    ck_assert_msg(cfg_parse(c, json, PATH, &err), "%s", err.msg);
}

/* ---- the real layout ----------------------------------------------------------- */

START_TEST(real_config_every_field) {
    Config c;
    parse_ok(&c, REAL_CONFIG);
    ck_assert_str_eq(c.model_type, "qwen3_5_text");
    ck_assert_int_eq(c.vocab_size, 248320);
    ck_assert_int_eq(c.hidden_size, 1024); /* not vision_config's 768 */
    ck_assert_int_eq(c.intermediate_size, 3584);
    ck_assert_int_eq(c.num_hidden_layers, 24);
    char pattern[CONFIG_MAX_LAYERS + 1];
    cfg_layer_pattern(&c, pattern);
    ck_assert_str_eq(pattern, "LLLFLLLFLLLFLLLFLLLFLLLF");
    ck_assert_int_eq(cfg_count_layers(&c, LAYER_LINEAR_ATTENTION), 18);
    ck_assert_int_eq(cfg_count_layers(&c, LAYER_FULL_ATTENTION), 6);
    for (int i = 0; i < 24; i++) /* full attention at layers 3, 7, 11, 15, 19, 23 */
        ck_assert_int_eq(c.layer_types[i] == LAYER_FULL_ATTENTION, i % 4 == 3);
    ck_assert(c.rms_norm_eps == 1e-6);
    ck_assert(c.tie_word_embeddings);
    ck_assert_int_eq(c.max_position_embeddings, 262144);
    ck_assert_int_eq(c.num_attention_heads, 8);
    ck_assert_int_eq(c.num_key_value_heads, 2);
    ck_assert_int_eq(c.head_dim, 256);
    ck_assert(c.rope_theta == 1e7);
    ck_assert(c.partial_rotary_factor == 0.25);
    ck_assert_int_eq(c.rotary_dim, 64); /* 256 × 0.25 */
    ck_assert_int_eq(c.linear_num_key_heads, 16);
    ck_assert_int_eq(c.linear_num_value_heads, 16);
    ck_assert_int_eq(c.linear_key_head_dim, 128);
    ck_assert_int_eq(c.linear_value_head_dim, 128);
    ck_assert_int_eq(c.linear_conv_kernel_dim, 4);
    ck_assert_int_eq(c.n_eos, 1);
    ck_assert_int_eq(c.eos_token_ids[0], 248044);
    /* the DeltaNet widths: q and k 16 × 128 = 2048 each, v 2048, convolved together 6144 */
    ck_assert_int_eq(cfg_linear_key_dim(&c), 2048);
    ck_assert_int_eq(cfg_linear_value_dim(&c), 2048);
    ck_assert_int_eq(cfg_linear_conv_dim(&c), 6144);
    ck_assert_int_eq(cfg_layer_letter(LAYER_LINEAR_ATTENTION), 'L');
    ck_assert_int_eq(cfg_layer_letter(LAYER_FULL_ATTENTION), 'F');
}
END_TEST

START_TEST(real_config_from_a_file) {
    char *dir = scratch_dir(), *path = in_dir(dir, "config.json");
    write_bytes(path, REAL_CONFIG, strlen(REAL_CONFIG));
    Config c;
    Error err;
    ck_assert_msg(cfg_load(&c, path, &err), "%s", err.msg);
    ck_assert_int_eq(c.hidden_size, 1024);
    ck_assert_int_eq(c.rotary_dim, 64);
    scratch_remove(dir);
    free(path);
    free(dir);
}
END_TEST

/* layer_types is the truth; full_attention_interval only matters when it is absent. */
START_TEST(layer_types_list_wins_over_the_interval) {
    char *json = json_edited(REAL_CONFIG, "text_config.layer_types.0", "\"full_attention\"");
    char *json2 = json_edited(json, "text_config.layer_types.3", "\"linear_attention\"");
    Config c;
    parse_ok(&c, json2);
    char pattern[CONFIG_MAX_LAYERS + 1];
    cfg_layer_pattern(&c, pattern);
    ck_assert_str_eq(pattern, "FLLLLLLFLLLFLLLFLLLFLLLF");
    free(json);
    free(json2);
}
END_TEST

START_TEST(interval_fallback_without_layer_types) {
    char *no_list = json_edited(REAL_CONFIG, "text_config.layer_types", NULL);
    Config c;
    char pattern[CONFIG_MAX_LAYERS + 1];
    parse_ok(&c, no_list); /* interval 4 given */
    cfg_layer_pattern(&c, pattern);
    ck_assert_str_eq(pattern, "LLLFLLLFLLLFLLLFLLLFLLLF");

    char *no_interval = json_edited(no_list, "text_config.full_attention_interval", NULL);
    parse_ok(&c, no_interval); /* neither: the default interval is 4 */
    cfg_layer_pattern(&c, pattern);
    ck_assert_str_eq(pattern, "LLLFLLLFLLLFLLLFLLLFLLLF");

    char *every_2nd = json_edited(no_list, "text_config.full_attention_interval", "2");
    parse_ok(&c, every_2nd); /* layer i is full when (i + 1) % 2 == 0 */
    cfg_layer_pattern(&c, pattern);
    ck_assert_str_eq(pattern, "LFLFLFLFLFLFLFLFLFLFLFLF");
    free(no_list);
    free(no_interval);
    free(every_2nd);
}
END_TEST

/* With text_config present, the text model's keys are read only from there. */
START_TEST(text_config_wins_over_top_level_keys) {
    char *json = json_edited(REAL_CONFIG, "hidden_size", "4096");
    char *json2 = json_edited(json, "num_hidden_layers", "2");
    Config c;
    parse_ok(&c, json2);
    ck_assert_int_eq(c.hidden_size, 1024);
    ck_assert_int_eq(c.num_hidden_layers, 24);
    free(json);
    free(json2);
}
END_TEST

/* tie_word_embeddings sits at the top of a multimodal file; a copy in text_config
 * decides when present; absent everywhere it defaults to tied. */
START_TEST(tie_word_embeddings_top_or_text) {
    Config c;
    char *top_false = json_edited(REAL_CONFIG, "tie_word_embeddings", "false");
    char *only_top_false = json_edited(top_false, "text_config.tie_word_embeddings", NULL);
    parse_ok(&c, only_top_false);
    ck_assert(!c.tie_word_embeddings);
    char *text_false = json_edited(REAL_CONFIG, "text_config.tie_word_embeddings", "false");
    parse_ok(&c, text_false);
    ck_assert(!c.tie_word_embeddings);
    char *none = json_edited(REAL_CONFIG, "tie_word_embeddings", NULL);
    char *none2 = json_edited(none, "text_config.tie_word_embeddings", NULL);
    parse_ok(&c, none2);
    ck_assert(c.tie_word_embeddings);
    free(top_false);
    free(only_top_false);
    free(text_false);
    free(none);
    free(none2);
}
END_TEST

/* ---- the flat, older layout ------------------------------------------------------ */

START_TEST(flat_config_every_field) {
    Config c;
    parse_ok(&c, FLAT_CONFIG);
    ck_assert_str_eq(c.model_type, "qwen3_5_text");
    ck_assert_int_eq(c.vocab_size, 151936);
    ck_assert_int_eq(c.hidden_size, 512);
    ck_assert_int_eq(c.intermediate_size, 1536);
    ck_assert_int_eq(c.num_hidden_layers, 6);
    char pattern[CONFIG_MAX_LAYERS + 1];
    cfg_layer_pattern(&c, pattern);
    ck_assert_str_eq(pattern, "LLFLLF"); /* (i + 1) % 3 == 0 at i = 2, 5 */
    ck_assert(c.rms_norm_eps == 1e-5);
    ck_assert(!c.tie_word_embeddings);
    ck_assert_int_eq(c.max_position_embeddings, 0); /* not in the file */
    ck_assert_int_eq(c.num_attention_heads, 4);
    ck_assert_int_eq(c.num_key_value_heads, 1);
    ck_assert_int_eq(c.head_dim, 128);
    ck_assert(c.rope_theta == 1e6);
    ck_assert(c.partial_rotary_factor == 0.5);
    ck_assert_int_eq(c.rotary_dim, 64); /* 128 × 0.5 */
    ck_assert_int_eq(c.linear_num_key_heads, 4);
    ck_assert_int_eq(c.linear_num_value_heads, 8); /* Hv > Hk */
    ck_assert_int_eq(c.linear_key_head_dim, 64);
    ck_assert_int_eq(c.linear_value_head_dim, 32);
    ck_assert_int_eq(cfg_linear_conv_dim(&c), 2 * 4 * 64 + 8 * 32);
    ck_assert_int_eq(c.n_eos, 2);
    ck_assert_int_eq(c.eos_token_ids[0], 151645);
    ck_assert_int_eq(c.eos_token_ids[1], 151643);
}
END_TEST

/* The old spelling keeps the RoPE type in rope_scaling: "default" is fine. */
START_TEST(flat_config_rope_scaling) {
    Config c;
    char *json = json_edited(FLAT_CONFIG, "rope_scaling", "{\"rope_type\": \"default\"}");
    parse_ok(&c, json);
    ck_assert(c.rope_theta == 1e6);
    char *yarn = json_edited(FLAT_CONFIG, "rope_scaling", "{\"rope_type\": \"yarn\", \"factor\": 4}");
    Error err = {{0}};
    ck_assert(!cfg_parse(&c, yarn, PATH, &err));
    ck_assert_error(err, PATH, "rope_type yarn is not supported");
    free(json);
    free(yarn);
}
END_TEST

/* ---- broken configs ---------------------------------------------------------------- */

/* Every key the model cannot do without: removing it names it (with its section). */
static const char *const REQUIRED[] = {
    "text_config.vocab_size",
    "text_config.hidden_size",
    "text_config.intermediate_size",
    "text_config.num_hidden_layers",
    "text_config.num_attention_heads",
    "text_config.num_key_value_heads",
    "text_config.head_dim",
    "text_config.linear_num_key_heads",
    "text_config.linear_num_value_heads",
    "text_config.linear_key_head_dim",
    "text_config.linear_value_head_dim",
    "text_config.linear_conv_kernel_dim",
    "text_config.rms_norm_eps",
    "text_config.rope_parameters.rope_theta",
    "text_config.rope_parameters.partial_rotary_factor",
};

START_TEST(missing_key_is_named) {
    const char *key = REQUIRED[_i];
    char *json = json_edited(REAL_CONFIG, key, NULL);
    Config c;
    Error err = {{0}};
    ck_assert_msg(!cfg_parse(&c, json, PATH, &err), "accepted without %s", key);
    char want[160];
    snprintf(want, sizeof want, "missing key %s", key);
    ck_assert_error(err, PATH, want);
    free(json);
}
END_TEST

typedef struct {
    const char *where, *value; /* value NULL: remove */
    const char *says[3];
} BadEdit;

static const BadEdit BAD_EDITS[] = {
    /* wrong types */
    {"text_config.hidden_size", "\"1024\"", {"text_config.hidden_size must be an integer", "got a string"}},
    {"text_config.num_hidden_layers",
     "24.5",
     {"text_config.num_hidden_layers must be an integer", "got a number"}},
    {"text_config.num_hidden_layers", "24.5", {"got a number with a fraction (24.5)"}},
    /* too large is too large, not "not an integer" */
    {"text_config.vocab_size", "1e12", {"text_config.vocab_size is 1000000000000, more than the 16777216"}},
    {"text_config.vocab_size",
     "1099511627776",
     {"text_config.vocab_size is 1099511627776, more than the 16777216 this reader allows"}},
    {"text_config.hidden_size", "2000000", {"text_config.hidden_size is 2000000, more than the 1048576"}},
    {"text_config.linear_key_head_dim",
     "1073741840",
     {"text_config.linear_key_head_dim is 1073741840, more than the 1048576"}},
    {"text_config.num_attention_heads", "4294967296", {"text_config.num_attention_heads is 4294967296"}},
    {"text_config.max_position_embeddings", "-1", {"max_position_embeddings must be at least 0, got -1"}},
    /* each value fine, a product of them not: the keys are named */
    {"text_config.num_attention_heads",
     "4096",
     {"q_proj's rows",
      "text_config.num_attention_heads × 2 × text_config.head_dim = 4096 × 2 × 256 = 2097152"}},
    {"text_config.linear_key_head_dim",
     "1048576",
     {"the DeltaNet's key width",
      "text_config.linear_num_key_heads × text_config.linear_key_head_dim = 16 × 1048576 = 16777216"}},
    {"text_config.linear_value_head_dim",
     "1048576",
     {"the DeltaNet's value width", "16 × 1048576 = 16777216, exceeds the 1048576"}},
    {"text_config.linear_conv_kernel_dim",
     "20000",
     {"a DeltaNet layer's state", "(text_config.linear_conv_kernel_dim − 1) × channels",
      "= 16 × 128 × 128 + 19999 × 6144 = 123136000, exceeds the 67108864"}},
    {"text_config.intermediate_size",
     "null",
     {"text_config.intermediate_size must be an integer", "got null"}},
    {"text_config.head_dim", "[256]", {"text_config.head_dim must be an integer", "got an array"}},
    {"text_config.max_position_embeddings",
     "\"long\"",
     {"text_config.max_position_embeddings must be an integer"}},
    {"text_config.rms_norm_eps", "\"1e-6\"", {"text_config.rms_norm_eps must be a number", "got a string"}},
    {"tie_word_embeddings", "\"yes\"", {"tie_word_embeddings must be true or false", "got a string"}},
    {"text_config.tie_word_embeddings",
     "1",
     {"text_config.tie_word_embeddings must be true or false", "got a number"}},
    {"text_config", "[]", {"text_config must be an object"}},
    {"text_config.layer_types",
     "\"LLLF\"",
     {"text_config.layer_types must be an array of strings", "got a string"}},
    {"text_config.layer_types.2", "7", {"text_config.layer_types[2] must be a string", "got a number"}},
    {"text_config.rope_parameters",
     "10000000",
     {"text_config.rope_parameters must be an object", "got a number"}},
    {"text_config.rope_parameters.rope_theta",
     "\"1e7\"",
     {"text_config.rope_parameters.rope_theta must be a number", "got a string"}},
    {"text_config.rope_parameters.mrope_section", "\"11,11,10\"", {"mrope_section must be an array"}},
    {"text_config.rope_parameters.mrope_section.1", "\"11\"", {"mrope_section must hold integers"}},
    {"text_config.eos_token_id", "\"<|im_end|>\"", {"eos_token_id must be a token id or a list of them"}},
    /* numbers that are no token id: beyond int, negative, fractional (never cast blindly) */
    {"text_config.eos_token_id", "1e300", {"eos_token_id must be a token id or a list of them"}},
    {"text_config.eos_token_id", "-1", {"eos_token_id must be a token id or a list of them"}},
    {"text_config.eos_token_id", "[248046, 2.5e10]", {"eos_token_id must hold token ids"}},
    {"text_config.eos_token_id", "[248046, 0.5]", {"eos_token_id must hold token ids"}},
    /* values that cannot be right */
    {"text_config.head_dim", "0", {"text_config.head_dim must be positive, got 0"}},
    {"text_config.num_attention_heads", "-8", {"text_config.num_attention_heads must be positive, got -8"}},
    {"text_config.rms_norm_eps", "0", {"text_config.rms_norm_eps must be between 0 and 1"}},
    {"text_config.num_hidden_layers", "300", {"300 layers is more than this reader supports"}},
    {"text_config.layer_types.5",
     "\"sliding_attention\"",
     {"text_config.layer_types[5] is \"sliding_attention\": unknown layer type"}},
    {"text_config.layer_types.23", NULL, {"layer_types lists 23 layers but num_hidden_layers is 24"}},
    /* heads that do not divide */
    {"text_config.num_key_value_heads",
     "3",
     {"num_attention_heads 8 is not a multiple of num_key_value_heads 3"}},
    {"text_config.linear_num_value_heads",
     "24",
     {"linear_num_value_heads 24 is not a multiple of linear_num_key_heads 16"}},
    /* RoPE */
    {"text_config.rope_parameters.rope_type", "\"yarn\"", {"rope_type yarn is not supported"}},
    {"text_config.rope_parameters.rope_theta", "1", {"rope_theta must be greater than 1"}},
    {"text_config.rope_parameters.partial_rotary_factor",
     "0.3",
     {"partial_rotary_factor 0.3 of head_dim 256", "even number of dims"}}, /* 76.8 dims */
    {"text_config.rope_parameters.partial_rotary_factor", "0", {"partial_rotary_factor 0 of head_dim 256"}},
    {"text_config.rope_parameters.partial_rotary_factor",
     "1.5",
     {"partial_rotary_factor 1.5 of head_dim 256"}},
    {"text_config.rope_parameters.partial_rotary_factor",
     "1e300",
     {"partial_rotary_factor 1e+300 of head_dim 256"}},
    {"text_config.rope_parameters.mrope_section.0",
     "1e300",
     {"mrope_section must hold integers from 0 to 32"}},
    {"text_config.rope_parameters.mrope_section.0", "-11", {"mrope_section must hold integers from 0 to 32"}},
    {"text_config.rope_parameters.mrope_section.0",
     "10.5",
     {"mrope_section must hold integers from 0 to 32"}},
    {"text_config.rope_parameters.mrope_section",
     "[11, 11, 11]",
     {"mrope_section adds up to 33 pairs, but the rotary dims make 32"}},
};

START_TEST(bad_value_is_named) {
    const BadEdit *b = &BAD_EDITS[_i];
    char *json = json_edited(REAL_CONFIG, b->where, b->value);
    Config c;
    Error err = {{0}};
    ck_assert_msg(!cfg_parse(&c, json, PATH, &err), "accepted %s = %s", b->where,
                  b->value ? b->value : "(removed)");
    ck_assert_error(err, PATH);
    for (int k = 0; k < 3 && b->says[k]; k++)
        ck_assert_msg(strstr(err.msg, b->says[k]), "%s = %s: error \"%s\" does not say \"%s\"", b->where,
                      b->value ? b->value : "(removed)", err.msg, b->says[k]);
    free(json);
}
END_TEST

/* Infinity: JSON has no such value, but 1e999 reads as one (cJSON would print it back
 * as null, so these edit the text itself). No model can use it. */
START_TEST(infinite_numbers_are_refused) {
    static const struct {
        const char *from, *to, *says;
    } cases[] = {
        {"\"rope_theta\": 10000000", "\"rope_theta\": 1e999",
         "text_config.rope_parameters.rope_theta must be a finite number, got inf"},
        {"\"rope_theta\": 10000000", "\"rope_theta\": -1e999",
         "rope_theta must be a finite number, got -inf"},
        {"\"rms_norm_eps\": 1e-06", "\"rms_norm_eps\": 1e999",
         "text_config.rms_norm_eps must be a finite number"},
        {"\"partial_rotary_factor\": 0.25", "\"partial_rotary_factor\": 1E+999",
         "partial_rotary_factor must be a finite number"},
        {"\"head_dim\": 256", "\"head_dim\": 1e999",
         "text_config.head_dim must be an integer, got a number too "
         "large to hold (inf)"},
        {"\"vocab_size\": 248320", "\"vocab_size\": -1e999", "text_config.vocab_size must be an integer"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        const char *at = strstr(REAL_CONFIG, cases[i].from);
        ck_assert_ptr_nonnull(at);
        char *json = str_printf("%.*s%s%s", (int)(at - REAL_CONFIG), REAL_CONFIG, cases[i].to,
                                at + strlen(cases[i].from));
        Config c;
        Error err = {{0}};
        ck_assert_msg(!cfg_parse(&c, json, PATH, &err), "accepted %s", cases[i].to);
        ck_assert_error(err, PATH, cases[i].says);
        free(json);
    }
}
END_TEST

/* Sizes that only a combination of keys makes too large: every key within its bound,
 * the product not. Each edit list changes REAL_CONFIG in several places. */
typedef struct {
    const char *edits[3][2]; /* {key, value} */
    const char *says[2];
} BadCombination;

static const BadCombination BAD_COMBINATIONS[] = {
    /* key and value widths 2^19 each: the convolution's 2 · 2^19 + 2^19 channels are too many */
    {{{"text_config.linear_key_head_dim", "32768"}, {"text_config.linear_value_head_dim", "32768"}},
     {"the convolution's channels", "= 2 × 524288 + 524288 = 1572864, exceeds the 1048576"}},
    /* every width fine (conv 2^19 + 2^18), but the memory tables 16 × 2^18 × 2^14 = 2^36 numbers */
    {{{"text_config.linear_num_key_heads", "1"},
      {"text_config.linear_key_head_dim", "262144"},
      {"text_config.linear_value_head_dim", "16384"}},
     {"a DeltaNet layer's state", "= 16 × 262144 × 16384 + 3 × 786432 = 68721836032, exceeds the 67108864"}},
};

START_TEST(bad_combination_is_named) {
    const BadCombination *b = &BAD_COMBINATIONS[_i];
    char *json = xstrdup(REAL_CONFIG);
    for (int k = 0; k < 3 && b->edits[k][0]; k++) {
        char *next = json_edited(json, b->edits[k][0], b->edits[k][1]);
        free(json);
        json = next;
    }
    Config c;
    Error err = {{0}};
    ck_assert_msg(!cfg_parse(&c, json, PATH, &err), "combination %d accepted", _i);
    ck_assert_error(err, PATH, b->says[0], b->says[1]);
    free(json);
}
END_TEST

/* At the bounds themselves everything is accepted (the bound is "at most"). */
START_TEST(sizes_at_the_bounds_are_accepted) {
    static const char *const edits[][2] = {
        {"text_config.vocab_size", "16777216"},
        {"text_config.hidden_size", "1048576"},
        {"text_config.num_attention_heads", "2048"},  /* 2048 × 2 × 256 = 2^20 */
        {"text_config.linear_key_head_dim", "16384"}, /* key 2^18, conv 2^19 + 2^11 */
    };
    Config c;
    for (size_t i = 0; i < ARRAY_LEN(edits); i++) {
        char *json = json_edited(REAL_CONFIG, edits[i][0], edits[i][1]);
        parse_ok(&c, json);
        free(json);
    }
    ck_assert_int_eq(cfg_linear_key_dim(&c), 16 * 16384);
    ck_assert_int_eq(cfg_linear_conv_dim(&c), 2 * 16 * 16384 + 2048);
}
END_TEST

START_TEST(flat_config_errors_name_top_level_keys) {
    Config c;
    Error err = {{0}};
    char *no_hidden = json_edited(FLAT_CONFIG, "hidden_size", NULL);
    ck_assert(!cfg_parse(&c, no_hidden, PATH, &err));
    ck_assert_error(err, PATH, "missing key hidden_size");
    ck_assert_ptr_null(strstr(err.msg, "text_config"));
    char *no_theta = json_edited(FLAT_CONFIG, "rope_theta", NULL); /* the old spelling, at the top */
    ck_assert(!cfg_parse(&c, no_theta, PATH, &err));
    ck_assert_error(err, PATH, "missing key rope_theta");
    char *zero = json_edited(FLAT_CONFIG, "full_attention_interval", "0");
    ck_assert(!cfg_parse(&c, zero, PATH, &err));
    ck_assert_error(err, PATH, "full_attention_interval must be positive, got 0");
    char *text = json_edited(FLAT_CONFIG, "full_attention_interval", "\"4\"");
    ck_assert(!cfg_parse(&c, text, PATH, &err));
    ck_assert_error(err, PATH, "full_attention_interval must be an integer");
    free(no_hidden);
    free(no_theta);
    free(zero);
    free(text);
}
END_TEST

START_TEST(not_json_or_not_an_object) {
    static const struct {
        const char *json, *says;
    } cases[] = {
        {"", "not valid JSON"},
        {"{\"text_config\": {\"hidden_size\": 1024,", "not valid JSON"},
        {"text_config: {hidden_size: 1024}", "not valid JSON"},
        {"[1024, 24]", "expected a JSON object"},
        {"\"config\"", "expected a JSON object"},
        {"{} {}", "more after the JSON value"},               /* two values: not one file */
        {"{\"model_type\": \"qwen3_5\\u0000x\"}", "\\u0000"}, /* would read as "qwen3_5" */
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        Config c;
        Error err = {{0}};
        ck_assert_msg(!cfg_parse(&c, cases[i].json, PATH, &err), "accepted '%s'", cases[i].json);
        ck_assert_error(err, PATH, cases[i].says);
    }
}
END_TEST

START_TEST(missing_file) {
    char *dir = scratch_dir(), *path = in_dir(dir, "config.json");
    Config c;
    Error err = {{0}};
    ck_assert(!cfg_load(&c, path, &err));
    ck_assert_error(err, path, "cannot open", "No such file");
    ck_assert(!cfg_load(&c, dir, &err)); /* a folder is not a config file */
    ck_assert_error(err, dir, "is a folder, not a regular file");
    /* a named pipe: an error at once, not a wait for a writer (the test's timeout) */
    ck_assert_int_eq(mkfifo(path, 0644), 0);
    ck_assert(!cfg_load(&c, path, &err));
    ck_assert_error(err, path, "is a named pipe (FIFO), not a regular file");
    scratch_remove(dir);
    free(path);
    free(dir);
}
END_TEST

int main(void) {
    Suite *s = suite_create("config");
    TCase *good = tcase_with_scratch("layouts");
    tcase_add_test(good, real_config_every_field);
    tcase_add_test(good, real_config_from_a_file);
    tcase_add_test(good, layer_types_list_wins_over_the_interval);
    tcase_add_test(good, interval_fallback_without_layer_types);
    tcase_add_test(good, text_config_wins_over_top_level_keys);
    tcase_add_test(good, tie_word_embeddings_top_or_text);
    tcase_add_test(good, flat_config_every_field);
    tcase_add_test(good, flat_config_rope_scaling);
    suite_add_tcase(s, good);

    TCase *bad = tcase_with_scratch("bad input");
    tcase_add_loop_test(bad, missing_key_is_named, 0, (int)ARRAY_LEN(REQUIRED));
    tcase_add_loop_test(bad, bad_value_is_named, 0, (int)ARRAY_LEN(BAD_EDITS));
    tcase_add_test(bad, infinite_numbers_are_refused);
    tcase_add_loop_test(bad, bad_combination_is_named, 0, (int)ARRAY_LEN(BAD_COMBINATIONS));
    tcase_add_test(bad, sizes_at_the_bounds_are_accepted);
    tcase_add_test(bad, flat_config_errors_name_top_level_keys);
    tcase_add_test(bad, not_json_or_not_an_object);
    tcase_add_test(bad, missing_file);
    suite_add_tcase(s, bad);
    return run_suite(s);
}
