/* test_safetensors.c — the .safetensors reader and writer (common/qwen/safetensors.h).
 *
 * The reader is first tested on files whose every byte the test spells out: the
 * 8-byte little-endian header length, a JSON header typed here, and the tensor data
 * as raw little-endian bytes worked out by hand. So the reader is checked against
 * the format itself, not against our own writer; the writer is then checked
 * against the reader, and its first bytes by hand as well.
 *
 * Then every kind of broken file: each must give one line that names the file and
 * the problem, and must not crash (the sanitizer build runs these too).
 */
#include <math.h>
#include <signal.h>
#include <sys/resource.h>

#include "helpers.h"
#include "qwen/safetensors.h"
#include "tests/empty_tensors.h"
#include "tests/huge_pages.h"

static char *dir; /* scratch folder of the running test */

static void setup(void) { dir = scratch_dir(); }
static void teardown(void) {
    scratch_remove(dir);
    free(dir);
    dir = NULL;
}

/* Writes [header length, 8 bytes LE][header][data] with the header padded by
 * spaces (as the format allows) until the data area starts at an address that is
 * data_start_mod8 past a multiple of 8. Returns the header length. */
static size_t write_st(const char *path, const char *header, int data_start_mod8, const void *data,
                       size_t len) {
    size_t n = strlen(header);
    while ((8 + n) % 8 != (size_t)data_start_mod8) n++;
    unsigned char *file = xcalloc(8 + n + len, 1);
    for (int i = 0; i < 8; i++) file[i] = (unsigned char)((uint64_t)n >> (8 * i));
    memset(file + 8, ' ', n);
    memcpy(file + 8, header, strlen(header));
    if (len) memcpy(file + 8 + n, data, len);
    write_bytes(path, file, 8 + n + len);
    free(file);
    return n;
}

/* ---- reading a file made by hand ----------------------------------------------- */

/* Data area (32 bytes), little-endian:
 *   [0,16)  w.f32    F32 [2,2]  1.0 = 3F800000, -2.5 = C0200000, 0.15625 = 3E200000, 65536 = 47800000
 *   [16,22) w.bf16   BF16 [3]   1.0 = 3F80, -0.5 = BF00, 3.140625 = 4049
 *   [22,26) w.f16    F16 [2]    1.0 = 3C00, -65504 = FBFF
 *   [26,28) unused (the format allows gaps)
 *   [28,32) w.scalar F32 []     42.0 = 42280000
 *   [32,32) w.empty  BF16 [0,4] no bytes at all */
static const char HAND_HEADER[] =
    "{\"__metadata__\":{\"format\":\"pt\",\"note\":\"typed by hand\"},"
    "\"w.f32\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]},"
    "\"w.bf16\":{\"dtype\":\"BF16\",\"shape\":[3],\"data_offsets\":[16,22]},"
    "\"w.f16\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[22,26]},"
    "\"w.scalar\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[28,32]},"
    "\"w.empty\":{\"dtype\":\"BF16\",\"shape\":[0,4],\"data_offsets\":[32,32]}}";
static const unsigned char HAND_DATA[32] = {
    0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x20, 0xC0,
    0x00, 0x00, 0x20, 0x3E, 0x00, 0x00, 0x80, 0x47, /* w.f32 */
    0x80, 0x3F, 0x00, 0xBF, 0x49, 0x40,             /* w.bf16 */
    0x00, 0x3C, 0xFF, 0xFB,                         /* w.f16 */
    0x00, 0x00,                                     /* gap */
    0x00, 0x00, 0x28, 0x42,                         /* w.scalar */
};

START_TEST(reads_a_file_written_by_hand) {
    char *path = in_dir(dir, "hand.safetensors");
    size_t n = write_st(path, HAND_HEADER, 0, HAND_DATA, sizeof HAND_DATA);
    ck_assert_int_eq(n % 8, 0); /* header padded with spaces to 8 bytes */
    SafeTensors st;
    Error err;
    ck_assert_msg(st_open(&st, path, &err), "%s", err.msg);
    ck_assert_uint_eq(st.size, 8 + n + sizeof HAND_DATA);

    /* __metadata__ is not a tensor; the tensors keep the header's order */
    ck_assert_int_eq(st.count, 5);
    ck_assert_ptr_null(st_find(&st, "__metadata__"));
    static const char *const order[] = {"w.f32", "w.bf16", "w.f16", "w.scalar", "w.empty"};
    for (int i = 0; i < 5; i++) {
        ck_assert_str_eq(st.tensors[i].name, order[i]);
        ck_assert_ptr_eq(st_find(&st, order[i]), &st.tensors[i]);
        ck_assert_str_eq(st.tensors[i].file, path);
    }
    ck_assert_ptr_null(st_find(&st, "w"));
    ck_assert_ptr_null(st_find(&st, "W.F32"));

    const Tensor *f = st_find(&st, "w.f32"), *b = st_find(&st, "w.bf16"), *h = st_find(&st, "w.f16");
    const Tensor *s = st_find(&st, "w.scalar"), *e = st_find(&st, "w.empty");
    ck_assert(f->dtype == DTYPE_F32 && f->ndim == 2 && f->shape[0] == 2 && f->shape[1] == 2 && f->numel == 4);
    ck_assert(b->dtype == DTYPE_BF16 && b->ndim == 1 && b->shape[0] == 3 && b->numel == 3);
    ck_assert(h->dtype == DTYPE_F16 && h->ndim == 1 && h->shape[0] == 2 && h->numel == 2);
    ck_assert(s->dtype == DTYPE_F32 && s->ndim == 0 && s->numel == 1);
    ck_assert(e->dtype == DTYPE_BF16 && e->ndim == 2 && e->shape[0] == 0 && e->shape[1] == 4 &&
              e->numel == 0);

    /* the values, through both accessors */
    float v[4];
    tensor_read_f32(f, 0, 4, v);
    ck_assert(v[0] == 1.0f && v[1] == -2.5f && v[2] == 0.15625f && v[3] == 65536.0f);
    tensor_read_f32(f, 2, 2, v); /* the second row */
    ck_assert(v[0] == 0.15625f && v[1] == 65536.0f);
    ck_assert(tensor_get_f32(b, 0) == 1.0f && tensor_get_f32(b, 1) == -0.5f &&
              tensor_get_f32(b, 2) == 3.140625f);
    ck_assert(tensor_get_f32(h, 0) == 1.0f && tensor_get_f32(h, 1) == -65504.0f);
    ck_assert(tensor_get_f32(s, 0) == 42.0f);

    /* aligned data is used where it lies in the mapped file: no copies */
    ck_assert_int_eq(st.n_copies, 0);
    const unsigned char *area = (const unsigned char *)st.map + 8 + n;
    ck_assert_ptr_eq(f->data, area + 0);
    ck_assert_ptr_eq(b->data, area + 16);
    ck_assert_ptr_eq(h->data, area + 22);
    ck_assert_ptr_eq(s->data, area + 28);
    st_close(&st);
    ck_assert_ptr_null(st.map);
    free(path);
}
END_TEST

