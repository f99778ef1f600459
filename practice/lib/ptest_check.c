/* ptest_check.c — the checker half (ptest_check.h): reads the records a runner wrote
 * (as untrusted data), runs one case's checks, prints its verdict lines. */
#include "ptest_check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORDS_MAX ((size_t)64 << 20) /* more than the judge lets a runner write */

/* ---- the verdict lines --------------------------------------------------------------- */

/* One line on stdout: the kind, a space, the text with control characters escaped
 * (a newline as \n, a tab as \t, others as \xNN), so that one line stays one line. */
static void verdict_line(const char *kind, const char *text) {
    fputs(kind, stdout);
    if (*text) putchar(' ');
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\n')
            fputs("\\n", stdout);
        else if (*p == '\t')
            fputs("\\t", stdout);
        else if (*p < 0x20 || *p == 0x7f)
            printf("\\x%02x", *p);
        else
            putchar(*p);
    }
    putchar('\n');
}

static char *vformat(const char *fmt, va_list ap) {
    va_list again;
    va_copy(again, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    char *s = malloc(len > 0 ? (size_t)len + 1 : 1);
    if (!s) pt_harness_error("out of memory");
    vsnprintf(s, (size_t)len + 1, fmt, again);
    va_end(again);
    return s;
}

#define MAX_NOTES 24
static char *notes[MAX_NOTES];
static int n_notes;

void pt_note(const char *fmt, ...) {
    if (n_notes == MAX_NOTES) return;
    va_list ap;
    va_start(ap, fmt);
    notes[n_notes++] = vformat(fmt, ap);
    va_end(ap);
}

_Noreturn void pt_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *msg = vformat(fmt, ap);
    va_end(ap);
    verdict_line("FAIL", msg);
    for (int i = 0; i < n_notes; i++) verdict_line("NOTE", notes[i]);
    fflush(stdout);
    exit(0); /* the case is decided */
}

_Noreturn static void broken(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn static void broken(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *msg = vformat(fmt, ap);
    va_end(ap);
    verdict_line("BROKEN", msg);
    fflush(stdout);
    exit(0);
}

/* ---- the records ------------------------------------------------------------------------- */

typedef struct {
    PtKind kind;
    char name[PT_NAME_MAX + 1];
    uint64_t count;
    const unsigned char *values; /* count values of elem_size(kind) bytes, little-endian */
} Record;

static Record *records;
static size_t n_records;

static size_t elem_size(int kind) {
    switch (kind) {
    case PT_F32:
    case PT_I32:
    case PT_U32:
        return 4;
    case PT_U16:
        return 2;
    case PT_I64:
    case PT_U64:
        return 8;
    case PT_BYTES:
    case PT_NULL:
        return 1;
    }
    return 0;
}

static unsigned char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) broken("the runner's outputs %s cannot be read", path);
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    for (;;) {
        if (!buf) pt_harness_error("out of memory");
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        if (cap >= RECORDS_MAX) broken("the outputs are larger than %zu MiB", RECORDS_MAX >> 20);
        cap *= 2;
        buf = realloc(buf, cap);
    }
    if (ferror(f)) broken("the runner's outputs %s cannot be read", path);
    fclose(f);
    *len = n;
    return buf;
}

/* Every record in order; the stream must end with PT_END and nothing after it. */
static void load_records(const char *path) {
    size_t len, at = 0;
    const unsigned char *data = read_all(path, &len);
    bool ended = false;
    while (at < len) {
        if (data[at] == PT_END) {
            ended = at + 1 == len;
            if (!ended) broken("%zu bytes after the end of the outputs", len - at - 1);
            break;
        }
        size_t elem = elem_size(data[at]);
        if (elem == 0) broken("byte %zu of the outputs is not a record (0x%02x)", at, data[at]);
        if (len - at < 2) broken("the outputs end inside a record");
        size_t name_len = data[at + 1];
        if (name_len == 0 || name_len > PT_NAME_MAX || len - at - 2 < name_len + 8)
            broken("the outputs end inside a record, or a name's length is wrong");
        Record r = {.kind = (PtKind)data[at]};
        memcpy(r.name, data + at + 2, name_len);
        for (size_t k = 0; k < name_len; k++)
            if (r.name[k] < 0x21 || r.name[k] > 0x7e) broken("an output's name is not plain ASCII");
        for (int b = 0; b < 8; b++) r.count |= (uint64_t)data[at + 2 + name_len + b] << (8 * b);
        at += 2 + name_len + 8;
        if (r.kind == PT_NULL && r.count != 0) broken("%s: a NULL with values", r.name);
        if (r.count > (len - at) / elem) broken("%s: %llu values announced, fewer there", r.name,
                                                (unsigned long long)r.count);
        r.values = data + at;
        at += (size_t)r.count * elem;
        for (size_t i = 0; i < n_records; i++)
            if (!strcmp(records[i].name, r.name)) broken("the output %s was handed back twice", r.name);
        Record *grown = realloc(records, (n_records + 1) * sizeof *records);
        if (!grown) pt_harness_error("out of memory");
        records = grown;
        records[n_records++] = r;
    }
    if (!ended) broken("the outputs stop before the case's end (the runner did not finish)");
}

