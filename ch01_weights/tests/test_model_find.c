/* test_model_find.c — where the demos look for the model (model_find, qwen/weights.h).
 *
 * The order: --model DIR, then $QWEN35_MODEL, then models/Qwen3.5-0.8B under the
 * repository root, then the Hugging Face cache ($HF_HUB_CACHE, else $HF_HOME/hub,
 * else $HOME/.cache/huggingface/hub), where refs/main names the snapshot to use.
 * A folder counts when it holds config.json.
 *
 * Every folder here is made in a scratch folder, and the environment is set per
 * test. The repository's own models/ folder is never created or touched: whether
 * it holds a download is read once, and the tests that reach that rule check the
 * outcome that follows from it (the download wins, or the message lists its path).
 */
#include <grp.h>

#include "helpers.h"
#include "qwen/weights.h"

#define LOCAL_MODEL REPO_ROOT "/models/Qwen3.5-0.8B"
#define HF_REPO     "models--Qwen--Qwen3.5-0.8B"

static char *scratch;

/* A downloaded model in the repository (then it wins over the cache). */
static bool local_model_present(void) { return is_file(LOCAL_MODEL "/config.json"); }

/* Makes dir (and parents) holding an empty config.json; returns dir. */
static char *model_folder(const char *rel) {
    char *dir = in_dir(scratch, rel), *config = in_dir(dir, "config.json");
    Error err;
    ck_assert_msg(make_dirs(dir, &err), "%s", err.msg);
    write_bytes(config, "{}", 2);
    free(config);
    return dir;
}

/* A Hugging Face cache under hub: snapshots of the given revisions (with a
 * config.json when has_config), and refs/main naming main_rev (NULL: no ref). */
static void hf_cache(const char *hub, const char *const revs[], const bool has_config[], int n,
                     const char *main_rev) {
    for (int i = 0; i < n; i++) {
        char *rel = str_printf("%s/%s/snapshots/%s", hub, HF_REPO, revs[i]);
        if (has_config[i])
            free(model_folder(rel));
        else {
            char *dir = in_dir(scratch, rel);
            Error err;
            ck_assert(make_dirs(dir, &err));
            free(dir);
        }
        free(rel);
    }
    if (main_rev) {
        char *refs = str_printf("%s/%s/%s/refs", scratch, hub, HF_REPO), *main_file = in_dir(refs, "main");
        Error err;
        ck_assert(make_dirs(refs, &err));
        write_bytes(main_file, main_rev, strlen(main_rev)); /* the cache writes the hash, no newline */
        free(refs);
        free(main_file);
    }
}

static void setup(void) {
    scratch = scratch_dir();
    /* start from nothing: no variable of the caller's shell may leak in */
    unsetenv("QWEN35_MODEL");
    unsetenv("HF_HUB_CACHE");
    unsetenv("HF_HOME");
    char *home = in_dir(scratch, "home");
    Error err;
    ck_assert(make_dirs(home, &err));
    setenv("HOME", home, 1);
    free(home);
}

static void teardown(void) {
    scratch_remove(scratch);
    free(scratch);
}

/* What the cache-only tests expect: the snapshot, unless the repository holds a
 * download, which comes earlier in the order. */
static void expect_found(const char *want, const char *want_source) {
    const char *source = NULL;
    Error err = {{0}};
    char *found = model_find(NULL, &source, &err);
    if (local_model_present()) {
        ck_assert_msg(found != NULL, "%s", err.msg);
        ck_assert_str_eq(found, LOCAL_MODEL);
        ck_assert_str_eq(source, "models/Qwen3.5-0.8B");
    } else {
        ck_assert_msg(found != NULL, "%s", err.msg);
        ck_assert_str_eq(found, want);
        ck_assert_str_eq(source, want_source);
    }
    free(found);
}

/* ---- the order ------------------------------------------------------------------ */

START_TEST(flag_comes_first) {
    char *flag = model_folder("flag"), *env = model_folder("env");
    setenv("QWEN35_MODEL", env, 1);
    char *hub = str_printf("%s/hub", scratch);
    hf_cache("hub", (const char *[]){"abc"}, (const bool[]){true}, 1, "abc");
    setenv("HF_HUB_CACHE", hub, 1);
    const char *source = NULL;
    Error err;
    char *found = model_find(flag, &source, &err);
    ck_assert_msg(found != NULL, "%s", err.msg);
    ck_assert_str_eq(found, flag);
    ck_assert_str_eq(source, "--model");
    free(found);
    free(hub);
    free(flag);
    free(env);
}
END_TEST

