/* byte_level.h — exercise 221: the byte-level pre-tokenizer's byte ↔ character mapping (problem.md). */
#ifndef BYTE_LEVEL_H
#define BYTE_LEVEL_H

#include <stddef.h>
#include <stdint.h>

uint32_t byte_to_symbol(uint8_t b); /* the code point standing for byte b */
int symbol_to_byte(uint32_t cp);    /* the byte cp stands for, or −1 */
/* The characters of n bytes as UTF-8 in out (room for 2·n + 1), '\0'-terminated;
 * returns the bytes written, without the '\0'. */
size_t bytes_to_symbols(const uint8_t *in, size_t n, char *out);

#endif
