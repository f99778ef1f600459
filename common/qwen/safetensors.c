/* safetensors.c — the reader and writer described in safetensors.h. */
#include "safetensors.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- reading -------------------------------------------------------------- */

/* A JSON number that is a non-negative integer exactly representable in a double
 * (cJSON keeps numbers as doubles; its valueint saturates at INT_MAX). */
static bool json_u64(const cJSON *j, uint64_t *out) {
    if (!cJSON_IsNumber(j)) return false;
    double d = j->valuedouble;
    if (!(d >= 0 && d <= 9007199254740992.0 && d == floor(d))) return false;
    *out = (uint64_t)d;
    return true;
}

/* Parses one header entry into t (everything but the data pointer). */
static bool parse_entry(const cJSON *entry, const char *path, Tensor *t, uint64_t *begin, uint64_t *end,
                        Error *err) {
    const char *name = entry->string;
    if (!cJSON_IsObject(entry)) return error_set(err, "%s: header entry '%s' is not an object", path, name);
    const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(entry, "dtype");
    const cJSON *shape = cJSON_GetObjectItemCaseSensitive(entry, "shape");
    const cJSON *offsets = cJSON_GetObjectItemCaseSensitive(entry, "data_offsets");
    if (!cJSON_IsString(dtype)) return error_set(err, "%s: tensor '%s' has no \"dtype\" string", path, name);
    if (!dtype_parse(dtype->valuestring, &t->dtype))
        return error_set(err,
                         "%s: tensor '%s' has dtype %s, which this reader does not support (BF16, F16, F32)",
                         path, name, dtype->valuestring);
    if (!cJSON_IsArray(shape)) return error_set(err, "%s: tensor '%s' has no \"shape\" array", path, name);
    int ndim = cJSON_GetArraySize(shape);
    if (ndim > TENSOR_MAX_DIMS)
        return error_set(err, "%s: tensor '%s' has %d dimensions (at most %d supported)", path, name, ndim,
                         TENSOR_MAX_DIMS);
    t->ndim = ndim;
    t->numel = 1;
    uint64_t numel = 1;
    for (int d = 0; d < ndim; d++) {
        uint64_t n;
        if (!json_u64(cJSON_GetArrayItem(shape, d), &n))
            return error_set(err, "%s: tensor '%s' has a shape entry that is not a non-negative integer",
                             path, name);
        if (n != 0 && numel > (UINT64_C(1) << 53) / n)
            return error_set(err, "%s: tensor '%s' has an impossibly large shape", path, name);
        numel *= n;
        t->shape[d] = (int64_t)n;
    }
    t->numel = (int64_t)numel;
    if (!cJSON_IsArray(offsets) || cJSON_GetArraySize(offsets) != 2 ||
        !json_u64(cJSON_GetArrayItem(offsets, 0), begin) || !json_u64(cJSON_GetArrayItem(offsets, 1), end))
        return error_set(err,
                         "%s: tensor '%s' needs \"data_offsets\": [begin, end] with non-negative integers",
                         path, name);
    if (*end < *begin)
        return error_set(err, "%s: tensor '%s' has data_offsets [%llu, %llu] that run backwards", path, name,
                         (unsigned long long)*begin, (unsigned long long)*end);
    uint64_t want = numel * (uint64_t)dtype_size(t->dtype);
    if (*end - *begin != want) {
        char buf[128];
        return error_set(err, "%s: tensor '%s' has %llu bytes, but shape %s of %s needs %llu", path, name,
                         (unsigned long long)(*end - *begin), shape_str(t, buf, sizeof buf),
                         dtype_name(t->dtype), (unsigned long long)want);
    }
    return true;
}

typedef struct {
    uint64_t begin, end;
    int tensor;
} Span;

