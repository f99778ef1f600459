/* ptest_run.c — the runner half (ptest_run.h): runs one case and writes its outputs
 * as records (ptest.h) on PT_OUT_FD. */
#include "ptest_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STRING_MAX ((size_t)1 << 20) /* a returned string is handed back up to 1 MiB */

static void write_all(const void *data, size_t n) {
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(PT_OUT_FD, p, n);
        if (w <= 0) pt_harness_error("cannot write the outputs (file descriptor 3)");
        p += w;
        n -= (size_t)w;
    }
}

static void record(PtKind kind, const char *name, const void *values, size_t count, size_t elem) {
    size_t len = strlen(name);
    if (len == 0 || len > PT_NAME_MAX) pt_harness_error("an output name is empty or too long");
    unsigned char head[2 + PT_NAME_MAX + 8];
    head[0] = (unsigned char)kind;
    head[1] = (unsigned char)len;
    memcpy(head + 2, name, len);
    for (int b = 0; b < 8; b++) head[2 + len + b] = (unsigned char)((uint64_t)count >> (8 * b));
    write_all(head, 2 + len + 8);
    /* the values, little-endian (byte by byte, whatever the machine's order) */
    const unsigned char *v = values;
    unsigned char buf[4096];
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        if (used + elem > sizeof buf) write_all(buf, used), used = 0;
        for (size_t b = 0; b < elem; b++) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            buf[used++] = v[i * elem + b];
#else
            buf[used++] = v[i * elem + elem - 1 - b];
#endif
        }
    }
    write_all(buf, used);
}

void pt_out_floats(const char *name, const float *x, size_t n) { record(PT_F32, name, x, n, 4); }
void pt_out_ints(const char *name, const int *x, size_t n) { record(PT_I32, name, x, n, sizeof(int)); }
void pt_out_u16s(const char *name, const uint16_t *x, size_t n) { record(PT_U16, name, x, n, 2); }
void pt_out_u32s(const char *name, const uint32_t *x, size_t n) { record(PT_U32, name, x, n, 4); }

void pt_out_int(const char *name, long long v) {
    int64_t x = v;
    record(PT_I64, name, &x, 1, 8);
}

void pt_out_u64(const char *name, unsigned long long v) {
    uint64_t x = v;
    record(PT_U64, name, &x, 1, 8);
}

void pt_out_str(const char *name, const char *s) {
    if (!s)
        record(PT_NULL, name, NULL, 0, 1);
    else
        record(PT_BYTES, name, s, strnlen(s, STRING_MAX), 1);
}

int pt_run_main(const PtRunCase *cases, int n_cases, int argc, char **argv) {
    if (argc != 3 || strcmp(argv[1], "--run") != 0) pt_harness_error("usage: runner --run ID");
    for (int i = 0; i < n_cases; i++) {
        if (strcmp(cases[i].id, argv[2]) != 0) continue;
        cases[i].run();
        fflush(NULL); /* what the learner printed lands in its own file */
        const unsigned char end = PT_END;
        write_all(&end, 1);
        pt_free_all(); /* what is left after this is the learner's: a leak */
        return 0;
    }
    fprintf(stderr, "ptest: no case %s in this runner\n", argv[2]);
    return PT_EXIT_HARNESS;
}
