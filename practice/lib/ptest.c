/* ptest.c — see ptest.h. */
#include "ptest.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int report_fd = 2;

/* ---- notes and the report --------------------------------------------------------- */

#define MAX_NOTES 24
static char *notes[MAX_NOTES];
static int n_notes;

/* One line of the report: the kind, a space, the text with newlines flattened. */
static void report_line(const char *kind, const char *text) {
    size_t len = strlen(text);
    char *line = malloc(strlen(kind) + len + 3);
    if (!line) _exit(70);
    char *p = line + sprintf(line, "%s ", kind);
    for (size_t i = 0; i < len; i++) *p++ = (text[i] == '\n' || text[i] == '\r') ? ' ' : text[i];
    *p++ = '\n';
    size_t todo = (size_t)(p - line), done = 0;
    while (done < todo) {
        ssize_t w = write(report_fd, line + done, todo - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    free(line);
}

static char *vformat(const char *fmt, va_list ap) {
    va_list again;
    va_copy(again, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    char *s = malloc(len > 0 ? (size_t)len + 1 : 1);
    if (!s) _exit(70);
    vsnprintf(s, (size_t)len + 1, fmt, again);
    va_end(again);
    return s;
}

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
    fflush(NULL); /* what the learner printed lands in its own file, before we leave */
    report_line("FAIL", msg);
    for (int i = 0; i < n_notes; i++) report_line("NOTE", notes[i]);
    _exit(1); /* no leak check after a failure: the case stopped halfway */
}

/* ---- buffers ------------------------------------------------------------------------ */

static void **buffers;
static size_t n_buffers, cap_buffers;

static void *keep(void *p) {
    if (!p) pt_fail("测试自己分配内存失败（out of memory）");
    if (n_buffers == cap_buffers) {
        cap_buffers = cap_buffers ? 2 * cap_buffers : 16;
        void **grown = realloc(buffers, cap_buffers * sizeof *buffers);
        if (!grown) pt_fail("测试自己分配内存失败（out of memory）");
        buffers = grown;
    }
    buffers[n_buffers++] = p;
    return p;
}

static void free_all(void) {
    for (size_t i = 0; i < n_buffers; i++) free(buffers[i]);
    free(buffers);
    buffers = NULL;
    n_buffers = cap_buffers = 0;
    for (int i = 0; i < n_notes; i++) free(notes[i]);
    n_notes = 0;
}

float *pt_floats(size_t n) {
    float *x = keep(malloc(n ? n * sizeof *x : 1));
    for (size_t i = 0; i < n; i++) x[i] = NAN;
    return x;
}

float *pt_zeros(size_t n) { return keep(calloc(n ? n : 1, sizeof(float))); }

float *pt_copy(const float *x, size_t n) {
    float *y = keep(malloc(n ? n * sizeof *y : 1));
    if (n) memcpy(y, x, n * sizeof *y);
    return y;
}

int *pt_ints(size_t n) {
    int *x = keep(malloc(n ? n * sizeof *x : 1));
    for (size_t i = 0; i < n; i++) x[i] = -12345;
    return x;
}

void *pt_bytes(size_t n) {
    void *p = keep(malloc(n ? n : 1));
    memset(p, 0xA5, n);
    return p;
}

void *pt_dup(const void *src, size_t bytes) {
    void *p = keep(malloc(bytes ? bytes : 1));
    if (bytes) memcpy(p, src, bytes);
    return p;
}

void pt_fill(float *x, size_t n, uint32_t seed, float scale) {
    uint32_t s = seed;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        float u = (float)((int32_t)(s >> 8) - (1 << 23)) * (1.0f / 8388608.0f);
        x[i] = u * scale;
    }
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

static int run_one(const PtCase *c) {
    c->run();
    free_all();
    report_line("PASS", "");
    return 0;
}

int pt_main(const PtCase *cases, int n_cases, int argc, char **argv) {
    const char *fd = getenv("PT_REPORT_FD");
    if (fd && *fd) report_fd = atoi(fd);
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (int i = 0; i < n_cases; i++) printf("%s\t%s\n", cases[i].id, cases[i].title);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--run") == 0) {
        for (int i = 0; i < n_cases; i++)
            if (strcmp(cases[i].id, argv[2]) == 0) return run_one(&cases[i]);
        fprintf(stderr, "没有这个用例：%s（--list 列出全部）\n", argv[2]);
        return 2;
    }
    if (argc != 1) {
        fprintf(stderr, "用法 usage: %s [--list | --run ID]\n", argv[0]);
        return 2;
    }
    int failed = 0;
    for (int i = 0; i < n_cases; i++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) _exit(run_one(&cases[i]));
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed++;
        fprintf(stderr, "-- %s %s\n", cases[i].id,
                pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "ok" : "FAILED");
    }
    fprintf(stderr, "%d / %d passed\n", n_cases - failed, n_cases);
    return failed ? 1 : 0;
}
