/* 典型错误：从右往左替换，a a a 得到 a aa。
 * fails: overlap */
#include "bpe.h"

static int rank_of(const BpeMerge *merges, int n_merges, int a, int b) {
    for (int r = 0; r < n_merges; r++)
        if (merges[r].left == a && merges[r].right == b) return r;
    return -1;
}

int bpe_merge(int *ids, int n, const BpeMerge *merges, int n_merges) {
    for (;;) {
        int best = -1;
        for (int i = 0; i + 1 < n; i++) {
            int r = rank_of(merges, n_merges, ids[i], ids[i + 1]);
            if (r >= 0 && (best < 0 || r < best)) best = r;
        }
        if (best < 0) return n;
        const BpeMerge *m = &merges[best];
        for (int i = n - 2; i >= 0; i--) {
            if (i + 1 < n && ids[i] == m->left && ids[i + 1] == m->right) {
                ids[i] = m->merged;
                for (int k = i + 1; k + 1 < n; k++) ids[k] = ids[k + 1];
                n--;
            }
        }
    }
}