/* A flag that points at the wrong folder is an error, not a reason to look elsewhere. */
START_TEST(wrong_flag_does_not_fall_through) {
    char *env = model_folder("env"), *empty = in_dir(scratch, "home"); /* exists, no config.json */
    setenv("QWEN35_MODEL", env, 1);
    const char *source = NULL;
    Error err = {{0}};
    ck_assert_ptr_null(model_find(empty, &source, &err));
    ck_assert_error(err, "--model", empty, "no config.json");
    char *nowhere = in_dir(scratch, "nowhere");
    ck_assert_ptr_null(model_find(nowhere, &source, &err));
    ck_assert_error(err, "--model", nowhere, "no config.json");
    free(env);
    free(empty);
    free(nowhere);
}
END_TEST

/* An empty --model is a mistake (a variable that expanded to nothing), not the
 * current folder. */
START_TEST(empty_flag_is_an_error) {
    char *here = model_folder("here");
    ck_assert_int_eq(chdir(here), 0); /* a config.json in the current folder must not be picked up */
    const char *source = NULL;
    Error err = {{0}};
    ck_assert_ptr_null(model_find("", &source, &err));
    ck_assert_error(err, "--model", "empty folder name");
    free(here);
}
END_TEST

/* What is wrong with a folder that was named is said as it is: never "no config.json
 * there" for a config.json that is there but not a readable file. */
START_TEST(wrong_folder_says_what_is_wrong) {
    const char *source = NULL;
    Error err = {{0}};
    char *dir = model_folder("m"), *config = in_dir(dir, "config.json");
    ck_assert_ptr_null(model_find(config, &source, &err)); /* a file, not a folder */
    ck_assert_error(err, "--model", config, "is a regular file, not a folder");

    ck_assert_int_eq(remove(config), 0);
    ck_assert_int_eq(mkdir(config, 0755), 0);
    ck_assert_ptr_null(model_find(dir, &source, &err));
    ck_assert_error(err, "--model", config, "is a folder, not a regular file");
    ck_assert_ptr_null(strstr(err.msg, "no config.json"));
    ck_assert_int_eq(rmdir(config), 0);

    ck_assert_int_eq(mkfifo(config, 0644), 0);
    ck_assert_ptr_null(model_find(dir, &source, &err));
    ck_assert_error(err, "--model", config, "named pipe (FIFO)");
    ck_assert_int_eq(remove(config), 0);

    ck_assert_int_eq(symlink("config.json", config), 0);
    ck_assert_ptr_null(model_find(dir, &source, &err));
    ck_assert_error(err, "--model", config, "symbolic link loop");
    ck_assert_int_eq(remove(config), 0);

    char *loop = in_dir(scratch, "loop"); /* the folder itself a link loop */
    ck_assert_int_eq(symlink("loop", loop), 0);
    setenv("QWEN35_MODEL", loop, 1);
    ck_assert_ptr_null(model_find(NULL, &source, &err));
    ck_assert_error(err, "QWEN35_MODEL", loop, "symbolic link loop");
    free(dir), free(config), free(loop);
}
END_TEST

/* Runs model_find(dir) as a user without root's right to read everything (nobody,
 * when the tests run as root) and returns its message. */
static char *find_as_unprivileged(const char *dir) {
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fds[0]);
        if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) _exit(2);
        Error err = {{0}};
        char *found = model_find(dir, NULL, &err);
        const char *msg = found ? "FOUND" : err.msg;
        if (write(fds[1], msg, strlen(msg)) < 0) _exit(3);
        _exit(0);
    }
    close(fds[1]);
    char *buf = xcalloc(2048, 1);
    size_t n = 0;
    ssize_t got;
    while (n < 2047 && (got = read(fds[0], buf + n, 2047 - n)) > 0) n += (size_t)got;
    close(fds[0]);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the unprivileged child failed (%d)",
                  status);
    return buf;
}

