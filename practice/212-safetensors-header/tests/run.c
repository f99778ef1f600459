/* Exercise 212 (one entry of a safetensors header), the runner: each case's file
 * heads, the calls, the outputs handed back. The checker (check.c) holds what they
 * should be; it numbers the calls of a case as this file does. */
#include <stdio.h>
#include <string.h>

#include "ptest_run.h"
#include "st_header.h"

/* A file's first bytes: the 8-byte little-endian length (n_field), then json (no
 * '\0' after it), then `extra` bytes of data actually at hand. Exactly that long. */
typedef struct {
    const uint8_t *bytes;
    size_t len;
    uint64_t file_size;
} Head;

static Head make_raw(const char *json, uint64_t n_field, size_t extra, uint64_t file_size) {
    size_t n = strlen(json);
    uint8_t *b = pt_bytes(8 + n + extra);
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(n_field >> (8 * i));
    memcpy(b + 8, json, n);
    memset(b + 8 + n, 0, extra);
    return (Head){b, 8 + n + extra, file_size};
}

/* A well-formed file: header json, then data_size bytes of data (not at hand). */
static Head make(const char *json, uint64_t data_size) {
    return make_raw(json, strlen(json), 0, 8 + strlen(json) + data_size);
}

static void out_int(int k, const char *what, long long v) {
    char name[48];
    snprintf(name, sizeof name, "%d.%s", k, what);
    pt_out_int(name, v);
}

static void out_u64(int k, const char *what, unsigned long long v) {
    char name[48];
    snprintf(name, sizeof name, "%d.%s", k, what);
    pt_out_u64(name, v);
}

/* Call k, looking for a tensor that is there: the returned value as K.r, and every
 * field of *out (filled with 0x5A before the call): K.dtype (its 16 bytes), K.ndim,
 * K.shape0 .. K.shape7, K.begin, K.end. */
static void find(int k, Head h, const char *name) {
    StEntry e;
    memset(&e, 0x5A, sizeof e);
    int r = st_find(h.bytes, h.len, h.file_size, name, &e);
    out_int(k, "r", r);
    int dtype[sizeof e.dtype];
    for (size_t i = 0; i < sizeof e.dtype; i++) dtype[i] = (unsigned char)e.dtype[i];
    char what[48];
    snprintf(what, sizeof what, "%d.dtype", k);
    pt_out_ints(what, dtype, sizeof e.dtype);
    out_int(k, "ndim", e.ndim);
    for (int i = 0; i < ST_MAX_DIMS; i++) {
        snprintf(what, sizeof what, "shape%d", i);
        out_int(k, what, e.shape[i]);
    }
    out_u64(k, "begin", e.begin);
    out_u64(k, "end", e.end);
}

/* Call k, where only the returned value counts (*out zeroed before): K.r. */
static void look(int k, Head h, const char *name) {
    StEntry e;
    memset(&e, 0, sizeof e);
    out_int(k, "r", st_find(h.bytes, h.len, h.file_size, name, &e));
}

/* ---- the cases -------------------------------------------------------------------- */

static void worked_example(void) {
    const char *json = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
    Head h = make_raw(json, 54, 8, 70);
    find(0, h, "a");
    look(1, h, "b");
}

/* The real checkpoint's layout: metadata first, names sorted, BF16 and F32 mixed,
 * spaces padding the header to a multiple of 8, a (larger model's) tensor past 4 GB. */
static const char *real_json =
    "{\"__metadata__\":{\"format\":\"pt\"},"
    "\"model.language_model.embed_tokens.weight\":{\"dtype\":\"BF16\",\"shape\":[248320,1024],"
    "\"data_offsets\":[0,508559360]},"
    "\"model.language_model.layers.0.linear_attn.A_log\":{\"dtype\":\"F32\",\"shape\":[16],"
    "\"data_offsets\":[508559360,508559424]},"
    "\"model.language_model.layers.0.linear_attn.norm.weight\":{\"dtype\":\"F32\",\"shape\":[128],"
    "\"data_offsets\":[508559424,508559936]},"
    "\"model.language_model.layers.0.mlp.gate_proj.weight\":{\"dtype\":\"BF16\",\"shape\":[3584,1024],"
    "\"data_offsets\":[2147483648,2154823680]},"
    "\"model.language_model.layers.23.mlp.down_proj.weight\":{\"dtype\":\"BF16\",\"shape\":[1024,3584],"
    "\"data_offsets\":[4294967296,4302307328]},"
    "\"mtp.fc.weight\":{\"dtype\":\"BF16\",\"shape\":[1024,2048],\"data_offsets\":[508559936,512754240]}}"
    "      ";

static void real_layout(void) {
    Head h = make(real_json, 4302307328ull + 4096);
    find(0, h, "model.language_model.embed_tokens.weight");
    find(1, h, "model.language_model.layers.0.linear_attn.A_log");
    find(2, h, "model.language_model.layers.0.linear_attn.norm.weight");
    look(3, h, "model.language_model.lm_head.weight");
}

static void offsets_past_4gb(void) {
    Head h = make(real_json, 4302307328ull + 4096);
    find(0, h, "model.language_model.layers.0.mlp.gate_proj.weight");
    find(1, h, "model.language_model.layers.23.mlp.down_proj.weight");
}

