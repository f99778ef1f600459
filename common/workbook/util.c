/* util.c — checked I/O, checked allocation and error reporting (see util.h). */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <wchar.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <math.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "utf8.h"

static const char *g_program = "qwen";

void set_program_name(const char *argv0) {
    const char *slash = strrchr(argv0, '/');
    g_program = slash ? slash + 1 : argv0;
}

const char *program_name(void) { return g_program; }

/* ---- messages: the program's format, the arguments escaped ------------------ */

/* A bounded output buffer: len counts every byte offered, written or not. */
typedef struct {
    char *s;
    size_t size, len;
} Out;

static void out_bytes(Out *o, const char *p, size_t n) {
    if (o->len + 1 < o->size) {
        size_t room = o->size - 1 - o->len;
        memcpy(o->s + o->len, p, n < room ? n : room);
    }
    o->len += n;
}

/* Copies n bytes of s, escaping what must not reach a terminal: control characters
 * (\n, \t, \r, else \xHH), DEL, the C1 controls U+0080..U+009F (\u00HH; 0x9b alone
 * starts an escape sequence on some terminals) and bytes that are not UTF-8 (\xHH).
 * keep_layout lets '\n' and '\t' through. */
static void out_escaped(Out *o, const char *s, size_t n, bool keep_layout) {
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        size_t run = i; /* printable ASCII and valid UTF-8 go out as they are */
        for (;;) {
            if (run >= n) break;
            unsigned char c = p[run];
            if (c >= 0x20 && c < 0x7f) {
                run++;
                continue;
            }
            int prefix;
            size_t len = c >= 0x80 ? (size_t)utf8_char(p + run, n - run, &prefix) : 0;
            if (len == 0 || (len == 2 && c == 0xc2 && p[run + 1] < 0xa0)) break;
            run += len;
        }
        out_bytes(o, s + i, run - i);
        if (run >= n) break;
        unsigned char c = p[run];
        char esc[8];
        size_t used = 1;
        if ((c == '\n' || c == '\t') && keep_layout)
            snprintf(esc, sizeof esc, "%c", c);
        else if (c == '\n')
            snprintf(esc, sizeof esc, "\\n");
        else if (c == '\t')
            snprintf(esc, sizeof esc, "\\t");
        else if (c == '\r')
            snprintf(esc, sizeof esc, "\\r");
        else if (c == 0xc2 && run + 1 < n && p[run + 1] >= 0x80 && p[run + 1] < 0xa0)
            snprintf(esc, sizeof esc, "\\u00%02x", p[run + 1]), used = 2;
        else
            snprintf(esc, sizeof esc, "\\x%02x", c);
        out_bytes(o, esc, strlen(esc));
        i = run + used;
    }
}

/* One conversion's text, formatted by the C library into a buffer of its own. */
static void out_piece(Out *o, bool escape, bool keep_layout, const char *spec, ...) {
    char small[256], *buf = small;
    va_list ap, ap2;
    va_start(ap, spec);
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, spec, ap);
    if (n >= (int)sizeof small && (buf = malloc((size_t)n + 1)) != NULL)
        vsnprintf(buf, (size_t)n + 1, spec, ap2);
    va_end(ap2);
    va_end(ap);
    if (n < 0) return;
    if (!buf) { /* out of memory: what fitted */
        buf = small;
        n = (int)strlen(small);
    }
    if (escape)
        out_escaped(o, buf, (size_t)n, keep_layout);
    else
        out_bytes(o, buf, (size_t)n);
    if (buf != small) free(buf);
}

/* printf's formatting, with every %s and %c argument escaped (out_escaped). Handles
 * the conversions C99 printf has: flags, width and precision (also *), the length
 * modifiers hh h l ll j z t L. */
