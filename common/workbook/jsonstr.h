/* jsonstr.h — JSON text read strictly: one string literal decoded with its length,
 * and a whole document parsed with nothing after it.
 *
 * `--encode-jsonl` reads one JSON string per line ("今天\n天气", "a\u0000b"). cJSON
 * hands its strings out NUL-terminated, so "a\u0000b" would come back as "a"
 * and the text would be silently cut short. U+0000 is a character like any
 * other for the tokenizer, so the line is decoded here instead, into bytes and
 * a length.
 *
 * The grammar is RFC 8259's string: a quote, then characters and escapes
 * (\" \\ \/ \b \f \n \r \t \uXXXX, a surrogate pair \uD83D\uDE00 for one
 * character past U+FFFF), then a quote; whitespace (space, tab, CR, LF) may
 * surround it. A raw control character (below U+0020) must be escaped, and a
 * lone surrogate is refused, since it has no UTF-8 form. Bytes of 0x80 and up
 * are copied as they are: whether they are UTF-8 is for the caller to check
 * (the tokenizer says where the first bad byte is).
 */
#ifndef JSONSTR_H
#define JSONSTR_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* Decodes the JSON string literal text[0..len) (surrounding whitespace
 * allowed) into a newly allocated buffer, NUL-terminated for convenience;
 * *out_len receives its length in bytes, which counts any U+0000 inside. On
 * failure returns false with what is wrong, and where, in err (without a file
 * name: the caller knows the line). */
bool json_string_decode(const char *text, size_t len, char **out, size_t *out_len, Error *err);

/* Parses the whole JSON document text[0..len) read from the file `name` (config.json,
 * an index, tokenizer.json): one value with only whitespace after it. Refused with
 * one line in err that gives the line: invalid JSON, anything after the value, a NUL
 * byte, and the escape \u0000 (cJSON's strings end at a NUL, so "a\u0000b" would
 * quietly become "a", and a key or a name another one). Free it with cJSON_Delete. */
struct cJSON *json_parse_document(const char *text, size_t len, const char *name, Error *err);

#endif
