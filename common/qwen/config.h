/* config.h — the model's hyper-parameters, read from config.json.
 *
 * Qwen3.5-0.8B is a vision-language checkpoint: the language model's settings sit
 * inside "text_config" (a text-only file puts them at the top level; both work).
 * For 0.8B the values are (docs/checkpoint.md §3):
 *
 *   hidden_size 1024, intermediate_size 3584, num_hidden_layers 24, vocab 248320
 *   layer_types: linear_attention ×3 then full_attention, repeated (LLLF × 6)
 *   full attention: 8 query heads, 2 key/value heads, head_dim 256,
 *                   RoPE theta 1e7 on the first 64 dims (partial_rotary_factor 0.25)
 *   linear attention (Gated DeltaNet): 16 key heads, 16 value heads, 128 / 128 dims,
 *                   a causal convolution 4 tokens wide
 *   rms_norm_eps 1e-6, tie_word_embeddings true
 *
 * Older files spell some keys differently; the reader accepts both:
 *   - "rope_parameters": {"rope_theta", "partial_rotary_factor", "rope_type", ...}
 *     or rope_theta / partial_rotary_factor / rope_scaling directly in the config;
 *   - "layer_types", or when it is absent "full_attention_interval" (layer i is
 *     full attention when (i + 1) % interval == 0; default 4).
 *
 * Everything is checked once, here, so the layers can trust the numbers: a
 * missing key, a wrong type, an unknown layer type or an impossible head split
 * is one clear error naming config.json and the key.
 *
 * Sizes. Each value may be fine on its own while a product of them is not (8 heads
 * of 2^30 dims), and a product that wraps around in 32 bits could even match the
 * tensors of a small file. So every size the layers derive from config.json is
 * computed here in 64 bits and must stay within a sane bound, far above any real
 * Qwen3.5 (the 0.8B values in brackets); the error names the keys multiplied:
 *
 *   CONFIG_MAX_WIDTH  the length of any one vector a token makes: hidden_size [1024],
 *                     intermediate_size [3584], head_dim [256], linear_key_head_dim and
 *                     linear_value_head_dim [128], and the widths multiplied from them:
 *                     num_attention_heads × 2 × head_dim (q_proj's rows [4096], which
 *                     bound k_proj's, v_proj's and o_proj's widths too),
 *                     linear_num_key_heads × linear_key_head_dim (the DeltaNet's q and k
 *                     [2048]), linear_num_value_heads × linear_value_head_dim (v [2048]),
 *                     2 × key width + value width (the convolution's channels [6144]).
 *                     A head count and linear_conv_kernel_dim are bounded by it too.
 *   CONFIG_MAX_VOCAB  vocab_size, the rows of the embedding table [248320]
 *   CONFIG_MAX_STATE  the numbers a DeltaNet layer carries from token to token: its
 *                     memory tables, linear_num_value_heads × linear_key_head_dim ×
 *                     linear_value_head_dim [262144], plus the convolution's history,
 *                     (linear_conv_kernel_dim − 1) × its channels [18432] — 256 MB in
 *                     float32 at the bound
 *   CONFIG_MAX_LAYERS num_hidden_layers [24]
 *
 * Within these bounds every width fits an int and every product of a width with a
 * token count is computed in 64 bits by the layers. rope_theta, rms_norm_eps and
 * partial_rotary_factor must be finite (a JSON 1e999 reads as infinity).
 */
#ifndef CONFIG_H
#define CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "workbook/util.h"

#define CONFIG_MAX_LAYERS 256
#define CONFIG_MAX_EOS    8
#define CONFIG_MAX_WIDTH  (1 << 20) /* 1,048,576 */
#define CONFIG_MAX_VOCAB  (1 << 24) /* 16,777,216 */
#define CONFIG_MAX_STATE  (1 << 26) /* 67,108,864 numbers */

typedef enum { LAYER_LINEAR_ATTENTION, LAYER_FULL_ATTENTION } LayerType;

typedef struct {
    char model_type[64];   /* "qwen3_5_text" (inside text_config) or "qwen3_5" */
    int vocab_size;        /* rows of the embedding table: 248320 (the tokenizer uses 248077) */
    int hidden_size;       /* 1024: width of the residual stream */
    int intermediate_size; /* 3584: the MLP's hidden width */
    int num_hidden_layers; /* 24 */
    LayerType layer_types[CONFIG_MAX_LAYERS];
    double rms_norm_eps;         /* 1e-6 */
    bool tie_word_embeddings;    /* true: the output head is the embedding matrix */
    int max_position_embeddings; /* 262144 (0 when the file does not say) */

    /* full attention (every 4th layer) */
    int num_attention_heads;      /* 8 query heads */
    int num_key_value_heads;      /* 2 key/value heads, each shared by 4 query heads */
    int head_dim;                 /* 256 */
    double rope_theta;            /* 1e7 */
    double partial_rotary_factor; /* 0.25: only the first 64 of 256 dims rotate */
    int rotary_dim;               /* head_dim × partial_rotary_factor = 64 */

    /* linear attention: Gated DeltaNet (the other 3 of every 4 layers) */
    int linear_num_key_heads;   /* 16 */
    int linear_num_value_heads; /* 16 (larger models have more value heads than key heads) */
    int linear_key_head_dim;    /* 128 */
    int linear_value_head_dim;  /* 128 */
    int linear_conv_kernel_dim; /* 4 */

    int eos_token_ids[CONFIG_MAX_EOS]; /* ids that end generation, when the file names them */
    int n_eos;
} Config;

/* Reads and checks path (a config.json). */
bool cfg_load(Config *c, const char *path, Error *err);
/* The same from a string; path is only used in messages. */
bool cfg_parse(Config *c, const char *json, const char *path, Error *err);

/* 'L' for linear attention, 'F' for full attention. */
char cfg_layer_letter(LayerType t);
/* "LLLFLLLF..." into buf (needs num_hidden_layers + 1 bytes). */
void cfg_layer_pattern(const Config *c, char *buf);
int cfg_count_layers(const Config *c, LayerType t);

/* Derived widths of the linear-attention projections, in 64 bits (a Config from
 * cfg_parse has them within CONFIG_MAX_WIDTH). */
static inline int64_t cfg_linear_key_dim(const Config *c) {
    return (int64_t)c->linear_num_key_heads * c->linear_key_head_dim;
}
static inline int64_t cfg_linear_value_dim(const Config *c) {
    return (int64_t)c->linear_num_value_heads * c->linear_value_head_dim;
}
/* q, k and v go through the convolution together: 2048 + 2048 + 2048 = 6144. */
static inline int64_t cfg_linear_conv_dim(const Config *c) {
    return 2 * cfg_linear_key_dim(c) + cfg_linear_value_dim(c);
}

#endif
