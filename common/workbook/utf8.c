/* utf8.c — UTF-8 by hand: checking, cutting, decoding and encoding (see utf8.h). */
#include "utf8.h"

/* Length of the well-formed UTF-8 sequence starting at s[0] (at most n bytes
 * available), or 0 when s does not start one. The ranges are those of the
 * Unicode standard's table of well-formed byte sequences: the second byte's
 * range depends on the first so that overlong forms, surrogates (ED A0..BF)
 * and values past U+10FFFF (F4 90.., F5..FF) are all rejected. */
int utf8_char(const unsigned char *s, size_t n, int *valid_prefix) {
    unsigned char b = s[0];
    int len;
    unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (b < 0x80) {
        *valid_prefix = 1;
        return 1;
    }
    if (b >= 0xC2 && b <= 0xDF)
        len = 2;
    else if (b == 0xE0)
        len = 3, lo = 0xA0;
    else if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF)
        len = 3;
    else if (b == 0xED)
        len = 3, hi = 0x9F;
    else if (b == 0xF0)
        len = 4, lo = 0x90;
    else if (b >= 0xF1 && b <= 0xF3)
        len = 4;
    else if (b == 0xF4)
        len = 4, hi = 0x8F;
    else { /* 80..C1, F5..FF never start a character */
        *valid_prefix = 1;
        return 0;
    }
    int k = 1;
    if (n > 1 && s[1] >= lo && s[1] <= hi) {
        k = 2;
        while (k < len && (size_t)k < n && s[k] >= 0x80 && s[k] <= 0xBF) k++;
    }
    *valid_prefix = k; /* the "maximal subpart" that one U+FFFD replaces */
    return k == len ? len : 0;
}

bool utf8_check(const char *s, size_t len, size_t *bad_offset) {
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        int prefix, k = utf8_char(u + i, len - i, &prefix);
        if (k == 0) {
            if (bad_offset) *bad_offset = i;
            return false;
        }
        i += (size_t)k;
    }
    return true;
}

/* Decodes one character of well-formed UTF-8; *len receives its byte count. */
uint32_t utf8_decode(const unsigned char *s, int *len) {
    if (s[0] < 0x80) {
        *len = 1;
        return s[0];
    }
    if (s[0] < 0xE0) {
        *len = 2;
        return (uint32_t)(s[0] & 0x1F) << 6 | (s[1] & 0x3F);
    }
    if (s[0] < 0xF0) {
        *len = 3;
        return (uint32_t)(s[0] & 0x0F) << 12 | (uint32_t)(s[1] & 0x3F) << 6 | (s[2] & 0x3F);
    }
    *len = 4;
    return (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3F) << 12 | (uint32_t)(s[2] & 0x3F) << 6 |
           (s[3] & 0x3F);
}

int utf8_encode(uint32_t c, char *out) {
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | c >> 6);
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | c >> 12);
        out[1] = (char)(0x80 | (c >> 6 & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | c >> 18);
    out[1] = (char)(0x80 | (c >> 12 & 0x3F));
    out[2] = (char)(0x80 | (c >> 6 & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}