/* A header that is not padded (the format does not require it) and one padded far
 * beyond its JSON: both read the same. */
START_TEST(header_padding_is_optional) {
    static const char header[] = "{\"x\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[0,4]}}";
    static const unsigned char data[] = {0x80, 0x3F, 0x00, 0xC0}; /* 1.0, -2.0 */
    char *path = in_dir(dir, "pad.safetensors");
    for (int pad = 0; pad < 3; pad++) {
        size_t n = strlen(header) + (size_t)pad * 37; /* 0, 37, 74 trailing spaces */
        unsigned char *file = xcalloc(8 + n + sizeof data, 1);
        for (int i = 0; i < 8; i++) file[i] = (unsigned char)((uint64_t)n >> (8 * i));
        memset(file + 8, ' ', n);
        memcpy(file + 8, header, strlen(header));
        memcpy(file + 8 + n, data, sizeof data);
        write_bytes(path, file, 8 + n + sizeof data);
        free(file);
        SafeTensors st;
        Error err;
        ck_assert_msg(st_open(&st, path, &err), "padding %zu: %s", n, err.msg);
        const Tensor *x = st_find(&st, "x");
        ck_assert_ptr_nonnull(x);
        ck_assert(tensor_get_f32(x, 0) == 1.0f && tensor_get_f32(x, 1) == -2.0f);
        st_close(&st);
    }
    free(path);
}
END_TEST

/* Tensor data at addresses that do not suit the dtype: the reader must hand back an
 * aligned copy holding the right values. The data area starts 1 byte past a
 * multiple of 8, so (area + offset) mod 4 = (1 + offset) mod 4:
 *   a  F32  [3] at 0   -> address ≡ 1 (mod 4): copy
 *   b  BF16 [2] at 12  -> ≡ 1 (mod 2): copy
 *   c  F32  [1] at 17  -> ≡ 2 (mod 4): even, still wrong for a float: copy
 *   d  BF16 [1] at 21  -> ≡ 0 (mod 2): fine where it is
 *   e  F16  [2] at 23  -> ≡ 0 (mod 2): fine where it is */
START_TEST(misaligned_tensors_get_aligned_copies) {
    static const char header[] = "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,12]},"
                                 "\"b\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[12,16]},"
                                 "\"c\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[17,21]},"
                                 "\"d\":{\"dtype\":\"BF16\",\"shape\":[1],\"data_offsets\":[21,23]},"
                                 "\"e\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[23,27]}}";
    static const unsigned char data[27] = {
        0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x20, 0xC0, 0x00, 0x00, 0x28, 0x42, /* a: 1, -2.5, 42 */
        0x49, 0x40, 0x00, 0xBF,                                                 /* b: 3.140625, -0.5 */
        0xEE,                                                                   /* a stray byte */
        0x00, 0x00, 0x20, 0x3E,                                                 /* c: 0.15625 */
        0x80, 0xBF,                                                             /* d: -1 */
        0x00, 0x3C, 0xFF, 0x7B,                                                 /* e: 1, 65504 */
    };
    char *path = in_dir(dir, "misaligned.safetensors");
    size_t n = write_st(path, header, 1, data, sizeof data);
    SafeTensors st;
    Error err;
    ck_assert_msg(st_open(&st, path, &err), "%s", err.msg);
    const unsigned char *area = (const unsigned char *)st.map + 8 + n;
    ck_assert_int_eq((uintptr_t)area % 8, 1);
    for (int i = 0; i < st.count; i++) {
        const Tensor *t = &st.tensors[i];
        ck_assert_msg((uintptr_t)t->data % (uintptr_t)dtype_size(t->dtype) == 0, "%s is not aligned",
                      t->name);
    }
    ck_assert_int_eq(st.n_copies, 3);
    const Tensor *a = st_find(&st, "a"), *b = st_find(&st, "b"), *c = st_find(&st, "c");
    const Tensor *d = st_find(&st, "d"), *e = st_find(&st, "e");
    ck_assert(tensor_get_f32(a, 0) == 1.0f && tensor_get_f32(a, 1) == -2.5f && tensor_get_f32(a, 2) == 42.0f);
    ck_assert(tensor_get_f32(b, 0) == 3.140625f && tensor_get_f32(b, 1) == -0.5f);
    ck_assert(tensor_get_f32(c, 0) == 0.15625f);
    ck_assert(tensor_get_f32(d, 0) == -1.0f);
    ck_assert(tensor_get_f32(e, 0) == 1.0f && tensor_get_f32(e, 1) == 65504.0f);
    float row[3];
    tensor_read_f32(a, 0, 3, row);
    ck_assert(row[0] == 1.0f && row[1] == -2.5f && row[2] == 42.0f);
    /* the aligned ones are not copied */
    ck_assert_ptr_eq(d->data, area + 21);
    ck_assert_ptr_eq(e->data, area + 23);
    st_close(&st);
    free(path);
}
END_TEST