static void format_escaped(Out *o, bool keep_layout, const char *fmt, va_list ap) {
    const char *p = fmt;
    while (*p) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            out_bytes(o, p, strlen(p));
            break;
        }
        out_bytes(o, p, (size_t)(pct - p));
        /* the conversion: %[flags][width][.precision][length]conversion */
        char spec[64];
        size_t k = 0;
        spec[k++] = '%';
        const char *q = pct + 1;
        while (*q && strchr("-+ #0'", *q) && k < 40) spec[k++] = *q++;
        if (*q == '*') {
            k += (size_t)snprintf(spec + k, sizeof spec - k, "%d", va_arg(ap, int));
            q++;
        } else
            while (*q >= '0' && *q <= '9' && k < 40) spec[k++] = *q++;
        if (*q == '.') {
            spec[k++] = *q++;
            if (*q == '*') {
                k += (size_t)snprintf(spec + k, sizeof spec - k, "%d", va_arg(ap, int));
                q++;
            } else
                while (*q >= '0' && *q <= '9' && k < 50) spec[k++] = *q++;
        }
        char len[3] = "";
        if ((q[0] == 'h' && q[1] == 'h') || (q[0] == 'l' && q[1] == 'l'))
            len[0] = q[0], len[1] = q[1], q += 2;
        else if (*q && strchr("hljztL", *q))
            len[0] = *q++;
        char conv = *q;
        if (conv == '\0') { /* a lone % at the end */
            out_bytes(o, pct, strlen(pct));
            break;
        }
        q++;
        k += (size_t)snprintf(spec + k, sizeof spec - k, "%s%c", len, conv);
        bool l = len[0] == 'l' && !len[1], ll = len[0] == 'l' && len[1] == 'l';
        switch (conv) {
        case '%':
            out_bytes(o, "%", 1);
            break;
        case 'd':
        case 'i':
            if (ll)
                out_piece(o, false, false, spec, va_arg(ap, long long));
            else if (l)
                out_piece(o, false, false, spec, va_arg(ap, long));
            else if (len[0] == 'j')
                out_piece(o, false, false, spec, va_arg(ap, intmax_t));
            else if (len[0] == 'z')
                out_piece(o, false, false, spec, va_arg(ap, ssize_t));
            else if (len[0] == 't')
                out_piece(o, false, false, spec, va_arg(ap, ptrdiff_t));
            else
                out_piece(o, false, false, spec, va_arg(ap, int)); /* int, and short / char promoted */
            break;
        case 'u':
        case 'o':
        case 'x':
        case 'X':
            if (ll)
                out_piece(o, false, false, spec, va_arg(ap, unsigned long long));
            else if (l)
                out_piece(o, false, false, spec, va_arg(ap, unsigned long));
            else if (len[0] == 'j')
                out_piece(o, false, false, spec, va_arg(ap, uintmax_t));
            else if (len[0] == 'z')
                out_piece(o, false, false, spec, va_arg(ap, size_t));
            else if (len[0] == 't')
                out_piece(o, false, false, spec, va_arg(ap, ptrdiff_t));
            else
                out_piece(o, false, false, spec, va_arg(ap, unsigned));
            break;
        case 'f':
        case 'F':
        case 'e':
        case 'E':
        case 'g':
        case 'G':
        case 'a':
        case 'A':
            if (len[0] == 'L')
                out_piece(o, false, false, spec, va_arg(ap, long double));
            else
                out_piece(o, false, false, spec, va_arg(ap, double));
            break;
        case 'c':
            if (l)
                out_piece(o, true, keep_layout, spec, va_arg(ap, wint_t));
            else
                out_piece(o, true, keep_layout, spec, va_arg(ap, int));
            break;
        case 's':
            if (l) {
                const wchar_t *ws = va_arg(ap, const wchar_t *);
                out_piece(o, true, keep_layout, spec, ws ? ws : L"(null)");
            } else {
                const char *str = va_arg(ap, const char *);
                out_piece(o, true, keep_layout, spec, str ? str : "(null)");
            }
            break;
        case 'p':
            out_piece(o, false, false, spec, va_arg(ap, void *));
            break;
        default: /* not a conversion printf knows: the text as written */
            out_bytes(o, pct, (size_t)(q - pct));
            break;
        }
        p = q;
    }
}

