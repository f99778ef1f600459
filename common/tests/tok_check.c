/* tok_check.c — the round trip every encoding must pass (see tok_check.h). */
#include "tok_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

char *tok_check_nfc(const char *s, size_t len, size_t *out_len) {
    if (len == 0) {
        *out_len = 0;
        return xstrdup("");
    }
    utf8proc_uint8_t *out = NULL;
    utf8proc_ssize_t n = utf8proc_map((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len, &out,
                                      UTF8PROC_STABLE | UTF8PROC_COMPOSE);
    if (n < 0) die("NFC of valid UTF-8 failed: %s", utf8proc_errmsg(n));
    *out_len = (size_t)n;
    return (char *)out;
}

bool tok_check_has_added(const Tokenizer *tok, const char *s, size_t len) {
    for (int i = 0; i < tok->n_added; i++)
        if (memmem(s, len, tok->added[i].content, (size_t)tok->added[i].len)) return true;
    return false;
}

bool tok_check_added_decode_to_themselves(const Tokenizer *tok) {
    for (int i = 0; i < tok->n_added; i++) {
        const AddedToken *a = &tok->added[i];
        unsigned char *buf = xmalloc((size_t)a->len);
        int n = tok_token_bytes(tok, a->id, buf, a->len);
        bool same = n == a->len && memcmp(buf, a->content, (size_t)n) == 0;
        free(buf);
        if (!same) return false;
    }
    return true;
}

bool tok_check_round_trip(const Tokenizer *tok, const char *text, size_t len, const TokenIds *ids, char *why,
                          size_t why_size) {
    for (int i = 0; i < ids->n; i++)
        if (!tok_token(tok, ids->ids[i])) {
            snprintf(why, why_size, "id %d (at %d) is no token", ids->ids[i], i);
            return false;
        }
    Error err;
    size_t back_len;
    char *back = tok_decode(tok, ids->ids, ids->n, &back_len, &err);
    if (!back) {
        snprintf(why, why_size, "decode failed: %s", err.msg);
        return false;
    }
    bool ok;
    if (!tok->nfc) {
        ok = back_len == len && memcmp(back, text, len) == 0;
        if (!ok) snprintf(why, why_size, "decode(encode(text)) is not the text (no normalizer)");
    } else {
        size_t nfc_len;
        char *nfc = tok_check_nfc(text, len, &nfc_len);
        if (!tok_check_has_added(tok, text, len) && !tok_check_has_added(tok, nfc, nfc_len)) {
            ok = back_len == nfc_len && memcmp(back, nfc, nfc_len) == 0;
            if (!ok) snprintf(why, why_size, "decode(encode(text)) is not NFC(text)");
        } else {
            size_t back_nfc_len;
            char *back_nfc = tok_check_nfc(back, back_len, &back_nfc_len);
            ok = back_nfc_len == nfc_len && memcmp(back_nfc, nfc, nfc_len) == 0;
            if (!ok)
                snprintf(why, why_size, "decode(encode(text)) is not canonically equivalent to the text");
            bool text_is_nfc = nfc_len == len && memcmp(nfc, text, len) == 0;
            if (ok && text_is_nfc && (back_len != len || memcmp(back, text, len) != 0)) {
                ok = false;
                snprintf(why, why_size, "text in NFC, but decode(encode(text)) differs from it");
            }
            free(back_nfc);
        }
        free(nfc);
    }
    free(back);
    return ok;
}
