/* config.c — reading and checking config.json (see config.h). */
#include "config.h"

#include <cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workbook/jsonstr.h"

/* Where a key was looked up, for messages: "config.json: text_config.head_dim ...". */
typedef struct {
    const char *path;
    const char *section; /* "text_config." or "" */
    const cJSON *obj;
} Scope;

static const char *json_type_name(const cJSON *j) {
    if (cJSON_IsString(j)) return "a string";
    if (cJSON_IsNumber(j)) return "a number";
    if (cJSON_IsBool(j)) return "a boolean";
    if (cJSON_IsNull(j)) return "null";
    if (cJSON_IsArray(j)) return "an array";
    if (cJSON_IsObject(j)) return "an object";
    return "something else";
}

/* An integer key in min .. max. Absent: error when required, else leaves *out alone.
 * A number too large for the reader is said to be too large (not "not an integer"). */
static bool get_int_in(Scope s, const char *key, bool required, int min, int max, int *out, Error *err) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(s.obj, key);
    if (!j) return required ? error_set(err, "%s: missing key %s%s", s.path, s.section, key) : true;
    if (!cJSON_IsNumber(j))
        return error_set(err, "%s: %s%s must be an integer, got %s", s.path, s.section, key,
                         json_type_name(j));
    double v = j->valuedouble;
    if (!isfinite(v))
        return error_set(err, "%s: %s%s must be an integer, got a number too large to hold (%g)", s.path,
                         s.section, key, v);
    if (v != floor(v))
        return error_set(err, "%s: %s%s must be an integer, got a number with a fraction (%.15g)", s.path,
                         s.section, key, v);
    if (v < min && min == 1)
        return error_set(err, "%s: %s%s must be positive, got %.15g", s.path, s.section, key, v);
    if (v < min)
        return error_set(err, "%s: %s%s must be at least %d, got %.15g", s.path, s.section, key, min, v);
    if (v > max)
        return error_set(err, "%s: %s%s is %.15g, more than the %d this reader allows", s.path, s.section,
                         key, v, max);
    *out = (int)v;
    return true;
}

static bool get_int(Scope s, const char *key, bool required, int *out, Error *err) {
    return get_int_in(s, key, required, INT_MIN, INT_MAX, out, err);
}

/* A JSON number that is a whole number in 0 .. max, so that it converts to int exactly. */
static bool json_whole(const cJSON *j, double max) {
    return cJSON_IsNumber(j) && j->valuedouble >= 0 && j->valuedouble <= max &&
           j->valuedouble == floor(j->valuedouble);
}

/* A positive integer key, at most max. */
static bool get_positive(Scope s, const char *key, int max, int *out, Error *err) {
    return get_int_in(s, key, true, 1, max, out, err);
}

/* A number key; infinity (1e999 in JSON) is no number a model can use. */
static bool get_double(Scope s, const char *key, bool required, double *out, Error *err) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(s.obj, key);
    if (!j) return required ? error_set(err, "%s: missing key %s%s", s.path, s.section, key) : true;
    if (!cJSON_IsNumber(j))
        return error_set(err, "%s: %s%s must be a number, got %s", s.path, s.section, key, json_type_name(j));
    if (!isfinite(j->valuedouble))
        return error_set(err, "%s: %s%s must be a finite number, got %g", s.path, s.section, key,
                         j->valuedouble);
    *out = j->valuedouble;
    return true;
}

static bool get_bool(Scope s, const char *key, bool *out, Error *err) {
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(s.obj, key);
    if (!j) return true;
    if (!cJSON_IsBool(j))
        return error_set(err, "%s: %s%s must be true or false, got %s", s.path, s.section, key,
                         json_type_name(j));
    *out = cJSON_IsTrue(j);
    return true;
}

/* layer_types, or the full_attention_interval rule when the list is absent. */
static bool read_layer_types(Config *c, Scope s, Error *err) {
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(s.obj, "layer_types");
    if (!types) {
        int interval = 4;
        if (!get_int(s, "full_attention_interval", false, &interval, err)) return false;
        if (interval <= 0)
            return error_set(err, "%s: %sfull_attention_interval must be positive, got %d", s.path, s.section,
                             interval);
        for (int i = 0; i < c->num_hidden_layers; i++)
            c->layer_types[i] = (i + 1) % interval == 0 ? LAYER_FULL_ATTENTION : LAYER_LINEAR_ATTENTION;
        return true;
    }
    if (!cJSON_IsArray(types))
        return error_set(err, "%s: %slayer_types must be an array of strings, got %s", s.path, s.section,
                         json_type_name(types));
    int n = cJSON_GetArraySize(types);
    if (n != c->num_hidden_layers)
        return error_set(err, "%s: %slayer_types lists %d layers but num_hidden_layers is %d", s.path,
                         s.section, n, c->num_hidden_layers);
    for (int i = 0; i < n; i++) {
        const cJSON *t = cJSON_GetArrayItem(types, i);
        if (!cJSON_IsString(t))
            return error_set(err, "%s: %slayer_types[%d] must be a string, got %s", s.path, s.section, i,
                             json_type_name(t));
        if (strcmp(t->valuestring, "linear_attention") == 0)
            c->layer_types[i] = LAYER_LINEAR_ATTENTION;
        else if (strcmp(t->valuestring, "full_attention") == 0)
            c->layer_types[i] = LAYER_FULL_ATTENTION;
        else
            return error_set(
                err,
                "%s: %slayer_types[%d] is \"%s\": unknown layer type (expected linear_attention or "
                "full_attention)",
                s.path, s.section, i, t->valuestring);
    }
    return true;
}

