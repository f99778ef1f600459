/* Exercise 221 (byte-level mapping), the checker: what each case's outputs should be.
 * Expected values: by hand (the worked example) and from a Python version written
 * from the rule (expected.h). The inputs are in run.c and inputs.h. */
#include <string.h>

#include "ptest_check.h"

#include "expected.h"

/* The out buffer of n input bytes (2·n + 1 bytes), with a '\0' after it. */
static char *got_out(size_t n) {
    const int *bytes = pt_got_ints("out", 2 * n + 1);
    char *out = pt_bytes(2 * n + 2);
    for (size_t i = 0; i < 2 * n + 1; i++) out[i] = (char)bytes[i];
    out[2 * n + 1] = '\0';
    return out;
}

/* bytes_to_symbols of n bytes: the length it returned and what it wrote. */
static void expect_text(size_t n, const char *want, size_t want_len) {
    unsigned long long len = pt_got_u64("len");
    char *out = got_out(n);
    pt_expect_u64("返回的长度", len, want_len);
    if (out[len] != '\0') pt_fail("out[%llu] 应该是 '\\0'", len); /* len = want_len ≤ 2·n */
    pt_expect_str("out", out, want);
}

static void worked_example(void) {
    const uint32_t want[7] = {0x120, 0xE4, 0xBD, 0x142, 0xE5, 0xA5, 0xBD};
    const uint32_t *got = pt_got_u32s("symbols", 7);
    pt_note("\" 你好\" 的 7 个字节 20 E4 BD A0 E5 A5 BD");
    pt_expect_u32s("byte_to_symbol", got, want, 7);
    expect_text(7, "\xC4\xA0\xC3\xA4\xC2\xBD\xC5\x82\xC3\xA5\xC2\xA5\xC2\xBD", 14);
}

static void all_bytes(void) {
    const uint32_t *got = pt_got_u32s("symbols", 256);
    pt_note("字节 0x00 到 0xFF；下标就是字节");
    pt_expect_u32s("byte_to_symbol", got, symbol_of, 256);
}

static void inverse(void) {
    const int *back = pt_got_ints("back", 256); /* symbol_to_byte(symbol_of[b]) */
    for (int b = 0; b < 256; b++)
        if (back[b] != b) pt_fail("symbol_to_byte(U+%04X) 应该是 0x%02X，得到 %d", symbol_of[b], b, back[b]);
    const uint32_t none[] = {0x20, 0x0A, 0x00, 0x7F, 0xA0, 0xAD, 0x144, 0x4F60, 0x110000, 0xFFFFFFFFu};
    const size_t n_none = sizeof none / sizeof none[0];
    const int *none_back = pt_got_ints("none_back", n_none); /* as run.c asks them */
    for (size_t i = 0; i < n_none; i++)
        if (none_back[i] != -1)
            pt_fail("U+%04X 不是任何字节的字符，symbol_to_byte 应该返回 −1，得到 %d", none[i], none_back[i]);
}

static void utf8_all_bytes(void) {
    pt_note("256 个字节 0x00、0x01、……、0xFF 连在一起");
    expect_text(256, all_bytes_utf8, strlen(all_bytes_utf8));
}

static void empty(void) {
    unsigned long long len = pt_got_u64("len");
    char *out = got_out(0);
    pt_expect_u64("空输入返回的长度", len, 0);
    pt_expect_str("out", out, "");
}

static void real_text(void) {
    pt_note("\"Hello, 世界!\\n\\tok \" 的 UTF-8 字节");
    expect_text(sizeof real_text_bytes, real_text_utf8, strlen(real_text_utf8));
}

PT_CHECKER({"worked_example", "题目里的例子：\" 你好\" → Ġä½łå¥½", worked_example},
           {"all_bytes", "全部 256 个字节的对应", all_bytes},
           {"inverse", "反方向，和不对应任何字节的码点", inverse},
           {"utf8_all_bytes", "256 个字节连在一起的 UTF-8", utf8_all_bytes}, {"empty", "空输入", empty},
           {"real_text", "中英文混排、换行和制表符", real_text})