bool error_set(Error *err, const char *fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        Out o = {err->msg, sizeof err->msg, 0};
        format_escaped(&o, false, fmt, ap);
        err->msg[o.len < o.size ? o.len : o.size - 1] = '\0';
        va_end(ap);
    }
    return false;
}

static bool g_dying;

bool dying(void) { return g_dying; }

void die(const char *fmt, ...) {
    g_dying = true;
    /* die("%s", err.msg) prints a message error_set() made: its arguments are
     * escaped already, and its own line breaks stay */
    bool keep_layout = strcmp(fmt, "%s") == 0;
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    Out count = {NULL, 0, 0};
    format_escaped(&count, keep_layout, fmt, ap);
    char *msg = malloc(count.len + 1);
    if (msg) {
        Out o = {msg, count.len + 1, 0};
        format_escaped(&o, keep_layout, fmt, ap2);
        msg[count.len] = '\0';
    }
    va_end(ap2);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, "%s: %s\n", g_program, msg ? msg : "out of memory while reporting an error");
    free(msg);
    exit(EXIT_FAILURE);
}

void write_escaped(FILE *f, const char *s, size_t n) {
    Out count = {NULL, 0, 0};
    out_escaped(&count, s, n, true);
    char small[64], *buf = count.len < sizeof small ? small : xmalloc(count.len + 1);
    Out o = {buf, count.len + 1, 0};
    out_escaped(&o, s, n, true);
    fwrite(buf, 1, count.len, f);
    if (buf != small) free(buf);
}

const char *escape_text(const char *s, char *buf, size_t size) {
    Out o = {buf, size, 0};
    out_escaped(&o, s, strlen(s), false);
    if (size) buf[o.len < size ? o.len : size - 1] = '\0';
    return buf;
}

/* ---- memory ----------------------------------------------------------------------- */

static uint64_t g_mem_limit; /* 0: half of the physical memory */

static const char *not_regular(mode_t mode);

