/* strmap.h — a string → integer hash table (open addressing, linear probing).
 *
 * Used wherever the workbook looks names up many times: tensor names in a
 * checkpoint (~800 of them), and anything else keyed by a string. Keys are
 * copied; values are whatever the caller stores (an index into its own array).
 */
#ifndef STRMAP_H
#define STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char **keys;     /* [cap], NULL where empty */
    int64_t *values; /* [cap] */
    size_t cap, count;
} StrMap;

void strmap_init(StrMap *m);
void strmap_free(StrMap *m);
/* Inserts or replaces key → value. Returns false when the key was already there. */
bool strmap_put(StrMap *m, const char *key, int64_t value);
/* Looks key up; returns false when absent. */
bool strmap_get(const StrMap *m, const char *key, int64_t *value);
/* Same with an explicit length (key need not be NUL-terminated). */
bool strmap_get_n(const StrMap *m, const char *key, size_t len, int64_t *value);

/* FNV-1a, the hash used by the table (exposed for other tables). */
uint64_t hash_bytes(const void *data, size_t len);

#endif