static int span_cmp(const void *a, const void *b) {
    const Span *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

/* About what parsing a header of len bytes takes (safetensors.h): cJSON's tree, a
 * node for every value and a block for every string, and for every tensor its entry,
 * its span, its name and its index slot. Counted in one pass without parsing: every
 * value but the first follows a ',', ':', '[' or '{' outside a string, and every
 * tensor is a key of the top-level object (a ':' at depth 1). */
static uint64_t header_memory(const char *json, uint64_t len) {
    enum { BLOCK = 32, INDEX = 64 }; /* malloc's bookkeeping per block; a name's index slot and copy */
    uint64_t values = 1, strings = 0, tensors = 0;
    int64_t depth = 0;
    bool in_string = false;
    for (uint64_t i = 0; i < len; i++) {
        char c = json[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true, strings++;
        } else if (c == '{' || c == '[') {
            depth++, values++;
        } else if (c == '}' || c == ']') {
            depth--;
        } else if (c == ',' || c == ':') {
            values++;
            tensors += c == ':' && depth == 1;
        }
    }
    uint64_t bytes = size_mul(values, sizeof(cJSON) + BLOCK);
    bytes = size_add(bytes, size_mul(strings, BLOCK));
    bytes = size_add(bytes, size_mul(tensors, sizeof(Tensor) + sizeof(Span) + INDEX));
    return size_add(bytes, size_mul(len, 2)); /* the strings' copies: cJSON's and the names' */
}

/* Keeps the "__metadata__" strings (other values are ignored, as readers do). */
static void keep_metadata(SafeTensors *st, const cJSON *meta) {
    for (const cJSON *e = meta->child; e; e = e->next) {
        if (!cJSON_IsString(e)) continue;
        st->meta = xrealloc(st->meta, sizeof *st->meta * 2 * (size_t)(st->n_meta + 1));
        st->meta[2 * st->n_meta] = xstrdup(e->string);
        st->meta[2 * st->n_meta + 1] = xstrdup(e->valuestring);
        st->n_meta++;
    }
}

/* Parses and checks the header; fills st->tensors (data pointers included). */
static bool parse_header(SafeTensors *st, const char *json, uint64_t header_len, Error *err) {
    const char *path = st->path;
    char what[64 + PATH_MAX];
    snprintf(what, sizeof what, "%s: reading its header of %llu bytes", path, (unsigned long long)header_len);
    if (!mem_check(header_memory(json, header_len), what, err)) return false;
    const char *json_end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, (size_t)header_len, &json_end, false);
    if (!root) return error_set(err, "%s: header is not valid JSON", path);
    bool ok = false;
    Span *spans = NULL;
    if (!cJSON_IsObject(root)) {
        error_set(err, "%s: header is JSON but not an object", path);
        goto done;
    }
    /* Only padding (whitespace) may follow the object: anything else means the header
     * length is wrong, and every offset into the data area would be off with it. */
    for (const char *p = json_end; p < json + header_len; p++)
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
            error_set(
                err,
                "%s: header has bytes other than whitespace after the JSON object (wrong header length?)",
                path);
            goto done;
        }
    int n = 0;
    for (const cJSON *e = root->child; e; e = e->next) n += strcmp(e->string, "__metadata__") != 0;
    st->tensors = xcalloc((size_t)n, sizeof(Tensor));
    spans = xcalloc((size_t)n, sizeof(Span));
    const unsigned char *data = (const unsigned char *)st->map + 8 + header_len;
    uint64_t data_size = st->size - 8 - header_len;
    uint64_t copied = 0; /* bytes of aligned copies so far */
    for (const cJSON *e = root->child; e; e = e->next) {
        if (strcmp(e->string, "__metadata__") == 0) {
            if (!cJSON_IsObject(e)) {
                error_set(err, "%s: \"__metadata__\" is not an object", path);
                goto done;
            }
            keep_metadata(st, e);
            continue;
        }
        Tensor *t = &st->tensors[st->count];
        uint64_t begin = 0, end = 0;
        t->name = xstrdup(e->string);
        t->file = st->path;
        st->count++;
        if (!parse_entry(e, path, t, &begin, &end, err)) goto done;
        if (end > data_size) {
            error_set(err, "%s: tensor '%s' has data_offsets [%llu, %llu] beyond the %llu bytes of data",
                      path, t->name, (unsigned long long)begin, (unsigned long long)end,
                      (unsigned long long)data_size);
            goto done;
        }
        if (!strmap_put(&st->index, t->name, st->count - 1)) {
            error_set(err, "%s: tensor '%s' appears twice in the header", path, t->name);
            goto done;
        }
        spans[st->count - 1] = (Span){begin, end, st->count - 1};
        t->data = data + begin;
        if ((uintptr_t)t->data % (uintptr_t)dtype_size(t->dtype) != 0) { /* keep an aligned copy */
            char what[160];
            snprintf(what, sizeof what, "%s: an aligned copy of the misaligned tensor '%s'", path, t->name);
            copied = size_add(copied, end - begin);
            if (!mem_check(copied, what, err))
                goto done; /* an error, not an exit: the file is outside input */
            void *copy = xaligned_alloc((size_t)(end - begin));
            memcpy(copy, t->data, (size_t)(end - begin));
            st->copies = xrealloc(st->copies, (size_t)(st->n_copies + 1) * sizeof(void *));
            st->copies[st->n_copies++] = copy;
            t->data = copy;
        }
    }
    /* No two tensors may share bytes: in order of their start, each must begin at or
     * after the furthest end so far (an empty tensor holds no bytes and ends nothing). */
    qsort(spans, (size_t)st->count, sizeof(Span), span_cmp);
    const Span *reach = NULL; /* the non-empty span that ends furthest so far */
    for (int i = 0; i < st->count; i++) {
        const Span *b = &spans[i];
        if (b->end == b->begin) continue;
        if (reach && b->begin < reach->end) {
            error_set(err, "%s: tensors '%s' and '%s' overlap in the data area", path,
                      st->tensors[reach->tensor].name, st->tensors[b->tensor].name);
            goto done;
        }
        if (!reach || b->end > reach->end) reach = b;
    }
    ok = true;