/* A folder this user may not open: "permission denied", not "no config.json". */
START_TEST(unreadable_folder_says_permission_denied) {
    char *dir = model_folder("locked"), *config = in_dir(dir, "config.json");
    /* the scratch folders are private (mkdtemp); the other user must reach dir */
    ck_assert_int_eq(chmod(scratch_root, 0755), 0);
    ck_assert_int_eq(chmod(scratch, 0755), 0);
    char *msg = find_as_unprivileged(dir);
    ck_assert_msg(strcmp(msg, "FOUND") == 0, "the open folder was not found: %s", msg);
    free(msg);
    static const mode_t locked[] = {0000, 0644}; /* nothing at all; read but not open */
    for (size_t i = 0; i < ARRAY_LEN(locked); i++) {
        ck_assert_int_eq(chmod(dir, locked[i]), 0);
        msg = find_as_unprivileged(dir);
        ck_assert_msg(strstr(msg, "--model") && strstr(msg, dir) && strstr(msg, "permission denied") &&
                          !strstr(msg, "no config.json"),
                      "mode %o: %s", (unsigned)locked[i], msg);
        free(msg);
    }
    ck_assert_int_eq(chmod(dir, 0755), 0);
    ck_assert_int_eq(chmod(config, 0000), 0);
    msg = find_as_unprivileged(dir);
    ck_assert_msg(strstr(msg, config) && strstr(msg, "cannot be read (permission denied)"), "%s", msg);
    free(msg);
    ck_assert_int_eq(chmod(config, 0644), 0);
    free(dir), free(config);
}
END_TEST

START_TEST(variable_comes_second) {
    char *env = model_folder("env");
    setenv("QWEN35_MODEL", env, 1);
    char *hub = str_printf("%s/hub", scratch);
    hf_cache("hub", (const char *[]){"abc"}, (const bool[]){true}, 1, "abc");
    setenv("HF_HUB_CACHE", hub, 1);
    const char *source = NULL;
    Error err;
    char *found = model_find(NULL, &source, &err);
    ck_assert_msg(found != NULL, "%s", err.msg);
    ck_assert_str_eq(found, env); /* before the repository's folder and the cache */
    ck_assert_str_eq(source, "$QWEN35_MODEL");
    free(found);
    free(env);
    free(hub);
}
END_TEST

START_TEST(wrong_variable_does_not_fall_through) {
    char *nowhere = in_dir(scratch, "nowhere"), *hub = in_dir(scratch, "hub");
    setenv("QWEN35_MODEL", nowhere, 1);
    hf_cache("hub", (const char *[]){"abc"}, (const bool[]){true}, 1, "abc");
    setenv("HF_HUB_CACHE", hub, 1);
    const char *source = NULL;
    Error err = {{0}};
    ck_assert_ptr_null(model_find(NULL, &source, &err));
    ck_assert_error(err, "QWEN35_MODEL", nowhere, "no config.json");
    free(nowhere);
    free(hub);
}
END_TEST

/* QWEN35_MODEL= (empty) counts as not set. */
START_TEST(empty_variable_is_not_set) {
    setenv("QWEN35_MODEL", "", 1);
    char *hub = in_dir(scratch, "hub"), *want = str_printf("%s/%s/snapshots/abc", hub, HF_REPO);
    hf_cache("hub", (const char *[]){"abc"}, (const bool[]){true}, 1, "abc");
    setenv("HF_HUB_CACHE", hub, 1);
    expect_found(want, "Hugging Face cache");
    free(hub);
    free(want);
}
END_TEST

/* The repository's models/Qwen3.5-0.8B: found when there, listed when not. */
START_TEST(repository_folder_comes_third) {
    const char *source = NULL;
    Error err = {{0}};
    char *found = model_find(NULL, &source, &err); /* empty cache, no variable */
    if (local_model_present()) {
        ck_assert_msg(found != NULL, "%s", err.msg);
        ck_assert_str_eq(found, LOCAL_MODEL);
        ck_assert_str_eq(source, "models/Qwen3.5-0.8B");
    } else {
        ck_assert_ptr_null(found);
        ck_assert_msg(strstr(err.msg, LOCAL_MODEL), "the message does not list %s:\n%s", LOCAL_MODEL,
                      err.msg);
    }
    free(found);
}
END_TEST