/* The record called name, of one of the kinds given (a string may be NULL). */
static const Record *find(const char *name, PtKind kind, PtKind or_kind) {
    for (size_t i = 0; i < n_records; i++) {
        if (strcmp(records[i].name, name) != 0) continue;
        if (records[i].kind != kind && records[i].kind != or_kind)
            pt_fail("测试程序交回的 %s 类型不对（kind '%c'）", name, records[i].kind);
        return &records[i];
    }
    pt_fail("测试程序没有交回 %s", name);
}

/* The values of a record, in this machine's order, in a buffer of their own. */
static void *values_of(const Record *r) {
    size_t elem = elem_size(r->kind), n = (size_t)r->count;
    unsigned char *out = pt_bytes(n * elem + 1);
    for (size_t i = 0; i < n; i++)
        for (size_t b = 0; b < elem; b++) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            out[i * elem + b] = r->values[i * elem + b];
#else
            out[i * elem + b] = r->values[i * elem + elem - 1 - b];
#endif
        }
    out[n * elem] = 0;
    return out;
}

static const void *got_n(const char *name, PtKind kind, size_t n) {
    const Record *r = find(name, kind, kind);
    if (r->count != n)
        pt_fail("测试程序交回的 %s 有 %llu 个值，应该是 %zu 个", name, (unsigned long long)r->count, n);
    return values_of(r);
}

const float *pt_got_floats(const char *name, size_t n) { return got_n(name, PT_F32, n); }
const int *pt_got_ints(const char *name, size_t n) { return got_n(name, PT_I32, n); }
const uint16_t *pt_got_u16s(const char *name, size_t n) { return got_n(name, PT_U16, n); }
const uint32_t *pt_got_u32s(const char *name, size_t n) { return got_n(name, PT_U32, n); }

const int *pt_got_ints_any(const char *name, size_t *n) {
    const Record *r = find(name, PT_I32, PT_I32);
    *n = (size_t)r->count;
    return values_of(r);
}

long long pt_got_int(const char *name) { return *(const int64_t *)got_n(name, PT_I64, 1); }
unsigned long long pt_got_u64(const char *name) { return *(const uint64_t *)got_n(name, PT_U64, 1); }

const char *pt_got_str(const char *name) {
    const Record *r = find(name, PT_BYTES, PT_NULL);
    return r->kind == PT_NULL ? NULL : values_of(r); /* values_of ends it with a NUL */
}

/* ---- checks ------------------------------------------------------------------------ */

/* "y[t=1, h=0, i=3]" for flat index i, or "y[35]" without a shape. */
static void position(char *buf, size_t size, const char *what, size_t idx, PtShape shape) {
    if (!shape.names || shape.ndim <= 0) {
        snprintf(buf, size, "%s[%zu]", what, idx);
        return;
    }
    size_t coord[8] = {0}, rest = idx;
    int nd = shape.ndim > 8 ? 8 : shape.ndim;
    for (int d = nd - 1; d >= 0; d--) {
        size_t len = shape.dims[d] > 0 ? (size_t)shape.dims[d] : 1;
        coord[d] = rest % len;
        rest /= len;
    }
    int used = snprintf(buf, size, "%s[", what);
    const char *name = shape.names;
    for (int d = 0; d < nd && used > 0 && (size_t)used < size; d++) {
        size_t name_len = strcspn(name, ",");
        used += snprintf(buf + used, size - (size_t)used, "%s%.*s=%zu", d ? ", " : "", (int)name_len, name,
                         coord[d]);
        name += name_len;
        if (*name == ',') name++;
    }
    if (used > 0 && (size_t)used < size) snprintf(buf + used, size - (size_t)used, "]");
}

