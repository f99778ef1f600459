/* bpe.h — exercise 222: the BPE merge loop (problem.md). */
#ifndef BPE_H
#define BPE_H

typedef struct {
    int left, right, merged; /* entry r of the table has rank r: lower merges first */
} BpeMerge;

/* Merges the n symbols of ids in place by the n_merges entries of merges; returns the new length. */
int bpe_merge(int *ids, const BpeMerge *merges, int n, int n_merges);

#endif
