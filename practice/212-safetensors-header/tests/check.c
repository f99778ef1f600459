/* Exercise 212 (one entry of a safetensors header), the checker: what each case's
 * outputs should be. Every expected value is worked out by hand from the format's
 * rules (problem.md): the offsets are products of the shapes. The file heads are
 * written out literally in run.c; the headers are repeated here, as run.c writes
 * them, for the messages, and call k of a case here is call k there. */
#include <stdio.h>
#include <string.h>

#include "ptest_check.h"

/* What the messages say of a file head run.c built: its length and the file's size. */
typedef struct {
    size_t len;
    uint64_t file_size;
} Head;

/* As run.c's make_raw: 8 length bytes (n_field), json, `extra` bytes of data at hand. */
static Head make_raw(const char *json, uint64_t n_field, size_t extra, uint64_t file_size) {
    (void)n_field;
    return (Head){8 + strlen(json) + extra, file_size};
}

/* As run.c's make: a well-formed file, header json, then data_size bytes of data. */
static Head make(const char *json, uint64_t data_size) {
    return make_raw(json, strlen(json), 0, 8 + strlen(json) + data_size);
}

static void show_header(const char *json) {
    size_t n = strlen(json);
    if (n <= 300)
        pt_note("JSON 头：%s", json);
    else
        pt_note("JSON 头（%zu 字节）开头：%.200s……", n, json);
}

static long long got_int(int k, const char *what) {
    char name[48];
    snprintf(name, sizeof name, "%d.%s", k, what);
    return pt_got_int(name);
}

static unsigned long long got_u64(int k, const char *what) {
    char name[48];
    snprintf(name, sizeof name, "%d.%s", k, what);
    return pt_got_u64(name);
}

/* Call k looked for tensor `name` in json: it is there, with these fields. */
static void expect_found(int k, const char *json, const char *name, const char *dtype, int ndim,
                         const int64_t *shape, uint64_t begin, uint64_t end) {
    long long r = got_int(k, "r");
    show_header(json);
    pt_note("要找的张量：%s", name);
    if (r != 0) pt_fail("st_find 应该返回 0（找到了），得到 %lld", r);
    char what[48], e_dtype[16 + 1];
    snprintf(what, sizeof what, "%d.dtype", k);
    const int *bytes = pt_got_ints(what, 16);
    for (int i = 0; i < 16; i++) e_dtype[i] = (char)bytes[i];
    e_dtype[16] = '\0';
    if (memchr(e_dtype, '\0', 16) == NULL) pt_fail("out->dtype 没有以 '\\0' 结尾");
    pt_expect_str("out->dtype", e_dtype, dtype);
    pt_expect_int("out->ndim", got_int(k, "ndim"), ndim);
    for (int i = 0; i < ndim; i++) {
        char field[16];
        snprintf(field, sizeof field, "shape%d", i);
        snprintf(what, sizeof what, "out->shape[%d]", i);
        pt_expect_int(what, got_int(k, field), shape[i]);
    }
    pt_expect_u64("out->begin", got_u64(k, "begin"), begin);
    pt_expect_u64("out->end", got_u64(k, "end"), end);
}

/* Call k looked for `name` in the head h of json: it returned want. */
static void expect_result(int k, Head h, const char *json, const char *name, int want, const char *why) {
    long long r = got_int(k, "r");
    if (r != want) {
        show_header(json);
        pt_note("head_len = %zu，file_size = %llu，要找：%s", h.len, (unsigned long long)h.file_size, name);
        pt_fail("%s：st_find 应该返回 %d，得到 %lld", why, want, r);
    }
}

/* ---- the cases -------------------------------------------------------------------- */

static void worked_example(void) {
    const char *json = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
    Head h = make_raw(json, 54, 8, 70);
    pt_expect_int("JSON 头的长度（测试自己的检查）", (long long)strlen(json), 54);
    expect_found(0, json, "a", "F32", 1, (const int64_t[]){2}, 0, 8);
    expect_result(1, h, json, "b", 1, "没有张量 b");
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
    expect_found(0, real_json, "model.language_model.embed_tokens.weight", "BF16", 2,
                 (const int64_t[]){248320, 1024}, 0, 508559360);
    expect_found(1, real_json, "model.language_model.layers.0.linear_attn.A_log", "F32", 1,
                 (const int64_t[]){16}, 508559360, 508559424);
    expect_found(2, real_json, "model.language_model.layers.0.linear_attn.norm.weight", "F32", 1,
                 (const int64_t[]){128}, 508559424, 508559936);
    expect_result(3, h, real_json, "model.language_model.lm_head.weight", 1, "这个 checkpoint 没有 lm_head");
}