/* Up to 8 values around index at, as "y[2..9]: v v v ...". */
static void window_f(char *buf, size_t size, const float *x, size_t n, size_t at) {
    size_t from = at > 2 ? at - 2 : 0, to = from + 8 < n ? from + 8 : n;
    int used = snprintf(buf, size, "[%zu..%zu]:", from, to - 1);
    for (size_t i = from; i < to && used > 0 && (size_t)used < size; i++)
        used += snprintf(buf + used, size - (size_t)used, " %.8g", x[i]);
}

void pt_expect_close(const char *what, const float *got, const float *want, size_t n, double atol,
                     double rtol, PtShape shape) {
    size_t bad = 0, nan_got = 0, first = 0, worst_abs_at = 0, worst_rel_at = 0;
    double worst_abs = 0, worst_rel = 0;
    for (size_t i = 0; i < n; i++) {
        double g = got[i], w = want[i];
        bool ok;
        if (isnan(w))
            ok = isnan(g);
        else if (isinf(w))
            ok = g == w;
        else if (isnan(g) || isinf(g))
            ok = false;
        else {
            double diff = fabs(g - w), rel = w != 0 ? diff / fabs(w) : (diff ? INFINITY : 0);
            if (diff > worst_abs) worst_abs = diff, worst_abs_at = i;
            if (rel > worst_rel) worst_rel = rel, worst_rel_at = i;
            ok = diff <= atol + rtol * fabs(w);
        }
        if (!ok) {
            if (bad == 0) first = i;
            bad++;
            if (isnan(g)) nan_got++;
        }
    }
    if (bad == 0) return;
    char pos[160], win[400];
    position(pos, sizeof pos, what, first, shape);
    pt_note("第一个不一致的位置 first mismatch：%s（下标 index %zu）：期望 expected %.8g，得到 got %.8g", pos,
            first, want[first], got[first]);
    if (worst_abs > 0) {
        char pa[160], pr[160];
        position(pa, sizeof pa, what, worst_abs_at, shape);
        position(pr, sizeof pr, what, worst_rel_at, shape);
        pt_note("最大绝对误差 max abs diff %.3g（%s）；最大相对误差 max rel diff %.3g（%s）", worst_abs, pa,
                worst_rel, pr);
    }
    pt_note("容差 tolerance：|got − expected| ≤ %g + %g × |expected|", atol, rtol);
    window_f(win, sizeof win, want, n, first);
    pt_note("期望 expected %s%s", what, win);
    window_f(win, sizeof win, got, n, first);
    pt_note("得到 got      %s%s", what, win);
    if (nan_got == n) pt_fail("%s 不对：%zu 个值全是 NaN——还没有写这个输出，或者算出了 NaN", what, n);
    if (nan_got) pt_fail("%s 不对：%zu / %zu 个值超出容差（其中 %zu 个是 NaN）", what, bad, n, nan_got);
    pt_fail("%s 不对：%zu / %zu 个值超出容差", what, bad, n);
}

void pt_expect_same_bits(const char *what, const float *got, const float *want, size_t n, PtShape shape) {
    for (size_t i = 0; i < n; i++) {
        if (memcmp(&got[i], &want[i], sizeof(float)) != 0) {
            char pos[160];
            uint32_t g, w;
            memcpy(&g, &got[i], 4);
            memcpy(&w, &want[i], 4);
            position(pos, sizeof pos, what, i, shape);
            pt_note("第一个不一致的位置 first mismatch：%s：期望 expected %.9g（0x%08x），得到 got "
                    "%.9g（0x%08x）",
                    pos, want[i], w, got[i], g);
            pt_fail("%s 应该一位不差（bit for bit），%s 不一样", what, pos);
        }
    }
}

void pt_expect_int(const char *what, long long got, long long want) {
    if (got != want) pt_fail("%s 不对：期望 expected %lld，得到 got %lld", what, want, got);
}

