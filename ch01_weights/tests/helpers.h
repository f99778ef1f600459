/* helpers.h — what the chapter-1 tests share.
 *
 *   a scratch folder per test under $BUILD, all removed with the test case;
 *   files whose bytes a test spells out itself (not through our writer);
 *   running a demo binary ($BINDIR prefix) with its stdout and stderr captured;
 *   ck_assert_error(): the error is one line that names the file and the problem;
 *   json_edited(): a JSON text with one value changed or removed (broken configs).
 *
 * Tests run from the repository root (mk/run-tests.sh).
 */
#ifndef CH01_TESTS_HELPERS_H
#define CH01_TESTS_HELPERS_H

#include <cJSON.h>
#include <check.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workbook/util.h"

extern char **environ;

static inline int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

/* Removes a scratch folder and everything in it (never follows symbolic links). */
static inline void scratch_remove(const char *dir) {
    if (dir) nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* printf into a new string (caller frees). */
static inline char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline char *str_printf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    ck_assert_msg(n >= 0, "out of memory");
    return s;
}

/* Every scratch folder of a test case lives in one root folder, made and removed by
 * the parent process around the test case (an unchecked fixture): so it goes even
 * when a failed assertion ends a forked test at once, before its teardown. */
static char scratch_root[PATH_MAX];

static inline void scratch_root_make(void) {
    const char *build = getenv("BUILD");
    snprintf(scratch_root, sizeof scratch_root, "%s/ch01-test-XXXXXX", build && *build ? build : "build");
    Error err;
    char *parent = xstrdup(scratch_root);
    *strrchr(parent, '/') = '\0';
    if (!make_dirs(parent, &err)) die("%s", err.msg);
    free(parent);
    if (!mkdtemp(scratch_root)) die("cannot create a scratch folder %s", scratch_root);
}

static inline void scratch_root_remove(void) {
    scratch_remove(scratch_root);
    scratch_root[0] = '\0';
}

/* A test case whose tests may call scratch_dir(). */
static inline TCase *tcase_with_scratch(const char *name) {
    TCase *c = tcase_create(name);
    tcase_add_unchecked_fixture(c, scratch_root_make, scratch_root_remove);
    return c;
}

/* A fresh folder for one test, as an absolute path (caller frees). */
static inline char *scratch_dir(void) {
    ck_assert_msg(scratch_root[0] != '\0', "scratch_dir() needs a test case made by tcase_with_scratch()");
    char *templ = str_printf("%s/t-XXXXXX", scratch_root);
    ck_assert_msg(mkdtemp(templ) != NULL, "cannot create a scratch folder %s", templ);
    char *abs = realpath(templ, NULL);
    ck_assert_ptr_nonnull(abs);
    free(templ);
    return abs;
}

/* path_join for tests: dir/name, newly allocated. */
static inline char *in_dir(const char *dir, const char *name) { return path_join(dir, name); }

static inline void write_bytes(const char *path, const void *data, size_t len) {
    Error err;
    if (!write_file(path, data, len, &err)) ck_abort_msg("%s", err.msg);
}

static inline char *slurp(const char *path, size_t *len) {
    Error err;
    char *s = read_file(path, len, &err);
    if (!s) ck_abort_msg("%s", err.msg);
    return s;
}

/* Lines in s (a last line without '\n' counts too). */
static inline int count_lines(const char *s) {
    int n = 0;
    for (const char *p = s; *p; p++) n += *p == '\n';
    return n + (*s && s[strlen(s) - 1] != '\n');
}

/* Runs argv[0] with stdout and stderr written to out_path / err_path; returns the
 * exit status (128 + signal when it was killed). */
static inline int run_program(char *const argv[], const char *out_path, const char *err_path) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    ck_assert_msg(rc == 0, "cannot run %s: %s", argv[0], strerror(rc));
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* A demo or tool of this chapter, as built for this run ("" or "build-san/" prefix). */
static inline char *chapter_binary(const char *name) {
    const char *bindir = getenv("BINDIR");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%sch01_weights/%s", bindir ? bindir : "", name);
    ck_assert_msg(access(path, X_OK) == 0, "%s is not built (run the tests through make test)", path);
    return xstrdup(path);
}

/* The failure was reported as one line that contains every given fragment (the
 * file's path and the words that name the problem). */
#define ck_assert_error(err, ...)                                                                            \
    do {                                                                                                     \
        const char *frags_[] = {__VA_ARGS__};                                                                \
        const char *msg_ = (err).msg;                                                                        \
        ck_assert_msg(msg_[0] != '\0', "no error message");                                                  \
        ck_assert_msg(strchr(msg_, '\n') == NULL, "error is not one line: %s", msg_);                        \
        for (size_t k_ = 0; k_ < sizeof frags_ / sizeof frags_[0]; k_++)                                     \
            ck_assert_msg(strstr(msg_, frags_[k_]) != NULL, "error \"%s\" does not say \"%s\"", msg_,        \
                          frags_[k_]);                                                                       \
    } while (0)

/* Parses json, changes the value at a dotted path ("text_config.layer_types.5"; a
 * number indexes an array) to replacement (JSON text), or removes it when
 * replacement is NULL, and returns the new text (caller frees). */
static inline char *json_edited(const char *json, const char *where, const char *replacement) {
    cJSON *root = cJSON_Parse(json);
    ck_assert_ptr_nonnull(root);
    char *path = xstrdup(where), *key = path, *dot;
    cJSON *parent = root;
    while ((dot = strchr(key, '.'))) {
        *dot = '\0';
        parent = cJSON_IsArray(parent) ? cJSON_GetArrayItem(parent, atoi(key))
                                       : cJSON_GetObjectItemCaseSensitive(parent, key);
        ck_assert_msg(parent != NULL, "no %s in the config", where);
        key = dot + 1;
    }
    if (replacement) {
        cJSON *value = cJSON_Parse(replacement);
        ck_assert_msg(value != NULL, "bad replacement %s", replacement);
        if (cJSON_IsArray(parent))
            ck_assert(cJSON_ReplaceItemInArray(parent, atoi(key), value));
        else if (cJSON_GetObjectItemCaseSensitive(parent, key))
            ck_assert(cJSON_ReplaceItemInObjectCaseSensitive(parent, key, value));
        else
            cJSON_AddItemToObject(parent, key, value);
    } else if (cJSON_IsArray(parent)) {
        cJSON_DeleteItemFromArray(parent, atoi(key));
    } else {
        ck_assert_msg(cJSON_GetObjectItemCaseSensitive(parent, key) != NULL, "no %s in the config", where);
        cJSON_DeleteItemFromObjectCaseSensitive(parent, key);
    }
    char *text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    free(path);
    return text;
}

/* The same, applied to a file in place. */
static inline void json_file_edit(const char *file, const char *where, const char *replacement) {
    char *json = slurp(file, NULL), *text = json_edited(json, where, replacement);
    write_bytes(file, text, strlen(text));
    free(json);
    free(text);
}

/* Runs every test of one suite and exits with the verdict (0 = all passed). */
static inline int run_suite(Suite *s) {
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_ENV);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed == 0 ? 0 : 1;
}

#endif
