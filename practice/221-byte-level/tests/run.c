/* Exercise 221 (byte-level mapping), the runner: each case's bytes, the calls, the
 * outputs handed back. The checker (check.c) holds what they should be. */
#include "ptest_run.h"
#include "byte_level.h"

#include "inputs.h"

/* bytes_to_symbols of n bytes: the returned length as len, and the whole out buffer
 * (2·n + 1 bytes), byte by byte, as out. */
static void text(const uint8_t *in, size_t n) {
    char *out = pt_bytes(2 * n + 1);
    size_t len = bytes_to_symbols(in, n, out);
    int *bytes = pt_ints(2 * n + 1);
    for (size_t i = 0; i < 2 * n + 1; i++) bytes[i] = (unsigned char)out[i];
    pt_out_u64("len", len);
    pt_out_ints("out", bytes, 2 * n + 1);
}

static void worked_example(void) {
    const uint8_t in[7] = {0x20, 0xE4, 0xBD, 0xA0, 0xE5, 0xA5, 0xBD};
    uint32_t got[7];
    for (int i = 0; i < 7; i++) got[i] = byte_to_symbol(in[i]);
    pt_out_u32s("symbols", got, 7);
    text(in, 7);
}

static void all_bytes(void) {
    uint32_t *got = pt_bytes(256 * sizeof *got);
    for (int b = 0; b < 256; b++) got[b] = byte_to_symbol((uint8_t)b);
    pt_out_u32s("symbols", got, 256);
}

static void inverse(void) {
    int *back = pt_ints(256);
    for (int b = 0; b < 256; b++) back[b] = symbol_to_byte(symbol_of[b]);
    pt_out_ints("back", back, 256);
    const uint32_t none[] = {0x20, 0x0A, 0x00, 0x7F, 0xA0, 0xAD, 0x144, 0x4F60, 0x110000, 0xFFFFFFFFu};
    enum { N_NONE = sizeof none / sizeof none[0] };
    int *none_back = pt_ints(N_NONE);
    for (int i = 0; i < N_NONE; i++) none_back[i] = symbol_to_byte(none[i]);
    pt_out_ints("none_back", none_back, N_NONE);
}

static void utf8_all_bytes(void) {
    uint8_t in[256];
    for (int b = 0; b < 256; b++) in[b] = (uint8_t)b;
    text(in, 256);
}

static void empty(void) { text((const uint8_t *)"", 0); }

static void real_text(void) { text(real_text_bytes, sizeof real_text_bytes); }

PT_RUNNER({"worked_example", worked_example}, {"all_bytes", all_bytes}, {"inverse", inverse},
          {"utf8_all_bytes", utf8_all_bytes}, {"empty", empty}, {"real_text", real_text})
