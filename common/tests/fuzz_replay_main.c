/* fuzz_replay_main.c — runs a fuzz harness over saved inputs, without libFuzzer.
 *
 * Each harness (chNN_x/fuzz/fuzz_NAME.c) defines LLVMFuzzerTestOneInput. `make fuzz`
 * links it with clang's libFuzzer, which invents inputs; `make test` links it with
 * this main instead, which feeds it every file of
 *
 *     chNN_x/fuzz/regressions/fuzz_NAME/   inputs that once found a bug (kept forever)
 *     chNN_x/fuzz/seeds/fuzz_NAME/         the starting corpus
 *
 * (FUZZ_DIR and FUZZ_NAME come from the Makefile), or the files named on the command
 * line. A harness signals a broken invariant by aborting, so the replay passes when
 * it returns. Built with the test flags, so `make test-san` replays under ASan + UBSan.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workbook/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Feeds one file to the harness; false when it cannot be read. */
static bool replay_file(const char *path) {
    Error err;
    size_t len;
    char *data = read_file(path, &len, &err);
    if (!data) {
        fprintf(stderr, "%s\n", err.msg);
        return false;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)data, len);
    free(data);
    return true;
}

/* Every regular file of dir (a missing dir holds nothing); the count, or -1. */
static int replay_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char *path = path_join(dir, e->d_name);
        if (is_file(path)) {
            if (!replay_file(path)) n = -1;
            if (n >= 0) n++;
        }
        free(path);
    }
    closedir(d);
    return n;
}

int main(int argc, char **argv) {
    set_program_name(argv[0]);
    if (argc > 1) {
        for (int i = 1; i < argc; i++)
            if (!replay_file(argv[i])) return 1;
        printf("OK   %s: %d input(s) replayed\n", FUZZ_NAME, argc - 1);
        return 0;
    }
    int total = 0;
    const char *kinds[] = {"regressions", "seeds"};
    for (size_t k = 0; k < ARRAY_LEN(kinds); k++) {
        char dir[512];
        snprintf(dir, sizeof dir, "%s/%s/%s/%s", REPO_ROOT, FUZZ_DIR, kinds[k], FUZZ_NAME);
        int n = replay_dir(dir);
        if (n < 0) return 1;
        printf("OK   %s: %d input(s) from %s/ replayed\n", FUZZ_NAME, n, kinds[k]);
        total += n;
    }
    if (total == 0) {
        printf("%s: no saved inputs under %s/{regressions,seeds}/%s\n", FUZZ_NAME, FUZZ_DIR, FUZZ_NAME);
        return 1;
    }
    return 0;
}