void pt_expect_u64(const char *what, unsigned long long got, unsigned long long want) {
    if (got != want) pt_fail("%s 不对：期望 expected %llu，得到 got %llu", what, want, got);
}

/* The shared part of the integer array checks: values as text by a callback. */
typedef void (*ShowFn)(char *buf, size_t size, const void *arr, size_t i);
static void expect_array(const char *what, const void *got, const void *want, size_t n, size_t elem,
                         ShowFn show) {
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        if (memcmp((const char *)got + i * elem, (const char *)want + i * elem, elem) != 0) {
            if (bad == 0) first = i;
            bad++;
        }
    }
    if (bad == 0) return;
    char g[64], w[64], line[600];
    show(w, sizeof w, want, first);
    show(g, sizeof g, got, first);
    pt_note("第一个不一致的位置 first mismatch：%s[%zu]：期望 expected %s，得到 got %s", what, first, w, g);
    for (int pass = 0; pass < 2; pass++) {
        const void *arr = pass ? got : want;
        size_t from = first > 2 ? first - 2 : 0, to = from + 8 < n ? from + 8 : n;
        int used = snprintf(line, sizeof line, "%s %s[%zu..%zu]:", pass ? "得到 got     " : "期望 expected",
                            what, from, to - 1);
        for (size_t i = from; i < to && used > 0 && (size_t)used < sizeof line; i++) {
            show(g, sizeof g, arr, i);
            used += snprintf(line + used, sizeof line - (size_t)used, " %s", g);
        }
        pt_note("%s", line);
    }
    pt_fail("%s 不对：%zu / %zu 个值不一样", what, bad, n);
}

static void show_int(char *buf, size_t size, const void *arr, size_t i) {
    snprintf(buf, size, "%d", ((const int *)arr)[i]);
}
static void show_u16(char *buf, size_t size, const void *arr, size_t i) {
    snprintf(buf, size, "0x%04x", ((const uint16_t *)arr)[i]);
}
static void show_u32(char *buf, size_t size, const void *arr, size_t i) {
    snprintf(buf, size, "%u", ((const uint32_t *)arr)[i]);
}

void pt_expect_ints(const char *what, const int *got, const int *want, size_t n) {
    expect_array(what, got, want, n, sizeof(int), show_int);
}
void pt_expect_u16s(const char *what, const uint16_t *got, const uint16_t *want, size_t n) {
    expect_array(what, got, want, n, sizeof(uint16_t), show_u16);
}
void pt_expect_u32s(const char *what, const uint32_t *got, const uint32_t *want, size_t n) {
    expect_array(what, got, want, n, sizeof(uint32_t), show_u32);
}

void pt_expect_str(const char *what, const char *got, const char *want) {
    if (!got) pt_fail("%s 不对：期望 expected \"%s\"，得到 got NULL", what, want);
    if (strcmp(got, want) != 0) {
        size_t i = 0;
        while (got[i] && got[i] == want[i]) i++;
        pt_note("期望 expected \"%s\"", want);
        pt_note("得到 got      \"%s\"", got);
        pt_fail("%s 不对：从第 %zu 个字节起不一样", what, i);
    }
}

void pt_expect(bool cond, const char *fmt, ...) {
    if (cond) return;
    va_list ap;
    va_start(ap, fmt);
    char *msg = vformat(fmt, ap);
    va_end(ap);
    pt_fail("%s", msg);
}

/* ---- running ------------------------------------------------------------------------ */

int pt_check_main(const PtCheckCase *cases, int n_cases, int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (int i = 0; i < n_cases; i++) printf("%s\t%s\n", cases[i].id, cases[i].title);
        return 0;
    }
    if (argc != 4 || strcmp(argv[1], "--check") != 0)
        pt_harness_error("usage: checker --list | --check ID OUTPUTS");
    for (int i = 0; i < n_cases; i++) {
        if (strcmp(cases[i].id, argv[2]) != 0) continue;
        load_records(argv[3]);
        cases[i].check();
        verdict_line("PASS", "");
        return 0;
    }
    fprintf(stderr, "ptest: no case %s in this checker\n", argv[2]);
    return PT_EXIT_HARNESS;
}