/* Pages the process holds (Linux: /proc/self/statm, its second number). */
static long resident_pages(void) {
    long size = 0, resident = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
        fclose(f);
    }
    return resident;
}

/* st_release_pages gives a tensor's pages back and its numbers stay: read again, they
 * come back from the file. The resident memory falls by about the tensor's pages. A
 * tensor that is an aligned copy (its memory the only place its numbers are), or that
 * lives in another file's mapping, is left alone (false). */
START_TEST(released_pages_come_back_from_the_file) {
    enum { N = 1 << 18 }; /* floats: 1 MB, 256 pages */
    float *values = xmalloc(sizeof(float) * N);
    for (int i = 0; i < N; i++) values[i] = (float)i * 0.5f - 7.0f;
    char header[256];
    snprintf(header, sizeof header,
             "{\"big\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[0,%d]},"
             "\"odd\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[%d,%d]}}",
             N, 4 * N, 4 * N + 1, 4 * N + 5);
    unsigned char *data = xcalloc(4 * (size_t)N + 5, 1);
    memcpy(data, values, 4 * (size_t)N);
    memcpy(data + 4 * (size_t)N + 1, values + 3, 4); /* odd: misaligned, so copied */
    char *path = in_dir(dir, "big.safetensors");
    write_st(path, header, 0, data, 4 * (size_t)N + 5);
    SafeTensors st, other;
    Error err;
    ck_assert_msg(st_open(&st, path, &err), "%s", err.msg);
    ck_assert_msg(st_open(&other, path, &err), "%s", err.msg);
    const Tensor *big = st_find(&st, "big"), *odd = st_find(&st, "odd");
    volatile float sum = 0;
    for (int i = 0; i < N; i += 1024) sum += ((const float *)big->data)[i]; /* every page in */
    long before = resident_pages();
    ck_assert(st_release_pages(&st, big));
    long after = resident_pages();
    ck_assert(!st_release_pages(&st, odd));                   /* an aligned copy */
    ck_assert(!st_release_pages(&other, big));                /* another file's mapping */
    ck_assert(tensor_get_f32(odd, 0) == values[3]);           /* the copy untouched */
    ck_assert(memcmp(big->data, values, 4 * (size_t)N) == 0); /* back from the file */
    printf("ok   st_release_pages: %ld of the tensor's 256 pages left the process, and came back\n",
           before - after);
    ck_assert_msg(before < 0 || before - after >= 200, "only %ld pages given back", before - after);
    st_close(&st), st_close(&other);
    free(values), free(data), free(path);
    (void)sum;
}
END_TEST

/* What /proc/self/smaps says of the mapping that holds address a: its permissions,
 * whether it is a file's, and its AnonHugePages in kB. False when no mapping holds a. */
static bool mapping_of(const void *a, char perms[5], bool *file, long *huge_kb) {
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return false;
    char line[512];
    bool in = false, found = false;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi, inode;
        char p[5];
        if (sscanf(line, "%lx-%lx %4s %*s %*s %lu", &lo, &hi, p, &inode) == 4) {
            if (in) break; /* past the one wanted */
            in = (uintptr_t)a >= lo && (uintptr_t)a < hi;
            if (in) memcpy(perms, p, 5), *file = inode != 0, *huge_kb = 0, found = true;
        } else if (in) {
            sscanf(line, "AnonHugePages: %ld kB", huge_kb);
        }
    }
    fclose(f);
    return found;
}

/* st_hold moves the whole 2 MB pieces of a tensor's bytes into memory of the process's
 * own (in huge pages, where Linux offers them), at the same addresses, read-only: the
 * numbers are the same, the resident memory does not grow by the copy, and a release
 * afterwards leaves them (they are the only copy now). */
