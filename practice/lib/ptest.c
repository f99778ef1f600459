/* ptest.c — the buffers and inputs both halves of the tests use (ptest.h). */
#include "ptest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Noreturn void pt_harness_error(const char *what) {
    fprintf(stderr, "ptest: %s\n", what);
    fflush(stderr);
    _exit(PT_EXIT_HARNESS);
}

/* ---- buffers ------------------------------------------------------------------------ */

static void **buffers;
static size_t n_buffers, cap_buffers;

static void *keep(void *p) {
    if (!p) pt_harness_error("out of memory");
    if (n_buffers == cap_buffers) {
        cap_buffers = cap_buffers ? 2 * cap_buffers : 16;
        void **grown = realloc(buffers, cap_buffers * sizeof *buffers);
        if (!grown) pt_harness_error("out of memory");
        buffers = grown;
    }
    buffers[n_buffers++] = p;
    return p;
}

void pt_free_all(void) {
    for (size_t i = 0; i < n_buffers; i++) free(buffers[i]);
    free(buffers);
    buffers = NULL;
    n_buffers = cap_buffers = 0;
}

float *pt_floats(size_t n) {
    float *x = keep(malloc(n ? n * sizeof *x : 1));
    for (size_t i = 0; i < n; i++) x[i] = NAN;
    return x;
}

float *pt_zeros(size_t n) { return keep(calloc(n ? n : 1, sizeof(float))); }

float *pt_copy(const float *x, size_t n) {
    float *y = keep(malloc(n ? n * sizeof *y : 1));
    if (n) memcpy(y, x, n * sizeof *y);
    return y;
}

int *pt_ints(size_t n) {
    int *x = keep(malloc(n ? n * sizeof *x : 1));
    for (size_t i = 0; i < n; i++) x[i] = -12345;
    return x;
}

void *pt_bytes(size_t n) {
    void *p = keep(malloc(n ? n : 1));
    memset(p, 0xA5, n);
    return p;
}

void *pt_dup(const void *src, size_t bytes) {
    void *p = keep(malloc(bytes ? bytes : 1));
    if (bytes) memcpy(p, src, bytes);
    return p;
}

void pt_fill(float *x, size_t n, uint32_t seed, float scale) {
    uint32_t s = seed;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        float u = (float)((int32_t)(s >> 8) - (1 << 23)) * (1.0f / 8388608.0f);
        x[i] = u * scale;
    }
}
