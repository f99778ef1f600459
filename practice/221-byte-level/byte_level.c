/* 221. 字节级预分词 —— 题目见 problem.md，评测：./practice/judge test 221 */
#include <stddef.h>
#include <stdint.h>

#include "byte_level.h"

uint32_t byte_to_symbol(uint8_t b) {
    /* TODO: "好看"的字节返回自己；其余的按字节顺序依次是 0x100、0x101、…… */
    return 0;
}

int symbol_to_byte(uint32_t cp) {
    /* TODO: 找出哪个字节对应 cp；没有就返回 −1 */
    return -1;
}

size_t bytes_to_symbols(const uint8_t *in, size_t n, char *out) {
    /* TODO: 每个字节换成它的码点，写成一个或两个字节的 UTF-8，最后写 '\0' */
    return 0;
}
