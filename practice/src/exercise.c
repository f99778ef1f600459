/* exercise.c — the exercises: practice/NNN-slug folders and their problem.md. */
#include "judge.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

const char *difficulty_name(const Judge *j, int d) {
    static const char *names[] = {"简单", "中等", "困难"}, *names_en[] = {"easy", "medium", "hard"};
    return d >= 0 && d <= 2 ? (j->english ? names_en : names)[d] : "?";
}

const char *chapter_name(const Judge *j, int chapter) {
    static const char *names[] = {"?",   "权重 weights", "分词器和词嵌入 embedding", "归一化 norm",
                                  "MLP", "RoPE",         "注意力 attention",         "Gated DeltaNet"};
    static const char *names_en[] = {"?",   "weights", "tokenizer and embedding", "norm",
                                     "MLP", "RoPE",    "attention",               "Gated DeltaNet"};
    return chapter >= 1 && chapter <= 7 ? (j->english ? names_en : names)[chapter] : names[0];
}

/* "NNN-slug" with NNN three digits and the slug lowercase letters, digits and '-'. */
static bool is_exercise_name(const char *name) {
    if (!isdigit((unsigned char)name[0]) || !isdigit((unsigned char)name[1]) ||
        !isdigit((unsigned char)name[2]) || name[3] != '-' || !name[4])
        return false;
    for (const char *p = name + 4; *p; p++)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '-')) return false;
    return strlen(name) < 100;
}

static char *trim(char *s) {
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r')) s[--n] = '\0';
    return s;
}

/* A line "---" (spaces around it allowed), read without changing the line. */
static bool is_rule(const char *line) {
    line += strspn(line, " \t");
    if (strncmp(line, "---", 3) != 0) return false;
    line += 3;
    return line[strspn(line, " \t\r")] == '\0';
}

#define ADD_ERROR(e, ...)                                                                                    \
    do {                                                                                                     \
        if (!(e)->error[0]) strf((e)->error, sizeof(e)->error, __VA_ARGS__);                                 \
    } while (0)

/* Reads the front matter: the lines between the first two "---" lines. */
static void read_front_matter(Exercise *e) {
    char path[PATH_LEN];
    fs_join(path, sizeof path, e->dir, "problem.md");
    char *text = fs_read(path, NULL);
    if (!text) {
        ADD_ERROR(e, "%s/problem.md 读不了", e->slug);
        return;
    }
    char **lines;
    int n = split_lines(text, &lines);
    if (n < 2 || strcmp(trim(lines[0]), "---") != 0) {
        ADD_ERROR(e, "%s/problem.md 要以 front matter 开头（第一行 ---）", e->slug);
        free(lines);
        free(text);
        return;
    }
    bool closed = false, have_number = false, have_chapter = false, have_difficulty = false;
    for (int i = 1; i < n; i++) {
        char *line = trim(lines[i]);
        if (strcmp(line, "---") == 0) {
            closed = true;
            break;
        }
        if (!*line || line[0] == '#') continue;
        char *colon = strchr(line, ':');
        if (!colon) {
            ADD_ERROR(e, "%s/problem.md 第 %d 行不是 key: value", e->slug, i + 1);
            continue;
        }
        *colon = '\0';
        char *key = trim(line), *val = trim(colon + 1);
        if (!strcmp(key, "number")) {
            char *end;
            long v = strtol(val, &end, 10);
            have_number = *val && !*end && v >= 100 && v <= 999;
            e->number = have_number ? (int)v : -1;
        } else if (!strcmp(key, "title"))
            strf(e->title, sizeof e->title, "%s", val);
        else if (!strcmp(key, "title_en"))
            strf(e->title_en, sizeof e->title_en, "%s", val);
        else if (!strcmp(key, "chapter")) {
            have_chapter = strlen(val) == 1 && val[0] >= '1' && val[0] <= '7';
            e->chapter = have_chapter ? val[0] - '0' : 0;
        } else if (!strcmp(key, "difficulty")) {
            have_difficulty = true;
            if (!strcmp(val, "简单"))
                e->difficulty = DIFF_EASY;
            else if (!strcmp(val, "中等"))
                e->difficulty = DIFF_MEDIUM;
            else if (!strcmp(val, "困难"))
                e->difficulty = DIFF_HARD;
            else
                have_difficulty = false;
        } else if (!strcmp(key, "tags"))
            strf(e->tags, sizeof e->tags, "%s", val);
        else if (!strcmp(key, "file"))
            strf(e->file, sizeof e->file, "%s", val);
        else
            ADD_ERROR(e, "%s/problem.md：不认识的 key「%s」", e->slug, key);
    }
    if (!closed) ADD_ERROR(e, "%s/problem.md 的 front matter 没有结束的 ---", e->slug);
    if (!have_number)
        ADD_ERROR(e, "%s/problem.md：number 要是三位数", e->slug);
    else if (e->number != atoi(e->slug))
        ADD_ERROR(e, "%s/problem.md：number %d 和文件夹的编号不一样", e->slug, e->number);
    if (!e->title[0] || !e->title_en[0]) ADD_ERROR(e, "%s/problem.md：缺 title 或 title_en", e->slug);
    if (!have_chapter) ADD_ERROR(e, "%s/problem.md：chapter 要是 1 到 7", e->slug);
    if (!have_difficulty) ADD_ERROR(e, "%s/problem.md：difficulty 要是 简单 / 中等 / 困难", e->slug);
    if (e->tags[0] != '[' || strlen(e->tags) < 3) ADD_ERROR(e, "%s/problem.md：tags 要写成 [a, b]", e->slug);
    if (!e->file[0] || strchr(e->file, '/') || strlen(e->file) < 3 ||
        strcmp(e->file + strlen(e->file) - 2, ".c"))
        ADD_ERROR(e, "%s/problem.md：file 要是练习文件夹里的 .c 文件名", e->slug);
    free(lines);
    free(text);
}

