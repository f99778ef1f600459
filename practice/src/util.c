/* util.c — files, paths, processes, terminal text: the judge's plumbing. */
#include "judge.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void errorf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("judge: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

bool strf(char *buf, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n >= 0 && (size_t)n < size;
}

/* ---- colour ---------------------------------------------------------------------- */

const char *c_green(const Judge *j) { return j->color ? "\033[32m" : ""; }
const char *c_red(const Judge *j) { return j->color ? "\033[31m" : ""; }
const char *c_yellow(const Judge *j) { return j->color ? "\033[33m" : ""; }
const char *c_dim(const Judge *j) { return j->color ? "\033[2m" : ""; }
const char *c_bold(const Judge *j) { return j->color ? "\033[1m" : ""; }
const char *c_off(const Judge *j) { return j->color ? "\033[0m" : ""; }

/* ---- files ------------------------------------------------------------------------ */

char *fs_read_max(const char *path, size_t max, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf && n < max) {
        if (n + 1 >= cap) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t want = cap - n - 1 < max - n ? cap - n - 1 : max - n;
        size_t got = fread(buf + n, 1, want, f);
        n += got;
        if (got == 0) break;
    }
    bool failed = ferror(f);
    fclose(f);
    if (!buf || failed) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

char *fs_read(const char *path, size_t *len) { return fs_read_max(path, (size_t)1 << 30, len); }

long long fs_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : 0;
}

static int by_name(const void *a, const void *b) { return strcmp(a, b); }

int fs_list(const char *dir, const char *suffix, const char *skip, char names[][128], int max) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *de;
    int n = 0;
    size_t sl = strlen(suffix);
    while ((de = readdir(d)) && n < max) {
        size_t len = strlen(de->d_name);
        if (de->d_name[0] == '.' || len <= sl || len >= 120 || strcmp(de->d_name + len - sl, suffix)) continue;
        if (skip && !strcmp(de->d_name, skip)) continue;
        char path[PATH_LEN];
        fs_join(path, sizeof path, dir, de->d_name);
        if (fs_exists(path)) strf(names[n++], 128, "%s", de->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, 128, by_name);
    return n;
}

/* Written as databases do: a temporary file beside path, flushed to the disk, then
 * renamed over path — a crash or a full disk leaves the old file whole. */
bool fs_write(const char *path, const char *data, size_t len) {
    char tmp[PATH_LEN];
    if (!strf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid())) return false;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) return false;
    bool ok = true;
    for (size_t done = 0; ok && done < len;) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        ok = w > 0;
        if (ok) done += (size_t)w;
    }
    ok = fsync(fd) == 0 && ok;
    ok = close(fd) == 0 && ok;
    if (ok) ok = rename(tmp, path) == 0;
    if (!ok) {
        int saved = errno;
        unlink(tmp);
        errno = saved;
    }
    return ok;
}

bool fs_copy(const char *from, const char *to) {
    size_t len;
    char *data = fs_read(from, &len);
    if (!data) return false;
    bool ok = fs_write(to, data, len);
    free(data);
    return ok;
}

bool fs_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool fs_is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool fs_mkdirs(const char *path) {
    char buf[PATH_LEN];
    strf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return false;
        *p = '/';
    }
    return mkdir(buf, 0777) == 0 || errno == EEXIST;
}

bool fs_remove_tree(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT;
    if (!S_ISDIR(st.st_mode)) return unlink(path) == 0;
    DIR *d = opendir(path);
    if (!d) return false;
    struct dirent *de;
    bool ok = true;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char child[PATH_LEN];
        fs_join(child, sizeof child, path, de->d_name);
        ok = fs_remove_tree(child) && ok;
    }
    closedir(d);
    return rmdir(path) == 0 && ok;
}

