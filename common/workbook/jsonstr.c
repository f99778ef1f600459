/* jsonstr.c — JSON text read strictly (see jsonstr.h). */
#include "jsonstr.h"

#include <cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

static bool is_json_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* The value of the 4 hex digits at s, or -1. */
static long hex4(const char *s) {
    long v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

bool json_string_decode(const char *text, size_t len, char **out, size_t *out_len, Error *err) {
    size_t i = 0;
    while (i < len && is_json_space(text[i])) i++;
    if (i == len) return error_set(err, "the line is empty");
    if (text[i] != '"') return error_set(err, "it does not start with a quote");
    i++;
    /* Every escape is at least as long as what it stands for: len bytes are enough. */
    char *s = xmalloc(len + 1);
    size_t n = 0;
    for (;;) {
        if (i == len) {
            free(s);
            return error_set(err, "no closing quote");
        }
        unsigned char c = (unsigned char)text[i];
        if (c == '"') break;
        if (c < 0x20) {
            free(s);
            return error_set(
                err, "a raw control character 0x%02X at byte %zu, which JSON writes as an escape", c, i);
        }
        if (c != '\\') {
            s[n++] = (char)c;
            i++;
            continue;
        }
        size_t at = i; /* the backslash, for messages */
        if (i + 1 == len) {
            free(s);
            return error_set(err, "a backslash at the end, with nothing to escape");
        }
        char e = text[i + 1];
        i += 2;
        switch (e) {
        case '"':
            s[n++] = '"';
            continue;
        case '\\':
            s[n++] = '\\';
            continue;
        case '/':
            s[n++] = '/';
            continue;
        case 'b':
            s[n++] = '\b';
            continue;
        case 'f':
            s[n++] = '\f';
            continue;
        case 'n':
            s[n++] = '\n';
            continue;
        case 'r':
            s[n++] = '\r';
            continue;
        case 't':
            s[n++] = '\t';
            continue;
        case 'u':
            break;
        default:
            free(s);
            return error_set(err, "an unknown escape at byte %zu", at);
        }
        long u = len - i >= 4 ? hex4(text + i) : -1;
        if (u < 0) {
            free(s);
            return error_set(err, "\\u at byte %zu is not followed by 4 hex digits", at);
        }
        i += 4;
        uint32_t cp = (uint32_t)u;
        if (cp >= 0xDC00 && cp <= 0xDFFF) {
            free(s);
            return error_set(err, "\\u%04lX at byte %zu is the second half of a surrogate pair, alone", u,
                             at);
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) { /* the first half: the second must follow */
            long low = len - i >= 6 && text[i] == '\\' && text[i + 1] == 'u' ? hex4(text + i + 2) : -1;
            if (low < 0xDC00 || low > 0xDFFF) {
                free(s);
                return error_set(err, "\\u%04lX at byte %zu is the first half of a surrogate pair, alone", u,
                                 at);
            }
            i += 6;
            cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32_t)low - 0xDC00);
        }
        n += (size_t)utf8_encode(cp, s + n);
    }
    i++; /* the closing quote */
    while (i < len && is_json_space(text[i])) i++;
    if (i < len) {
        free(s);
        return error_set(err, "more after the closing quote, at byte %zu", i);
    }
    s[n] = '\0';
    *out = s;
    *out_len = n;
    return true;
}

/* The line of text[at]: 1 + the newlines before it. */
static int line_of(const char *text, size_t at) {
    int line = 1;
    for (size_t i = 0; i < at; i++) line += text[i] == '\n';
    return line;
}

/* The offset of the first raw NUL byte or \u0000 escape, or len. (A backslash in
 * JSON text only occurs in strings, and escapes the character after it, so "\\u0000"
 * is a backslash followed by "u0000".) */
static size_t first_nul(const char *text, size_t len) {
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\0' || (text[i] == '\\' && len - i >= 6 && memcmp(text + i + 1, "u0000", 5) == 0))
            return i;
        if (text[i] == '\\') i++;
    }
    return len;
}

cJSON *json_parse_document(const char *text, size_t len, const char *name, Error *err) {
    size_t nul = first_nul(text, len);
    if (nul < len) {
        error_set(
            err, "%s: line %d: %s", name, line_of(text, nul),
            text[nul]
                ? "a string holds \\u0000 (U+0000), which is not supported (it would cut the string short)"
                : "a NUL byte, which JSON does not allow");
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
    if (!root) {
        error_set(err, "%s: not valid JSON (line %d, byte %zu)", name, line_of(text, at), at);
        return NULL;
    }
    while (at < len && is_json_space(text[at])) at++;
    if (at < len) {
        error_set(err, "%s: line %d: more after the JSON value ends (byte %zu)", name, line_of(text, at), at);
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}
