/* textstream.h — printing generated tokens as text, as they come.
 *
 * A token is bytes, and a character can end in the next token: 天 is 3 bytes in
 * UTF-8, and a byte-level token may hold 2 of them. So the bytes wait here until
 * they form whole characters; half a character is never printed. Bytes that can
 * never be part of a character are printed as U+FFFD, as Hugging Face's decode
 * shows them; so is an id that is no token of the tokenizer (the padded rows of the
 * embedding table). Without a tokenizer the ids themselves are printed.
 *
 *     TextStream out = {.tok = &tok, .to = stdout};
 *     for each generated id:  text_stream_token(&out, id);
 *     text_stream_end(&out);   // what is still waiting, as U+FFFD
 *
 * For ids that are tokens, what comes out is what tok_decode gives for all of them
 * at once.
 */
#ifndef TEXTSTREAM_H
#define TEXTSTREAM_H

#include <stdio.h>

#include "qwen/tokenizer.h"

typedef struct {
    const Tokenizer *tok; /* NULL: print the ids */
    FILE *to;
    unsigned char held[4]; /* the start of a character, waiting for its other bytes */
    int n_held;
} TextStream;

/* Prints what the token completes (flushing the stream). */
void text_stream_token(TextStream *s, int id);
/* The end of the text: a character still waiting for its bytes is printed as U+FFFD. */
void text_stream_end(TextStream *s);

#endif