double fs_mtime(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    return (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec * 1e-9;
}

double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void fs_join(char *out, size_t size, const char *a, const char *b) {
    if (b[0] == '/')
        strf(out, size, "%s", b);
    else
        strf(out, size, "%s%s%s", a, (a[0] && a[strlen(a) - 1] == '/') ? "" : "/", b);
}

/* ---- relative paths --------------------------------------------------------------- */

/* Splits an absolute path into its components (in place); returns how many. */
static int components(char *path, char **parts, int max) {
    int n = 0;
    for (char *tok = strtok(path, "/"); tok && n < max; tok = strtok(NULL, "/"))
        if (strcmp(tok, ".") != 0) parts[n++] = tok;
    return n;
}

void rel_path(const Judge *j, const char *path, char *out, size_t size) {
    if (path[0] != '/') {
        strf(out, size, "%s", path);
        return;
    }
    char p_buf[PATH_LEN], c_buf[PATH_LEN], *p[256], *c[256];
    strf(p_buf, sizeof p_buf, "%s", path);
    strf(c_buf, sizeof c_buf, "%s", j->cwd);
    int np = components(p_buf, p, 256), nc = components(c_buf, c, 256), common = 0;
    while (common < np && common < nc && strcmp(p[common], c[common]) == 0) common++;
    int ups = nc - common;
    if (ups > 2 || (common == 0 && nc > 0)) { /* far away: the absolute path reads better */
        strf(out, size, "%s", path);
        return;
    }
    size_t used = 0;
    out[0] = '\0';
    for (int u = 0; u < ups && used < size; u++) used += (size_t)snprintf(out + used, size - used, "../");
    for (int i = common; i < np && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%s", p[i], i + 1 < np ? "/" : "");
    if (used >= size) used = size - 1; /* cut short: what snprintf kept */
    if (used == 0)
        strf(out, size, ".");
    else if (used >= 3 && out[used - 1] == '/')
        out[used - 1] = '\0';
}

static void replace_all(char *line, size_t size, const char *from, const char *to) {
    size_t from_len = strlen(from), to_len = strlen(to);
    if (!from_len) return;
    char *p = line;
    while ((p = strstr(p, from))) {
        size_t tail = strlen(p + from_len);
        if ((size_t)(p - line) + to_len + tail + 1 > size) return;
        memmove(p + to_len, p + from_len, tail + 1);
        memcpy(p, to, to_len);
        p += to_len;
    }
}

void relativize(const Judge *j, char *line, size_t size) {
    char prefix[PATH_LEN + 1], rel[PATH_LEN];
    /* the practice folder first (its relative form may start with ../), then cwd */
    strf(prefix, sizeof prefix, "%s/", j->practice);
    rel_path(j, j->practice, rel, sizeof rel - 1);
    if (rel[0] != '/') {
        strcat(rel, "/");
        replace_all(line, size, prefix, rel);
    }
    strf(prefix, sizeof prefix, "%s/", j->cwd);
    if (strcmp(j->cwd, "/") != 0) replace_all(line, size, prefix, "");
}

/* ---- text from the code under test ----------------------------------------------- */

/* The length of the UTF-8 character at p (2 to 4 bytes, well-formed: no overlong
 * form, no surrogate, at most U+10FFFF), or 0 when p does not start one. */
static int utf8_length(const unsigned char *p) {
    if (p[0] >= 0xC2 && p[0] <= 0xDF) return (p[1] & 0xC0) == 0x80 ? 2 : 0;
    if (p[0] >= 0xE0 && p[0] <= 0xEF) {
        unsigned lo = p[0] == 0xE0 ? 0xA0 : 0x80, hi = p[0] == 0xED ? 0x9F : 0xBF;
        return p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 ? 3 : 0;
    }
    if (p[0] >= 0xF0 && p[0] <= 0xF4) {
        unsigned lo = p[0] == 0xF0 ? 0x90 : 0x80, hi = p[0] == 0xF4 ? 0x8F : 0xBF;
        return p[1] >= lo && p[1] <= hi && (p[2] & 0xC0) == 0x80 && (p[3] & 0xC0) == 0x80 ? 4 : 0;
    }
    return 0;
}

void escape_text(char *dst, size_t size, const char *src) {
    size_t used = 0;
    for (const unsigned char *p = (const unsigned char *)src; *p;) {
        char piece[8];
        int len = *p >= 0x80 ? utf8_length(p) : 1;
        if (len > 1)
            memcpy(piece, p, (size_t)len), piece[len] = '\0';
        else if (*p == '\n')
            strcpy(piece, "\\n");
        else if (*p == '\t')
            strcpy(piece, "\\t");
        else if (*p < 0x20 || *p == 0x7f || *p >= 0x80)
            snprintf(piece, sizeof piece, "\\x%02x", *p), len = 1;
        else
            piece[0] = (char)*p, piece[1] = '\0';
        size_t pl = strlen(piece);
        if (used + pl + 1 > size) break;
        memcpy(dst + used, piece, pl);
        used += pl;
        p += len;
    }
    if (size) dst[used] = '\0';
}

/* ---- text width -------------------------------------------------------------------- */

static bool is_wide(uint32_t c) {
    return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0x303E) || (c >= 0x3041 && c <= 0x33FF) ||
           (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0xA000 && c <= 0xA4CF) ||
           (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) ||
           (c >= 0xFF00 && c <= 0xFF60) || (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x20000 && c <= 0x3FFFD);
}

int text_width(const char *s) {
    int w = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t c;
        int len;
        if (*p < 0x80)
            c = *p, len = 1;
        else if ((*p & 0xE0) == 0xC0)
            c = *p & 0x1F, len = 2;
        else if ((*p & 0xF0) == 0xE0)
            c = *p & 0x0F, len = 3;
        else if ((*p & 0xF8) == 0xF0)
            c = *p & 0x07, len = 4;
        else
            c = '?', len = 1;
        for (int i = 1; i < len; i++) {
            if ((p[i] & 0xC0) != 0x80) {
                len = i;
                break;
            }
            c = (c << 6) | (p[i] & 0x3F);
        }
        p += len;
        if (c == 0x1B) { /* an escape sequence: no width */
            while (*p && *p != 'm') p++;
            if (*p) p++;
            continue;
        }
        w += is_wide(c) ? 2 : 1;
    }
    return w;
}

void print_padded(const char *s, int width) {
    fputs(s, stdout);
    for (int w = text_width(s); w < width; w++) putchar(' ');
}

/* ---- questions -------------------------------------------------------------------- */

bool ask_yes(const Judge *j, const char *question) {
    printf("%s [y/N] ", question);
    if (j->yes) {
        printf("y\n");
        return true;
    }
    fflush(stdout);
    char line[64];
    if (!fgets(line, sizeof line, stdin)) {
        printf("\n");
        return false;
    }
    char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    return *p == 'y' || *p == 'Y';
}

/* ---- processes ---------------------------------------------------------------------- */

int split_lines(char *text, char ***lines) {
    int n = 0, cap = 16;
    char **arr = malloc(cap * sizeof *arr);
    char *p = text;
    while (arr && *p) {
        if (n == cap) {
            char **grown = realloc(arr, 2 * cap * sizeof *arr);
            if (!grown) break;
            arr = grown;
            cap *= 2;
        }
        arr[n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl) break;
        *nl = '\0';
        if (nl > p && nl[-1] == '\r') nl[-1] = '\0';
        p = nl + 1;
    }
    *lines = arr;
    return arr ? n : 0;
}
