/* kernels/linear.c — the fast paths of y = W x: linear() and linear_batch().
 *
 * Speed code. The formula and its plain loop, linear_ref(), are in qwen/linear.c; the
 * tests (ch04_mlp/tests/test_linear.c) hold every function here to it.
 *
 * How the fast path is laid out
 * -----------------------------
 * Both fast functions are built from one piece, a "tile": R rows of W times C tokens,
 * giving R × C outputs. A tile walks along the row (the `in` direction) 16 numbers at a
 * time and keeps 16 running sums per output — sum j collects the products at
 * positions i ≡ j (mod 16) — so that the 16 multiply-adds of a step are independent and
 * the machine can do them at once (SIMD). At the end of the row the 16 sums are added
 * in a fixed halving order (8 + 8, 4 + 4, 2 + 2, 1 + 1) into the output.
 *
 * Every output is produced this way whatever tile it sits in and whichever thread
 * runs it, so results never depend on T or on the thread count (linear.h).
 *
 *   one token (linear):      each weight is used once, so the speed is that of reading
 *                            W from memory. Tiles of 4 rows × 1 token, the 4 rows taken
 *                            from 4 distant parts of W so that each part is read as one
 *                            long stream (see walk below).
 *   T tokens (linear_batch): tiles of 6 rows × 4 tokens. One step loads 6 weight
 *                            vectors and 4 token vectors and does 24 multiply-adds with
 *                            them, enough work per load to keep the multiply-add units
 *                            busy. From 12 tokens on, the 6 rows are first widened to
 *                            float32 into a small panel that stays in the core's cache
 *                            while all the tokens pass by, so W is read from memory once
 *                            per call.
 *
 * Two implementations of the tile: plain C (portable; the compiler vectorises the
 * 16-lane loops) and AVX-512 intrinsics, chosen at compile time when the compiler
 * targets AVX-512 (-march=native on a machine that has it). The portable one cannot
 * keep 24 running 16-lane sums in registers, nor use fused multiply-add: the build
 * compiles with -ffp-contract=off (the Makefile), so `acc + w * x` is rounded twice,
 * after the product and after the sum, as linear_ref computes it; the intrinsics say
 * fused multiply-add outright, which makes the batched form about 3× faster
 * (ch04_mlp/bench/bench_linear.c measures both).
 */
#include "qwen/linear.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/ahead.h"
#include "kernels/pool.h"
#include "workbook/util.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__)
#define LINEAR_AVX512 1
#include <immintrin.h>
#else
#define LINEAR_AVX512 0
#endif

#define LANES           16   /* running sums per output: one 512-bit vector of float32 */
#define ROWS            6    /* rows of W per batched tile */
#define TOKENS          4    /* tokens per batched tile */
#define STREAMS         4    /* rows per tile for one token */
#define PACK_MIN_TOKENS 12   /* from this many tokens on, a tile's rows are widened once (packed_rows) */
#define KBLOCK          1024 /* ... up to this many positions at a time (packed_rows) */
#define TOKEN_CHUNK     256  /* at most this many tokens in a chunk (packed_rows keeps their sums in acc) */
#define MIN_CHUNK       32   /* ... and at least this many (while there are as many) */
#define READ_AHEAD      2048 /* bytes ahead of each stream that a tile asks for (walk_task, dot_rows) */
#define KEY_STREAMS     3    /* streams of one token's keys (dot_rows) ... */
#define KEY_STREAM_MIN  (64 << 10) /* ... when they are at least this many bytes */
/* A panel row every KBLOCK + 16 floats, so that the rows fall into different cache sets. */
#define PANEL_STRIDE (KBLOCK + LANES)

/* How a tile starts and ends. A whole row: from zero sums to the output. A batched
 * call that cuts the rows into blocks of KBLOCK (packed_rows) runs a tile per block: the
 * 16 running sums of each output are then kept in acc between the blocks, as they are —
 * not added up — so every output is the same sequence of multiply-adds as in one tile
 * over the whole row, to the last bit. */
enum {
    FROM_ZERO = 1, /* start with zero sums (else: the sums in acc) */
    TO_OUTPUT = 2, /* end by adding the 16 sums into y (else: leave them in acc) */
    WHOLE_ROW = FROM_ZERO | TO_OUTPUT,
    AHEAD = 4, /* a tile that may ask (the one-token tiles, the keys tiles): ask for the line
                * READ_AHEAD bytes ahead in each row at every step (set only where that line is
                * one of the rows' own part, on a machine where that is faster: kernels/ahead.h) */
    ONCE = 8,  /* with AHEAD: the rows are read once (one token's weights, its keys), so ask
                * with the non-temporal hint (see walk) */
};

#define ALWAYS_INLINE __attribute__((always_inline))

/* A tile's asking ahead for the line at p, as its `ahead` says: 0 nothing, AHEAD the
 * plain hint (kept in every cache), AHEAD | ONCE the non-temporal one. */
static inline ALWAYS_INLINE void ask_line(const char *p, int ahead) {
    if (ahead & ONCE)
        __builtin_prefetch(p, 0, 0);
    else if (ahead)
        __builtin_prefetch(p, 0, 3);
}

/* ------------------------------------------------------------------------------------
 * Plain-C tile: R rows of W (row r at w + r·w_step bytes, `in` weights each) times C
 * tokens (token c at x + c·in); output (r, c) goes to y[c·out + r·y_step]. R and C are
 * constants at every call, so the compiler unrolls the r and c loops and vectorises
 * the 16-lane loops.
 * ------------------------------------------------------------------------------------ */