static int by_chapter_then_number(const void *a, const void *b) {
    const Exercise *x = a, *y = b;
    if (x->chapter != y->chapter) return x->chapter - y->chapter;
    return x->number - y->number;
}

void load_exercises(Judge *j) {
    j->ex = NULL;
    j->n_ex = 0;
    DIR *d = opendir(j->practice);
    if (!d) return;
    int cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!is_exercise_name(de->d_name)) continue;
        char dir[PATH_LEN];
        fs_join(dir, sizeof dir, j->practice, de->d_name);
        if (!fs_is_dir(dir)) continue;
        if (j->n_ex == cap) {
            cap = cap ? 2 * cap : 32;
            Exercise *grown = realloc(j->ex, cap * sizeof *grown);
            if (!grown) break;
            j->ex = grown;
        }
        Exercise *e = &j->ex[j->n_ex++];
        memset(e, 0, sizeof *e);
        strf(e->dir, sizeof e->dir, "%s", dir);
        strf(e->slug, sizeof e->slug, "%s", de->d_name);
        e->number = atoi(de->d_name);
        read_front_matter(e);
    }
    closedir(d);
    if (j->n_ex) qsort(j->ex, j->n_ex, sizeof *j->ex, by_chapter_then_number);
}

const char *exercise_title(const Judge *j, const Exercise *e) { return j->english ? e->title_en : e->title; }

Exercise *find_exercise(Judge *j, const char *arg) {
    for (int i = 0; i < j->n_ex; i++) {
        Exercise *e = &j->ex[i];
        if (!strcmp(arg, e->slug)) return e;
        if (strlen(arg) == 3 && !strncmp(arg, e->slug, 3)) return e; /* "206": the slug's number */
    }
    return NULL;
}

char *problem_text(const Exercise *e, bool english, bool *separated) {
    char path[PATH_LEN];
    fs_join(path, sizeof path, e->dir, "problem.md");
    char *text = fs_read(path, NULL), **lines = NULL;
    if (!text) return NULL;
    int n = split_lines(text, &lines), i = 0; /* lines as read_front_matter reads them: CRLF too */
    if (n > 0 && is_rule(lines[0]))           /* skip the front matter, "---" to "---" */
        for (i = 1; i < n && !is_rule(lines[i]);) i++;
    int first = i < n ? i + 1 : 0, sep = first;
    while (sep < n && !is_rule(lines[sep])) sep++;
    if (separated) *separated = sep < n;
    int from = english && sep < n ? sep + 1 : first, to = english || sep >= n ? n : sep;
    while (from < to && !*lines[from]) from++; /* no blank lines before the statement */
    size_t size = 1;
    for (int k = from; k < to; k++) size += strlen(lines[k]) + 1;
    char *out = malloc(size), *o = out;
    for (int k = from; out && k < to; k++) o += sprintf(o, "%s\n", lines[k]);
    if (out) *o = '\0';
    free(lines);
    free(text);
    return out;
}

int read_hints(const Exercise *e, char ***tiers) {
    char path[PATH_LEN];
    fs_join(path, sizeof path, e->dir, "hints.md");
    *tiers = NULL;
    char *text = fs_read(path, NULL);
    if (!text) return 0;
    int n = 0;
    char **arr = calloc(8, sizeof *arr);
    char *p = text;
    /* a tier starts at a line beginning with "## " and runs up to the next one */
    char *start = strncmp(p, "## ", 3) == 0 ? p : strstr(p, "\n## ");
    if (start && start != p) start++;
    while (arr && start && n < 8) {
        char *next = strstr(start, "\n## ");
        size_t len = next ? (size_t)(next - start) : strlen(start);
        while (len && (start[len - 1] == '\n' || start[len - 1] == ' ')) len--;
        arr[n] = strndup(start + 3, len > 3 ? len - 3 : 0);
        n++;
        start = next ? next + 1 : NULL;
    }
    free(text);
    *tiers = arr;
    return n;
}

void free_strings(char **s, int n) {
    if (!s) return;
    for (int i = 0; i < n; i++) free(s[i]);
    free(s);
}

void workspace_file(const Judge *j, const Exercise *e, char *out, size_t size) {
    char name[160];
    strf(name, sizeof name, "%s.c", e->slug);
    fs_join(out, size, j->workspace, name);
}

void starter_file(const Exercise *e, char *out, size_t size) { fs_join(out, size, e->dir, e->file); }

void solution_file(const Exercise *e, char *out, size_t size) {
    char rel[200];
    strf(rel, sizeof rel, ".solution/%s", e->file);
    fs_join(out, size, e->dir, rel);
}