START_TEST(held_bytes_stay_where_they_were) {
    enum { N = 9 << 18 }; /* floats: 9 MB, so at least three whole 2 MB pieces wherever it starts */
    float *values = xmalloc(sizeof(float) * N);
    for (int i = 0; i < N; i++) values[i] = (float)i * 0.25f - 3.0f;
    char header[128];
    snprintf(header, sizeof header, "{\"big\":{\"dtype\":\"F32\",\"shape\":[%d],\"data_offsets\":[0,%d]}}", N,
             4 * N);
    char *path = in_dir(dir, "held.safetensors");
    write_st(path, header, 0, values, 4 * (size_t)N);
    SafeTensors st;
    Error err;
    ck_assert_msg(st_open(&st, path, &err), "%s", err.msg);
    const Tensor *big = st_find(&st, "big");
    const char *begin = big->data, *end = begin + 4 * (size_t)N;
    uintptr_t lo = ((uintptr_t)begin + ST_HOLD_CHUNK - 1) & ~(ST_HOLD_CHUNK - 1),
              hi = (uintptr_t)end & ~(ST_HOLD_CHUNK - 1);
    int64_t expected = thp_offered() ? (int64_t)(hi - lo) : 0;
    volatile float sum = 0;
    for (int i = 0; i < N; i += 1024) sum += ((const float *)big->data)[i]; /* every page in */
    long before = resident_pages();

    ck_assert_int_eq(st_hold(&st, begin - 4096 * 4096, end), 0); /* not inside the mapping: nothing */
    /* the second whole piece, then the whole range: the second call moves the pieces on
     * both sides of it */
    int64_t moved = st_hold(&st, (const char *)lo + ST_HOLD_CHUNK, (const char *)lo + 2 * ST_HOLD_CHUNK);
    ck_assert_int_eq(moved, expected ? (int64_t)ST_HOLD_CHUNK : 0);
    moved += st_hold(&st, begin, end);
    long after = resident_pages();
    ck_assert_int_eq(moved, expected);
    ck_assert(memcmp(big->data, values, 4 * (size_t)N) == 0);
    ck_assert_msg(before < 0 || after - before <= 512, "the copy left %ld more pages resident",
                  after - before);
    ck_assert_int_eq(st_hold(&st, begin, end), 0); /* held already: nothing more */
    char perms[5];
    bool file;
    long huge_kb;
    ck_assert(mapping_of((const void *)(lo + ST_HOLD_CHUNK), perms, &file, &huge_kb));
    if (moved > 0) {
        ck_assert_msg(!file, "the held bytes are still the file's mapping");
        ck_assert_str_eq(perms, "r--p");
        ck_assert_msg(huge_kb >= 2048, "held in %ld kB of huge pages", huge_kb);
    }
    if ((uintptr_t)begin < lo) /* the bytes before the first whole piece stay the file's */
        ck_assert(mapping_of(begin, perms, &file, &huge_kb) && file);
    ck_assert(st_release_pages(&st, big));
    ck_assert(memcmp(big->data, values, 4 * (size_t)N) == 0); /* the held pieces stayed, the rest came back */
    printf("ok   st_hold: %lld of the tensor's %d bytes moved into %s, the same numbers, %ld pages more "
           "resident\n",
           (long long)moved, 4 * N, expected ? "huge pages" : "nothing (no huge pages offered)",
           after - before);
    st_close(&st);
    free(values), free(path);
    (void)sum;
}
END_TEST

/* Whether path opens under a memory limit of limit bytes (the limit is then the
 * default again); err says why not. */
static bool opens_within(const char *path, uint64_t limit, Error *err) {
    mem_set_limit(limit);
    SafeTensors st;
    bool opened = st_open(&st, path, err);
    mem_set_limit(0);
    if (opened) st_close(&st);
    return opened;
}

/* An aligned copy counts against the memory limit: beyond it the open fails with one
 * line (the reader never exits on a file's account). */
START_TEST(aligned_copies_respect_the_memory_limit) {
    static const char header[] =
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[262144],\"data_offsets\":[0,1048576]},"
        "\"b\":{\"dtype\":\"F32\",\"shape\":[262144],\"data_offsets\":[1048576,2097152]}}";
    unsigned char *data = xcalloc(2097152, 1);
    char *path = in_dir(dir, "misaligned.safetensors");
    write_st(path, header, 1, data, 2097152); /* both tensors start 1 byte off */
    free(data);
    Error err = {{0}};
    ck_assert_msg(!opens_within(path, 1500000, &err), "two copies of 1 MiB under a 1.5 MB limit");
    ck_assert_error(err, path, "aligned copy of the misaligned tensor 'b'",
                    "would need about 2.1 MB of memory (2,097,152 bytes)");
    SafeTensors st;
    ck_assert_msg(st_open(&st, path, &err), "%s", err.msg);
    ck_assert_int_eq(st.n_copies, 2);
    st_close(&st);
    free(path);
}
END_TEST

/* The parsed header counts against the memory limit (a JSON node and a tensor entry
 * for every few bytes): 20,000 empty tensors, 1.2 MB of header, take far more than
 * 1.2 MB to read. Under a limit of 5 MB the open fails with one line naming the
 * file; with the default limit it opens. */
START_TEST(header_counts_against_the_memory_limit) {
    char *header = header_of_empty_tensors(20000), *path = in_dir(dir, "many.safetensors");
    write_st(path, header, 0, NULL, 0);
    free(header);
    Error err = {{0}};
    ck_assert_msg(!opens_within(path, 5000000, &err), "a header of 20,000 tensors read under a 5 MB limit");
    ck_assert_error(err, path, "reading its header of", "would need about", "more than the limit of 5.0 MB");
    SafeTensors st;
    ck_assert_msg(st_open(&st, path, &err), "%s", err.msg);
    ck_assert_int_eq(st.count, 20000);
    st_close(&st);
    free(path);
}
END_TEST

/* Offsets beyond INT_MAX and beyond 4 GiB (a real 1.7 GB shard goes past INT_MAX):
 * a sparse file whose one real tensor sits 5 GiB into the data area. */
START_TEST(offsets_beyond_4_gib) {
    const uint64_t far = UINT64_C(5) << 30; /* 5368709120 */
    char header[256];
    snprintf(header, sizeof header,
             "{\"near\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
             "\"far\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[%llu,%llu]}}",
             (unsigned long long)far, (unsigned long long)(far + 16));
    static const unsigned char near_data[8] = {0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0x40}; /* 1, 2 */
    static const unsigned char far_data[16] = {0x00, 0x00, 0xC0, 0x3F, 0x00, 0x00, 0x40, 0xC0,  /* 1.5, -3 */
                                               0x00, 0x00, 0xE8, 0x40, 0x00, 0x00, 0x28, 0x42}; /* 7.25, 42 */
    char *path = in_dir(dir, "far.safetensors");
    size_t n = write_st(path, header, 0, near_data, sizeof near_data);
    int fd = open(path, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)(8 + n + far + 16)), 0); /* a hole, no disk space */
    ck_assert_int_eq(pwrite(fd, far_data, 16, (off_t)(8 + n + far)), 16);
    close(fd);

    SafeTensors st;
    Error err;
    ck_assert_msg(st_open(&st, path, &err), "%s", err.msg);
    const Tensor *t = st_find(&st, "far");
    ck_assert_ptr_nonnull(t);
    ck_assert_ptr_eq(t->data, (const unsigned char *)st.map + 8 + n + far);
    ck_assert(tensor_get_f32(t, 0) == 1.5f && tensor_get_f32(t, 1) == -3.0f &&
              tensor_get_f32(t, 2) == 7.25f && tensor_get_f32(t, 3) == 42.0f);
    ck_assert(tensor_get_f32(st_find(&st, "near"), 1) == 2.0f);
    st_close(&st);
    free(path);
}
END_TEST