static void offsets_past_4gb(void) {
    expect_found(0, real_json, "model.language_model.layers.0.mlp.gate_proj.weight", "BF16", 2,
                 (const int64_t[]){3584, 1024}, 2147483648ull, 2154823680ull);
    expect_found(1, real_json, "model.language_model.layers.23.mlp.down_proj.weight", "BF16", 2,
                 (const int64_t[]){1024, 3584}, 4294967296ull, 4302307328ull);
}

static void prefix_names(void) {
    const char *json = "{\"layers.1\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
                       "\"layers.1.w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[1,9]},"
                       "\"layers.1.w2\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[9,21]},"
                       "\"layers.10.w\":{\"dtype\":\"F16\",\"shape\":[4],\"data_offsets\":[21,29]}}";
    Head h = make(json, 29);
    expect_found(0, json, "layers.1.w", "F32", 1, (const int64_t[]){2}, 1, 9);
    expect_found(1, json, "layers.1", "U8", 1, (const int64_t[]){1}, 0, 1);
    expect_found(2, json, "layers.10.w", "F16", 1, (const int64_t[]){4}, 21, 29);
    expect_result(3, h, json, "layers.1.", 1, "layers.1. 只是别的名字的前缀");
    expect_result(4, h, json, "layers", 1, "layers 只是别的名字的前缀");
}

static void name_in_metadata(void) {
    const char *json = "{\"__metadata__\":{\"layers.2.w\":\"not a tensor\",\"note\":\"say \\\"layers.2.w\\\" "
                       "{\\\"dtype\\\":\\\"F64\\\"} \\\\\"},"
                       "\"layers.2.w\":{\"dtype\":\"I32\",\"shape\":[3],\"data_offsets\":[0,12]}}";
    Head h = make(json, 12);
    expect_found(0, json, "layers.2.w", "I32", 1, (const int64_t[]){3}, 0, 12);
    expect_result(1, h, json, "note", 1, "note 是 __metadata__ 里的键，不是张量");
    expect_result(2, h, json, "__metadata__", 1, "__metadata__ 不是张量");
}

static void layout_free(void) {
    const char *json = "\n{\n  \"__metadata__\" : { } ,\n"
                       "  \"b\" :\t{ \"data_offsets\" : [ 16 , 40 ] ,\r\n    \"shape\" : [ 2 , 3 ] ,\n"
                       "    \"dtype\" : \"F32\" } ,\n"
                       "  \"a\" : {\"shape\":[4],\"dtype\":\"BF16\",\"data_offsets\":[8,16]}\n}\n   ";
    expect_found(0, json, "b", "F32", 2, (const int64_t[]){2, 3}, 16, 40);
    expect_found(1, json, "a", "BF16", 1, (const int64_t[]){4}, 8, 16);
}

static void scalar_and_empty(void) {
    const char *json = "{\"s\":{\"dtype\":\"F64\",\"shape\":[],\"data_offsets\":[0,8]},"
                       "\"z\":{\"dtype\":\"BF16\",\"shape\":[0,1024],\"data_offsets\":[8,8]},"
                       "\"big\":{\"dtype\":\"I64\",\"shape\":[1,1,1,1,1,1,1,2],\"data_offsets\":[8,24]}}";
    expect_found(0, json, "s", "F64", 0, NULL, 0, 8);
    expect_found(1, json, "z", "BF16", 2, (const int64_t[]){0, 1024}, 8, 8);
    expect_found(2, json, "big", "I64", 8, (const int64_t[]){1, 1, 1, 1, 1, 1, 1, 2}, 8, 24);
    const char *empty = "{}";
    expect_result(3, make(empty, 0), empty, "s", 1, "空的头 {}：没有张量，但文件没坏");
    const char *only_meta = "{\"__metadata__\":{\"format\":\"pt\"}}";
    expect_result(4, make(only_meta, 0), only_meta, "format", 1, "只有 __metadata__");
}

static const char *ok_json = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";

