/* progress.c — workspace/progress.txt: what the learner has passed, failed, and how
 * many hints they have seen. Plain text, one exercise a line:
 *
 *     # 练习进度 practice progress: number status hints-shown
 *     231 passed 0
 *     206 failed 2
 *
 * status is "passed", "failed" or "tried" (hints seen, never tested). Lines starting
 * with # are comments. Anything else is an error, reported with the line number.
 */
#include "judge.h"

#include <stdlib.h>
#include <string.h>

static const char *status_word(int s) {
    return s == ST_PASSED ? "passed" : s == ST_FAILED ? "failed" : "tried";
}

static void progress_path(const Judge *j, char *out, size_t size) {
    path_join(out, size, j->workspace, "progress.txt");
}

bool progress_load(const Judge *j, Progress *p, char *err, size_t err_size) {
    p->e = NULL;
    p->n = 0;
    char path[PATH_LEN], rel[PATH_LEN];
    progress_path(j, path, sizeof path);
    if (!file_exists(path)) return true;
    rel_path(j, path, rel, sizeof rel);
    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        strf(err, err_size, "读不了进度文件 %s", rel);
        return false;
    }
    if (strlen(text) != len) {
        strf(err, err_size, "进度文件 %s 里有 NUL 字节，不是文本；删掉它就能从头记录", rel);
        free(text);
        return false;
    }
    char **lines;
    int n = split_lines(text, &lines);
    for (int i = 0; i < n; i++) {
        const char *line = lines[i];
        while (*line == ' ') line++;
        if (!*line || *line == '#') continue;
        int number, hints, used = 0;
        char word[16];
        if (sscanf(line, "%d %15s %d %n", &number, word, &hints, &used) != 3 || line[used] != '\0' ||
            number < 100 || number > 999 || hints < 0 || hints > 9 ||
            (strcmp(word, "passed") && strcmp(word, "failed") && strcmp(word, "tried"))) {
            strf(err, err_size,
                 "进度文件 %s 第 %d 行看不懂（应该是「编号 passed|failed|tried 提示数」）；改正或删掉这一行",
                 rel, i + 1);
            free(lines);
            free(text);
            progress_free(p);
            return false;
        }
        ProgressEntry *e = progress_get(p, number);
        if (!e) break;
        e->status = !strcmp(word, "passed") ? ST_PASSED : !strcmp(word, "failed") ? ST_FAILED : ST_NONE;
        e->hints = hints;
    }
    free(lines);
    free(text);
    return true;
}

bool progress_save(const Judge *j, const Progress *p, char *err, size_t err_size) {
    char path[PATH_LEN];
    progress_path(j, path, sizeof path);
    size_t cap = 128 + (size_t)p->n * 32, used = 0;
    char *buf = malloc(cap);
    if (!buf) return false;
    used += (size_t)snprintf(buf, cap, "# 练习进度 practice progress: number status hints-shown\n");
    for (int i = 0; i < p->n; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%d %s %d\n", p->e[i].number,
                                 status_word(p->e[i].status), p->e[i].hints);
    bool ok = mkdirs(j->workspace) && write_file(path, buf, used);
    free(buf);
    if (!ok) {
        char rel[PATH_LEN];
        rel_path(j, path, rel, sizeof rel);
        strf(err, err_size, "写不了进度文件 %s", rel);
    }
    return ok;
}

ProgressEntry *progress_get(Progress *p, int number) {
    for (int i = 0; i < p->n; i++)
        if (p->e[i].number == number) return &p->e[i];
    ProgressEntry *grown = realloc(p->e, (size_t)(p->n + 1) * sizeof *grown);
    if (!grown) return NULL;
    p->e = grown;
    p->e[p->n] = (ProgressEntry){number, ST_NONE, 0};
    return &p->e[p->n++];
}

int progress_status(const Progress *p, int number) {
    for (int i = 0; i < p->n; i++)
        if (p->e[i].number == number) return p->e[i].status;
    return ST_NONE;
}

void progress_free(Progress *p) {
    free(p->e);
    p->e = NULL;
    p->n = 0;
}
