/* fuzz.h — what the fuzz harnesses (chNN_x/fuzz/fuzz_NAME.c) share.
 *
 * A harness feeds one input to a parser and then checks more than "it did not
 * crash": FUZZ_CHECK aborts with a message when an invariant of a successful
 * parse breaks, and fuzz_check_error() holds every failure to the workbook's rule
 * (one line, naming the file). libFuzzer and the replay in `make test` both treat
 * the abort as a finding.
 *
 * Inputs that must live in files go to a folder of this process's own
 * (fuzz_scratch_dir: unique per process, removed at exit, and also when a
 * sanitizer stops the process), or to an anonymous memory file (fuzz_memfile)
 * that leaves nothing behind at all.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workbook/util.h"

/* A broken invariant: say which, then abort (libFuzzer saves the input). */
#define FUZZ_CHECK(cond, ...)                                                                                \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "fuzz invariant broken at %s:%d: %s\n  ", __FILE__, __LINE__, #cond);            \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fputc('\n', stderr);                                                                             \
            fuzz_cleanup();                                                                                  \
            abort();                                                                                         \
        }                                                                                                    \
    } while (0)

static char fuzz_dir[256];
static const char *const *fuzz_dir_files; /* names inside fuzz_dir the harness writes */

/* Removes the harness's files and folder (safe to call more than once). */
static inline void fuzz_cleanup(void) {
    if (!fuzz_dir[0]) return;
    for (const char *const *f = fuzz_dir_files; f && *f; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", fuzz_dir, *f);
        unlink(path);
        rmdir(path); /* an input may have named a folder */
    }
    rmdir(fuzz_dir);
    fuzz_dir[0] = '\0';
}

/* Called by ASan / UBSan before they end the process with a report (weak: absent
 * without a sanitizer). */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

/* A folder of this process's own, for inputs that must be files named `files`
 * (a NULL-terminated list of names; they are removed with it). */
static inline const char *fuzz_scratch_dir(const char *name, const char *const *files) {
    if (fuzz_dir[0]) return fuzz_dir;
    const char *tmp = getenv("TMPDIR");
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/%s-%d-XXXXXX", tmp && *tmp ? tmp : "/tmp", name, (int)getpid());
    if (!mkdtemp(fuzz_dir)) {
        perror(fuzz_dir);
        abort();
    }
    fuzz_dir_files = files;
    atexit(fuzz_cleanup);
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(fuzz_cleanup);
    return fuzz_dir;
}

/* An anonymous file holding exactly data (replaced on every call), and a path that
 * opens it: /proc/self/fd/N. Nothing to clean up. */
static inline const char *fuzz_memfile(const char *name, const void *data, size_t size) {
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create(name, MFD_CLOEXEC);
        if (fd < 0) {
            perror("memfd_create");
            abort();
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
        perror(path);
        abort();
    }
    return path;
}

/* Writes size bytes to dir/name, replacing it. */
static inline void fuzz_write(const char *dir, const char *name, const void *data, size_t size) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    Error err;
    FUZZ_CHECK(write_file(path, data, size, &err), "%s", err.msg);
}

/* A failure must be one line that names the file it is about (names, if not NULL). */
static inline void fuzz_check_error(const Error *err, const char *names) {
    FUZZ_CHECK(err->msg[0] != '\0', "a failure without a message");
    FUZZ_CHECK(strchr(err->msg, '\n') == NULL, "the error is not one line: %s", err->msg);
    for (const unsigned char *p = (const unsigned char *)err->msg; *p; p++)
        FUZZ_CHECK(*p >= 0x20 && *p != 0x7f, "a control character in the error: %s", err->msg);
    if (names) FUZZ_CHECK(strstr(err->msg, names) != NULL, "the error does not name %s: %s", names, err->msg);
}

#endif
