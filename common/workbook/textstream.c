/* textstream.c — printing generated tokens as text, whole characters only (see textstream.h). */
#include "textstream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char REPLACEMENT[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* Prints what of held[0..n_held) is whole characters, or can never become one
 * (one U+FFFD per ill-formed part, as tok_decode); keeps the start of a character
 * that the next token may finish, unless this is the end. */
static void flush_whole(TextStream *s, bool final) {
    int i = 0;
    while (i < s->n_held) {
        int prefix, k = utf8_char(s->held + i, (size_t)(s->n_held - i), &prefix);
        if (k > 0) {
            if (s->escape)
                write_escaped(s->to, (const char *)s->held + i, (size_t)k);
            else
                fwrite(s->held + i, 1, (size_t)k, s->to);
            i += k;
        } else if (prefix == s->n_held - i && !final) {
            break; /* a character begun: its other bytes may come with the next token */
        } else {
            fputs(REPLACEMENT, s->to);
            i += prefix;
        }
    }
    memmove(s->held, s->held + i, (size_t)(s->n_held - i));
    s->n_held -= i;
}

/* Flushes the stream; false once a write has failed, with its errno kept. */
static bool sent(TextStream *s) {
    if ((fflush(s->to) != 0 || ferror(s->to)) && !s->error) s->error = errno ? errno : EIO;
    return s->error == 0;
}

bool text_stream_token(TextStream *s, int id) {
    errno = 0;
    if (!s->tok) { /* no tokenizer: the ids */
        fprintf(s->to, " %d", id);
        return sent(s);
    }
    const char *token = tok_token(s->tok, id);
    if (!token) { /* no token of this tokenizer */
        flush_whole(s, true);
        fputs(REPLACEMENT, s->to);
        return sent(s);
    }
    size_t need = strlen(token); /* tok_token_bytes writes at most this many */
    unsigned char small[256], *bytes = need <= sizeof small ? small : xmalloc(need);
    int n = tok_token_bytes(s->tok, id, bytes, (int)need);
    for (int i = 0; i < n; i++) {
        s->held[s->n_held++] = bytes[i];
        if (s->n_held == (int)sizeof s->held || i == n - 1) flush_whole(s, false);
    }
    if (bytes != small) free(bytes);
    return sent(s);
}

bool text_stream_end(TextStream *s) {
    errno = 0;
    flush_whole(s, true);
    return sent(s);
}