/* 16 weights of one row from position k, widened to float32 — or, when partial,
 * only the first n of them, with the remaining lanes 0. */
static inline ALWAYS_INLINE void widen_portable(DType dt, const void *row, int64_t k, int n, int partial,
                                                float *lane) {
    for (int j = 0; j < LANES; j++) {
        float v = 0.0f;
        if (!partial || j < n) {
            if (dt == DTYPE_BF16)
                v = bf16_to_f32(((const uint16_t *)row)[k + j]);
            else if (dt == DTYPE_F16)
                v = f16_to_f32(((const uint16_t *)row)[k + j]);
            else
                v = ((const float *)row)[k + j];
        }
        lane[j] = v;
    }
}

/* One step of the tile: 16 positions starting at k (n of them when partial). */
static inline ALWAYS_INLINE void step_portable(DType dt, const char *w, int64_t w_step, const float *x,
                                               int64_t in, int64_t k, int n, int partial, int ahead, int R,
                                               int C, float acc[ROWS][TOKENS][LANES]) {
    float wl[ROWS][LANES], xl[TOKENS][LANES]; /* this step's weights and inputs */
#pragma GCC unroll 6
    for (int r = 0; r < R; r++) {
        ask_line(w + r * w_step + k * dtype_size(dt) + READ_AHEAD, ahead);
        widen_portable(dt, w + r * w_step, k, n, partial, wl[r]);
    }
#pragma GCC unroll 4
    for (int c = 0; c < C; c++)
        for (int j = 0; j < LANES; j++) xl[c][j] = !partial || j < n ? x[c * in + k + j] : 0.0f;
#pragma GCC unroll 6
    for (int r = 0; r < R; r++)
#pragma GCC unroll 4
        for (int c = 0; c < C; c++)
#pragma omp simd
            for (int j = 0; j < LANES; j++) acc[r][c][j] += wl[r][j] * xl[c][j];
}

/* Adds the 16 running sums in the fixed halving order (the same order the AVX-512
 * reduction uses), leaving the total in lane[0]. */
static inline float lanes_sum(float *lane) {
    for (int half = LANES / 2; half >= 1; half /= 2)
        for (int j = 0; j < half; j++) lane[j] = lane[j + half] + lane[j];
    return lane[0];
}

static inline ALWAYS_INLINE void tile_portable(DType dt, const char *w, int64_t w_step, int64_t len,
                                               const float *x, int64_t x_step, float *acc_mem, int phase,
                                               float *y, int64_t y_step, int64_t out, int R, int C, int ASK) {
    float acc[ROWS][TOKENS][LANES]; /* running sums of output (r, c) */
    if (phase & FROM_ZERO)
        memset(acc, 0, sizeof acc);
    else
        memcpy(acc, acc_mem, sizeof acc);
    /* ASK is a constant: 0 in every tile that never asks. ahead: 0, AHEAD, or AHEAD | ONCE */
    int ahead = ASK && (phase & AHEAD) ? phase & (AHEAD | ONCE) : 0;
    int64_t k = 0;
    for (; k + LANES <= len; k += LANES)
        step_portable(dt, w, w_step, x, x_step, k, LANES, 0, ahead, R, C, acc);
    if (k < len) step_portable(dt, w, w_step, x, x_step, k, (int)(len - k), 1, 0, R, C, acc);
    if (!(phase & TO_OUTPUT)) {
        memcpy(acc_mem, acc, sizeof acc);
        return;
    }
    for (int r = 0; r < R; r++)
        for (int c = 0; c < C; c++) y[c * out + r * y_step] = lanes_sum(acc[r][c]);
}

/* ------------------------------------------------------------------------------------
 * AVX-512 tile: the same arithmetic with one __m512 register per 16 running sums.
 * 6 × 4 sums + 6 weight vectors + 1 token vector: 31 of the 32 vector registers.
 * Weights are widened to float32 in registers: BF16 by moving each 16-bit value
 * into the top half of a 32-bit lane, F16 with the hardware conversion.
 * ------------------------------------------------------------------------------------ */
#if LINEAR_AVX512

/* 16 weights from p (or the first bits of `mask` of them) as float32. Masked loads
 * never touch the memory of masked-off lanes, so a row's last step may end anywhere. */
static inline ALWAYS_INLINE __m512 widen_avx512(DType dt, const void *p, __mmask16 mask, int partial) {
    if (dt == DTYPE_F32) return partial ? _mm512_maskz_loadu_ps(mask, p) : _mm512_loadu_ps(p);
    __m256i h = partial ? _mm256_maskz_loadu_epi16(mask, p) : _mm256_loadu_si256((const __m256i *)p);
    if (dt == DTYPE_F16) return _mm512_cvtph_ps(h);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)); /* BF16: bits << 16 */
}