/* ---- the writer ------------------------------------------------------------------- */

static void fill_quarters(void *ctx, int64_t first, int64_t count, float *out) {
    (void)ctx;
    for (int64_t i = 0; i < count; i++) out[i] = (float)(first + i) * 0.25f - 1000.0f; /* exact in float32 */
}

/* The values every dtype is written from, and what BF16 and F16 must give back
 * (worked out by hand: see test_tensor.c for the rounding rules). F32 gives back
 * the value itself. */
static const struct {
    float value, bf16, f16;
} EDGE[] = {
    {0.0f, 0.0f, 0.0f},
    {-0.0f, -0.0f, -0.0f},
    {1.0f, 1.0f, 1.0f},
    {-2.5f, -2.5f, -2.5f},
    {0x1p-149f, 0.0f, 0.0f},               /* far below the smallest subnormal of either */
    {0x1p-133f, 0x1p-133f, 0.0f},          /* bf16's smallest subnormal; far below f16's 2^-24 */
    {0x1p-24f, 0x1p-24f, 0x1p-24f},        /* f16's smallest subnormal; a plain power of two in bf16 */
    {65504.0f, 65536.0f, 65504.0f},        /* f16's largest; bf16 drops 0xE000 of 0x477FE000: up */
    {0x1.fffffep127f, INFINITY, INFINITY}, /* FLT_MAX: beyond the largest finite of either */
    {INFINITY, INFINITY, INFINITY},
    {-INFINITY, -INFINITY, -INFINITY},
    {NAN, NAN, NAN},
    {0x1.02p0f, 0x1.02p0f, 0x1.02p0f}, /* 1 + 2^-7: the next bf16 after 1 */
    {0x1.008p0f, 1.0f, 0x1.008p0f},    /* 1 + 2^-9: under half a bf16 step, down; f16 holds it */
};
#define N_EDGE ((int)ARRAY_LEN(EDGE))

static bool same_value(float a, float b) {
    return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

START_TEST(writer_round_trip_every_dtype) {
    char *path = in_dir(dir, "written.safetensors");
    const char *odd_name = "odd \"name\" with \\ and \t"; /* must be escaped in the JSON header */
    static const float small[2] = {1.0f, -2.0f};
    float edge[N_EDGE];
    for (int i = 0; i < N_EDGE; i++) edge[i] = EDGE[i].value;
    StWriter w;
    stw_init(&w);
    int64_t edge_shape[1] = {N_EDGE}, mat_shape[2] = {7, 2}, big_shape[1] = {(1 << 20) + 12345};
    int64_t zero_shape[3] = {3, 1, 4}, small_shape[1] = {2};
    stw_add(&w, "edge.bf16", DTYPE_BF16, 1, edge_shape, edge);
    stw_add(&w, "edge.f16", DTYPE_F16, 1, edge_shape, edge);
    stw_add(&w, "edge.f32", DTYPE_F32, 1, edge_shape, edge);
    stw_add(&w, "matrix", DTYPE_F32, 2, mat_shape, edge); /* the first 14 values as [7, 2] */
    stw_add(&w, "zeros", DTYPE_BF16, 3, zero_shape, NULL);
    /* more values than the writer converts in one chunk (1 << 20) */
    stw_add_generated(&w, "generated", DTYPE_F32, 1, big_shape, fill_quarters, NULL);
    stw_add(&w, odd_name, DTYPE_F32, 1, small_shape, small);
    uint64_t data_bytes = 0;
    Error err;
    ck_assert_msg(stw_write(&w, path, &data_bytes, &err), "%s", err.msg);
    stw_free(&w);
    /* 14·2 + 14·2 + 14·4 + 14·4 + 12·2 + 1060921·4 + 2·4 */
    ck_assert_uint_eq(data_bytes, 28 + 28 + 56 + 56 + 24 + UINT64_C(4243684) + 8);

    /* The file, byte by byte: the length, a header padded to 8, the first tensor. */
    size_t len;
    unsigned char *raw = (unsigned char *)slurp(path, &len);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = n << 8 | raw[i];
    ck_assert_uint_eq(n % 8, 0);
    ck_assert_uint_eq(len, 8 + n + data_bytes);
    ck_assert_int_eq(raw[8], '{');
    size_t last = 8 + n - 1;
    while (raw[last] == ' ') last--;
    ck_assert_int_eq(raw[last], '}');
    /* edge.bf16 is the first tensor: 0 -> 00 00, -0 -> 00 80, 1 -> 80 3F, -2.5 -> 20 C0 */
    static const unsigned char want_bytes[8] = {0x00, 0x00, 0x00, 0x80, 0x80, 0x3F, 0x20, 0xC0};
    ck_assert_int_eq(memcmp(raw + 8 + n, want_bytes, 8), 0);
    free(raw);

    SafeTensors st;
    ck_assert_msg(st_open(&st, path, &err), "%s", err.msg);
    ck_assert_int_eq(st.count, 7);
    const Tensor *tb = st_find(&st, "edge.bf16"), *th = st_find(&st, "edge.f16"),
                 *tf = st_find(&st, "edge.f32");
    ck_assert(tb && tb->dtype == DTYPE_BF16 && th && th->dtype == DTYPE_F16 && tf && tf->dtype == DTYPE_F32);
    for (int i = 0; i < N_EDGE; i++) {
        float b = tensor_get_f32(tb, i), h = tensor_get_f32(th, i), f = tensor_get_f32(tf, i);
        ck_assert_msg(same_value(b, EDGE[i].bf16), "BF16 of %a: got %a, want %a", edge[i], b, EDGE[i].bf16);
        ck_assert_msg(same_value(h, EDGE[i].f16), "F16 of %a: got %a, want %a", edge[i], h, EDGE[i].f16);
        ck_assert_msg(same_value(f, edge[i]), "F32 of %a: got %a", edge[i], f);
    }
    const Tensor *m = st_find(&st, "matrix");
    ck_assert(m->ndim == 2 && m->shape[0] == 7 && m->shape[1] == 2);
    ck_assert(tensor_get_f32(m, 3) == -2.5f); /* row 1, column 1 */

    const Tensor *z = st_find(&st, "zeros");
    ck_assert(z->ndim == 3 && z->shape[0] == 3 && z->shape[1] == 1 && z->shape[2] == 4 && z->numel == 12);
    for (int i = 0; i < 12; i++) ck_assert(tensor_get_f32(z, i) == 0.0f);

    const Tensor *g = st_find(&st, "generated");
    ck_assert_int_eq(g->numel, (1 << 20) + 12345);
    for (int64_t i = 0; i < g->numel; i++)
        if (tensor_get_f32(g, i) != (float)i * 0.25f - 1000.0f)
            ck_abort_msg("generated[%lld] = %g, want %g", (long long)i, tensor_get_f32(g, i),
                         (float)i * 0.25f - 1000.0f);

    const Tensor *o = st_find(&st, odd_name);
    ck_assert_ptr_nonnull(o);
    ck_assert(tensor_get_f32(o, 0) == 1.0f && tensor_get_f32(o, 1) == -2.0f);
    st_close(&st);
    free(path);
}
END_TEST

START_TEST(writer_reports_an_unwritable_path) {
    char *path = in_dir(dir, "no/such/folder/x.safetensors");
    StWriter w;
    stw_init(&w);
    int64_t shape[1] = {1};
    static const float one = 1.0f;
    stw_add(&w, "x", DTYPE_F32, 1, shape, &one);
    Error err = {{0}};
    ck_assert(!stw_write(&w, path, NULL, &err));
    ck_assert_error(err, path, "cannot write", "No such file");
    stw_free(&w);
    free(path);
}
END_TEST

/* Names in dir other than . and .. (what a failed or finished write left). */
static int files_in(const char *d) {
    char *cmd = str_printf("test $(ls -A '%s' | wc -l) -eq 0 && exit 0; exit $(ls -A '%s' | wc -l)", d, d);
    int rc = system(cmd);
    free(cmd);
    return WEXITSTATUS(rc);
}

/* A file of one F32 tensor "x" of n values i + first. */
static bool write_counting(const char *path, int64_t n, float first, Error *err) {
    float *v = xmalloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) v[i] = (float)i + first;
    StWriter w;
    stw_init(&w);
    stw_add(&w, "x", DTYPE_F32, 1, (int64_t[]){n}, v);
    bool ok = stw_write(&w, path, NULL, err);
    stw_free(&w);
    free(v);
    return ok;
}

