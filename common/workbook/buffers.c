/* buffers.c — see buffers.h. */
#include "buffers.h"

#include <stdlib.h>

#include "util.h"

enum { ALIGN_FLOATS = 16 }; /* 64 bytes */

static uint64_t padded(uint64_t floats) {
    return size_mul(size_add(floats, ALIGN_FLOATS - 1) / ALIGN_FLOATS, ALIGN_FLOATS);
}

uint64_t buffers_bytes(const BufferSpec *b, int n) {
    uint64_t floats = 0;
    for (int i = 0; i < n; i++) floats = size_add(floats, padded(b[i].floats));
    return size_mul(floats, sizeof(float));
}

void *buffers_alloc(const BufferSpec *b, int n) {
    uint64_t bytes = buffers_bytes(b, n);
    if (bytes > SIZE_MAX) die("out of memory: %d buffers of %llu bytes", n, (unsigned long long)bytes);
    float *block = xaligned_alloc((size_t)bytes), *at = block;
    for (int i = 0; i < n; i++) {
        *b[i].at = at;
        at += padded(b[i].floats);
    }
    return block;
}

int64_t grow_capacity(int64_t start, int64_t n) {
    int64_t cap = start > 0 ? start : 1;
    while (cap < n) cap = cap > (1 << 29) ? n : cap * 2;
    return cap;
}
