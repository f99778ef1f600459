/* util.c — checked I/O, checked allocation and error reporting (see util.h). */
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static const char *g_program = "qwen";

void set_program_name(const char *argv0) {
    const char *slash = strrchr(argv0, '/');
    g_program = slash ? slash + 1 : argv0;
}

const char *program_name(void) { return g_program; }

bool error_set(Error *err, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return false;
}

void die(const char *fmt, ...) {
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "%s: ", g_program);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(EXIT_FAILURE);
}

void *xmalloc(size_t size) {
    void *p = malloc(size ? size : 1);
    if (!p) die("out of memory allocating %zu bytes", size);
    return p;
}

void *xcalloc(size_t count, size_t size) {
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) die("out of memory allocating %zu x %zu bytes", count, size);
    return p;
}

void *xrealloc(void *ptr, size_t size) {
    void *p = realloc(ptr, size ? size : 1);
    if (!p) die("out of memory reallocating to %zu bytes", size);
    return p;
}

char *xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

void *xaligned_alloc(size_t size) {
    void *p = NULL;
    if (posix_memalign(&p, 64, size ? size : 64) != 0)
        die("out of memory allocating %zu aligned bytes", size);
    return p;
}

FILE *xfopen(const char *path, const char *mode, Error *err) {
    FILE *f = fopen(path, mode);
    if (!f)
        error_set(err, "cannot open %s for %s: %s", path, mode[0] == 'r' ? "reading" : "writing",
                  strerror(errno));
    return f;
}

char *read_file(const char *path, size_t *len, Error *err) {
    FILE *f = xfopen(path, "rb", err);
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap) buf = xrealloc(buf, cap *= 2);
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        free(buf);
        error_set(err, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

bool write_file(const char *path, const void *data, size_t len, Error *err) {
    FILE *f = xfopen(path, "wb", err);
    if (!f) return false;
    bool ok = fwrite(data, 1, len, f) == len;
    ok = (fclose(f) == 0) && ok;
    if (!ok) return error_set(err, "cannot write %s: %s", path, strerror(errno));
    return true;
}

bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *path_join(const char *dir, const char *name) {
    size_t a = strlen(dir), b = strlen(name);
    bool slash = a > 0 && dir[a - 1] != '/';
    char *p = xmalloc(a + slash + b + 1);
    memcpy(p, dir, a);
    if (slash) p[a] = '/';
    memcpy(p + a + slash, name, b + 1);
    return p;
}

bool make_dirs(const char *path, Error *err) {
    char *p = xstrdup(path);
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                error_set(err, "cannot create directory %s: %s", p, strerror(errno));
                free(p);
                return false;
            }
            if (c == '\0') break;
            *s = c;
        }
    }
    free(p);
    if (!is_dir(path)) return error_set(err, "%s exists but is not a directory", path);
    return true;
}

double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