done:
    free(spans);
    cJSON_Delete(root);
    return ok;
}

bool st_open(SafeTensors *st, const char *path, Error *err) {
    memset(st, 0, sizeof *st);
    strmap_init(&st->index);
    st->path = xstrdup(path);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a named pipe must not block the open */
    if (fd < 0) {
        error_set(err, "cannot open %s: %s", path, strerror(errno));
        st_close(st);
        return false;
    }
    struct stat sb;
    const char *why = fd_problem(fd);
    if (why || fstat(fd, &sb) != 0) {
        error_set(err, "%s %s", path, why ? why : "cannot be looked at");
        close(fd);
        st_close(st);
        return false;
    }
    st->size = (size_t)sb.st_size;
    if (st->size < 8) {
        error_set(err, "%s: %zu bytes is too short for a safetensors file (needs an 8-byte header length)",
                  path, st->size);
        close(fd);
        st_close(st);
        return false;
    }
    st->map = mmap(NULL, st->size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (st->map == MAP_FAILED) {
        st->map = NULL;
        error_set(err, "cannot map %s: %s", path, strerror(errno));
        st_close(st);
        return false;
    }
    const unsigned char *b = st->map;
    uint64_t header_len = 0;
    for (int i = 7; i >= 0; i--) header_len = header_len << 8 | b[i]; /* little-endian */
    bool ok;
    if (header_len < 2 || header_len > ST_MAX_HEADER_BYTES)
        ok = error_set(err, "%s: header length %llu is not sane (expected 2 .. %u bytes)", path,
                       (unsigned long long)header_len, ST_MAX_HEADER_BYTES);
    else if (header_len > st->size - 8)
        ok = error_set(err, "%s: header length %llu runs past the end of the %zu-byte file (truncated?)",
                       path, (unsigned long long)header_len, st->size);
    else
        ok = parse_header(st, (const char *)b + 8, header_len, err);
    if (!ok) st_close(st);
    return ok;
}

void st_close(SafeTensors *st) {
    if (st->map) munmap(st->map, st->size);
    for (int i = 0; i < st->count; i++) free((char *)st->tensors[i].name);
    free(st->tensors);
    for (int i = 0; i < st->n_copies; i++) free(st->copies[i]);
    free(st->copies);
    strmap_free(&st->index);
    free(st->held);
    for (int i = 0; i < 2 * st->n_meta; i++) free(st->meta[i]);
    free(st->meta);
    free(st->path);
    memset(st, 0, sizeof *st);
}

const Tensor *st_find(const SafeTensors *st, const char *name) {
    int64_t i;
    return strmap_get(&st->index, name, &i) ? &st->tensors[i] : NULL;
}

const char *st_metadata(const SafeTensors *st, const char *key) {
    for (int i = 0; i < st->n_meta; i++)
        if (strcmp(st->meta[2 * i], key) == 0) return st->meta[2 * i + 1];
    return NULL;
}

/* The mapping's chunk (of ST_HOLD_CHUNK bytes, st_hold) holding address a. */
static size_t chunk_of(const SafeTensors *st, uintptr_t a) {
    return (a - (uintptr_t)st->map) / ST_HOLD_CHUNK;
}

/* Whether the chunk at address a is held (st_hold). */
static bool is_held(const SafeTensors *st, uintptr_t a) { return st->held && st->held[chunk_of(st, a)]; }

bool st_release_pages(const SafeTensors *st, const Tensor *t) {
    uintptr_t map = (uintptr_t)st->map, begin = (uintptr_t)t->data;
    uint64_t bytes = (uint64_t)t->numel * (uint64_t)dtype_size(t->dtype);
    if (!st->map || begin < map || begin - map > st->size || bytes > st->size - (begin - map)) return false;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t first = (begin + page - 1) & ~(page - 1), last = (begin + (uintptr_t)bytes) & ~(page - 1);
    /* page by page, around the held chunks: there the process's pages are the only copy */
    while (first < last) {
        uintptr_t stop = first;
        while (stop < last && !is_held(st, stop)) stop += page;
        if (stop > first) /* only a hint; it cannot lose data here */
            madvise((void *)first, stop - first, MADV_DONTNEED);
        while (stop < last && is_held(st, stop)) stop += page;
        first = stop;
    }
    return true;
}

/* ---- holding the bytes in memory of the process's own ----------------------- */

/* Whether Linux would give this process huge pages for memory it asks for them
 * (transparent huge pages "always" or "madvise", not "never" or a kernel without them). */
static bool huge_pages_offered(void) {
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!f) return false;
    char line[128] = "";
    bool offered = fgets(line, sizeof line, f) && (strstr(line, "[always]") || strstr(line, "[madvise]"));
    fclose(f);
    return offered;
}