/* The file is replaced whole or not at all: a write that fails half-way (here the
 * file-size limit, as a full disk would) leaves the old file as it was and nothing
 * beside it; one that succeeds keeps the old file's permissions, and a symbolic link
 * stays a link to the replaced file. */
START_TEST(writer_replaces_whole_or_not_at_all) {
    char *path = in_dir(dir, "state.safetensors"), *link = in_dir(dir, "link.safetensors");
    Error err = {{0}};
    ck_assert_msg(write_counting(path, 1000, 0, &err), "%s", err.msg);
    ck_assert_int_eq(chmod(path, 0640), 0);
    ck_assert_msg(write_counting(path, 1000, 7, &err), "%s", err.msg);
    struct stat sb;
    ck_assert(stat(path, &sb) == 0 && (sb.st_mode & 07777) == 0640);
    ck_assert_int_eq(files_in(dir), 1);
    size_t before_len;
    char *before = slurp(path, &before_len);

    signal(SIGXFSZ, SIG_IGN); /* the write fails with EFBIG instead of ending the process */
    struct rlimit old, small = {8192, RLIM_INFINITY};
    getrlimit(RLIMIT_FSIZE, &old);
    small.rlim_max = old.rlim_max;
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &small), 0);
    bool ok = write_counting(path, 1 << 20, 1, &err); /* 4 MiB: far past the limit */
    setrlimit(RLIMIT_FSIZE, &old);
    ck_assert_msg(!ok, "a 4 MiB file under an 8 KiB limit");
    ck_assert_error(err, "cannot write", path, "File too large");
    size_t after_len;
    char *after = slurp(path, &after_len);
    ck_assert_msg(after_len == before_len && memcmp(after, before, before_len) == 0,
                  "the failed write changed the old file");
    ck_assert_msg(files_in(dir) == 1, "the failed write left a file beside it");
    free(after);

    ck_assert_int_eq(symlink("state.safetensors", link), 0);
    ck_assert_msg(write_counting(link, 3, 100, &err), "%s", err.msg);
    ck_assert(lstat(link, &sb) == 0 && S_ISLNK(sb.st_mode));
    SafeTensors st;
    ck_assert_msg(st_open(&st, path, &err), "%s", err.msg);
    ck_assert(st_find(&st, "x")->numel == 3 && tensor_get_f32(st_find(&st, "x"), 2) == 102.0f);
    st_close(&st);
    ck_assert_int_eq(files_in(dir), 2);
    free(before), free(path), free(link);
}
END_TEST