static void prefix_names(void) {
    const char *json = "{\"layers.1\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
                       "\"layers.1.w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[1,9]},"
                       "\"layers.1.w2\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[9,21]},"
                       "\"layers.10.w\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[21,29]}}";
    Head h = make(json, 29);
    find(0, h, "layers.1.w");
    find(1, h, "layers.1");
    find(2, h, "layers.10.w");
    look(3, h, "layers.1.");
    look(4, h, "layers");
}

static void name_in_metadata(void) {
    const char *json = "{\"__metadata__\":{\"layers.2.w\":\"not a tensor\",\"note\":\"say \\\"layers.2.w\\\" "
                       "{\\\"dtype\\\":\\\"F64\\\"} \\\\\"},"
                       "\"layers.2.w\":{\"dtype\":\"I32\",\"shape\":[3],\"data_offsets\":[0,12]}}";
    Head h = make(json, 12);
    find(0, h, "layers.2.w");
    look(1, h, "note");
    look(2, h, "__metadata__");
}

static void layout_free(void) {
    const char *json = "\n{\n  \"__metadata__\" : { } ,\n"
                       "  \"b\" :\t{ \"data_offsets\" : [ 16 , 40 ] ,\r\n    \"shape\" : [ 2 , 3 ] ,\n"
                       "    \"dtype\" : \"F32\" } ,\n"
                       "  \"a\" : {\"shape\":[4],\"dtype\":\"BF16\",\"data_offsets\":[8,16]}\n}\n   ";
    Head h = make(json, 40);
    find(0, h, "b");
    find(1, h, "a");
}

static void scalar_and_empty(void) {
    const char *json = "{\"s\":{\"dtype\":\"F64\",\"shape\":[],\"data_offsets\":[0,8]},"
                       "\"z\":{\"dtype\":\"BF16\",\"shape\":[0,1024],\"data_offsets\":[8,8]},"
                       "\"big\":{\"dtype\":\"I64\",\"shape\":[1,1,1,1,1,1,1,2],\"data_offsets\":[8,24]}}";
    Head h = make(json, 24);
    find(0, h, "s");
    find(1, h, "z");
    find(2, h, "big");
    look(3, make("{}", 0), "s");
    look(4, make("{\"__metadata__\":{\"format\":\"pt\"}}", 0), "format");
}

static const char *ok_json = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";

static void malformed_length(void) {
    size_t n = strlen(ok_json);
    look(0, (Head){pt_dup("\x36\0\0\0\0", 5), 5, 5}, "a");
    look(1, make_raw(ok_json, n, 8, 7), "a");
    look(2, make_raw(ok_json, n + 1, 0, 8 + n + 8), "a");
    look(3, make_raw(ok_json, n, 8, 8 + n - 1), "a");
    look(4, make_raw(ok_json, n | (1ull << 56), 8, 8 + n + 8), "a");
    look(5, make_raw(ok_json, n | (1ull << 32), 8, 8 + n + 8), "a");
    look(6, make_raw(ok_json, UINT64_MAX, 8, 8 + n + 8), "a");
    look(7, make_raw(ok_json, n - 1, 9, 8 + n + 8), "a");
}

static void malformed_json(void) {
    static const char *const bad[] = {
        "[]",
        "",
        "   ",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}} x",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}}",
        "{\"a\":{\"dtype\":\"F32,\"shape\":[2],\"data_offsets\":[0,8]}}",
        "{\"a",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},}",
        "{\"a\" {\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[2]}}",
        "{\"a\":{\"shape\":[2],\"data_offsets\":[0,8]}}",
        "{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,8]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"extra\":1}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8,8]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[2,],\"data_offsets\":[0,8]}}",
        "{\"__metadata__\":{\"n\":1},\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
        "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]",
    };
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) look(i, make(bad[i], 8), "a");
}

static void malformed_values(void) {
    static const char *const bad[] = {
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}",
        "{\"a\":{\"dtype\":\"F7\",\"shape\":[2],\"data_offsets\":[0,8]}}",
        "{\"a\":{\"dtype\":\"\",\"shape\":[2],\"data_offsets\":[0,8]}}",
        "{\"a\":{\"dtype\":\"BFLOAT16_BUT_MUCH_LONGER\",\"shape\":[2],\"data_offsets\":[0,8]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[2.0],\"data_offsets\":[0,8]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[\"2\"],\"data_offsets\":[0,8]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,2],\"data_offsets\":[0,8]}}",
        "{\"a\":{\"dtype\":\"BF16\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,0]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,99999999999999999999]}}",
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
        "\"b\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}",
    };
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) look(i, make(bad[i], 8), "a");
}

PT_RUNNER({"worked_example", worked_example}, {"real_layout", real_layout},
          {"offsets_past_4gb", offsets_past_4gb}, {"prefix_names", prefix_names},
          {"name_in_metadata", name_in_metadata}, {"layout_free", layout_free},
          {"scalar_and_empty", scalar_and_empty}, {"malformed_length", malformed_length},
          {"malformed_json", malformed_json}, {"malformed_values", malformed_values})
