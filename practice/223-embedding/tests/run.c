/* Exercise 223 (embedding), the runner: each case's inputs, the calls, the outputs
 * handed back. The checker (check.c) holds what they should be. */
#include <stdio.h>
#include <string.h>

#include "ptest_run.h"
#include "embedding.h"

#define V 4096
#define H 1024

/* float32 → bf16 bits, round to nearest even (the inputs here are never NaN). */
static uint16_t to_bf16(float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    b += 0x7fffu + ((b >> 16) & 1u);
    return (uint16_t)(b >> 16);
}

/* The [V, H] table of make_expected.py. */
static uint16_t *big_table(void) {
    float *f = pt_floats((size_t)V * H);
    pt_fill(f, (size_t)V * H, 31, 0.05f);
    uint16_t *t = pt_bytes((size_t)V * H * sizeof *t);
    for (size_t i = 0; i < (size_t)V * H; i++) t[i] = to_bf16(f[i]);
    return t;
}

static const uint16_t small[6] = {0x3F80, 0x0000, 0x3F00, 0xC000, 0x4040, 0x3F80};

static void worked_example(void) {
    const int ids[3] = {2, 0, 2};
    uint16_t *table = pt_dup(small, sizeof small);
    float *out = pt_floats(6);
    pt_out_int("ret", embed_lookup(ids, table, 3, 3, 2, out));
    pt_out_floats("out", out, 6);
    const int bad[2] = {1, 3};
    float *untouched = pt_floats(4);
    pt_out_int("ret_bad", embed_lookup(bad, table, 2, 3, 2, untouched));
    pt_out_floats("out_bad", untouched, 4);
    const float h0[2] = {2, 1};
    float *h = pt_copy(h0, 2), *logits = pt_floats(3);
    tied_logits(h, table, 3, 2, logits);
    pt_out_floats("logits", logits, 3);
}

static void rows_1024(void) {
    uint16_t *table = big_table();
    const int ids[6] = {0, V - 1, 17, 17, 1000, 2048};
    float *out = pt_floats(6 * H);
    pt_out_int("ret", embed_lookup(ids, table, 6, V, H, out));
    pt_out_floats("out", out, 6 * H);
}

static void bad_ids(void) {
    uint16_t *table = big_table();
    /* in the order of the checker's reasons */
    static const int bad[4][3] = {{5, 6, V}, {5, -1, 6}, {1 << 30, 0, 0}, {0, 1, V + 1}};
    for (int k = 0; k < 4; k++) {
        char name[16];
        float *out = pt_floats(3 * H);
        snprintf(name, sizeof name, "ret%d", k);
        pt_out_int(name, embed_lookup(bad[k], table, 3, V, H, out));
        snprintf(name, sizeof name, "out%d", k);
        pt_out_floats(name, out, 3 * H);
    }
}

static void logits_4096(void) {
    uint16_t *table = big_table();
    float *h = pt_floats(H), *logits = pt_floats(V);
    pt_fill(h, H, 32, 1.0f);
    tied_logits(h, table, V, H, logits);
    pt_out_floats("logits", logits, V);
}

static void no_tokens(void) {
    uint16_t *table = pt_dup(small, sizeof small);
    float *out = pt_floats(1);
    pt_out_int("ret", embed_lookup(NULL, table, 0, 3, 2, out));
}

PT_RUNNER({"worked_example", worked_example}, {"rows_1024", rows_1024}, {"bad_ids", bad_ids},
          {"logits_4096", logits_4096}, {"no_tokens", no_tokens})