/* ---- the Hugging Face cache ----------------------------------------------------------- */

/* refs/main decides between snapshots; tried both ways round so that the order in
 * which the folder happens to list them cannot make the test pass. */
START_TEST(refs_main_picks_the_snapshot) {
    static const char *const revs[] = {"1111aaaa", "2222bbbb"};
    static const bool both[] = {true, true};
    char *hub = in_dir(scratch, "hub");
    setenv("HF_HUB_CACHE", hub, 1);
    for (int pick = 0; pick < 2; pick++) {
        hf_cache("hub", revs, both, 2, revs[pick]);
        char *want = str_printf("%s/%s/snapshots/%s", hub, HF_REPO, revs[pick]);
        expect_found(want, "Hugging Face cache");
        free(want);
    }
    /* a trailing newline in refs/main (an edited file) is tolerated */
    char *main_file = in_dir(scratch, "hub/" HF_REPO "/refs/main");
    write_bytes(main_file, "1111aaaa\n", 9);
    char *want = str_printf("%s/%s/snapshots/1111aaaa", hub, HF_REPO);
    expect_found(want, "Hugging Face cache");
    free(main_file);
    free(want);
    free(hub);
}
END_TEST

/* refs/main is a revision, not a path: "../" (or any '/') never leads out of
 * snapshots/, even to a folder that holds a config.json. */
START_TEST(refs_main_cannot_leave_the_cache) {
    char *hub = in_dir(scratch, "hub"), *outside = model_folder("outside");
    setenv("HF_HUB_CACHE", hub, 1);
    static const char *const escapes[] = {"../../../outside",        "..",        ".", "",
                                          "abc/../../../../outside", "abc\x1b[2J"};
    hf_cache("hub", (const char *[]){"abc"}, (const bool[]){false}, 1, "x"); /* the folders, no snapshot */
    char *main_file = in_dir(scratch, "hub/" HF_REPO "/refs/main");
    for (size_t i = 0; i < ARRAY_LEN(escapes); i++) {
        write_bytes(main_file, escapes[i], strlen(escapes[i]));
        const char *source = NULL;
        Error err = {{0}};
        char *found = model_find(NULL, &source, &err);
        ck_assert_msg(found == NULL || strcmp(found, LOCAL_MODEL) == 0, "refs/main '%s' led to %s",
                      escapes[i], found);
        free(found);
    }
    /* with a real snapshot beside it, that one is used */
    hf_cache("hub", (const char *[]){"abc"}, (const bool[]){true}, 1, "../../../outside");
    char *want = str_printf("%s/%s/snapshots/abc", hub, HF_REPO);
    expect_found(want, "Hugging Face cache");
    free(want), free(main_file), free(hub), free(outside);
}
END_TEST

/* Without a usable refs/main, any snapshot that holds a config.json. */
START_TEST(snapshot_without_refs_main) {
    char *hub = in_dir(scratch, "hub"), *want = str_printf("%s/%s/snapshots/9999full", hub, HF_REPO);
    setenv("HF_HUB_CACHE", hub, 1);
    /* refs/main names a half-downloaded snapshot (no config.json): use the whole one */
    hf_cache("hub", (const char *[]){"0000half", "9999full"}, (const bool[]){false, true}, 2, "0000half");
    expect_found(want, "Hugging Face cache");

    char *refs_main = in_dir(scratch, "hub/" HF_REPO "/refs/main");
    ck_assert_int_eq(remove(refs_main), 0); /* no refs/main at all */
    expect_found(want, "Hugging Face cache");
    free(refs_main);
    free(want);
    free(hub);
}
END_TEST