/* Moves the chunks lo .. hi − 1 (none of them held) into huge pages: the bytes moved, 0
 * when the system refused (the file's mapping is then still there, whole). */
static int64_t hold_chunks(SafeTensors *st, uintptr_t lo, uintptr_t hi) {
    size_t n = hi - lo;
    /* anonymous memory at a 2 MB boundary: ask for one chunk more, give back the ends */
    char *raw = mmap(NULL, n + ST_HOLD_CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return 0;
    char *mem = (char *)(((uintptr_t)raw + ST_HOLD_CHUNK - 1) & ~(ST_HOLD_CHUNK - 1));
    if (mem > raw) munmap(raw, (size_t)(mem - raw));
    if (mem + n < raw + n + ST_HOLD_CHUNK) munmap(mem + n, (size_t)(raw + n + ST_HOLD_CHUNK - (mem + n)));
    madvise(mem, n, MADV_HUGEPAGE);
    /* a chunk at a time, each file page let go once copied: the process never holds
     * both copies of more than one chunk */
    for (size_t off = 0; off < n; off += ST_HOLD_CHUNK) {
        memcpy(mem + off, (const char *)lo + off, ST_HOLD_CHUNK);
        /* the file's pages, which would come back from the file */
        madvise((char *)lo + off, ST_HOLD_CHUNK, MADV_DONTNEED);
    }
    mprotect(mem, n, PROT_READ); /* read-only, as the mapping was */
    if (mremap(mem, n, n, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)lo) == MAP_FAILED) {
        munmap(mem, n);
        return 0;
    }
    if (!st->held) st->held = xcalloc(st->size / ST_HOLD_CHUNK + 1, 1);
    for (uintptr_t a = lo; a < hi; a += ST_HOLD_CHUNK) st->held[chunk_of(st, a)] = 1;
    return (int64_t)n;
}

