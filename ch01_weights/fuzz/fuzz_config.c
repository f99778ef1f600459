/* fuzz_config.c — cfg_parse on any text (qwen/config.h).
 *
 * A config the reader accepts must satisfy everything the layers rely on, checked
 * here again from the Config alone, in 128-bit arithmetic so no product can wrap:
 *   - every count and width positive and within its bound (CONFIG_MAX_WIDTH,
 *     CONFIG_MAX_VOCAB, CONFIG_MAX_LAYERS), every derived width (q_proj's rows, the
 *     DeltaNet's key, value and convolution widths) within CONFIG_MAX_WIDTH and the
 *     DeltaNet's state within CONFIG_MAX_STATE, cfg_linear_*_dim equal to them;
 *   - heads that divide (query by key/value heads, value by key heads);
 *   - finite eps in (0, 1), theta > 1, a rotary part that is an even number of dims,
 *     exactly head_dim × partial_rotary_factor;
 *   - known layer types, at most CONFIG_MAX_EOS end ids, all of them ids;
 *   - the same text parsed twice gives the same Config.
 * A text it refuses must get one line that names the file.
 */
#include <math.h>
#include <stdint.h>

#include "qwen/config.h"
#include "tests/fuzz.h"

static const char PATH[] = "fuzz/config.json";

static void check_accepted(const Config *c) {
    typedef __int128 i128;
    const i128 W = CONFIG_MAX_WIDTH;
    const int counts[] = {c->hidden_size,
                          c->intermediate_size,
                          c->num_attention_heads,
                          c->num_key_value_heads,
                          c->head_dim,
                          c->linear_num_key_heads,
                          c->linear_num_value_heads,
                          c->linear_key_head_dim,
                          c->linear_value_head_dim,
                          c->linear_conv_kernel_dim};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        FUZZ_CHECK(counts[i] >= 1 && counts[i] <= W, "size %zu is %d", i, counts[i]);
    FUZZ_CHECK(c->vocab_size >= 1 && c->vocab_size <= CONFIG_MAX_VOCAB, "vocab_size %d", c->vocab_size);
    FUZZ_CHECK(c->num_hidden_layers >= 1 && c->num_hidden_layers <= CONFIG_MAX_LAYERS, "%d layers",
               c->num_hidden_layers);
    for (int i = 0; i < c->num_hidden_layers; i++)
        FUZZ_CHECK(c->layer_types[i] == LAYER_LINEAR_ATTENTION || c->layer_types[i] == LAYER_FULL_ATTENTION,
                   "layer %d has type %d", i, (int)c->layer_types[i]);
    FUZZ_CHECK(c->num_attention_heads % c->num_key_value_heads == 0, "%d query heads, %d kv heads",
               c->num_attention_heads, c->num_key_value_heads);
    FUZZ_CHECK(c->linear_num_value_heads % c->linear_num_key_heads == 0, "%d value heads, %d key heads",
               c->linear_num_value_heads, c->linear_num_key_heads);

    i128 q_rows = (i128)c->num_attention_heads * 2 * c->head_dim;
    i128 key = (i128)c->linear_num_key_heads * c->linear_key_head_dim;
    i128 value = (i128)c->linear_num_value_heads * c->linear_value_head_dim;
    i128 conv = 2 * key + value;
    i128 state = (i128)c->linear_num_value_heads * c->linear_key_head_dim * c->linear_value_head_dim +
                 (i128)(c->linear_conv_kernel_dim - 1) * conv;
    FUZZ_CHECK(q_rows <= W, "q_proj's rows %lld", (long long)q_rows);
    FUZZ_CHECK(key <= W && value <= W && conv <= W, "DeltaNet widths %lld %lld %lld", (long long)key,
               (long long)value, (long long)conv);
    FUZZ_CHECK(state <= CONFIG_MAX_STATE, "DeltaNet state %lld", (long long)state);
    FUZZ_CHECK(cfg_linear_key_dim(c) == key && cfg_linear_value_dim(c) == value &&
                   cfg_linear_conv_dim(c) == conv,
               "cfg_linear_*_dim disagree");

    FUZZ_CHECK(isfinite(c->rms_norm_eps) && c->rms_norm_eps > 0 && c->rms_norm_eps < 1, "eps %g",
               c->rms_norm_eps);
    FUZZ_CHECK(isfinite(c->rope_theta) && c->rope_theta > 1, "theta %g", c->rope_theta);
    FUZZ_CHECK(isfinite(c->partial_rotary_factor) && c->partial_rotary_factor > 0 &&
                   c->partial_rotary_factor <= 1,
               "partial_rotary_factor %g", c->partial_rotary_factor);
    FUZZ_CHECK(c->rotary_dim >= 2 && c->rotary_dim % 2 == 0 && c->rotary_dim <= c->head_dim &&
                   (double)c->rotary_dim == c->head_dim * c->partial_rotary_factor,
               "rotary_dim %d of head_dim %d × %g", c->rotary_dim, c->head_dim, c->partial_rotary_factor);
    FUZZ_CHECK(c->max_position_embeddings >= 0, "max_position_embeddings %d", c->max_position_embeddings);
    FUZZ_CHECK(c->n_eos >= 0 && c->n_eos <= CONFIG_MAX_EOS, "%d eos ids", c->n_eos);
    for (int i = 0; i < c->n_eos; i++) FUZZ_CHECK(c->eos_token_ids[i] >= 0, "eos id %d", c->eos_token_ids[i]);
    FUZZ_CHECK(memchr(c->model_type, '\0', sizeof c->model_type) != NULL, "model_type not terminated");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    Config c, again;
    Error err = {{0}};
    if (cfg_parse(&c, text, PATH, &err)) {
        check_accepted(&c);
        Error err2;
        FUZZ_CHECK(cfg_parse(&again, text, PATH, &err2) && memcmp(&c, &again, sizeof c) == 0,
                   "the same text parsed twice gives two configs");
    } else {
        fuzz_check_error(&err, PATH);
    }
    free(text);
    return 0;
}