/* Which cache: $HF_HUB_CACHE, else $HF_HOME/hub, else $HOME/.cache/huggingface/hub. */
START_TEST(cache_location_order) {
    const char *rev[] = {"abc"};
    const bool yes[] = {true};
    hf_cache("hubcache", rev, yes, 1, "abc");
    hf_cache("hfhome/hub", rev, yes, 1, "abc");
    hf_cache("home/.cache/huggingface/hub", rev, yes, 1, "abc");
    char *hub_cache = in_dir(scratch, "hubcache"), *hf_home = in_dir(scratch, "hfhome");
    char *want_cache = str_printf("%s/%s/snapshots/abc", hub_cache, HF_REPO);
    char *want_home = str_printf("%s/hub/%s/snapshots/abc", hf_home, HF_REPO);
    char *want_default = str_printf("%s/home/.cache/huggingface/hub/%s/snapshots/abc", scratch, HF_REPO);

    setenv("HF_HUB_CACHE", hub_cache, 1);
    setenv("HF_HOME", hf_home, 1);
    expect_found(want_cache, "Hugging Face cache");
    unsetenv("HF_HUB_CACHE");
    expect_found(want_home, "Hugging Face cache");
    unsetenv("HF_HOME");
    expect_found(want_default, "Hugging Face cache");
    free(hub_cache);
    free(hf_home);
    free(want_cache);
    free(want_home);
    free(want_default);
}
END_TEST

/* Nothing anywhere: one message that lists every place and the download command. */
START_TEST(nothing_found_lists_every_place) {
    if (local_model_present()) {
        fprintf(stderr, "note: %s exists, so 'nothing found' cannot happen here; checked that it is found\n",
                LOCAL_MODEL);
        expect_found(NULL, NULL);
        return;
    }
    char *hub = in_dir(scratch, "emptyhub"), *want = str_printf("%s/%s/snapshots/*", hub, HF_REPO);
    setenv("HF_HUB_CACHE", hub, 1);
    const char *source = "untouched";
    Error err = {{0}};
    ck_assert_ptr_null(model_find(NULL, &source, &err));
    ck_assert_ptr_null(source);
    static const char *const says[] = {
        "no Qwen3.5-0.8B checkpoint found",
        "--model DIR",
        "$QWEN35_MODEL",
        "not set",
        LOCAL_MODEL,
        "hf download Qwen/Qwen3.5-0.8B --local-dir models/Qwen3.5-0.8B",
        "modelscope download --model Qwen/Qwen3.5-0.8B --local_dir models/Qwen3.5-0.8B",
        "make synthetic && export QWEN35_MODEL=$PWD/models/Qwen3.5-0.8B-synthetic"};
    for (size_t i = 0; i < ARRAY_LEN(says); i++)
        ck_assert_msg(strstr(err.msg, says[i]), "the message does not say \"%s\":\n%s", says[i], err.msg);
    ck_assert_msg(strstr(err.msg, want), "the message does not list the cache %s:\n%s", want, err.msg);
    ck_assert_msg(!strstr(err.msg, "huggingface-cli"), "the message names the retired CLI:\n%s", err.msg);

    /* with HF_HUB_CACHE unset it lists the default cache under $HOME */
    unsetenv("HF_HUB_CACHE");
    ck_assert_ptr_null(model_find(NULL, &source, &err));
    char *home_hub = str_printf("%s/home/.cache/huggingface/hub/%s", scratch, HF_REPO);
    ck_assert_msg(strstr(err.msg, home_hub), "the message does not list %s:\n%s", home_hub, err.msg);
    free(home_hub);
    free(want);
    free(hub);
}
END_TEST

int main(void) {
    Suite *s = suite_create("model_find");
    TCase *c = tcase_with_scratch("order");
    tcase_add_checked_fixture(c, setup, teardown);
    tcase_add_test(c, flag_comes_first);
    tcase_add_test(c, wrong_flag_does_not_fall_through);
    tcase_add_test(c, empty_flag_is_an_error);
    tcase_add_test(c, wrong_folder_says_what_is_wrong);
    tcase_add_test(c, unreadable_folder_says_permission_denied);
    tcase_add_test(c, variable_comes_second);
    tcase_add_test(c, wrong_variable_does_not_fall_through);
    tcase_add_test(c, empty_variable_is_not_set);
    tcase_add_test(c, repository_folder_comes_third);
    tcase_add_test(c, refs_main_picks_the_snapshot);
    tcase_add_test(c, refs_main_cannot_leave_the_cache);
    tcase_add_test(c, snapshot_without_refs_main);
    tcase_add_test(c, cache_location_order);
    tcase_add_test(c, nothing_found_lists_every_place);
    suite_add_tcase(s, c);
    return run_suite(s);
}