int64_t st_hold(SafeTensors *st, const void *begin, const void *end) {
    uintptr_t map = (uintptr_t)st->map, b = (uintptr_t)begin, e = (uintptr_t)end;
    if (!st->map || b < map || e > map + st->size || e <= b) return 0;
    uintptr_t lo = (b + ST_HOLD_CHUNK - 1) & ~(ST_HOLD_CHUNK - 1), hi = e & ~(ST_HOLD_CHUNK - 1);
    if (hi <= lo || !huge_pages_offered()) return 0;
    int64_t moved = 0;
    for (uintptr_t a = lo; a < hi;) { /* each run of chunks not held yet */
        while (a < hi && is_held(st, a)) a += ST_HOLD_CHUNK;
        uintptr_t run = a;
        while (a < hi && !is_held(st, a)) a += ST_HOLD_CHUNK;
        if (a > run) moved += hold_chunks(st, run, a);
    }
    return moved;
}

/* ---- writing -------------------------------------------------------------- */

void stw_init(StWriter *w) { memset(w, 0, sizeof *w); }

void stw_free(StWriter *w) {
    for (int i = 0; i < w->count; i++) free(w->entries[i].name);
    free(w->entries);
    free(w->metadata.s);
    memset(w, 0, sizeof *w);
}

static StWriterEntry *add_entry(StWriter *w, const char *name, DType dtype, int ndim, const int64_t *shape) {
    if (ndim < 0 || ndim > TENSOR_MAX_DIMS) die("tensor %s: %d dimensions is not supported", name, ndim);
    if (w->count == w->cap)
        w->entries = xrealloc(w->entries, (size_t)(w->cap = w->cap ? 2 * w->cap : 64) * sizeof *w->entries);
    StWriterEntry *e = &w->entries[w->count++];
    memset(e, 0, sizeof *e);
    e->name = xstrdup(name);
    e->dtype = dtype;
    e->ndim = ndim;
    for (int d = 0; d < ndim; d++) e->shape[d] = shape[d];
    return e;
}

void stw_add(StWriter *w, const char *name, DType dtype, int ndim, const int64_t *shape,
             const float *values) {
    add_entry(w, name, dtype, ndim, shape)->values = values;
}

void stw_add_generated(StWriter *w, const char *name, DType dtype, int ndim, const int64_t *shape,
                       StGenerate generate, void *ctx) {
    StWriterEntry *e = add_entry(w, name, dtype, ndim, shape);
    e->generate = generate;
    e->ctx = ctx;
}

static int64_t entry_numel(const StWriterEntry *e) {
    int64_t n = 1;
    for (int d = 0; d < e->ndim; d++) n *= e->shape[d];
    return n;
}

uint64_t stw_data_bytes(const StWriter *w) {
    uint64_t total = 0;
    for (int i = 0; i < w->count; i++) {
        uint64_t n = (uint64_t)dtype_size(w->entries[i].dtype);
        for (int d = 0; d < w->entries[i].ndim; d++) n = size_mul(n, (uint64_t)w->entries[i].shape[d]);
        total = size_add(total, n);
    }
    return total;
}

static void text_add_json_string(Text *b, const char *s);

void stw_set_metadata(StWriter *w, const char *key, const char *value) {
    text_add(&w->metadata, ",");
    text_add_json_string(&w->metadata, key);
    text_add(&w->metadata, ":");
    text_add_json_string(&w->metadata, value);
}

