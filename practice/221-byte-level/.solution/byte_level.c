/* 221. 字节级预分词 —— 参考答案 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "byte_level.h"

/* Bytes that are visible, non-blank characters keep their own code point. */
static bool looks_fine(unsigned b) {
    return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
}

uint32_t byte_to_symbol(uint8_t b) {
    if (looks_fine(b)) return b;
    uint32_t k = 0; /* how many bytes below b do not look fine */
    for (unsigned c = 0; c < b; c++) k += !looks_fine(c);
    return 0x100 + k;
}

int symbol_to_byte(uint32_t cp) {
    for (unsigned b = 0; b < 256; b++)
        if (byte_to_symbol((uint8_t)b) == cp) return (int)b;
    return -1;
}

size_t bytes_to_symbols(const uint8_t *in, size_t n, char *out) {
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t cp = byte_to_symbol(in[i]); /* < 0x800: one or two bytes of UTF-8 */
        if (cp < 0x80)
            out[len++] = (char)cp;
        else {
            out[len++] = (char)(0xC0 | (cp >> 6));
            out[len++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    out[len] = '\0';
    return len;
}