/* rope_parameters {...}, or the older top-level rope_theta / partial_rotary_factor / rope_scaling. */
static bool read_rope(Config *c, Scope s, Error *err) {
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(s.obj, "rope_parameters");
    Scope r = s;
    char section[96];
    if (params) {
        if (!cJSON_IsObject(params))
            return error_set(err, "%s: %srope_parameters must be an object, got %s", s.path, s.section,
                             json_type_name(params));
        snprintf(section, sizeof section, "%srope_parameters.", s.section);
        r = (Scope){s.path, section, params};
    }
    if (!get_double(r, "rope_theta", true, &c->rope_theta, err)) return false;
    if (!get_double(r, "partial_rotary_factor", true, &c->partial_rotary_factor, err)) return false;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(r.obj, "rope_type");
    if (!params) { /* the old spelling keeps the type in rope_scaling */
        const cJSON *scaling = cJSON_GetObjectItemCaseSensitive(s.obj, "rope_scaling");
        if (cJSON_IsObject(scaling)) type = cJSON_GetObjectItemCaseSensitive(scaling, "rope_type");
    }
    if (type && !(cJSON_IsString(type) && strcmp(type->valuestring, "default") == 0))
        return error_set(err, "%s: rope_type %s is not supported (only \"default\" RoPE)", s.path,
                         cJSON_IsString(type) ? type->valuestring : json_type_name(type));
    if (!(c->rope_theta > 1))
        return error_set(err, "%s: %srope_theta must be greater than 1, got %g", s.path, r.section,
                         c->rope_theta);
    double rot = c->head_dim * c->partial_rotary_factor; /* converted only once known to fit */
    if (!(c->partial_rotary_factor > 0 && c->partial_rotary_factor <= 1) || rot != floor(rot) ||
        (int)rot % 2 != 0)
        return error_set(err,
                         "%s: partial_rotary_factor %g of head_dim %d does not give an even number of dims",
                         s.path, c->partial_rotary_factor, c->head_dim);
    c->rotary_dim = (int)rot;
    /* M-RoPE sections split the rotary pairs between time/height/width; for text all
     * three carry the same position, so they only need to add up. */
    const cJSON *sections = cJSON_GetObjectItemCaseSensitive(r.obj, "mrope_section");
    if (sections) {
        long long sum = 0; /* each part is at most rotary_dim / 2: no overflow */
        const cJSON *v;
        if (!cJSON_IsArray(sections))
            return error_set(err, "%s: %smrope_section must be an array", s.path, r.section);
        cJSON_ArrayForEach(v, sections) {
            if (!json_whole(v, c->rotary_dim / 2))
                return error_set(err, "%s: %smrope_section must hold integers from 0 to %d (rotary pairs)",
                                 s.path, r.section, c->rotary_dim / 2);
            sum += (int)v->valuedouble;
        }
        if (sum != c->rotary_dim / 2)
            return error_set(err, "%s: %smrope_section adds up to %lld pairs, but the rotary dims make %d",
                             s.path, r.section, sum, c->rotary_dim / 2);
    }
    return true;
}

/* eos_token_id: a number or a list of numbers (optional). */
static bool read_eos(Config *c, const cJSON *j, const char *path, Error *err) {
    if (!j) return true;
    c->n_eos = 0;
    if (json_whole(j, INT_MAX)) {
        c->eos_token_ids[c->n_eos++] = (int)j->valuedouble;
        return true;
    }
    const cJSON *v;
    if (!cJSON_IsArray(j))
        return error_set(err, "%s: eos_token_id must be a token id or a list of them", path);
    cJSON_ArrayForEach(v, j) {
        if (!json_whole(v, INT_MAX)) return error_set(err, "%s: eos_token_id must hold token ids", path);
        if (c->n_eos < CONFIG_MAX_EOS) c->eos_token_ids[c->n_eos++] = (int)v->valuedouble;
    }
    return true;
}