uint64_t size_mul(uint64_t a, uint64_t b) {
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

uint64_t size_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

uint64_t mem_physical(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? size_mul((uint64_t)pages, (uint64_t)page) : 0;
}

uint64_t mem_limit(void) {
    if (g_mem_limit) return g_mem_limit;
    uint64_t phys = mem_physical();
    return phys ? phys / 2 : UINT64_MAX;
}

void mem_set_limit(uint64_t bytes) { g_mem_limit = bytes; }

const char *format_bytes(uint64_t bytes, char *buf, size_t size) {
    static const char *const units[] = {"KB", "MB", "GB", "TB", "PB", "EB"};
    if (bytes == UINT64_MAX) {
        snprintf(buf, size, "more than 18 EB");
        return buf;
    }
    if (bytes < 1000) {
        snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
        return buf;
    }
    double v = (double)bytes / 1000;
    int u = 0;
    while (v >= 999.95 && u < 5) v /= 1000, u++;
    snprintf(buf, size, "%.1f %s", v, units[u]);
    return buf;
}

const char *format_grouped(uint64_t n, char *buf, size_t size) {
    char digits[32];
    int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
    size_t o = 0;
    for (int i = 0; i < len && o + 2 < size; i++) {
        if (i > 0 && (len - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    if (size) buf[o < size ? o : size - 1] = '\0';
    return buf;
}

/* "half of this machine's 23.4 GB; --max-memory SIZE sets another", or where the limit came from. */
static const char *limit_words(char *buf, size_t size) {
    char phys[32];
    if (g_mem_limit)
        snprintf(buf, size, "set by --max-memory");
    else
        snprintf(buf, size, "half of this machine's %s; --max-memory SIZE sets another",
                 format_bytes(mem_physical(), phys, sizeof phys));
    return buf;
}

/* " (5,234,567,890 bytes)" after a rounded size, or nothing when the size is exact
 * already ("512 bytes"). */
static const char *exact_words(uint64_t bytes, char *buf, size_t size) {
    char exact[32];
    if (bytes < 1000)
        snprintf(buf, size, "%s", "");
    else
        snprintf(buf, size, " (%s bytes)", format_grouped(bytes, exact, sizeof exact));
    return buf;
}

bool mem_check(uint64_t bytes, const char *what, Error *err) {
    uint64_t limit = mem_limit();
    if (bytes <= limit) return true;
    char need[32], exact[48], lim[32], words[128];
    return error_set(err, "%s would need about %s of memory%s, more than the limit of %s (%s)", what,
                     format_bytes(bytes, need, sizeof need), exact_words(bytes, exact, sizeof exact),
                     format_bytes(limit, lim, sizeof lim), limit_words(words, sizeof words));
}

/* A single block above the limit is refused before the system is asked for it. */
static void check_block(uint64_t bytes) {
    uint64_t limit = mem_limit();
    if (bytes <= limit) return;
    char need[32], exact[48], lim[32], words[128];
    die("allocating %s%s at once is more than the memory limit of %s (%s)",
        format_bytes(bytes, need, sizeof need), exact_words(bytes, exact, sizeof exact),
        format_bytes(limit, lim, sizeof lim), limit_words(words, sizeof words));
}

void *xmalloc(size_t size) {
    check_block(size);
    void *p = malloc(size ? size : 1);
    if (!p) die("out of memory allocating %zu bytes", size);
    return p;
}

void *xcalloc(size_t count, size_t size) {
    check_block(size_mul(count, size));
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) die("out of memory allocating %zu x %zu bytes", count, size);
    return p;
}

void *xrealloc(void *ptr, size_t size) {
    check_block(size);
    void *p = realloc(ptr, size ? size : 1);
    if (!p) die("out of memory reallocating to %zu bytes", size);
    return p;
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#endif
#if defined(__linux__) && !defined(UNDER_ASAN)
#define BLOCKS_MAPPED 1
#include <sys/mman.h>

static size_t whole_pages(size_t size) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (size + page - 1) / page * page;
}
#endif

void *xblock_grow(void *p, size_t old_size, size_t size) {
    check_block(size);
#ifdef BLOCKS_MAPPED
    size_t old_pages = p ? whole_pages(old_size) : 0, pages = whole_pages(size ? size : 1);
    if (p && pages <= old_pages) return p;
    void *q = p ? mremap(p, old_pages, pages, MREMAP_MAYMOVE)
                : mmap(NULL, pages, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (q == MAP_FAILED) die("out of memory growing a block to %zu bytes: %s", size, strerror(errno));
    return q;
#else
    if (p && size <= old_size) return p;
    void *q = xaligned_alloc(size);
    if (p) memcpy(q, p, old_size);
    free(p);
    return q;
#endif
}

void xblock_free(void *p, size_t size) {
    if (!p) return;
#ifdef BLOCKS_MAPPED
    munmap(p, whole_pages(size ? size : 1));
#else
    (void)size;
    free(p);
#endif
}

char *xstrdup(const char *s) {
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

void *xaligned_alloc(size_t size) {
    check_block(size);
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
    /* O_NONBLOCK: opening a named pipe must not wait for a writer */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        error_set(err, "cannot open %s for reading: %s", path, strerror(errno));
        return NULL;
    }
    const char *why = fd_problem(fd);
    struct stat st;
    if (why || fstat(fd, &st) != 0) {
        close(fd);
        error_set(err, "cannot read %s: it %s", path, why ? why : "cannot be looked at");
        return NULL;
    }
    char what[64 + PATH_MAX];
    snprintf(what, sizeof what, "reading %s whole", path);
    if (!mem_check(size_add((uint64_t)st.st_size, 1), what, err)) {
        close(fd);
        return NULL;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        error_set(err, "cannot open %s for reading: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0; /* the whole file and its terminator, in one block */
    char *buf = xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap) buf = xrealloc(buf, cap *= 2); /* it grew while being read */
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

/* The folder of path ("." for a bare name), newly allocated. */
static char *folder_of(const char *path) {
    char *dir = xstrdup(path), *slash = strrchr(dir, '/');
    if (!slash)
        strcpy(dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    return dir;
}

/* The file path stands for: itself, or for a symbolic link the file it points to. */
static char *resolve_link(const char *path) {
    struct stat st;
    char *real = lstat(path, &st) == 0 && S_ISLNK(st.st_mode) ? realpath(path, NULL) : NULL;
    return real ? real : xstrdup(path);
}

/* A new, empty file beside target (target.XXXXXX), open for writing; -1 with errno. */
static int new_file_beside(const char *target, char **temp) {
    size_t n = strlen(target) + 8;
    *temp = xmalloc(n);
    snprintf(*temp, n, "%s.XXXXXX", target);
    int fd = mkostemp(*temp, O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        free(*temp);
        *temp = NULL;
        errno = e;
    }
    return fd;
}

FILE *file_replace_begin(FileReplace *r, const char *path, Error *err) {
    memset(r, 0, sizeof *r);
    if (!*path) {
        error_set(err, "an empty file name cannot be written");
        return NULL;
    }
    r->target = resolve_link(path);
    struct stat st;
    if (stat(r->target, &st) == 0)
        r->mode = (int)(st.st_mode & 07777); /* the old file's permissions */
    else {
        mode_t mask = umask(0); /* a new file's, as fopen would make it */
        umask(mask);
        r->mode = (int)(0666 & ~mask);
    }
    int fd = new_file_beside(r->target, &r->temp);
    if (fd >= 0 && fchmod(fd, (mode_t)r->mode) == 0) r->f = fdopen(fd, "wb");
    if (!r->f) {
        error_set(err, "cannot write %s: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        if (r->temp) unlink(r->temp);
        free(r->temp), free(r->target);
        memset(r, 0, sizeof *r);
    }
    return r->f;
}

bool file_replace_commit(FileReplace *r, bool ok, Error *err) {
    int e = 0;
    if (ok && (fflush(r->f) != 0 || fsync(fileno(r->f)) != 0)) e = errno;
    if (fclose(r->f) != 0 && ok && !e) e = errno;
    if (ok && !e && rename(r->temp, r->target) != 0) e = errno;
    if (ok && !e) { /* the rename is in the folder: flush it too (some file systems cannot: fine) */
        char *dir = folder_of(r->target);
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
        free(dir);
    } else {
        if (ok) error_set(err, "cannot write %s: %s", r->target, strerror(e));
        unlink(r->temp);
    }
    bool done = ok && !e;
    free(r->temp), free(r->target);
    memset(r, 0, sizeof *r);
    return done;
}

bool check_writable(const char *path, Error *err) {
    if (!*path) return error_set(err, "an empty file name cannot be written");
    struct stat st;
    if (stat(path, &st) == 0) {
        if (!S_ISREG(st.st_mode))
            return error_set(err, "cannot write %s: it %s", path, not_regular(st.st_mode));
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC); /* no O_TRUNC: nothing is changed yet */
        if (fd < 0) return error_set(err, "cannot write %s: %s", path, strerror(errno));
        close(fd);
    } else if (errno != ENOENT) {
        return error_set(err, "cannot write %s: %s", path, strerror(errno));
    }
    /* what the replacement will do: a new file in the same folder */
    char *target = resolve_link(path), *temp;
    int fd = new_file_beside(target, &temp);
    free(target);
    if (fd < 0) return error_set(err, "cannot write %s: %s", path, strerror(errno));
    close(fd);
    unlink(temp);
    free(temp);
    return true;
}

bool same_file(const char *a, const char *b) {
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

bool check_disk_space(const char *path, uint64_t bytes, Error *err) {
    char *dir = folder_of(path);
    struct statvfs v;
    bool known = statvfs(dir, &v) == 0;
    free(dir);
    if (!known) return true; /* cannot tell: the write itself will say */
    uint64_t room = size_mul(v.f_bavail, v.f_frsize);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        room = size_add(room, (uint64_t)st.st_size); /* replaced */
    if (bytes <= room) return true;
    char need[32], exact[48], have[32];
    return error_set(err, "%s would be %s%s, but its file system has only %s free", path,
                     format_bytes(bytes, need, sizeof need), exact_words(bytes, exact, sizeof exact),
                     format_bytes(room, have, sizeof have));
}

/* ---- numbers on the command line ---------------------------------------------------- */

bool parse_count(const char *flag, const char *text, uint64_t min, uint64_t max, uint64_t *out, Error *err) {
    uint64_t v = 0;
    bool ok = *text != '\0';
    for (const char *p = text; ok && *p; p++) {
        unsigned d = (unsigned)(*p - '0');
        ok = *p >= '0' && *p <= '9' && v <= (UINT64_MAX - d) / 10;
        v = v * 10 + d;
    }
    if (!ok || v < min || v > max)
        return error_set(err, "%s needs a whole number from %llu to %llu, got '%s'", flag,
                         (unsigned long long)min, (unsigned long long)max, text);
    *out = v;
    return true;
}

/* The end of a run of decimal digits starting at p (p itself when there is none). */
static const char *skip_digits(const char *p) {
    while (*p >= '0' && *p <= '9') p++;
    return p;
}

bool parse_real(const char *flag, const char *text, double *out, Error *err) {
    const char *p = skip_digits(text);
    bool digits = p > text;
    if (*p == '.') {
        const char *q = p + 1;
        p = skip_digits(q);
        digits |= p > q;
    }
    if (digits && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1 + (p[1] == '+' || p[1] == '-');
        p = skip_digits(q);
        digits = p > q;
    }
    double v = digits && *p == '\0' ? strtod(text, NULL) : NAN; /* strtod rounds it exactly */
    if (!isfinite(v))
        return error_set(err, "%s needs a decimal number such as 0.7, 2 or 1e-6, got '%s'", flag, text);
    *out = v;
    return true;
}

bool parse_size(const char *flag, const char *text, uint64_t *bytes, Error *err) {
    static const struct {
        const char *name;
        uint64_t scale;
    } units[] = {{"", 1},
                 {"b", 1},
                 {"k", 1000},
                 {"kb", 1000},
                 {"m", 1000000},
                 {"mb", 1000000},
                 {"g", 1000000000},
                 {"gb", 1000000000},
                 {"t", 1000000000000},
                 {"tb", 1000000000000},
                 {"kib", 1ull << 10},
                 {"mib", 1ull << 20},
                 {"gib", 1ull << 30},
                 {"tib", 1ull << 40}};
    const char *p = text;
    unsigned __int128 whole = 0, frac = 0, denom = 1;
    bool digits = false, ok = true;
    for (; *p >= '0' && *p <= '9'; p++, digits = true)
        if ((whole = whole * 10 + (unsigned)(*p - '0')) > UINT64_MAX) ok = false;
    if (*p == '.') {
        p++;
        for (; *p >= '0' && *p <= '9'; p++, digits = true)
            if (denom < 1000000000000000000ull) frac = frac * 10 + (unsigned)(*p - '0'), denom *= 10;
    }
    uint64_t scale = 0;
    for (size_t i = 0; i < ARRAY_LEN(units) && !scale; i++)
        if (strcasecmp(p, units[i].name) == 0) scale = units[i].scale;
    unsigned __int128 v = whole * scale + (frac * scale + denom / 2) / denom; /* < 2^64 · 2^40 + 2^100 */
    if (!ok || !digits || !scale || v < 1 || v > UINT64_MAX)
        return error_set(err, "%s needs a size such as 8G, 512M or 1.5GiB (at least 1 byte), got '%s'", flag,
                         text);
    *bytes = (uint64_t)v;
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

/* What a file that is not regular is, for file_problem and fd_problem. */
static const char *not_regular(mode_t mode) {
    if (S_ISDIR(mode)) return "is a folder, not a regular file";
    if (S_ISFIFO(mode)) return "is a named pipe (FIFO), not a regular file";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device, not a regular file";
    if (S_ISSOCK(mode)) return "is a socket, not a regular file";
    return "is not a regular file";
}

/* Why stat(path) failed, in words that follow the path. */
static const char *stat_failure(const char *path, int e, bool *missing) {
    static _Thread_local char other[160];
    struct stat st;
    switch (e) {
    case ENOENT:
        if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) return "is a symbolic link to something missing";
        *missing = true;
        return "is missing";
    case ENOTDIR:
        *missing = true;
        return "is missing (a part of its path is not a folder)";
    case ELOOP:
        return "is a symbolic link loop";
    case EACCES:
        return "cannot be reached (permission denied on a folder above it)";
    case ENAMETOOLONG:
        return "has a name that is too long";
    default:
        snprintf(other, sizeof other, "cannot be looked at (%s)", strerror(e));
        return other;
    }
}

const char *file_problem(const char *path, bool *missing) {
    bool none = false;
    const char *why = NULL;
    struct stat st;
    if (stat(path, &st) != 0)
        why = stat_failure(path, errno, &none);
    else if (!S_ISREG(st.st_mode))
        why = not_regular(st.st_mode);
    else if (faccessat(AT_FDCWD, path, R_OK, AT_EACCESS) != 0)
        why = errno == EACCES ? "cannot be read (permission denied)" : "cannot be read";
    if (missing) *missing = none;
    return why;
}

const char *dir_problem(const char *path, bool *missing) {
    bool none = false;
    const char *why = NULL;
    struct stat st;
    if (stat(path, &st) != 0)
        why = stat_failure(path, errno, &none);
    else if (S_ISREG(st.st_mode))
        why = "is a regular file, not a folder";
    else if (S_ISFIFO(st.st_mode))
        why = "is a named pipe (FIFO), not a folder";
    else if (!S_ISDIR(st.st_mode))
        why = "is not a folder";
    else if (faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) != 0)
        why = errno == EACCES ? "cannot be opened (permission denied)" : "cannot be opened";
    if (missing) *missing = none;
    return why;
}

const char *fd_problem(int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0) return "cannot be looked at";
    return S_ISREG(st.st_mode) ? NULL : not_regular(st.st_mode);
}

LineStatus read_line(FILE *in, size_t max, char **buf, size_t *cap, size_t *len) {
    size_t n = 0, skipped = 0;
    int c = EOF;
    while ((c = getc(in)) != EOF && c != '\n') {
        if (n == max) { /* too long: read on to the end of the line, keep nothing more */
            if (++skipped > LINE_SKIP_MAX) return LINE_ENDLESS;
            continue;
        }
        if (n + 1 >= *cap) {
            size_t want = *cap ? 2 * *cap : 256;
            *cap = want < max + 1 ? want : max + 1;
            *buf = xrealloc(*buf, *cap);
        }
        (*buf)[n++] = (char)c;
    }
    if (c == EOF && ferror(in)) return LINE_ERROR;
    if (c == EOF && n == 0 && skipped == 0) return LINE_EOF;
    if (skipped) return LINE_TOO_LONG;
    if (!*buf) *buf = xmalloc(*cap = 1);
    (*buf)[n] = '\0';
    *len = n;
    return LINE_OK;
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
    if (!*path) return error_set(err, "a folder with an empty name cannot be created");
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

void text_put(Text *t, const void *data, size_t n) {
    if (!t->s || t->len + n >= t->cap) {
        size_t cap = t->cap ? t->cap : 64;
        while (t->len + n >= cap) cap *= 2;
        t->s = xrealloc(t->s, cap);
        t->cap = cap;
    }
    if (n > 0) memcpy(t->s + t->len, data, n); /* data may be NULL when there is nothing to add */
    t->len += n;
    t->s[t->len] = '\0';
}

void text_add(Text *t, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) die("text_add: cannot format \"%s\"", fmt);
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        t->cap = (t->cap + (size_t)n + 1) * 2;
        t->s = xrealloc(t->s, t->cap);
    }
}
