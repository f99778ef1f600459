/* Exercise 211 (bf16 ↔ float32), the runner: each case's inputs, the calls, the
 * outputs handed back. The checker (check.c) holds what they should be. */
#include <string.h>

#include "ptest_run.h"
#include "bf16.h"

#include "inputs.h"

static float from_bits(uint32_t b) {
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* f32_to_bf16 of every pattern, handed back as h. */
static void round_all(const uint32_t *in, size_t n) {
    uint16_t *got = pt_bytes(n * sizeof *got);
    for (size_t i = 0; i < n; i++) got[i] = f32_to_bf16(from_bits(in[i]));
    pt_out_u16s("h", got, n);
}

static void worked_example(void) {
    const uint32_t in[4] = {0x3F800000u, 0x40490FDBu, 0x3F808000u, 0x3F818000u};
    round_all(in, 4);
    const float back[2] = {bf16_to_f32(0x4049), bf16_to_f32(0x3F80)};
    pt_out_floats("back", back, 2);
}

static void widen_all(void) {
    uint32_t *bits = pt_bytes(65536 * sizeof *bits);
    for (uint32_t h = 0; h < 65536; h++) {
        float f = bf16_to_f32((uint16_t)h);
        memcpy(&bits[h], &f, sizeof f);
    }
    pt_out_u32s("bits", bits, 65536);
}

static void round_torch(void) { round_all(round_in, sizeof round_in / sizeof round_in[0]); }

static void ties_to_even(void) { round_all(ties_in, sizeof ties_in / sizeof ties_in[0]); }

static void edges(void) { round_all(edges_in, sizeof edges_in / sizeof edges_in[0]); }

static void nan_stays_nan(void) {
    const uint32_t nans[] = {0x7F800001u, 0x7FC00000u, 0xFFFFFFFFu, 0x7FFFFFFFu, 0xFF800001u, 0x7F80FFFFu};
    round_all(nans, sizeof nans / sizeof nans[0]);
}

/* every BF16 but the NaNs there and back; a NaN's place keeps the buffer's filler */
static void roundtrip(void) {
    uint16_t *back = pt_bytes(65536 * sizeof *back);
    for (uint32_t h = 0; h < 65536; h++) {
        if ((h & 0x7F80) == 0x7F80 && (h & 0x7F)) continue; /* NaN */
        back[h] = f32_to_bf16(bf16_to_f32((uint16_t)h));
    }
    pt_out_u16s("back", back, 65536);
}

PT_RUNNER({"worked_example", worked_example}, {"widen_all", widen_all}, {"round_torch", round_torch},
          {"ties_to_even", ties_to_even}, {"edges", edges}, {"nan_stays_nan", nan_stays_nan},
          {"roundtrip", roundtrip})
