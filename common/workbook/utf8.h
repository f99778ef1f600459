/* utf8.h — UTF-8 by hand: the few things the tokenizer, the JSON reader and the text
 * stream need, written once.
 *
 * A character of UTF-8 is 1 to 4 bytes: 0xxxxxxx, 110xxxxx 10xxxxxx, 1110xxxx
 * 10xxxxxx 10xxxxxx, 11110xxx 10xxxxxx 10xxxxxx 10xxxxxx. Well-formed means the
 * shortest form (no overlong encodings), no surrogates (U+D800..DFFF) and nothing
 * past U+10FFFF.
 */
#ifndef UTF8_H
#define UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The character at s[0..n): its length in bytes, or 0 when s does not start with a
 * whole, well-formed character; *valid_prefix then receives how many bytes form the
 * longest start of one (the part one U+FFFD replaces, as Rust's from_utf8_lossy and
 * so Hugging Face's decode do). n ≥ 1. */
int utf8_char(const unsigned char *s, size_t n, int *valid_prefix);

/* True when s[0..len) is well-formed UTF-8; otherwise *bad_offset (may be NULL)
 * receives the offset of the first bad byte. */
bool utf8_check(const char *s, size_t len, size_t *bad_offset);

/* The code point of the well-formed character at s; *len receives its byte count. */
uint32_t utf8_decode(const unsigned char *s, int *len);

/* Writes code point c (at most U+10FFFF, no surrogate) to out as UTF-8 (1 to 4
 * bytes); returns the count. */
int utf8_encode(uint32_t c, char *out);

#endif
