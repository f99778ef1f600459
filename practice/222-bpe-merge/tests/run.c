/* Exercise 222 (BPE merge loop), the runner: each case's words and merges tables,
 * the calls, the outputs handed back. The checker (check.c) holds what they should be. */
#include <stdio.h>
#include <string.h>

#include "ptest_run.h"
#include "bpe.h"

#include "inputs.h"

/* Call k of a case: bpe_merge on a copy of the n ids of word; the returned length as
 * K.len, the whole ids buffer (all n) as K.ids. */
static void merge(int k, const int *word, int n, const BpeMerge *merges, int n_merges) {
    int *ids = pt_ints(n > 0 ? (size_t)n : 1);
    if (n > 0) memcpy(ids, word, (size_t)n * sizeof *ids);
    int got = bpe_merge(ids, merges, n, n_merges);
    char name[32];
    snprintf(name, sizeof name, "%d.len", k);
    pt_out_int(name, got);
    snprintf(name, sizeof name, "%d.ids", k);
    pt_out_ints(name, ids, (size_t)n);
}

static void worked_example(void) {
    const BpeMerge merges[5] = {{4, 17, 26}, {14, 22, 27}, {11, 14, 28}, {28, 22, 29}, {29, 26, 30}};
    const int lower[5] = {11, 14, 22, 4, 17};
    merge(0, lower, 5, merges, 5);
}

static void overlap(void) {
    const BpeMerge aa[1] = {{0, 0, 26}}, aaaa[2] = {{0, 0, 26}, {26, 26, 27}};
    const int a5[5] = {0, 0, 0, 0, 0};
    merge(0, a5, 3, aa, 1);
    merge(1, a5, 4, aaaa, 2);
    merge(2, a5, 5, aaaa, 2);
}

static void trained_words(void) {
    const int n_merges = (int)(sizeof trained_merges / sizeof trained_merges[0]) / 3;
    const BpeMerge *merges = (const BpeMerge *)pt_dup(trained_merges, sizeof trained_merges);
    const int n_words = (int)(sizeof words_in_at / sizeof words_in_at[0]) - 1;
    for (int k = 0; k < n_words; k++)
        merge(k, words_in + words_in_at[k], words_in_at[k + 1] - words_in_at[k], merges, n_merges);
}

static void long_word(void) {
    const int n_merges = (int)(sizeof long_merges / sizeof long_merges[0]) / 3;
    const BpeMerge *merges = (const BpeMerge *)pt_dup(long_merges, sizeof long_merges);
    merge(0, long_in, (int)(sizeof long_in / sizeof long_in[0]), merges, n_merges);
}

static void short_words(void) {
    const BpeMerge merges[2] = {{0, 1, 26}, {1, 2, 27}};
    const int one[1] = {0}, none[4] = {2, 1, 0, 3};
    merge(0, one, 1, merges, 2);
    merge(1, NULL, 0, merges, 2);
    merge(2, none, 4, merges, 2);
    merge(3, none, 4, merges, 0);
}

PT_RUNNER({"worked_example", worked_example}, {"overlap", overlap}, {"trained_words", trained_words},
          {"long_word", long_word}, {"short_words", short_words})
