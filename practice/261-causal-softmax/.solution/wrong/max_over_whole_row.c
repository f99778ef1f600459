/* 典型错误：最大值在整行里找，包括看不见的位置。
 * fails: hidden_garbage */
#include <math.h>
#include <stddef.h>

#include "causal_softmax.h"

void causal_softmax(float *scores, int T, int S) {
    for (int t = 0; t < T; t++) {
        float *row = scores + (size_t)t * S;
        int last = S - T + t; /* query t sits at position S − T + t */
        float m = row[0];
        for (int j = 1; j < S; j++)
            if (row[j] > m) m = row[j];
        float sum = 0;
        for (int j = 0; j <= last; j++) {
            row[j] = expf(row[j] - m); /* ≤ e^0 = 1: cannot overflow */
            sum += row[j];
        }
        for (int j = 0; j <= last; j++) row[j] /= sum;
        for (int j = last + 1; j < S; j++) row[j] = 0; /* the future: weight 0, whatever was there */
    }
}