/* a × b in 64 bits, INT64_MAX when the product does not fit (it is then beyond
 * every bound anyway). */
static int64_t mul_sat(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

/* One derived size against its bound: "config.json: q_proj's rows,
 * text_config.num_attention_heads × 2 × text_config.head_dim = 8 × 2 × 2097152 =
 * 33554432, are more than the 1048576 this reader allows for one vector". */
static bool within(Scope s, int64_t value, int64_t bound, const char *what, const char *keys,
                   const char *values, const char *unit, Error *err) {
    if (value <= bound) return true;
    char v[32];
    if (value == INT64_MAX)
        snprintf(v, sizeof v, "more than %lld", (long long)INT64_MAX);
    else
        snprintf(v, sizeof v, "%lld", (long long)value);
    return error_set(err, "%s: %s, %s = %s = %s, exceeds the %lld %s this reader allows", s.path, what, keys,
                     values, v, (long long)bound, unit);
}

/* Every size the layers multiply out of the config (config.h lists them), in 64 bits
 * and within its bound; the keys' values are known to fit an int here. */
static bool check_derived_sizes(const Config *c, Scope s, Error *err) {
    const char *t = s.section;
    char keys[256], vals[128];
    const int64_t W = CONFIG_MAX_WIDTH;
    /* q_proj's rows bound every attention width: k_proj and v_proj have num_key_value_heads ≤
     * num_attention_heads heads, o_proj's input is half of q_proj's rows */
    int64_t Hq = c->num_attention_heads, d = c->head_dim;
    int64_t nk = c->linear_num_key_heads, nv = c->linear_num_value_heads, dk = c->linear_key_head_dim,
            dv = c->linear_value_head_dim, K = c->linear_conv_kernel_dim;

    snprintf(keys, sizeof keys, "%snum_attention_heads × 2 × %shead_dim", t, t);
    snprintf(vals, sizeof vals, "%lld × 2 × %lld", (long long)Hq, (long long)d);
    if (!within(s, mul_sat(mul_sat(Hq, 2), d), W, "q_proj's rows (query and gate of every head)", keys, vals,
                "numbers per vector", err))
        return false;
    int64_t key_dim = mul_sat(nk, dk), value_dim = mul_sat(nv, dv);
    snprintf(keys, sizeof keys, "%slinear_num_key_heads × %slinear_key_head_dim", t, t);
    snprintf(vals, sizeof vals, "%lld × %lld", (long long)nk, (long long)dk);
    if (!within(s, key_dim, W, "the DeltaNet's key width", keys, vals, "numbers per vector", err))
        return false;
    snprintf(keys, sizeof keys, "%slinear_num_value_heads × %slinear_value_head_dim", t, t);
    snprintf(vals, sizeof vals, "%lld × %lld", (long long)nv, (long long)dv);
    if (!within(s, value_dim, W, "the DeltaNet's value width", keys, vals, "numbers per vector", err))
        return false;
    int64_t conv_dim = 2 * key_dim + value_dim; /* both at most 2^20 here */
    snprintf(keys, sizeof keys,
             "2 × %slinear_num_key_heads × %slinear_key_head_dim + %slinear_num_value_heads × "
             "%slinear_value_head_dim",
             t, t, t, t);
    snprintf(vals, sizeof vals, "2 × %lld + %lld", (long long)key_dim, (long long)value_dim);
    if (!within(s, conv_dim, W, "the convolution's channels", keys, vals, "numbers per vector", err))
        return false;
    int64_t state = mul_sat(mul_sat(nv, dk), dv) + mul_sat(K - 1, conv_dim); /* each at most 2^60 */
    snprintf(keys, sizeof keys,
             "%slinear_num_value_heads × %slinear_key_head_dim × %slinear_value_head_dim + "
             "(%slinear_conv_kernel_dim − 1) × channels",
             t, t, t, t);
    snprintf(vals, sizeof vals, "%lld × %lld × %lld + %lld × %lld", (long long)nv, (long long)dk,
             (long long)dv, (long long)(K - 1), (long long)conv_dim);
    return within(s, state, CONFIG_MAX_STATE, "a DeltaNet layer's state", keys, vals, "numbers", err);
}

static bool parse_text_config(Config *c, const cJSON *root, Scope s, Error *err) {
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(s.obj, "model_type");
    if (!mt) mt = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    if (cJSON_IsString(mt)) snprintf(c->model_type, sizeof c->model_type, "%s", mt->valuestring);

    const int W = CONFIG_MAX_WIDTH;
    if (!get_positive(s, "vocab_size", CONFIG_MAX_VOCAB, &c->vocab_size, err) ||
        !get_positive(s, "hidden_size", W, &c->hidden_size, err) ||
        !get_positive(s, "intermediate_size", W, &c->intermediate_size, err) ||
        !get_positive(s, "num_hidden_layers", INT_MAX, &c->num_hidden_layers, err) ||
        !get_positive(s, "num_attention_heads", W, &c->num_attention_heads, err) ||
        !get_positive(s, "num_key_value_heads", W, &c->num_key_value_heads, err) ||
        !get_positive(s, "head_dim", W, &c->head_dim, err) ||
        !get_positive(s, "linear_num_key_heads", W, &c->linear_num_key_heads, err) ||
        !get_positive(s, "linear_num_value_heads", W, &c->linear_num_value_heads, err) ||
        !get_positive(s, "linear_key_head_dim", W, &c->linear_key_head_dim, err) ||
        !get_positive(s, "linear_value_head_dim", W, &c->linear_value_head_dim, err) ||
        !get_positive(s, "linear_conv_kernel_dim", W, &c->linear_conv_kernel_dim, err) ||
        !get_double(s, "rms_norm_eps", true, &c->rms_norm_eps, err) ||
        !get_int_in(s, "max_position_embeddings", false, 0, INT_MAX, &c->max_position_embeddings, err))
        return false;
    if (c->num_hidden_layers > CONFIG_MAX_LAYERS)
        return error_set(err, "%s: %d layers is more than this reader supports (%d)", s.path,
                         c->num_hidden_layers, CONFIG_MAX_LAYERS);
    if (!(c->rms_norm_eps > 0 && c->rms_norm_eps < 1))
        return error_set(err, "%s: %srms_norm_eps must be between 0 and 1, got %g", s.path, s.section,
                         c->rms_norm_eps);
    if (c->num_attention_heads % c->num_key_value_heads != 0)
        return error_set(err, "%s: num_attention_heads %d is not a multiple of num_key_value_heads %d",
                         s.path, c->num_attention_heads, c->num_key_value_heads);
    if (c->linear_num_value_heads % c->linear_num_key_heads != 0)
        return error_set(err, "%s: linear_num_value_heads %d is not a multiple of linear_num_key_heads %d",
                         s.path, c->linear_num_value_heads, c->linear_num_key_heads);
    if (!check_derived_sizes(c, s, err)) return false;

    /* tie_word_embeddings lives at the top of a multimodal file; a text section may repeat it */
    c->tie_word_embeddings = true;
    Scope top = {s.path, "", root};
    if (!get_bool(top, "tie_word_embeddings", &c->tie_word_embeddings, err) ||
        !get_bool(s, "tie_word_embeddings", &c->tie_word_embeddings, err))
        return false;
    const cJSON *eos = cJSON_GetObjectItemCaseSensitive(s.obj, "eos_token_id");
    if (!read_eos(c, eos ? eos : cJSON_GetObjectItemCaseSensitive(root, "eos_token_id"), s.path, err))
        return false;
    return read_layer_types(c, s, err) && read_rope(c, s, err);
}

/* The text json[0..len) of config.json. */
static bool parse_config(Config *c, const char *json, size_t len, const char *path, Error *err) {
    memset(c, 0, sizeof *c);
    cJSON *root = json_parse_document(json, len, path, err);
    if (!root) return false;
    bool ok;
    if (!cJSON_IsObject(root)) {
        ok = error_set(err, "%s: expected a JSON object", path);
    } else {
        const cJSON *text = cJSON_GetObjectItemCaseSensitive(root, "text_config");
        if (text && !cJSON_IsObject(text))
            ok = error_set(err, "%s: text_config must be an object", path);
        else if (text)
            ok = parse_text_config(c, root, (Scope){path, "text_config.", text}, err);
        else
            ok = parse_text_config(c, root, (Scope){path, "", root}, err);
    }
    cJSON_Delete(root);
    return ok;
}

bool cfg_parse(Config *c, const char *json, const char *path, Error *err) {
    return parse_config(c, json, strlen(json), path, err);
}

bool cfg_load(Config *c, const char *path, Error *err) {
    size_t len;
    char *json = read_file(path, &len, err);
    if (!json) return false;
    bool ok = parse_config(c, json, len, path, err);
    free(json);
    return ok;
}

char cfg_layer_letter(LayerType t) { return t == LAYER_FULL_ATTENTION ? 'F' : 'L'; }

void cfg_layer_pattern(const Config *c, char *buf) {
    for (int i = 0; i < c->num_hidden_layers; i++) buf[i] = cfg_layer_letter(c->layer_types[i]);
    buf[c->num_hidden_layers] = '\0';
}

int cfg_count_layers(const Config *c, LayerType t) {
    int n = 0;
    for (int i = 0; i < c->num_hidden_layers; i++) n += c->layer_types[i] == t;
    return n;
}