static void text_add_json_string(Text *b, const char *s) {
    text_add(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            text_add(b, "\\%c", c);
        else if (c < 0x20)
            text_add(b, "\\u%04x", c);
        else
            text_add(b, "%c", c);
    }
    text_add(b, "\"");
}

/* Converts count float32 values to the stored dtype (little-endian bytes). */
static void encode_values(DType dtype, const float *src, int64_t count, void *dst) {
    uint16_t *h = dst;
    switch (dtype) {
    case DTYPE_F32:
        memcpy(dst, src, (size_t)count * sizeof(float));
        break;
    case DTYPE_BF16:
        for (int64_t i = 0; i < count; i++) h[i] = f32_to_bf16(src[i]);
        break;
    case DTYPE_F16:
        for (int64_t i = 0; i < count; i++) h[i] = f32_to_f16(src[i]);
        break;
    }
}

bool stw_write(const StWriter *w, const char *path, uint64_t *data_bytes, Error *err) {
    Text hdr = {0};
    text_add(&hdr, "{\"__metadata__\":{\"format\":\"pt\"%s}", w->metadata.s ? w->metadata.s : "");
    uint64_t offset = 0;
    for (int i = 0; i < w->count; i++) {
        const StWriterEntry *e = &w->entries[i];
        uint64_t bytes = (uint64_t)entry_numel(e) * (uint64_t)dtype_size(e->dtype);
        text_add(&hdr, ",");
        text_add_json_string(&hdr, e->name);
        text_add(&hdr, ":{\"dtype\":\"%s\",\"shape\":[", dtype_name(e->dtype));
        for (int d = 0; d < e->ndim; d++) text_add(&hdr, "%s%lld", d ? "," : "", (long long)e->shape[d]);
        text_add(&hdr, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)offset,
                 (unsigned long long)(offset + bytes));
        offset += bytes;
    }
    text_add(&hdr, "}");
    while (hdr.len % 8) text_add(&hdr, " "); /* data area starts 8-byte aligned */

    FileReplace r;
    FILE *f = file_replace_begin(&r, path, err);
    if (!f) {
        free(hdr.s);
        return false;
    }
    unsigned char len8[8];
    for (int i = 0; i < 8; i++) len8[i] = (unsigned char)(hdr.len >> (8 * i));
    bool ok = fwrite(len8, 1, 8, f) == 8 && fwrite(hdr.s, 1, hdr.len, f) == hdr.len;
    uint64_t file_bytes = 8 + hdr.len + offset;
    free(hdr.s);

    enum { CHUNK = 1 << 20 }; /* elements converted per write */
    float *values = xmalloc(CHUNK * sizeof(float));
    void *bytes = xmalloc(CHUNK * sizeof(float));
    for (int i = 0; ok && i < w->count; i++) {
        const StWriterEntry *e = &w->entries[i];
        int64_t numel = entry_numel(e);
        if (!e->values && !e->generate) { /* all zeros: leave a hole, the file system reads it as 0 */
            ok = fseeko(f, numel * dtype_size(e->dtype), SEEK_CUR) == 0;
            continue;
        }
        for (int64_t first = 0; ok && first < numel; first += CHUNK) {
            int64_t count = numel - first < CHUNK ? numel - first : CHUNK;
            const float *src = e->values ? e->values + first : values;
            if (!e->values) e->generate(e->ctx, first, count, values);
            encode_values(e->dtype, src, count, bytes);
            ok = fwrite(bytes, (size_t)dtype_size(e->dtype), (size_t)count, f) == (size_t)count;
        }
    }
    free(values);
    free(bytes);
    /* a trailing hole needs the file extended to its full length */
    ok = ok && fflush(f) == 0 && ftruncate(fileno(f), (off_t)file_bytes) == 0;
    if (!ok) error_set(err, "cannot write %s: %s", path, strerror(errno));
    if (!file_replace_commit(&r, ok, err)) return false;
    if (data_bytes) *data_bytes = offset;
    return true;
}
