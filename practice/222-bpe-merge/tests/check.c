/* Exercise 222 (BPE merge loop), the checker: what each case's outputs should be.
 * Expected values: by hand (the worked example, overlaps) and from a Python version
 * written independently (expected.h). The inputs are in run.c and inputs.h: call k of
 * a case here is call k there, on a word of n ids. */
#include <stdio.h>
#include <string.h>

#include "ptest_check.h"

#include "expected.h"

/* "期望 expected ids: 11 27 26"-style note of n ids. */
static void note_ids(const char *label, const int *ids, int n) {
    char line[1024];
    int used = snprintf(line, sizeof line, "%s ids:", label);
    for (int i = 0; i < n && used > 0 && (size_t)used < sizeof line; i++)
        used += snprintf(line + used, sizeof line - (size_t)used, " %d", ids[i]);
    pt_note("%s", line);
}

/* Call k merged a word of n ids: it should return want_n and leave want in front.
 * On a mismatch the notes say which call (about, when not NULL) and show both
 * sequences: the expected one, and the first `returned length` ids (at most n). */
static void expect_merge(int k, const char *about, int n, const int *want, int want_n) {
    char name[32];
    snprintf(name, sizeof name, "%d.len", k);
    long long got = pt_got_int(name);
    snprintf(name, sizeof name, "%d.ids", k);
    const int *ids = pt_got_ints(name, (size_t)n);
    bool same = got == want_n && (want_n == 0 || !memcmp(ids, want, (size_t)want_n * sizeof *ids));
    if (!same) {
        if (about) pt_note("%s", about);
        note_ids("期望 expected", want, want_n);
        note_ids("得到 got     ", ids, got < 0 ? 0 : got > n ? n : (int)got);
    }
    pt_expect_int("返回的长度", got, want_n);
    pt_expect_ints("ids", ids, want, (size_t)want_n);
}

static void worked_example(void) {
    const int want[3] = {11, 27, 26};
    pt_note("\"lower\" = 11 14 22 4 17；合并表 e+r、o+w、l+o、lo+w、low+er");
    expect_merge(0, NULL, 5, want, 3);
}

static void overlap(void) {
    const int want3[2] = {26, 0}, want4[1] = {27}, want5[2] = {27, 0};
    expect_merge(0, "a a a，只有 a + a → 26", 3, want3, 2);
    expect_merge(1, "a a a a，a + a → 26，26 + 26 → 27", 4, want4, 1);
    expect_merge(2, "a a a a a，同上", 5, want5, 2);
}

static void trained_words(void) {
    const int n_merges = (int)(sizeof trained_merges / sizeof trained_merges[0]) / 3;
    const int n_words = (int)(sizeof words_in_at / sizeof words_in_at[0]) - 1;
    for (int k = 0; k < n_words; k++) {
        const int *in = words_in + words_in_at[k], *want = words_out + words_out_at[k];
        int n = words_in_at[k + 1] - words_in_at[k], want_n = words_out_at[k + 1] - words_out_at[k];
        char word[64], about[160];
        int len = 0;
        for (int i = 0; i < n && len < 63; i++) word[len++] = (char)('a' + in[i]);
        word[len] = '\0';
        snprintf(about, sizeof about, "第 %d 个词 \"%s\"，%d 条学出来的合并", k, word, n_merges);
        expect_merge(k, about, n, want, want_n);
    }
}

static void long_word(void) {
    const int n_merges = (int)(sizeof long_merges / sizeof long_merges[0]) / 3;
    const int n = (int)(sizeof long_in / sizeof long_in[0]);
    pt_note("%d 个符号的长词，%d 条合并", n, n_merges);
    expect_merge(0, NULL, n, long_out, (int)(sizeof long_out / sizeof long_out[0]));
}

static void short_words(void) {
    const int one[1] = {0}, none[4] = {2, 1, 0, 3};
    expect_merge(0, "长度 1 的词", 1, one, 1);
    expect_merge(1, "长度 0 的词", 0, NULL, 0);
    expect_merge(2, "c b a d：表里只有 a + b 和 b + c，一对都用不上", 4, none, 4);
    expect_merge(3, "空的合并表", 4, none, 4);
}

PT_CHECKER({"worked_example", "题目里的例子：\"lower\" → l ow er", worked_example},
           {"overlap", "重叠：a a a → aa a", overlap},
           {"trained_words", "学出来的 159 条合并，41 个词（Python）", trained_words},
           {"long_word", "61 个符号的长词（Python）", long_word},
           {"short_words", "长度 1、0，没有可用的合并", short_words})