/* "__metadata__": what the writer adds, the reader gives back (string values). */
START_TEST(metadata_round_trips) {
    char *path = in_dir(dir, "meta.safetensors");
    StWriter w;
    stw_init(&w);
    stw_add(&w, "x", DTYPE_F32, 1, (int64_t[]){1}, (const float[]){1.0f});
    stw_set_metadata(&w, "workbook.synthetic", "random weights");
    stw_set_metadata(&w, "odd \"key\"", "a\\b\n");
    Error err;
    ck_assert_msg(stw_write(&w, path, NULL, &err), "%s", err.msg);
    stw_free(&w);
    SafeTensors st;
    ck_assert_msg(st_open(&st, path, &err), "%s", err.msg);
    ck_assert_str_eq(st_metadata(&st, "workbook.synthetic"), "random weights");
    ck_assert_str_eq(st_metadata(&st, "format"), "pt");
    ck_assert_str_eq(st_metadata(&st, "odd \"key\""), "a\\b\n");
    ck_assert_ptr_null(st_metadata(&st, "absent"));
    st_close(&st);
    /* by hand: a value that is not a string is not kept, and the file still opens */
    write_st(path,
             "{\"__metadata__\":{\"n\":1,\"s\":\"t\"},\"x\":{\"dtype\":\"F32\",\"shape\":[],"
             "\"data_offsets\":[0,4]}}",
             0, "\0\0\x80\x3f", 4);
    ck_assert_msg(st_open(&st, path, &err), "%s", err.msg);
    ck_assert_ptr_null(st_metadata(&st, "n"));
    ck_assert_str_eq(st_metadata(&st, "s"), "t");
    st_close(&st);
    free(path);
}
END_TEST

/* ---- broken files --------------------------------------------------------------- */

typedef struct {
    const char *what;
    const char *header;
    size_t data_len; /* zero bytes after the header */
    const char *says[3];
} BadHeader;

