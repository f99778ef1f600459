/* progress.c — workspace/progress.txt: what the learner has passed, and how many hints
 * they have seen. Plain text, one exercise a line:
 *
 *     # 练习进度 practice progress: number status hints-shown [latest]
 *     231 passed 0
 *     206 failed 2
 *     221 passed 1 failed
 *
 * status is the best result so far: "passed" (once passed, it stays passed), "failed"
 * or "tried" (hints seen, never tested). A fourth word "failed" says the latest test
 * of a passed exercise did not pass. Lines starting with # are comments. Anything else
 * is an error, reported with the line number.
 *
 * Several judges may run at once (two terminals, a watch and a test): every change is
 * made by progress_update, which holds an exclusive lock (flock on
 * workspace/.progress.lock) while it reads the file, changes one entry and writes it
 * back — to a temporary file, flushed, renamed over the old one — so no update is lost
 * and a crash never leaves half a file.
 */
#include "judge.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static const char *status_word(int s) {
    return s == ST_PASSED ? "passed" : s == ST_FAILED ? "failed" : "tried";
}

static void progress_path(const Judge *j, char *out, size_t size) {
    fs_join(out, size, j->workspace, "progress.txt");
}

bool progress_load(const Judge *j, Progress *p, char *err, size_t err_size) {
    p->e = NULL;
    p->n = 0;
    char path[PATH_LEN], rel[PATH_LEN];
    progress_path(j, path, sizeof path);
    if (!fs_exists(path)) return true;
    rel_path(j, path, rel, sizeof rel);
    size_t len;
    char *text = fs_read_max(path, (size_t)1 << 20, &len);
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
        int number, hints, used = 0, used4 = 0;
        char word[16], latest[16] = "";
        bool three = sscanf(line, "%d %15s %d %n", &number, word, &hints, &used) == 3;
        if (three && line[used] != '\0' && sscanf(line + used, "%15s %n", latest, &used4) == 1) used += used4;
        if (!three || line[used] != '\0' || number < 100 || number > 999 || hints < 0 || hints > 9 ||
            (strcmp(word, "passed") && strcmp(word, "failed") && strcmp(word, "tried")) ||
            (latest[0] && (strcmp(latest, "failed") || strcmp(word, "passed")))) {
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
        e->latest_failed = latest[0] != '\0';
    }
    free(lines);
    free(text);
    return true;
}

static bool progress_save(const Judge *j, const Progress *p, char *err, size_t err_size) {
    char path[PATH_LEN];
    progress_path(j, path, sizeof path);
    size_t cap = 128 + (size_t)p->n * 40, used = 0;
    char *buf = malloc(cap);
    if (!buf) return false;
    used += (size_t)snprintf(buf, cap, "# 练习进度 practice progress: number status hints-shown [latest]\n");
    for (int i = 0; i < p->n; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%d %s %d%s\n", p->e[i].number,
                                 status_word(p->e[i].status), p->e[i].hints,
                                 p->e[i].status == ST_PASSED && p->e[i].latest_failed ? " failed" : "");
    bool ok = fs_write(path, buf, used);
    free(buf);
    if (!ok) {
        char rel[PATH_LEN];
        rel_path(j, path, rel, sizeof rel);
        strf(err, err_size, "写不了进度文件 %s（%s）", rel, strerror(errno));
    }
    return ok;
}

bool progress_update(const Judge *j, int number, ProgressChange change, Progress *now, char *err,
                     size_t err_size) {
    char lock_path[PATH_LEN];
    fs_join(lock_path, sizeof lock_path, j->workspace, ".progress.lock");
    int fd = fs_mkdirs(j->workspace) ? open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666) : -1;
    if (fd < 0 || flock(fd, LOCK_EX) != 0) {
        strf(err, err_size, "工作区 %s 写不进去（%s）：进度没有记下来", j->workspace, strerror(errno));
        if (fd >= 0) close(fd);
        return false;
    }
    Progress p;
    bool ok = progress_load(j, &p, err, err_size);
    if (ok) {
        ProgressEntry *e = progress_get(&p, number);
        ok = e != NULL;
        if (e && change == PROGRESS_PASSED) e->status = ST_PASSED, e->latest_failed = false;
        if (e && change == PROGRESS_FAILED) {
            if (e->status == ST_PASSED)
                e->latest_failed = true; /* a pass stays a pass */
            else
                e->status = ST_FAILED;
        }
        if (e && change == PROGRESS_HINT && e->hints < 9) e->hints++;
        if (e && change == PROGRESS_RESET) e->status = ST_NONE, e->latest_failed = false;
        ok = ok && progress_save(j, &p, err, err_size);
    }
    close(fd); /* the lock goes with it */
    if (now) {
        progress_free(now);
        *now = p;
    } else
        progress_free(&p);
    return ok;
}

ProgressEntry *progress_get(Progress *p, int number) {
    for (int i = 0; i < p->n; i++)
        if (p->e[i].number == number) return &p->e[i];
    ProgressEntry *grown = realloc(p->e, (size_t)(p->n + 1) * sizeof *grown);
    if (!grown) return NULL;
    p->e = grown;
    p->e[p->n] = (ProgressEntry){number, ST_NONE, 0, false};
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