static void malformed_length(void) {
    size_t n = strlen(ok_json);
    expect_result(0, (Head){5, 5}, "（只有 5 个字节）", "a", -1, "文件不到 8 个字节");
    expect_result(1, make_raw(ok_json, n, 8, 7), ok_json, "a", -1, "file_size 比 8 还小");
    expect_result(2, make_raw(ok_json, n + 1, 0, 8 + n + 8), ok_json, "a", -1,
                  "N 比手里的字节多 1：头不完整");
    expect_result(3, make_raw(ok_json, n, 8, 8 + n - 1), ok_json, "a", -1, "file_size 装不下 8 + N");
    expect_result(4, make_raw(ok_json, n | (1ull << 56), 8, 8 + n + 8), ok_json, "a", -1,
                  "N 的最高字节不是 0（N 是 8 个字节，不是 4 个）");
    expect_result(5, make_raw(ok_json, n | (1ull << 32), 8, 8 + n + 8), ok_json, "a", -1,
                  "N 的第 5 个字节不是 0（N 是 8 个字节，不是 4 个）");
    expect_result(6, make_raw(ok_json, UINT64_MAX, 8, 8 + n + 8), ok_json, "a", -1,
                  "N = 2^64 − 1：8 + N 溢出");
    expect_result(7, make_raw(ok_json, n - 1, 9, 8 + n + 8), ok_json, "a", -1,
                  "N 少了 1：头被截掉了最后的 }");
}

static void malformed_json(void) {
    static const struct {
        const char *json, *why;
    } bad[] = {
        {"[]", "顶层不是对象"},
        {"", "头是空的"},
        {"   ", "头只有空格"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}", "少了最后的 }"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}} x", "} 之后还有别的东西"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}}", "多了一个 }"},
        {"{\"a\":{\"dtype\":\"F32,\"shape\":[2],\"data_offsets\":[0,8]}}", "引号不配对"},
        {"{\"a", "字符串没有结束"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},}", "结尾多了一个逗号"},
        {"{\"a\" {\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", "键后面没有冒号"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2]}}", "缺 data_offsets"},
        {"{\"a\":{\"shape\":[2],\"data_offsets\":[0,8]}}", "缺 dtype"},
        {"{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,8]}}", "缺 shape"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"extra\":1}}", "多了一个键"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0]}}", "data_offsets 只有一个数"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8,8]}}", "data_offsets 有三个数"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2,],\"data_offsets\":[0,8]}}", "shape 里多了逗号"},
        {"{\"__metadata__\":{\"n\":1},\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
         "__metadata__ 的值不是字符串"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
         "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]",
         "后面那一项被截断了（要找的 a 本身没问题）"},
    };
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++)
        expect_result(i, make(bad[i].json, 8), bad[i].json, "a", -1, bad[i].why);
}

static void malformed_values(void) {
    static const struct {
        const char *json, *why;
    } bad[] = {
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}", "end 比 begin 小"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}",
         "end 超出了数据段（只有 8 个字节）"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", "3 个 F32 要 12 个字节，不是 8"},
        {"{\"a\":{\"dtype\":\"F7\",\"shape\":[2],\"data_offsets\":[0,8]}}", "不认识的 dtype"},
        {"{\"a\":{\"dtype\":\"\",\"shape\":[2],\"data_offsets\":[0,8]}}", "空的 dtype"},
        {"{\"a\":{\"dtype\":\"BFLOAT16_BUT_MUCH_LONGER\",\"shape\":[2],\"data_offsets\":[0,8]}}",
         "dtype 太长"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", "负数的维度"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2.0],\"data_offsets\":[0,8]}}", "维度不是整数"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[\"2\"],\"data_offsets\":[0,8]}}", "维度是字符串"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,2],\"data_offsets\":[0,8]}}",
         "9 个维度（最多 8 个）"},
        {"{\"a\":{\"dtype\":\"BF16\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,0]}}",
         "2^32 × 2^32 × 2 个字节：乘法溢出（溢出后恰好是 0）"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,99999999999999999999]}}",
         "数字装不进 64 位"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
         "\"b\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}",
         "另一项 b 的字节数对不上（要找的 a 本身没问题）"},
    };
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++)
        expect_result(i, make(bad[i].json, 8), bad[i].json, "a", -1, bad[i].why);
}

PT_CHECKER({"worked_example", "题目里的例子：一个 F32 张量 a", worked_example},
           {"real_layout", "真实 checkpoint 的头：BF16 和 F32、补齐的空格", real_layout},
           {"offsets_past_4gb", "超过 2^31 和 2^32 的偏移", offsets_past_4gb},
           {"prefix_names", "名字互为前缀：layers.1.w、layers.10.w", prefix_names},
           {"name_in_metadata", "__metadata__ 里出现张量名和转义的引号", name_in_metadata},
           {"layout_free", "换行、缩进、任意的键顺序", layout_free},
           {"scalar_and_empty", "标量、空张量、8 维、空的头", scalar_and_empty},
           {"malformed_length", "坏文件：长度字段（8 个小端字节）", malformed_length},
           {"malformed_json", "坏文件：JSON 不完整或不对", malformed_json},
           {"malformed_values", "坏文件：偏移、字节数、dtype、形状", malformed_values})
