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
 * at once — unless escape is set (ch07_model sets it when stdout is a terminal):
 * then control characters other than '\n' and '\t' come out escaped (ESC as \x1b,
 * util.h's write_escaped), so generated text can never drive the terminal.
 *
 * A write that fails (a closed pipe, a full disk) is reported by the call that made
 * it, so a generator stops at once instead of running to the end for nobody.
 */
#ifndef TEXTSTREAM_H
#define TEXTSTREAM_H

#include <stdbool.h>
#include <stdio.h>

#include "qwen/tokenizer.h"

typedef struct {
    const Tokenizer *tok; /* NULL: print the ids */
    FILE *to;
    bool escape;           /* control characters escaped (for a terminal) */
    unsigned char held[4]; /* the start of a character, waiting for its other bytes */
    int n_held;
    int error; /* errno of the first failed write; 0 while every write went out */
} TextStream;

/* Prints what the token completes (flushing the stream). False once a write to the
 * stream has failed (s->error says why). */
bool text_stream_token(TextStream *s, int id);
/* The end of the text: a character still waiting for its bytes is printed as U+FFFD. */
bool text_stream_end(TextStream *s);

#endif