static const BadHeader BAD_HEADERS[] = {
    {"not JSON", "{\"a\": {\"dtype\": ", 8, {"not valid JSON"}},
    {"only spaces", "        ", 0, {"not valid JSON"}},
    {"JSON array", "[1, 2, 3]", 0, {"not an object"}},
    {"JSON string", "\"weights\"", 0, {"not an object"}},
    {"entry not an object", "{\"a\": 5}", 0, {"'a'", "not an object"}},
    {"no dtype", "{\"a\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4, {"'a'", "dtype"}},
    {"unknown dtype F64",
     "{\"a\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}}",
     8,
     {"'a'", "F64"}},
    {"unknown dtype I64",
     "{\"w\":{\"dtype\":\"I64\",\"shape\":[2],\"data_offsets\":[0,16]}}",
     16,
     {"'w'", "I64"}},
    {"dtype not a string",
     "{\"a\":{\"dtype\":32,\"shape\":[1],\"data_offsets\":[0,4]}}",
     4,
     {"'a'", "dtype"}},
    {"no shape", "{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4, {"'a'", "shape"}},
    {"negative dimension",
     "{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}",
     4,
     {"'a'", "shape"}},
    {"fractional dimension",
     "{\"a\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}",
     4,
     {"'a'", "shape"}},
    {"nine dimensions",
     "{\"a\":{\"dtype\":\"F32\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,4]}}",
     4,
     {"'a'", "9 dimensions"}},
    {"impossible shape",
     "{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,4]}}",
     4,
     {"'a'", "large shape"}},
    {"no offsets", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4, {"'a'", "data_offsets"}},
    {"three offsets",
     "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}",
     8,
     {"'a'", "data_offsets"}},
    {"negative offset",
     "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[-4,0]}}",
     4,
     {"'a'", "data_offsets"}},
    {"offset beyond 2^53",
     "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,1e300]}}",
     4,
     {"'a'", "data_offsets"}},
    {"offsets reversed",
     "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,4]}}",
     8,
     {"'a'", "[8, 4]", "backwards"}},
    {"byte length != shape x dtype",
     "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}",
     8,
     {"'a'", "has 8 bytes", "[3] of F32 needs 12"}},
    {"byte length != shape x dtype (BF16)",
     "{\"a\":{\"dtype\":\"BF16\",\"shape\":[2,2],\"data_offsets\":[0,16]}}",
     16,
     {"'a'", "has 16 bytes", "[2, 2] of BF16 needs 8"}},
    {"offsets past the data",
     "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}",
     8,
     {"'a'", "beyond the 8 bytes of data"}},
    {"offsets far past the data",
     "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4000000000,4000000004]}}",
     8,
     {"'a'", "beyond"}},
    {"overlapping tensors",
     "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
     "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
     12,
     {"'a'", "'b'", "overlap"}},
    {"one tensor inside another",
     "{\"big\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},"
     "\"small\":{\"dtype\":\"BF16\",\"shape\":[2],\"data_offsets\":[4,8]}}",
     16,
     {"'big'", "'small'", "overlap"}},
    {"the same bytes twice",
     "{\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
     "\"a\":{\"dtype\":\"BF16\",\"shape\":[4],\"data_offsets\":[0,8]}}",
     8,
     {"'a'", "'b'", "overlap"}},
    /* big covers [0,16); the empty tensor at 8 sorts between big and c, and must
     * not hide that c's [12,16) lies inside big */
    {"overlap behind an empty tensor",
     "{\"big\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},"
     "\"empty\":{\"dtype\":\"BF16\",\"shape\":[0],\"data_offsets\":[8,8]},"
     "\"c\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[12,16]}}",
     16,
     {"'big'", "'c'", "overlap"}},
    {"a name twice",
     "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
     "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
     8,
     {"'a'", "twice"}},
    {"__metadata__ not an object",
     "{\"__metadata__\":\"pt\",\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}",
     4,
     {"__metadata__", "not an object"}},
    /* a header length that is too large swallows the start of the data: the JSON
     * then ends early and binary bytes follow it inside the header */
    {"bytes after the JSON",
     "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}\x01\x02\x03\x04",
     4,
     {"after the JSON"}},
    {"a second JSON value", "{}{\"a\":1}", 0, {"after the JSON"}},
    /* names and strings from the file reach the message escaped: a newline cannot
     * split the line, a terminal escape cannot reach the terminal */
    {"a name with a newline and a terminal escape",
     "{\"evil\\u001b[2J\\nname\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}",
     4,
     {"'evil\\x1b[2J\\nname'", "has 4 bytes"}},
    {"a dtype with control characters",
     "{\"a\":{\"dtype\":\"F32\\r\\u0007\",\"shape\":[1],\"data_offsets\":[0,4]}}",
     4,
     {"'a'", "dtype F32\\r\\x07,"}},
};

START_TEST(bad_header_is_one_clear_error) {
    const BadHeader *c = &BAD_HEADERS[_i];
    char *path = in_dir(dir, "bad.safetensors");
    unsigned char *zeros = xcalloc(c->data_len + 1, 1);
    write_st(path, c->header, 0, zeros, c->data_len);
    free(zeros);
    SafeTensors st;
    Error err = {{0}};
    bool opened = st_open(&st, path, &err);
    if (opened) st_close(&st);
    ck_assert_msg(!opened, "%s: the reader accepted it", c->what);
    ck_assert_error(err, path);
    for (int k = 0; k < 3 && c->says[k]; k++)
        ck_assert_msg(strstr(err.msg, c->says[k]), "%s: error \"%s\" does not say \"%s\"", c->what, err.msg,
                      c->says[k]);
    /* a failed open leaves nothing behind */
    ck_assert(st.map == NULL && st.tensors == NULL && st.count == 0 && st.path == NULL);
    free(path);
}
END_TEST

/* Files broken before the header: raw bytes, no helper. */
static void expect_open_error(const char *path, const char *says1, const char *says2) {
    SafeTensors st;
    Error err = {{0}};
    bool opened = st_open(&st, path, &err);
    if (opened) st_close(&st);
    ck_assert_msg(!opened, "%s was accepted", path);
    ck_assert_error(err, path, says1, says2);
}

START_TEST(missing_or_truncated_file_is_one_clear_error) {
    char *path = in_dir(dir, "f.safetensors");
    expect_open_error(path, "cannot open", "No such file"); /* not there yet */
    expect_open_error(dir, "not a regular file", "");       /* a folder */

    write_bytes(path, "", 0);
    expect_open_error(path, "0 bytes", "too short");
    write_bytes(path, "\x10\x00\x00\x00\x00", 5); /* cut inside the length */
    expect_open_error(path, "5 bytes", "too short");

    /* the header length says 1000 but only 12 bytes follow it */
    static const unsigned char cut[20] = {0xE8, 0x03, 0,   0,   0,   0,   0,   0,   '{', '"',
                                          'a',  '"',  ':', '{', '"', 'd', 't', 'y', 'p', 'e'};
    write_bytes(path, cut, sizeof cut);
    expect_open_error(path, "header length 1000", "past the end of the 20-byte file");

    /* lengths that cannot be a header: 0, and beyond the format's cap of 10^8 bytes */
    static const unsigned char zero_len[10] = {0, 0, 0, 0, 0, 0, 0, 0, '{', '}'};
    write_bytes(path, zero_len, sizeof zero_len);
    expect_open_error(path, "header length 0", "not sane");
    static const unsigned char over_cap[10] = {0x01, 0xE1, 0xF5, 0x05, 0, 0, 0, 0, '{', '}'}; /* 10^8 + 1 */
    write_bytes(path, over_cap, sizeof over_cap);
    expect_open_error(path, "header length 100000001", "not sane");
    static const unsigned char huge_len[10] = {0, 0, 0, 0, 0, 0, 0, 0x80, '{', '}'}; /* 2^63 */
    write_bytes(path, huge_len, sizeof huge_len);
    expect_open_error(path, "header length 9223372036854775808", "not sane");
    free(path);
}
END_TEST

int main(void) {
    Suite *s = suite_create("safetensors");
    TCase *read = tcase_with_scratch("read");
    tcase_add_checked_fixture(read, setup, teardown);
    tcase_set_timeout(read, 60);
    tcase_add_test(read, reads_a_file_written_by_hand);
    tcase_add_test(read, header_padding_is_optional);
    tcase_add_test(read, misaligned_tensors_get_aligned_copies);
    tcase_add_test(read, released_pages_come_back_from_the_file);
    tcase_add_test(read, held_bytes_stay_where_they_were);
    tcase_add_test(read, aligned_copies_respect_the_memory_limit);
    tcase_add_test(read, offsets_beyond_4_gib);
    tcase_add_test(read, header_counts_against_the_memory_limit);
    suite_add_tcase(s, read);

    TCase *write = tcase_with_scratch("write");
    tcase_add_checked_fixture(write, setup, teardown);
    tcase_set_timeout(write, 60);
    tcase_add_test(write, writer_round_trip_every_dtype);
    tcase_add_test(write, writer_reports_an_unwritable_path);
    tcase_add_test(write, writer_replaces_whole_or_not_at_all);
    tcase_add_test(write, metadata_round_trips);
    suite_add_tcase(s, write);

    TCase *bad = tcase_with_scratch("bad input");
    tcase_add_checked_fixture(bad, setup, teardown);
    tcase_add_loop_test(bad, bad_header_is_one_clear_error, 0, (int)ARRAY_LEN(BAD_HEADERS));
    tcase_add_test(bad, missing_or_truncated_file_is_one_clear_error);
    suite_add_tcase(s, bad);
    return run_suite(s);
}
