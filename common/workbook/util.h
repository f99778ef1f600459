/* util.h — checked I/O, checked allocation and error reporting.
 *
 * Two ways to fail, used consistently across the workbook:
 *
 *   1. Library code that reads outside input (a safetensors file, config.json,
 *      tokenizer.json, ...) never exits. It returns false and fills an Error
 *      with one line that names the file and the problem:
 *
 *          Error err;
 *          if (!st_open(&f, path, &err)) die("%s", err.msg);
 *
 *   2. Things a program cannot sensibly recover from (out of memory, a demo's
 *      fatal error) go through die()/x*alloc(), which print one line to stderr
 *      and exit with status 1.
 *
 * Every message is meant to be read by a person following the book: it says
 * which file, which tensor or key, and what is wrong with it.
 *
 * Messages quote text from files (tensor names, keys, paths, token strings), and a
 * file can hold anything. So error_set() and die() escape what their arguments
 * bring in: control characters, DEL, the C1 controls and bytes that are not UTF-8
 * are written as \n, \t, \x1b, \u009b, \xff ..., so a newline or a terminal escape
 * sequence from a file can never reach the terminal or split the line. The format
 * string itself is the program's and is printed as written. die("%s", err.msg)
 * prints a message error_set() made as it is (its arguments were escaped there,
 * and its own line breaks stay).
 */
#ifndef UTIL_H
#define UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One error line. Filled by error_set(); read through .msg. */
typedef struct {
    char msg[1024];
} Error;

/* Formats the message into err (which may be NULL) and returns false, so a
 * failing function can end with `return error_set(err, "...", ...);`. */