/* One step of the tile: 16 positions starting at k. */
static inline ALWAYS_INLINE void step_avx512(DType dt, const char *w, int64_t w_step, const float *x,
                                             int64_t in, int64_t k, __mmask16 mask, int partial, int ahead,
                                             int R, int C, __m512 acc[ROWS][TOKENS]) {
    int esize = dtype_size(dt);
    __m512 wv[ROWS];
#pragma GCC unroll 6
    for (int r = 0; r < R; r++) {
        ask_line(w + r * w_step + k * esize + READ_AHEAD, ahead);
        wv[r] = widen_avx512(dt, w + r * w_step + k * esize, mask, partial);
        /* Keep the weights in registers. Otherwise GCC folds a float32 weight's load
         * into each of its multiply-adds: 28 loads a step instead of 10, and the load
         * ports, not the multiply-add units, set the pace (a third slower). */
        __asm__("" : "+v"(wv[r]));
    }
#pragma GCC unroll 4
    for (int c = 0; c < C; c++) {
        __m512 xv = partial ? _mm512_maskz_loadu_ps(mask, x + c * in + k) : _mm512_loadu_ps(x + c * in + k);
#pragma GCC unroll 6
        for (int r = 0; r < R; r++) acc[r][c] = _mm512_fmadd_ps(wv[r], xv, acc[r][c]);
    }
}

/* The 16 running sums of each of 8 outputs added up in the halving order of lanes_sum
 * (8 + 8, 4 + 4, 2 + 2, 1 + 1, the upper half added to the lower), all 8 at once: each
 * step adds two outputs' halves side by side in one register, where adding up one
 * output at a time (_mm512_reduce_add_ps, the same order) takes a shuffle and an add
 * per step for every output. The same additions of the same numbers, so the same
 * totals to the last bit. Returns the 8 totals in order. (A tile of 6 × 4 over rows of
 * 1024 spends ~12 cycles a step for 64 steps; a tenth of its samples fell after the
 * loop, mostly in adding up its 24 outputs one at a time. Measured on the whole model,
 * alternating in one process: 139- and 512-token prompts 2.5% and 1.7% faster. One
 * token is read at the memory's pace, and its tiles of 4 sums keep the one-at-a-time
 * reduction.) */
static inline ALWAYS_INLINE __m256 sums_of_8(const __m512 v[8]) {
    /* The immediates pick 128-bit blocks (shuffle_f32x4: two of a, then two of b) or
     * lanes within each block (shuffle_ps): 0xEE the upper two of each, 0x44 the lower
     * two, 0xDD the odd ones, 0x88 the even ones. */
    __m512 h[4], q[2];
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) /* 8 + 8: output 2i in blocks 0–1, output 2i + 1 in blocks 2–3 */
        h[i] = _mm512_add_ps(_mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0xEE),
                             _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0x44));
#pragma GCC unroll 2
    for (int i = 0; i < 2; i++) /* 4 + 4: output 4i + j in block j */
        q[i] = _mm512_add_ps(_mm512_shuffle_f32x4(h[2 * i], h[2 * i + 1], 0xDD),
                             _mm512_shuffle_f32x4(h[2 * i], h[2 * i + 1], 0x88));
    /* 2 + 2: block j holds output j in lanes 0–1, output 4 + j in lanes 2–3 */
    __m512 d = _mm512_add_ps(_mm512_shuffle_ps(q[0], q[1], 0xEE), _mm512_shuffle_ps(q[0], q[1], 0x44));
    /* 1 + 1: block j holds output j in lane 0, output 4 + j in lane 1 */
    __m512 t = _mm512_add_ps(_mm512_shuffle_ps(d, d, 0xDD), _mm512_shuffle_ps(d, d, 0x88));
    /* outputs 0–7 from lanes 0, 4, 8, 12, 1, 5, 9, 13 */
    return _mm512_castps512_ps256(
        _mm512_permutexvar_ps(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0), t));
}

static inline ALWAYS_INLINE void tile_avx512(DType dt, const char *w, int64_t w_step, int64_t len,
                                             const float *x, int64_t x_step, float *acc_mem, int phase,
                                             float *y, int64_t y_step, int64_t out, int R, int C, int ASK) {
    __m512 acc[ROWS][TOKENS];
#pragma GCC unroll 6
    for (int r = 0; r < R; r++)
#pragma GCC unroll 4
        for (int c = 0; c < C; c++)
            acc[r][c] =
                phase & FROM_ZERO ? _mm512_setzero_ps() : _mm512_loadu_ps(acc_mem + (r * TOKENS + c) * LANES);
    /* ASK is a constant: 0 in every tile that never asks. ahead: 0, AHEAD, or AHEAD | ONCE */
    int ahead = ASK && (phase & AHEAD) ? phase & (AHEAD | ONCE) : 0;
    int64_t k = 0;
    for (; k + LANES <= len; k += LANES) step_avx512(dt, w, w_step, x, x_step, k, 0, 0, ahead, R, C, acc);
    if (k < len)
        step_avx512(dt, w, w_step, x, x_step, k, (__mmask16)((1u << (len - k)) - 1), 1, 0, R, C, acc);
    if (!(phase & TO_OUTPUT)) {
#pragma GCC unroll 6
        for (int r = 0; r < R; r++)
#pragma GCC unroll 4
            for (int c = 0; c < C; c++) _mm512_storeu_ps(acc_mem + (r * TOKENS + c) * LANES, acc[r][c]);
        return;
    }
    if (R * C <= STREAMS) { /* a few sums (one token): one at a time */
#pragma GCC unroll 6
        for (int r = 0; r < R; r++)
#pragma GCC unroll 4
            for (int c = 0; c < C; c++) y[c * out + r * y_step] = _mm512_reduce_add_ps(acc[r][c]);
        return;
    }
    /* eight at a time (sums_of_8), sum i = r·C + c */
    float sum[ROWS * TOKENS + 8];
#pragma GCC unroll 3
    for (int i0 = 0; i0 < R * C; i0 += 8) {
        __m512 v[8];
#pragma GCC unroll 8
        for (int i = 0; i < 8; i++)
            v[i] = i0 + i < R * C ? acc[(i0 + i) / C][(i0 + i) % C] : _mm512_setzero_ps();
        _mm256_storeu_ps(sum + i0, sums_of_8(v));
    }
#pragma GCC unroll 6
    for (int r = 0; r < R; r++)
#pragma GCC unroll 4
        for (int c = 0; c < C; c++) y[c * out + r * y_step] = sum[r * C + c];
}

