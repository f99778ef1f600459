/* buffers.h — a block's working buffers, each size written once.
 *
 * A block of the model (the MLP, attention, the Gated DeltaNet) works in a few float
 * buffers whose sizes follow from the config and the number of tokens a call may
 * take. Each block lists them in one function, as llm.c lists its activations in
 * act_sizes[]:
 *
 *     static int mlp_buffers(MlpActs *a, const MlpDims *d, int64_t cap, BufferSpec *b) {
 *         b[0] = (BufferSpec){&a->gate, size_mul(cap, d->intermediate)};   // [cap, intermediate]
 *         ...
 *     }
 *
 * and the allocation, its size and its release all follow from that one list:
 * buffers_alloc carves every buffer out of one allocation, buffers_bytes says how
 * much that is before anything is allocated (util.h's memory rule), and a single
 * free() releases it. So the three can never disagree.
 *
 * Buffers that grow with the context instead (the KV cache, the attention scores, the
 * RoPE table) double when they run out of room: grow_capacity is that rule, shared by
 * the code that grows them and the code that estimates them.
 */
#ifndef BUFFERS_H
#define BUFFERS_H

#include <stdint.h>

typedef struct {
    float **at;      /* where the buffer's address goes */
    uint64_t floats; /* its length (saturating arithmetic: UINT64_MAX is "too much") */
} BufferSpec;

/* One allocation holding the n buffers, each starting on a 64-byte boundary (for
 * SIMD loops); every *b[i].at is set. Release it with free(). Dies, as xmalloc does,
 * when it is more than the memory limit. */
void *buffers_alloc(const BufferSpec *b, int n);
/* The bytes buffers_alloc takes for them (saturating). */
uint64_t buffers_bytes(const BufferSpec *b, int n);

/* The capacity a buffer that starts with room for `start` and doubles reaches when it
 * must hold n (n itself past 2^29, so that the doubling never overflows an int). */
int64_t grow_capacity(int64_t start, int64_t n);

#endif