bool error_set(Error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints "<program>: <message>" to stderr and exits with status 1. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* True once die() has begun: an at-exit handler tells a failed run from one that
 * finished (and stays quiet after the one error line). */
bool dying(void);

/* s with its control characters, DEL, C1 controls and non-UTF-8 bytes escaped (as
 * in error messages), into buf; cut short, but always terminated, if it does not
 * fit. For untrusted text a program prints on stdout. */
const char *escape_text(const char *s, char *buf, size_t size);

/* Writes n bytes of s to f escaped as above, but for '\n' and '\t', which lay text
 * out: what a program prints on a terminal from text it did not write (generated
 * text, which may hold ESC or any other control character). */
void write_escaped(FILE *f, const char *s, size_t n);

/* The program name used by die() and usage lines (set once from argv[0]). */
void set_program_name(const char *argv0);
const char *program_name(void);

/* ---- memory: what one request may take -----------------------------------------
 * Nothing a file or a command line asks for is allocated before its size is known
 * to be sane. The limit is half of the machine's physical memory (sysconf), or what
 * mem_set_limit() set instead (the demos' --max-memory SIZE). A demo estimates what
 * a request needs before it allocates any of it (the buffers for T tokens, a tensor
 * to dump) and refuses with one line saying how much that would be; x*alloc() and
 * read_file() also refuse any single block above the limit, so nothing asks the
 * system for 512 GB and gets killed for it halfway. */
uint64_t mem_physical(void);
uint64_t mem_limit(void);
void mem_set_limit(uint64_t bytes); /* 0: back to half of the physical memory */
/* Saturating arithmetic for estimates: never wraps; UINT64_MAX means "too much". */
uint64_t size_mul(uint64_t a, uint64_t b);
uint64_t size_add(uint64_t a, uint64_t b);
/* True when bytes fit the limit; else false with "WHAT would need about 5.2 GB of
 * memory (5,234,567,890 bytes), more than the limit of 11.7 GB (half of this
 * machine's 23.4 GB; --max-memory SIZE sets another)". */
bool mem_check(uint64_t bytes, const char *what, Error *err);
/* "5.2 GB", "512.0 MB", "4.1 KB", "17 bytes" (powers of 1000, as the demos print sizes). */
const char *format_bytes(uint64_t bytes, char *buf, size_t size);
/* "5,234,567,890". */
const char *format_grouped(uint64_t n, char *buf, size_t size);

/* Allocation that dies with a clear message instead of returning NULL (and above
 * the memory limit). */
void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
/* 64-byte aligned (for SIMD loops); release with free(). */
void *xaligned_alloc(size_t size);
/* A block that grows without copying what it holds: on Linux pages of its own (mmap),
 * made longer by mremap, which keeps the pages in use and adds more (their contents
 * stay where they are in memory; only the block's address may change). Elsewhere, and
 * under AddressSanitizer (which then checks every access), xaligned_alloc, copy and
 * free. Page-aligned on Linux, 64-byte aligned elsewhere. p NULL with old_size 0: a
 * new block. The sizes are the caller's to remember; xblock_free(p, size) releases. */
void *xblock_grow(void *p, size_t old_size, size_t size);
void xblock_free(void *p, size_t size);

/* fopen that reports "cannot open FILE for reading: No such file or directory". */
FILE *xfopen(const char *path, const char *mode, Error *err);

/* Reads a whole file into a NUL-terminated buffer (caller frees).
 * *len receives the byte count (without the terminator) when len != NULL.
 * Only regular files: a named pipe, a device or a folder is an error (reading a
 * pipe could wait forever), never a hang. */
char *read_file(const char *path, size_t *len, Error *err);

/* Writes len bytes to path, replacing it. */
bool write_file(const char *path, const void *data, size_t len, Error *err);

/* ---- replacing a file whole: what a save does ------------------------------------
 * Writing over a file in place ("wb") empties it first: a write that fails half-way
 * (a full disk, a killed process) leaves a file cut short where the old one was. So a
 * file that holds something a user keeps (a state, a --dump) is replaced the way
 * databases do it: written to a new file in the same folder, flushed to the disk
 * (fsync), then renamed over the old one — rename is atomic, so the name holds the
 * old file or the new one, never half of either — and the folder is flushed too, so
 * the rename itself is on the disk. The new file gets the old one's permissions. A
 * symbolic link stays a link: the file it points to is the one replaced.
 *
 *     FileReplace r;
 *     FILE *f = file_replace_begin(&r, path, &err);   // path.XXXXXX beside it
 *     bool ok = f && fwrite(...) == n ...;
 *     if (!f || !file_replace_commit(&r, ok, &err)) ...  // fsync + rename, or nothing
 */
typedef struct {
    char *target; /* the file to replace (a link's target, resolved) */
    char *temp;   /* the new file beside it */
    FILE *f;
    int mode; /* permissions for the new file */
} FileReplace;

/* Opens a new file beside path for writing; NULL with one line in err. */
FILE *file_replace_begin(FileReplace *r, const char *path, Error *err);
/* With ok (every write succeeded): flush, fsync, rename over the target, fsync the
 * folder; false with one line in err when any of it fails. Without ok, or on
 * failure: the new file is removed and the target is untouched. Closes the file. */
bool file_replace_commit(FileReplace *r, bool ok, Error *err);

/* Whether path can be replaced whole (a --dump FILE or --save-state FILE, before the
 * run that fills it): it is missing or an existing regular file that opens for
 * writing (it is not changed), and its folder takes a new file (one is created and
 * removed again). A folder, a pipe or a device is refused: writing there would fail
 * or block at the end. */
bool check_writable(const char *path, Error *err);

/* True when a and b name the same existing file (the same device and inode: also
 * through links, or two spellings of one path). */
bool same_file(const char *a, const char *b);
/* Whether the file system holding path has room for bytes more. */
bool check_disk_space(const char *path, uint64_t bytes, Error *err);

/* ---- numbers on the command line --------------------------------------------------
 * One grammar for every flag: decimal digits, never a sign, spaces, hex ("0x10"),
 * "inf" or "nan"; whole numbers are digits only, real numbers and sizes may have a
 * fraction, real numbers also an exponent. Each returns false with one line naming
 * the flag instead of exiting, so a demo's parser decides what to do (and the parsers
 * can be fuzzed). */

/* A whole number in min .. max, in decimal digits only: no sign, no spaces, no
 * other characters ("2x", "1e3", "-1", "" and "0x10" are refused). */
bool parse_count(const char *flag, const char *text, uint64_t min, uint64_t max, uint64_t *out, Error *err);
/* A real number: digits with an optional fraction and exponent ("2", "0.7", ".5",
 * "1e-6", "3.5E+2"), at least one digit before the exponent, finite (1e999 is
 * refused; 1e-999 is 0). */
bool parse_real(const char *flag, const char *text, double *out, Error *err);
/* A size in bytes: a number (digits, optionally a fraction) and a unit, B, K, M, G, T
 * (powers of 1000, with or without B: 8G = 8GB = 8e9) or KiB, MiB, GiB, TiB (powers
 * of 1024); no unit means bytes. At least 1 byte, at most 2^64 − 1. */
bool parse_size(const char *flag, const char *text, uint64_t *bytes, Error *err);

/* True when path exists and is a directory / a regular file. */
bool is_dir(const char *path);
bool is_file(const char *path);

/* Why path is not a regular file this process can read, in words that follow the
 * path in a message: "is missing", "is a folder, not a regular file", "is a named
 * pipe (FIFO), not a regular file", "is a symbolic link loop", "cannot be read
 * (permission denied)", ...; NULL when it is one. *missing (may be NULL) is set
 * when nothing at all is there, to tell "missing" apart from "there, but wrong". */
const char *file_problem(const char *path, bool *missing);
/* The same for a folder whose files can be opened ("is a regular file, not a folder",
 * "cannot be opened (permission denied)", ...). */
const char *dir_problem(const char *path, bool *missing);
/* The same for an open file descriptor (what it is, when not a regular file). */
const char *fd_problem(int fd);

/* ---- a line of typed text ------------------------------------------------------
 * A chat reads what a person types, one line at a time; stdin may as well be a file
 * of one endless line (/dev/zero). read_line keeps at most max bytes of a line, so a
 * line never takes more memory than that: a longer one is read to its end and
 * dropped (LINE_TOO_LONG, and the next call starts at the next line), unless no
 * '\n' comes within LINE_SKIP_MAX bytes more (LINE_ENDLESS: not lines of text). */
typedef enum {
    LINE_OK,       /* *len bytes in *buf (which may hold NUL bytes), without the '\n' */
    LINE_EOF,      /* the end of the input, nothing read */
    LINE_TOO_LONG, /* more than max bytes before the '\n' (dropped) */
    LINE_ENDLESS,  /* no '\n' within max + LINE_SKIP_MAX bytes */
    LINE_ERROR     /* the input failed (errno says why) */
} LineStatus;
#define LINE_SKIP_MAX (64u << 20)

/* Reads a line of in into *buf (grown with xrealloc, never beyond max + 1 bytes; start
 * from NULL and 0; the caller frees it), NUL-terminated. A last line without '\n' is
 * a line. */
LineStatus read_line(FILE *in, size_t max, char **buf, size_t *cap, size_t *len);

/* Joins a directory and a file name into a newly allocated path. */
char *path_join(const char *dir, const char *name);

/* Creates a directory and its parents (like mkdir -p). */
bool make_dirs(const char *path, Error *err);

/* Wall-clock time in seconds, for the timings the demos print. */
double now_seconds(void);

/* A growing string, for text written piece by piece (a gnuplot script, a
 * safetensors header, decoded bytes): Text t = {0}; text_add(&t, "%d", n); ... then
 * t.s (NUL-terminated, t.len bytes) and free(t.s). text_add appends formatted text,
 * text_put n bytes as they are (a NUL byte among them too). Setting t.len = 0 starts
 * it again, keeping the memory. */
typedef struct {
    char *s;
    size_t len, cap;
} Text;
void text_add(Text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void text_put(Text *t, const void *data, size_t n);

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
