/* strmap.c — string → integer hash table (see strmap.h). */
#include "strmap.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

uint64_t hash_bytes(const void *data, size_t len) {
    const unsigned char *p = data;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

void strmap_init(StrMap *m) { memset(m, 0, sizeof *m); }

void strmap_free(StrMap *m) {
    for (size_t i = 0; i < m->cap; i++) free(m->keys[i]);
    free(m->keys);
    free(m->values);
    memset(m, 0, sizeof *m);
}

/* The slot holding key, or the empty slot where it would go. cap is a power of 2. */
static size_t find_slot(const StrMap *m, const char *key, size_t len) {
    size_t i = (size_t)hash_bytes(key, len) & (m->cap - 1);
    while (m->keys[i] && !(strncmp(m->keys[i], key, len) == 0 && m->keys[i][len] == '\0'))
        i = (i + 1) & (m->cap - 1);
    return i;
}

static void grow(StrMap *m) {
    StrMap bigger = {xcalloc(m->cap ? m->cap * 2 : 64, sizeof(char *)),
                     xcalloc(m->cap ? m->cap * 2 : 64, sizeof(int64_t)), m->cap ? m->cap * 2 : 64, m->count};
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i]) continue;
        size_t j = find_slot(&bigger, m->keys[i], strlen(m->keys[i]));
        bigger.keys[j] = m->keys[i];
        bigger.values[j] = m->values[i];
    }
    free(m->keys);
    free(m->values);
    *m = bigger;
}

bool strmap_put(StrMap *m, const char *key, int64_t value) {
    if ((m->count + 1) * 2 > m->cap) grow(m); /* keep the table at most half full */
    size_t i = find_slot(m, key, strlen(key));
    bool fresh = m->keys[i] == NULL;
    if (fresh) {
        m->keys[i] = xstrdup(key);
        m->count++;
    }
    m->values[i] = value;
    return fresh;
}

bool strmap_get_n(const StrMap *m, const char *key, size_t len, int64_t *value) {
    if (m->cap == 0) return false;
    size_t i = find_slot(m, key, len);
    if (!m->keys[i]) return false;
    if (value) *value = m->values[i];
    return true;
}

bool strmap_get(const StrMap *m, const char *key, int64_t *value) {
    return strmap_get_n(m, key, strlen(key), value);
}
