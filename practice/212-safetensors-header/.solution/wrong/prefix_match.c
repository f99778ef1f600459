/* 典型错误：名字只比较了前缀（strncmp）。
 * fails: prefix_names */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "st_header.h"

typedef struct {
    const uint8_t *p, *end;
} Cursor;

static void skip_space(Cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

/* The next token is the character ch: consume it. */
static bool take(Cursor *c, char ch) {
    skip_space(c);
    if (c->p < c->end && *c->p == (uint8_t)ch) {
        c->p++;
        return true;
    }
    return false;
}

/* A string; *s, *len are its raw bytes between the quotes (escapes left as written,
 * but a \" never ends the string). */
static bool string(Cursor *c, const uint8_t **s, size_t *len) {
    skip_space(c);
    if (c->p >= c->end || *c->p != '"') return false;
    *s = ++c->p;
    while (c->p < c->end && *c->p != '"') {
        if (*c->p < 0x20) return false; /* control characters must be escaped */
        if (*c->p == '\\' && ++c->p >= c->end) return false;
        c->p++;
    }
    if (c->p >= c->end) return false;
    *len = (size_t)(c->p - *s);
    c->p++;
    return true;
}

static bool same(const uint8_t *s, size_t len, const char *text) {
    return len >= strlen(text) && !memcmp(s, text, strlen(text));
}

/* A non-negative integer that fits in int64. */
static bool integer(Cursor *c, uint64_t *v) {
    skip_space(c);
    if (c->p >= c->end || *c->p < '0' || *c->p > '9') return false;
    uint64_t x = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        unsigned d = *c->p++ - '0';
        if (x > ((uint64_t)INT64_MAX - d) / 10) return false;
        x = x * 10 + d;
    }
    *v = x;
    return true;
}

/* [a, b, ...] with at most max integers. */
static bool integers(Cursor *c, uint64_t *v, int max, int *n) {
    *n = 0;
    if (!take(c, '[')) return false;
    if (take(c, ']')) return true;
    do {
        if (*n == max || !integer(c, &v[*n])) return false;
        (*n)++;
    } while (take(c, ','));
    return take(c, ']');
}

static int dtype_size(const char *d) {
    static const struct {
        const char *name;
        int size;
    } known[] = {{"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8},
                 {"I32", 4}, {"I16", 2}, {"I8", 1},  {"U8", 1},   {"BOOL", 1}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(d, known[i].name)) return known[i].size;
    return 0;
}

/* One tensor: {"dtype": ..., "shape": [...], "data_offsets": [b, e]} in any order,
 * checked against the data section's size. */
static bool entry(Cursor *c, uint64_t data_size, StEntry *e) {
    bool have_dtype = false, have_shape = false, have_offsets = false;
    if (!take(c, '{')) return false;
    do {
        const uint8_t *key, *val;
        size_t key_len, val_len;
        if (!string(c, &key, &key_len) || !take(c, ':')) return false;
        if (same(key, key_len, "dtype")) {
            if (have_dtype || !string(c, &val, &val_len) || val_len >= sizeof e->dtype) return false;
            memcpy(e->dtype, val, val_len);
            e->dtype[val_len] = '\0';
            have_dtype = true;
        } else if (same(key, key_len, "shape")) {
            uint64_t dims[ST_MAX_DIMS];
            if (have_shape || !integers(c, dims, ST_MAX_DIMS, &e->ndim)) return false;
            for (int i = 0; i < e->ndim; i++) e->shape[i] = (int64_t)dims[i];
            have_shape = true;
        } else if (same(key, key_len, "data_offsets")) {
            uint64_t off[2];
            int n;
            if (have_offsets || !integers(c, off, 2, &n) || n != 2) return false;
            e->begin = off[0];
            e->end = off[1];
            have_offsets = true;
        } else
            return false;
    } while (take(c, ','));
    if (!take(c, '}') || !have_dtype || !have_shape || !have_offsets) return false;
    /* the bytes must be where the offsets say, and exactly as many as the shape needs */
    int size = dtype_size(e->dtype);
    if (!size || e->begin > e->end || e->end > data_size) return false;
    uint64_t bytes = (uint64_t)size;
    for (int i = 0; i < e->ndim; i++)
        if (__builtin_mul_overflow(bytes, (uint64_t)e->shape[i], &bytes)) return false;
    return bytes == e->end - e->begin;
}

/* {"key": "value", ...}: the __metadata__ object, strings only. */
static bool metadata(Cursor *c) {
    const uint8_t *s;
    size_t len;
    if (!take(c, '{')) return false;
    if (take(c, '}')) return true;
    do {
        if (!string(c, &s, &len) || !take(c, ':') || !string(c, &s, &len)) return false;
    } while (take(c, ','));
    return take(c, '}');
}

int st_find(const uint8_t *head, size_t head_len, uint64_t file_size, const char *name, StEntry *out) {
    if (head_len < 8 || file_size < 8) return -1;
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = n << 8 | head[i]; /* little-endian */
    if (n > head_len - 8 || n > file_size - 8) return -1;
    Cursor c = {head + 8, head + 8 + n};
    uint64_t data_size = file_size - 8 - n;
    int result = 1;
    if (!take(&c, '{')) return -1;
    if (!take(&c, '}')) {
        do {
            const uint8_t *key;
            size_t key_len;
            if (!string(&c, &key, &key_len) || !take(&c, ':')) return -1;
            if (same(key, key_len, "__metadata__")) {
                if (!metadata(&c)) return -1;
                continue;
            }
            StEntry e;
            memset(&e, 0, sizeof e);
            if (!entry(&c, data_size, &e)) return -1;
            if (same(key, key_len, name)) {
                *out = e;
                result = 0;
            }
        } while (take(&c, ','));
        if (!take(&c, '}')) return -1;
    }
    skip_space(&c); /* writers pad the header with spaces */
    return c.p == c.end ? result : -1;
}
