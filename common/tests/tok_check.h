/* tok_check.h — what must hold for any encoding, for the tokenizer's tests and fuzzers.
 *
 * Whatever the file's regex and merges do, encoding loses nothing and invents
 * nothing: the pieces cover the text, every byte becomes its byte-level
 * character, merges only join. So decode(encode(text)) is the text again, up
 * to the normalizer:
 *
 *   - no normalizer: exactly the text;
 *   - NFC, and no added token in the text: exactly NFC(text);
 *   - NFC with added tokens: each stretch between them is normalized on its
 *     own (as Hugging Face does), so the result is canonically equivalent to
 *     the text (the same after NFC), and the text itself when it was in NFC.
 *     ("<think>" + U+0338 stays so, while NFC of the whole would turn ">" +
 *     U+0338 into "≯".)
 *
 * Also: every id is a token of the file.
 */
#ifndef TOK_CHECK_H
#define TOK_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "qwen/tokenizer.h"

/* NFC of s[0..len) (U+0000 included), newly allocated; *out_len receives its length. */
char *tok_check_nfc(const char *s, size_t len, size_t *out_len);

/* True when some added token's content occurs in s[0..len). */
bool tok_check_has_added(const Tokenizer *tok, const char *s, size_t len);

/* True when every added token decodes to its own content (false e.g. for an
 * added token "Ġx", whose byte-level decoding is " x"; the round trip then
 * does not hold for text containing it, in Hugging Face's tokenizer either). */
bool tok_check_added_decode_to_themselves(const Tokenizer *tok);

/* Checks the ids of text[0..len) as above; on failure returns false with the
 * reason in why. */
bool tok_check_round_trip(const Tokenizer *tok, const char *text, size_t len, const TokenIds *ids, char *why,
                          size_t why_size);

#endif