#endif /* LINEAR_AVX512 */

/* ------------------------------------------------------------------------------------
 * The tiles as functions, one per (implementation, dtype, shape). A tile does hundreds
 * of multiply-adds, so calling it through a pointer costs nothing measurable, and the
 * loops below stay free of dtype switches.
 *
 * A tile's rows need not be neighbours: row r starts at w + r·w_step bytes and its
 * outputs go to y[c·out + r·y_step]. That lets one tile take rows from several distant
 * parts of W (see walk).
 * ------------------------------------------------------------------------------------ */

typedef void TileFn(const char *w, int64_t w_step, int64_t len, const float *x, int64_t x_step, float *acc,
                    int phase, float *y, int64_t y_step, int64_t out);

typedef struct {
    /* ROWS × c tokens, c = 1 .. TOKENS (fewer than TOKENS: what is left after the groups) */
    TileFn *rows[TOKENS + 1];
    /* 1 × c: the rows left over after the groups of ROWS */
    TileFn *one[TOKENS + 1];
    /* STREAMS × 1: one token (asks ahead where the phase says AHEAD) */
    TileFn *streams;
    /* ROWS × c again, asking ahead where the phase says AHEAD: the keys (dot_rows).
     * Apart from rows[], so that the prompt's tiles carry no test for it. */
    TileFn *keys[TOKENS + 1];
    /* KEY_STREAMS × c, asking ahead likewise: one token's keys from memory (dot_rows) */
    TileFn *long_keys[TOKENS + 1];
} Tiles;

#define DEFINE_TILE(name, impl, dt, R, C, ASK)                                                               \
    static void name(const char *w, int64_t w_step, int64_t len, const float *x, int64_t x_step, float *acc, \
                     int phase, float *y, int64_t y_step, int64_t out) {                                     \
        impl(dt, w, w_step, len, x, x_step, acc, phase, y, y_step, out, R, C, ASK);                          \
    }
