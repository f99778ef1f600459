/* fuzz_safetensors.c — st_open on any bytes (qwen/safetensors.h).
 *
 * The input is the whole file: 8-byte header length, JSON header, data. It is
 * parsed a second time here, independently, with cJSON, and a file the reader
 * accepts must satisfy what the format promises and the rest of the workbook
 * relies on:
 *   - one Tensor per header entry (except __metadata__), in header order, found by
 *     st_find under its name, with the entry's dtype and shape;
 *   - numel = the product of the shape, and data_offsets' end − begin = numel ×
 *     dtype size;
 *   - every tensor's bytes inside the data area, no two non-empty tensors sharing a
 *     byte, and Tensor.data holding exactly those bytes, aligned for the dtype.
 * A file it refuses must get one line that names the file.
 */
#include <cJSON.h>
#include <math.h>
#include <stdint.h>

#include "qwen/safetensors.h"
#include "tests/fuzz.h"

typedef struct {
    uint64_t begin, end;
} Range;

static int range_cmp(const void *a, const void *b) {
    const Range *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* A JSON number as an exact non-negative integer (the reader's own rule, restated). */
static bool whole(const cJSON *j, uint64_t *out) {
    if (!cJSON_IsNumber(j) || !(j->valuedouble >= 0 && j->valuedouble <= 9007199254740992.0) ||
        j->valuedouble != floor(j->valuedouble))
        return false;
    *out = (uint64_t)j->valuedouble;
    return true;
}

/* What an accepted file must look like, from the bytes alone. */
static void check_accepted(const SafeTensors *st, const uint8_t *data, size_t size) {
    FUZZ_CHECK(size >= 8, "accepted a file of %zu bytes", size);
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--) hlen = hlen << 8 | data[i];
    FUZZ_CHECK(hlen >= 2 && hlen <= ST_MAX_HEADER_BYTES && hlen <= size - 8, "header length %llu accepted",
               (unsigned long long)hlen);
    FUZZ_CHECK(st->size == size, "size %zu, file %zu", st->size, size);
    const uint8_t *area = data + 8 + hlen;
    uint64_t area_size = size - 8 - hlen;
    const char *json = (const char *)data + 8, *json_end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, (size_t)hlen, &json_end, false);
    FUZZ_CHECK(cJSON_IsObject(root), "the header is not a JSON object, yet it was accepted");
    for (const char *p = json_end; p < json + hlen; p++)
        FUZZ_CHECK(*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n', "byte %d after the JSON was accepted",
                   *p);
    int n = 0;
    for (const cJSON *e = root->child; e; e = e->next) n += strcmp(e->string, "__metadata__") != 0;
    FUZZ_CHECK(st->count == n, "%d tensors read, %d entries in the header", st->count, n);
    Range *ranges = calloc((size_t)n + 1, sizeof *ranges);
    int i = 0, n_ranges = 0;
    for (const cJSON *e = root->child; e; e = e->next) {
        if (strcmp(e->string, "__metadata__") == 0) {
            FUZZ_CHECK(cJSON_IsObject(e), "__metadata__ that is not an object was accepted");
            continue;
        }
        const Tensor *t = &st->tensors[i++];
        FUZZ_CHECK(strcmp(t->name, e->string) == 0, "tensor %d is '%s', the header says '%s'", i - 1, t->name,
                   e->string);
        FUZZ_CHECK(st_find(st, e->string) == t, "st_find('%s') does not give its tensor", e->string);
        const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(e, "dtype");
        FUZZ_CHECK(cJSON_IsString(dtype) && strcmp(dtype->valuestring, dtype_name(t->dtype)) == 0,
                   "'%s': dtype %s read as %s", t->name, cJSON_IsString(dtype) ? dtype->valuestring : "?",
                   dtype_name(t->dtype));
        const cJSON *shape = cJSON_GetObjectItemCaseSensitive(e, "shape");
        FUZZ_CHECK(cJSON_IsArray(shape) && cJSON_GetArraySize(shape) == t->ndim && t->ndim <= TENSOR_MAX_DIMS,
                   "'%s': %d dimensions", t->name, t->ndim);
        long double numel = 1; /* in long double: no wrap-around to hide a mistake */
        for (int d = 0; d < t->ndim; d++) {
            uint64_t v;
            FUZZ_CHECK(whole(cJSON_GetArrayItem(shape, d), &v) && (int64_t)v == t->shape[d],
                       "'%s': dimension %d read as %lld", t->name, d, (long long)t->shape[d]);
            numel *= (long double)v;
        }
        FUZZ_CHECK(numel == (long double)t->numel, "'%s': numel %lld, shape says %Lg", t->name,
                   (long long)t->numel, numel);
        const cJSON *off = cJSON_GetObjectItemCaseSensitive(e, "data_offsets");
        uint64_t b, en;
        FUZZ_CHECK(cJSON_GetArraySize(off) == 2 && whole(cJSON_GetArrayItem(off, 0), &b) &&
                       whole(cJSON_GetArrayItem(off, 1), &en),
                   "'%s': data_offsets accepted without two integers", t->name);
        FUZZ_CHECK(b <= en && en <= area_size, "'%s': [%llu, %llu] outside the %llu bytes of data", t->name,
                   (unsigned long long)b, (unsigned long long)en, (unsigned long long)area_size);
        FUZZ_CHECK((long double)(en - b) == numel * dtype_size(t->dtype), "'%s': %llu bytes for %Lg elements",
                   t->name, (unsigned long long)(en - b), numel);
        FUZZ_CHECK((uintptr_t)t->data % (uintptr_t)dtype_size(t->dtype) == 0, "'%s': data not aligned",
                   t->name);
        FUZZ_CHECK(en == b || memcmp(t->data, area + b, (size_t)(en - b)) == 0, "'%s': data is not its bytes",
                   t->name);
        if (en > b) ranges[n_ranges++] = (Range){b, en};
    }
    qsort(ranges, (size_t)n_ranges, sizeof *ranges, range_cmp);
    for (int k = 1; k < n_ranges; k++)
        FUZZ_CHECK(ranges[k].begin >= ranges[k - 1].end, "two tensors share bytes [%llu, %llu)",
                   (unsigned long long)ranges[k].begin, (unsigned long long)ranges[k - 1].end);
    free(ranges);
    cJSON_Delete(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *path = fuzz_memfile("fuzz_safetensors", data, size);
    SafeTensors st;
    Error err = {{0}};
    if (!st_open(&st, path, &err)) {
        fuzz_check_error(&err, path);
        FUZZ_CHECK(st.map == NULL && st.tensors == NULL && st.count == 0,
                   "a failed open left something behind");
        return 0;
    }
    check_accepted(&st, data, size);
    st_close(&st);
    return 0;
}
