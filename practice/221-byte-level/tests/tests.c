/* Tests of exercise 221 (byte-level mapping). Expected values: by hand (the worked
 * example) and from a Python version written from the rule (expected.h). */
#include <string.h>

#include "ptest.h"
#include "byte_level.h"

#include "expected.h"

static void expect_text(const uint8_t *in, size_t n, const char *want, size_t want_len) {
    char *out = pt_bytes(2 * n + 1);
    size_t len = bytes_to_symbols(in, n, out);
    pt_expect_u64("返回的长度", len, want_len);
    if (out[len] != '\0') pt_fail("out[%zu] 应该是 '\\0'", len);
    pt_expect_str("out", out, want);
}

static void worked_example(void) {
    const uint8_t in[7] = {0x20, 0xE4, 0xBD, 0xA0, 0xE5, 0xA5, 0xBD};
    const uint32_t want[7] = {0x120, 0xE4, 0xBD, 0x142, 0xE5, 0xA5, 0xBD};
    uint32_t got[7];
    for (int i = 0; i < 7; i++) got[i] = byte_to_symbol(in[i]);
    pt_note("\" 你好\" 的 7 个字节 20 E4 BD A0 E5 A5 BD");
    pt_expect_u32s("byte_to_symbol", got, want, 7);
    expect_text(in, 7, "\xC4\xA0\xC3\xA4\xC2\xBD\xC5\x82\xC3\xA5\xC2\xA5\xC2\xBD", 14);
}

static void all_bytes(void) {
    uint32_t *got = pt_dup(symbol_of, sizeof symbol_of);
    for (int b = 0; b < 256; b++) got[b] = byte_to_symbol((uint8_t)b);
    pt_note("字节 0x00 到 0xFF；下标就是字节");
    pt_expect_u32s("byte_to_symbol", got, symbol_of, 256);
}

static void inverse(void) {
    for (int b = 0; b < 256; b++) {
        int back = symbol_to_byte(symbol_of[b]);
        if (back != b) pt_fail("symbol_to_byte(U+%04X) 应该是 0x%02X，得到 %d", symbol_of[b], b, back);
    }
    const uint32_t none[] = {0x20, 0x0A, 0x00, 0x7F, 0xA0, 0xAD, 0x144, 0x4F60, 0x110000, 0xFFFFFFFFu};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        int back = symbol_to_byte(none[i]);
        if (back != -1)
            pt_fail("U+%04X 不是任何字节的字符，symbol_to_byte 应该返回 −1，得到 %d", none[i], back);
    }
}

static void utf8_all_bytes(void) {
    uint8_t in[256];
    for (int b = 0; b < 256; b++) in[b] = (uint8_t)b;
    pt_note("256 个字节 0x00、0x01、……、0xFF 连在一起");
    expect_text(in, 256, all_bytes_utf8, strlen(all_bytes_utf8));
}

static void empty(void) {
    char *out = pt_bytes(1);
    size_t len = bytes_to_symbols((const uint8_t *)"", 0, out);
    pt_expect_u64("空输入返回的长度", len, 0);
    pt_expect_str("out", out, "");
}

static void real_text(void) {
    pt_note("\"Hello, 世界!\\n\\tok \" 的 UTF-8 字节");
    expect_text(real_text_bytes, sizeof real_text_bytes, real_text_utf8, strlen(real_text_utf8));
}

PT_MAIN({"worked_example", "题目里的例子：\" 你好\" → Ġä½łå¥½", worked_example},
        {"all_bytes", "全部 256 个字节的对应", all_bytes},
        {"inverse", "反方向，和不对应任何字节的码点", inverse},
        {"utf8_all_bytes", "256 个字节连在一起的 UTF-8", utf8_all_bytes}, {"empty", "空输入", empty},
        {"real_text", "中英文混排、换行和制表符", real_text})
