/* 222. BPE 的合并循环 —— 参考答案 */
#include "bpe.h"

/* The rank of merging (a, b), or −1 when the table has no such merge. */
static int rank_of(int a, int b, const BpeMerge *merges, int n_merges) {
    for (int r = 0; r < n_merges; r++)
        if (merges[r].left == a && merges[r].right == b) return r;
    return -1;
}

int bpe_merge(int *ids, const BpeMerge *merges, int n, int n_merges) {
    for (;;) {
        /* 1. the lowest-ranked pair present anywhere in the word */
        int best = -1;
        for (int i = 0; i + 1 < n; i++) {
            int r = rank_of(ids[i], ids[i + 1], merges, n_merges);
            if (r >= 0 && (best < 0 || r < best)) best = r;
        }
        if (best < 0) return n;
        /* 2. every occurrence, left to right, without overlapping; w writes, i reads */
        const BpeMerge *m = &merges[best];
        int w = 0;
        for (int i = 0; i < n;) {
            if (i + 1 < n && ids[i] == m->left && ids[i + 1] == m->right) {
                ids[w++] = m->merged;
                i += 2;
            } else
                ids[w++] = ids[i++];
        }
        n = w;
    }
}
