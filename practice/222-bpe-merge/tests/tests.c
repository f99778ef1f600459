/* Tests of exercise 222 (BPE merge loop). Expected values: by hand (the worked
 * example, overlaps) and from a Python version written independently (expected.h). */
#include <string.h>

#include "ptest.h"
#include "bpe.h"

#include "expected.h"

static void expect_merge(const int *word, int n, const BpeMerge *merges, int n_merges, const int *want,
                         int want_n) {
    int *ids = pt_ints(n > 0 ? (size_t)n : 1);
    if (n > 0) memcpy(ids, word, (size_t)n * sizeof *ids);
    int got = bpe_merge(ids, n, merges, n_merges);
    pt_expect_int("返回的长度", got, want_n);
    pt_expect_ints("ids", ids, want, (size_t)want_n);
}

static void worked_example(void) {
    const BpeMerge merges[5] = {{4, 17, 26}, {14, 22, 27}, {11, 14, 28}, {28, 22, 29}, {29, 26, 30}};
    const int lower[5] = {11, 14, 22, 4, 17}, want[3] = {11, 27, 26};
    pt_note("\"lower\" = 11 14 22 4 17；合并表 e+r、o+w、l+o、lo+w、low+er");
    expect_merge(lower, 5, merges, 5, want, 3);
}

static void overlap(void) {
    const BpeMerge aa[1] = {{0, 0, 26}};
    const int a3[3] = {0, 0, 0}, want3[2] = {26, 0};
    pt_note("a a a，只有 a + a → 26");
    expect_merge(a3, 3, aa, 1, want3, 2);
    const BpeMerge aaaa[2] = {{0, 0, 26}, {26, 26, 27}};
    const int a4[4] = {0, 0, 0, 0}, want4[1] = {27};
    pt_note("a a a a，a + a → 26，26 + 26 → 27");
    expect_merge(a4, 4, aaaa, 2, want4, 1);
    const int a5[5] = {0, 0, 0, 0, 0}, want5[2] = {27, 0};
    pt_note("a a a a a，同上");
    expect_merge(a5, 5, aaaa, 2, want5, 2);
}

static void trained_words(void) {
    const int n_merges = (int)(sizeof trained_merges / sizeof trained_merges[0]) / 3;
    const BpeMerge *merges = (const BpeMerge *)pt_dup(trained_merges, sizeof trained_merges);
    const int n_words = (int)(sizeof words_in_at / sizeof words_in_at[0]) - 1;
    for (int k = 0; k < n_words; k++) {
        const int *in = words_in + words_in_at[k], *want = words_out + words_out_at[k];
        int n = words_in_at[k + 1] - words_in_at[k], want_n = words_out_at[k + 1] - words_out_at[k];
        char word[64];
        int len = 0;
        for (int i = 0; i < n && len < 63; i++) word[len++] = (char)('a' + in[i]);
        word[len] = '\0';
        pt_note("第 %d 个词 \"%s\"，%d 条学出来的合并", k, word, n_merges);
        expect_merge(in, n, merges, n_merges, want, want_n);
    }
}

static void long_word(void) {
    const int n_merges = (int)(sizeof long_merges / sizeof long_merges[0]) / 3;
    const BpeMerge *merges = (const BpeMerge *)pt_dup(long_merges, sizeof long_merges);
    pt_note("%d 个符号的长词，%d 条合并", (int)(sizeof long_in / sizeof long_in[0]), n_merges);
    expect_merge(long_in, (int)(sizeof long_in / sizeof long_in[0]), merges, n_merges, long_out,
                 (int)(sizeof long_out / sizeof long_out[0]));
}

static void short_words(void) {
    const BpeMerge merges[2] = {{0, 1, 26}, {1, 2, 27}};
    const int one[1] = {0};
    pt_note("长度 1 的词");
    expect_merge(one, 1, merges, 2, one, 1);
    pt_note("长度 0 的词");
    expect_merge(NULL, 0, merges, 2, NULL, 0);
    const int none[4] = {2, 1, 0, 3};
    pt_note("c b a d：表里只有 a + b 和 b + c，一对都用不上");
    expect_merge(none, 4, merges, 2, none, 4);
    pt_note("空的合并表");
    expect_merge(none, 4, merges, 0, none, 4);
}

PT_MAIN({"worked_example", "题目里的例子：\"lower\" → l ow er", worked_example},
        {"overlap", "重叠：a a a → aa a", overlap},
        {"trained_words", "学出来的 159 条合并，41 个词（Python）", trained_words},
        {"long_word", "61 个符号的长词（Python）", long_word},
        {"short_words", "长度 1、0，没有可用的合并", short_words})