/* The tiles every dtype has */
#define DEFINE_TILE_SET(name, impl, dt)                                                                      \
    DEFINE_TILE(name##_r1, impl, dt, ROWS, 1, 0)                                                             \
    DEFINE_TILE(name##_r2, impl, dt, ROWS, 2, 0)                                                             \
    DEFINE_TILE(name##_r3, impl, dt, ROWS, 3, 0)                                                             \
    DEFINE_TILE(name##_r4, impl, dt, ROWS, 4, 0)                                                             \
    DEFINE_TILE(name##_o1, impl, dt, 1, 1, 0)                                                                \
    DEFINE_TILE(name##_o2, impl, dt, 1, 2, 0)                                                                \
    DEFINE_TILE(name##_o3, impl, dt, 1, 3, 0)                                                                \
    DEFINE_TILE(name##_o4, impl, dt, 1, 4, 0)                                                                \
    DEFINE_TILE(name##_streams, impl, dt, STREAMS, 1, 1)
/* A dtype's Tiles; after the name, its keys and long_keys tiles (or {NULL}) */
#define TILES_OF(name, ...)                                                                                  \
    static const Tiles name = {{NULL, name##_r1, name##_r2, name##_r3, name##_r4},                           \
                               {NULL, name##_o1, name##_o2, name##_o3, name##_o4},                           \
                               name##_streams,                                                               \
                               __VA_ARGS__};
#define DEFINE_TILES(name, impl, dt) DEFINE_TILE_SET(name, impl, dt) TILES_OF(name, {NULL}, {NULL})
/* float32 has the keys tiles too */
#define DEFINE_TILES_WITH_KEYS(name, impl, dt)                                                               \
    DEFINE_TILE_SET(name, impl, dt)                                                                          \
    DEFINE_TILE(name##_k1, impl, dt, ROWS, 1, 1)                                                             \
    DEFINE_TILE(name##_k2, impl, dt, ROWS, 2, 1)                                                             \
    DEFINE_TILE(name##_k3, impl, dt, ROWS, 3, 1)                                                             \
    DEFINE_TILE(name##_k4, impl, dt, ROWS, 4, 1)                                                             \
    DEFINE_TILE(name##_l1, impl, dt, KEY_STREAMS, 1, 1)                                                      \
    DEFINE_TILE(name##_l2, impl, dt, KEY_STREAMS, 2, 1)                                                      \
    DEFINE_TILE(name##_l3, impl, dt, KEY_STREAMS, 3, 1)                                                      \
    DEFINE_TILE(name##_l4, impl, dt, KEY_STREAMS, 4, 1)                                                      \
    TILES_OF(name, {NULL, name##_k1, name##_k2, name##_k3, name##_k4},                                       \
             {NULL, name##_l1, name##_l2, name##_l3, name##_l4})
_Static_assert(TOKENS == 4, "DEFINE_TILES spells out the tiles of 1 .. 4 tokens");

DEFINE_TILES(portable_bf16, tile_portable, DTYPE_BF16)
DEFINE_TILES(portable_f16, tile_portable, DTYPE_F16)
DEFINE_TILES_WITH_KEYS(portable_f32, tile_portable, DTYPE_F32)
#if LINEAR_AVX512
DEFINE_TILES(avx512_bf16, tile_avx512, DTYPE_BF16)
DEFINE_TILES(avx512_f16, tile_avx512, DTYPE_F16)
DEFINE_TILES_WITH_KEYS(avx512_f32, tile_avx512, DTYPE_F32)
#endif

static const Tiles *tiles_for(DType dt, int portable) {
#if LINEAR_AVX512
    if (!portable) return dt == DTYPE_BF16 ? &avx512_bf16 : dt == DTYPE_F16 ? &avx512_f16 : &avx512_f32;
#endif
    (void)portable;
    return dt == DTYPE_BF16 ? &portable_bf16 : dt == DTYPE_F16 ? &portable_f16 : &portable_f32;
}

/* ------------------------------------------------------------------------------------
 * The loops over tiles. The workers take W's rows in tasks, and each writes only the
 * outputs of the rows it took.
 * ------------------------------------------------------------------------------------ */

/* Both paths walk W the same way. The rows are cut into tasks of about TASK_BYTES of
 * weights each, DECODE_TASK_BYTES for one token (at most a worker's share of them, so
 * that a small W is shared too),
 * which the workers take one at a time (kernels/pool.h), from the two ends; for one
 * token a task also takes its tiles' rows one group at a time from the pool, so that the
 * worker done first can take over the back half of what the other's last task has left
 * (pool_units_begin) instead of waiting for it. A stack
 * of matrices of one input (linear_stack) is one job: each matrix cut into tasks of its
 * own, the share counted over all their rows. A task cuts its rows into `parts` equal parts and goes
 * through all of them at once: tile j takes row j of every part (its rows lie
 * part·row_bytes apart). Each part is then read front to back, one long contiguous
 * stream, which the memory system's prefetcher follows at full speed — tiles of
 * neighbouring rows would read many short streams instead, and that is up to 40%
 * slower from memory. The rows left over (fewer than `parts`) go one at a time.
 *
 *   one token:  4 parts, tiles of 4 rows × 1 token: four independent running sums, so
 *               the core need not wait for one multiply-add before starting the next.
 *               At every step the tile may also ask for the line READ_AHEAD bytes
 *               further on in each of its 4 streams (a prefetch instruction: it changes
 *               no number, and walk_task asks it only where that line is still in the
 *               part, and only where the trials measure it faster: kernels/ahead.h).
 *               On some machines the core's own prefetcher alone follows four
 *               streams per core too slowly: measured on an AMD EPYC (Zen 5) under KVM,
 *               tokens alternating in one process, one token of the whole model 12–13%
 *               faster with 2 KB ahead (1 KB and 1.5 KB the same; 512 bytes and 4 KB
 *               5–10% slower than 2 KB, 8 KB slower still). With the two cores on
 *               different chips, where the memory is fastest, a token went from
 *               34.1 ms to 27.3–31.6 ms (bench/README). The tile asks with the
 *               non-temporal hint (ONCE), since a weight is used once per token (what
 *               the processor does with the hint is up to it). Measured on the same
 *               machine, blocks of 32 tokens taking turns with the plain hint, the tiles
 *               always asking: a token 2.4% faster with the cores on one chip, the same
 *               on two (bench/README).
 *   T tokens:   6 parts, tiles of 6 rows × 4 tokens, the tokens 4 at a time (then the
 *               last 1 to 3 in one narrower tile) while the 6 rows stay in the core's
 *               cache.
 *
 * Many tokens: the tile's rows are widened to float32 once, into a panel on the worker's
 * stack, and every tile over the tokens reads the panel instead (packed_rows). The
 * products are the same (widening is exact), but the widening instructions, which
 * compete with the multiply-adds for the same execution units, then run once per row
 * instead of once per TOKENS tokens. There the tiles read W no more, so the parts
 * serve nothing: a packed task takes its rows ROWS neighbours at a time. Each group is
 * then widened from one contiguous stretch of W, and its outputs for a token are ROWS
 * neighbouring numbers of y, in one or two cache lines, where rows from 6 parts wrote
 * to 6 lines far apart: a row group writes T · 6 scattered lines, which at 512 tokens
 * no longer stay in the second-level cache beside the tokens' rows (measured on the
 * whole model, alternating in one process: 139- and 512-token prompts 3% and 6%
 * faster with neighbouring rows).
 *
 * And a packed task takes the tokens a chunk at a time (chunk_tokens): each chunk
 * passes by all of the task's row groups before the next one comes. A chunk's rows of
 * x fill about 5/8 of the core's second-level cache, so every row group after the
 * first finds them there; with all the tokens passing every row group, x came from the
 * shared third-level cache each time (139 tokens of down_proj, in = 3584, are 2 MB). A
 * row group is then widened once per chunk, from the second-level cache after the
 * first time. Measured on the whole model, alternating in one process: 139 tokens 2%
 * faster (down_proj in chunks of 36 tokens, out_proj of 72), a pass of 256 tokens 11%
 * (every projection in 2 or more chunks); chunks of 3/8 of the cache were slower, of
 * 3/4 and all of it no different. Rows longer than KBLOCK are cut into blocks of
 * KBLOCK positions, the running sums kept from one block to the next (every block
 * loads and stores the 24 running sums of every token group once more). A block's
 * panel (6 × 1024 numbers, 24 KB) then stays in the core's first-level cache while the
 * tokens' rows stream by from the second: with whole rows, the panel of down_proj
 * (6 × 3584) sat in the second-level cache too, and on a core with two 512-bit
 * multiply-add units (AMD Zen 5) that cache could not feed both it and the tokens
 * (down_proj at ~51% of the peak against ~75% for rows of 1024). Measured on the whole
 * model, alternating in one process: 139- and 512-token prompts 7-8% faster with
 * blocks of 1024 than with whole rows, blocks of 512 in between. On a core with half
 * the multiply-add rate (Zen 4) blocks of 512 had measured 3-8% slower than whole rows. */
#define TASK_BYTES (256 << 10)
/* One token: longer tasks, so that each of a task's 4 streams runs 256 KB before it
 * ends and the next task's streams begin (measured on the whole model, tokens alternating in
 * one process, AMD EPYC with the cores on two chips: 9.5% faster than with 256 KB
 * tasks; 512 KB 2% and 2 MB 1% slower than 1 MB). */
#define DECODE_TASK_BYTES (1024 << 10)

/* One call: a stack of n matrices of the same input, matrix i's tasks numbered
 * first_task[i] .. first_task[i + 1] − 1 (n = 1: one matrix). */
typedef struct {
    const Tiles *k32; /* the tiles for the float32 panel */
    const float *x;
    int64_t T;
    int parts;
    const Tensor *w[LINEAR_MAX_STACK];
    const Tiles *k[LINEAR_MAX_STACK]; /* the tiles for each W's dtype */
    float *y[LINEAR_MAX_STACK];
    PoolCut cut[LINEAR_MAX_STACK]; /* each W's rows in tasks of a multiple of parts (kernels/pool.h) */
    int64_t chunk;                 /* tokens per chunk of a packed task (chunk_tokens) */
    bool ask;                      /* one token: the tiles ask ahead (kernels/ahead.h) */
    int64_t first_task[LINEAR_MAX_STACK + 1];
    bool pack[LINEAR_MAX_STACK];
} Walk;

/* Rows first .. first + rows − 1 of W, positions k0 .. k0 + len − 1, widened to float32
 * into the panel (a row every stride floats). Exact: every BF16 and F16 value is a
 * float32. */
static void widen_block(const Tensor *w, int64_t first, int rows, int64_t k0, int64_t len,
                        float *restrict panel, int64_t stride) {
    int64_t in = w->shape[1];
    for (int r = 0; r < rows; r++) {
        int64_t at = (first + r) * in + k0;
        float *dst = panel + r * stride;
        if (w->dtype == DTYPE_BF16) {
            const uint16_t *src = (const uint16_t *)w->data + at;
#pragma omp simd
            for (int64_t i = 0; i < len; i++) dst[i] = bf16_to_f32(src[i]);
        } else {
            tensor_read_f32(w, at, len, dst);
        }
    }
}

/* The block widen_block reads next, asked of the memory a few lines at a time while the
 * tiles work on this one. The tiles are multiply-adds out of the cache, during which the
 * memory would idle; the next widening then finds its rows in the first-level cache
 * instead of waiting for each line (3% of a 139-token prompt). */
typedef struct {
    const char *at;    /* the block's first row; NULL: nothing to ask for */
    int64_t row_step;  /* bytes from one of its rows to the next */
    int64_t lines;     /* 64-byte lines per row */
    int64_t row, line; /* the next line to ask for: line `line` of row `row` */
    int64_t per_step;  /* lines to ask per tile */
} Ahead;

/* The block of (up to KBLOCK) positions from k0 of the ROWS rows from first of W,
 * asked for over `steps` tiles. */
static Ahead ahead_of(const Tensor *w, int64_t first, int64_t k0, int64_t steps) {
    int64_t in = w->shape[1], size = dtype_size(w->dtype);
    int64_t len = in - k0 < KBLOCK ? in - k0 : KBLOCK, lines = (len * size + 63) / 64;
    return (Ahead){.at = (const char *)w->data + (first * in + k0) * size,
                   .row_step = in * size,
                   .lines = lines,
                   .per_step = (ROWS * lines + steps - 1) / steps};
}

static void ahead_step(Ahead *a) {
    for (int64_t e = 0; a->at && e < a->per_step && a->row < ROWS; e++) {
        __builtin_prefetch(a->at + a->row * a->row_step + a->line * 64, 0, 3);
        if (++a->line == a->lines)
            a->line = 0, a->row++; /* counted, not divided: a division per line cost 2% */
    }
}

/* A row group of a packed task: rows first .. first + ROWS − 1 of W times the nt tokens
 * from t0, into y (their outputs for token 0: y[first ..]). The rows are widened into
 * the panel (a block of KBLOCK positions at a time when they are longer), and every
 * group of TOKENS tokens passes by; with more than one block, each token group's
 * running sums are kept in acc from one block to the next (tile phases). `more`: the
 * task's next row group (first + ROWS) follows this one in the chunk. */
static void packed_rows(const Walk *wk, const Tensor *w, int64_t first, int64_t t0, int64_t nt, bool more,
                        float *y) {
    int64_t out = w->shape[0], in = w->shape[1];
    float panel[ROWS * PANEL_STRIDE] __attribute__((aligned(64)));
    float acc[TOKEN_CHUNK / TOKENS][ROWS * TOKENS * LANES] __attribute__((aligned(64)));
    for (int64_t k0 = 0; k0 < in; k0 += KBLOCK) {
        int64_t len = in - k0 < KBLOCK ? in - k0 : KBLOCK;
        int phase = (k0 == 0 ? FROM_ZERO : 0) | (k0 + len == in ? TO_OUTPUT : 0);
        widen_block(w, first, ROWS, k0, len, panel, PANEL_STRIDE);
        /* next: this row group's next block, or after its last the next group's first */
        int64_t steps = (nt + TOKENS - 1) / TOKENS;
        Ahead next = k0 + len < in ? ahead_of(w, first, k0 + len, steps)
                     : more        ? ahead_of(w, first + ROWS, 0, steps)
                                   : (Ahead){0};
        for (int64_t t = t0; t < t0 + nt; t += TOKENS) {
            int c = t0 + nt - t < TOKENS ? (int)(t0 + nt - t) : TOKENS;
            ahead_step(&next);
            wk->k32->rows[c]((const char *)panel, PANEL_STRIDE * (int64_t)sizeof(float), len,
                             wk->x + t * in + k0, in, acc[(t - t0) / TOKENS], phase, y + t * out, 1, out);
        }
    }
}

/* Tokens per chunk of a packed task: as many as fill about 5/8 of the core's
 * second-level cache with their rows of x (float32, `in` each), MIN_CHUNK .. TOKEN_CHUNK,
 * then evened out over the chunks T needs and rounded up to whole token groups. */
static int64_t chunk_tokens(int64_t T, int64_t in) {
    static long l2;
    if (!l2) {
        long size = sysconf(_SC_LEVEL2_CACHE_SIZE); /* glibc reads it off the processor; 0 or -1 elsewhere */
        l2 = size > 0 ? size : 1 << 20;
    }
    int64_t fit = (int64_t)l2 * 5 / 8 / (in * (int64_t)sizeof(float));
    fit = fit < MIN_CHUNK ? MIN_CHUNK : fit > TOKEN_CHUNK ? TOKEN_CHUNK : fit;
    int64_t chunks = T > fit ? (T + fit - 1) / fit : 1;
    return ((T + chunks - 1) / chunks + TOKENS - 1) / TOKENS * TOKENS;
}

static void walk_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const Walk *wk = ctx;
    int i = 0; /* the matrix the task belongs to */
    while (task >= wk->first_task[i + 1]) i++;
    const Tensor *w = wk->w[i];
    const Tiles *k = wk->k[i];
    int64_t out = w->shape[0], in = w->shape[1], T = wk->T;
    const float *x = wk->x;
    float *y = wk->y[i];
    const char *data = w->data;
    int64_t row_bytes = in * dtype_size(w->dtype);
    int parts = wk->parts;
    int64_t first, last;
    pool_cut_range(&wk->cut[i], task - wk->first_task[i], &first, &last);
    int64_t part = (last - first) / parts; /* rows per part */
    int64_t rest = first + parts * part;   /* the rows left over: rest .. last − 1 */
    if (T == 1) {
        /* units the pool may share (kernels/pool.h): row j of every part (j < part),
         * then the rows left over one at a time */
        PoolUnits units;
        pool_units_begin(&units, part + (last - rest));
        for (int64_t j; pool_units_next(&units, &j);) {
            if (j >= part) {
                int64_t o = rest + (j - part);
                k->one[1](data + o * row_bytes, 0, in, x, in, NULL, WHOLE_ROW, y + o, 0, out);
                continue;
            } /* AHEAD where the line asked for lies in the rows after row j of each part */
            int phase = WHOLE_ROW | (wk->ask && (part - j - 1) * row_bytes >= READ_AHEAD ? AHEAD | ONCE : 0);
            k->streams(data + (first + j) * row_bytes, part * row_bytes, in, x, in, NULL, phase,
                       y + first + j, part, out);
        }
        return;
    }
    if (wk->pack[i]) { /* row groups of neighbours instead (parts == ROWS), a chunk of tokens at a time */
        for (int64_t t0 = 0; t0 < T; t0 += wk->chunk)
            for (int64_t j = 0; j < part; j++)
                packed_rows(wk, w, first + ROWS * j, t0, T - t0 < wk->chunk ? T - t0 : wk->chunk,
                            j + 1 < part, y + first + ROWS * j);
    } else {
        for (int64_t j = 0; j < part; j++) {
            const char *rows = data + (first + j) * row_bytes; /* row j of the first part */
            int64_t step = part * row_bytes;                   /* from one part to the next */
            float *yj = y + first + j;                         /* its output for token 0 */
            for (int64_t t = 0; t < T; t += TOKENS) {
                int c = T - t < TOKENS ? (int)(T - t) : TOKENS;
                k->rows[c](rows, step, in, x + t * in, in, NULL, WHOLE_ROW, yj + t * out, part, out);
            }
        }
    }
    for (int64_t o = rest; o < last; o++)
        for (int64_t t = 0; t < T; t += TOKENS) {
            int c = T - t < TOKENS ? (int)(T - t) : TOKENS;
            k->one[c](data + o * row_bytes, 0, in, x + t * in, in, NULL, WHOLE_ROW, y + t * out + o, 0, out);
        }
}

/* Whether one token's tiles ask ahead: trials while the program runs (kernels/ahead.h). */
static AheadTrial trial = AHEAD_TRIAL_INIT;

int linear_asks_ahead(void) { return trial.choice; }

/* The n matrices w (all of the same input width) times x, in one job. */
static void walk(int portable, const Tensor *const *w, int n, const float *x, int64_t T, float *const *y) {
    if (n < 1 || n > LINEAR_MAX_STACK)
        die("linear: a stack of %d matrices (at most %d)", n, LINEAR_MAX_STACK);
    Walk wk = {.k32 = tiles_for(DTYPE_F32, portable),
               .x = x,
               .T = T,
               .parts = T == 1 ? STREAMS : ROWS,
               .chunk = chunk_tokens(T, w[0]->shape[1])};
    int64_t rows_in_all = 0;
    for (int i = 0; i < n; i++) {
        if (w[i]->shape[1] != w[0]->shape[1]) /* x is read with one row width for all */
            die("linear: %s has %lld inputs, %s %lld: a stack shares its input", w[i]->name,
                (long long)w[i]->shape[1], w[0]->name, (long long)w[0]->shape[1]);
        rows_in_all += w[i]->shape[0];
    }
    for (int i = 0; i < n; i++) {
        int64_t out = w[i]->shape[0], row_bytes = w[i]->shape[1] * dtype_size(w[i]->dtype);
        int64_t rows =
            pool_task_units((T == 1 ? DECODE_TASK_BYTES : TASK_BYTES) / row_bytes, rows_in_all, wk.parts);
        wk.w[i] = w[i];
        wk.k[i] = tiles_for(w[i]->dtype, portable);
        wk.y[i] = y[i];
        wk.pack[i] = T >= PACK_MIN_TOKENS && w[i]->dtype != DTYPE_F32;
        wk.cut[i] = pool_cut(out, rows);
        wk.first_task[i + 1] = wk.first_task[i] + pool_cut_tasks(&wk.cut[i]);
    }
    if (T > 1) {
        pool_run(wk.first_task[n], walk_task, &wk);
        return;
    }
    /* one token: ask ahead or not, as the trials say (kernels/ahead.h) */
    AheadCall call = ahead_begin(&trial);
    wk.ask = call.asks;
    pool_run(wk.first_task[n], walk_task, &wk);
    double bytes = 0;
    for (int i = 0; i < n; i++) bytes += (double)(w[i]->numel * dtype_size(w[i]->dtype));
    ahead_end(&trial, call, bytes);
}

void linear(const float *x, const Tensor *w, float *y) { walk(0, &w, 1, x, 1, &y); }

void linear_batch(const float *x, const Tensor *w, int64_t T, float *y) { walk(0, &w, 1, x, T, &y); }

void linear_batch_portable(const float *x, const Tensor *w, int64_t T, float *y) { walk(1, &w, 1, x, T, &y); }

void linear_stack(const float *x, const Tensor *const *w, int n, int64_t T, float *const *y) {
    walk(0, w, n, x, T, y);
}

const char *linear_kernel_name(void) { return LINEAR_AVX512 ? "AVX-512" : "portable C"; }

void dot_rows(const float *x, int C, const float *w, int64_t w_stride, int64_t rows, int64_t in, float *y,
              int64_t y_stride) {
    /* as walk does: tile j takes row j of each of `parts` parts, so that the rows are read
     * as that many streams at once, and, as the one-token tiles do, each stream asks for
     * the line READ_AHEAD bytes on where that is still in its part, on a machine where the
     * trials find asking faster (kernels/ahead.h; one token's attention over 2048
     * positions, keys and values of two heads: 19-25% faster on the Zen 5, measured as
     * for READ_AHEAD).
     *
     * A prompt's block of keys (a few dozen, in the cache for every token of the block)
     * goes in tiles of ROWS rows, whose 24 running sums keep the multiply-add units
     * busy. One token's keys come from memory, a head's rows one after another, and are
     * read fastest as KEY_STREAMS streams: measured on the Zen 5, both cores each reading
     * the keys of one head of 2048 positions (2 MB) as in a decoded token, asking ahead:
     * 6 streams 87–92 µs, 3 streams 69–74 µs (as fast as a plain sum over the same
     * bytes), 2 streams 71–76, 1 stream 73–77; without asking ahead 95–101 µs for 6
     * streams, 79–83 for 3. The tile's shape changes no number (linear()'s order). */
    const Tiles *k = tiles_for(DTYPE_F32, 0);
    const char *data = (const char *)w;
    int64_t step = w_stride * (int64_t)sizeof(float);
    bool from_memory = rows * step >= KEY_STREAM_MIN;
    int parts = from_memory ? KEY_STREAMS : ROWS;
    TileFn *tile = from_memory ? k->long_keys[C] : k->keys[C];
    int64_t part = rows / parts;
    bool ask = ahead_now(&trial);                  /* as one token's projections do (kernels/ahead.h) */
    int asks = from_memory ? AHEAD | ONCE : AHEAD; /* one token's keys are read once */
    for (int64_t j = 0; j < part; j++)
        tile(data + j * step, part * step, in, x, in, NULL,
             WHOLE_ROW | (ask && (part - j - 1) * step >= READ_AHEAD ? asks : 0), y + j, part, y_stride);
    for (int64_t r = parts * part; r < rows; r++)
        k->one[C](data + r * step, 0, in, x, in, NULL, WHOLE_ROW, y + r, 0, y_stride);
}
