/* kernels/attention.c — the fast twin of attention.c's attend_group: steps 4–6 of
 * the layer (scores, softmax, mix) for the G query heads of one token that read the
 * same KV head.
 *
 * Speed code. The formula and its plain loops are attend_group in qwen/attention.c;
 * ch06_attention/tests/test_attention.c holds this one to it (the same numbers up to
 * the order of float32 sums: 16 running sums per dot product here, and fused
 * multiply-adds, and e^x from exp_vec's polynomial).
 *
 *   scores  s[g][j] = q_g · k_j / sqrt(d) for j = 0 .. pos: the linear kernel's tiles
 *           (dot_rows), with the keys as the rows of a matrix and the G query heads as
 *           its tokens, so a key is read once for all G heads;
 *   softmax each row: softmax_vec (max, e^(s − max) 16 at a time, the sum in double);
 *   mix     o[g] = Σ_j p[g][j] v_j: a tile of 4 heads × 96 dims kept in 24 registers,
 *           the value vectors loaded once per j for all 4 heads; the positions a chunk
 *           of MIX_CHUNK at a time, every dim tile over one chunk before the next (the
 *           running sums wait in o), so that a chunk's values come from memory once
 *           and stay in the cache for the other dim tiles. A dim tile reads 384
 *           bytes of each 1 KB row, a pattern the core's own prefetcher follows too
 *           slowly (measured on a 2048-position head: 11 GB/s without asking, 19
 *           with), so the tiles ask: while a chunk's tiles run, they ask for the next
 *           chunk's rows, a few lines at every step, and the memory stays busy
 *           through all its dim tiles (3 for 256 dims), not only the first (the
 *           others read the chunk from the cache); the first chunk's first dim tile
 *           asks for its own rows PREFETCH positions ahead. With only that asking, 8
 *           rows ahead in every chunk, the memory idled while the other two tiles
 *           ran: both cores each taking one head of 2048 positions (keys, softmax,
 *           mix), as a decoded token does, took 155–157 µs with the cores on two chips
 *           and 195–199 µs on one; asking a chunk ahead, 136–148 and 187–194 (an AMD
 *           EPYC, Zen 5).
 *
 * A prompt's tokens come in blocks (attend_tokens_fast): the tokens of a block read
 * the same keys and values up to their own positions, so the scores take the keys
 * KEY_BLOCK rows at a time and every token of the block that reads them goes over
 * them while they are in the first-level cache, and the mix takes the values a chunk
 * at a time the same way. Done token by token, a 2048-token prompt read every key and
 * value row once per token that follows it, 2 MB a head at the end, from a cache
 * further out.
 *
 * Every sum runs over j = 0, 1, ..., pos in that order and over the dims in fixed
 * lanes, whatever else the call computes, so a token's output does not depend on how
 * many tokens the pass holds: decoding one token gives the bits of the full pass.
 */
#include "qwen/attention.h"

#include <string.h>

#include "qwen/activations.h"
#include "qwen/linear.h"

#if defined(__AVX512F__)
#define ATTN_AVX512 1
#include <immintrin.h>
#else
#define ATTN_AVX512 0
#endif

#define ALWAYS_INLINE __attribute__((always_inline))
#define QUERIES       4   /* query heads per tile, scores (dot_rows' C) and mix alike */
#define MIX_VECS      6   /* 16-dim vectors of values per mix tile: 4 × 6 sums + 6 values in registers */
#define MIX_CHUNK     128 /* positions per chunk of the mix: 128 values of a head, 128 KB at most */
#define PREFETCH      8   /* rows ahead the first chunk's first tile asks for (4 and 16 were slower) */
#define KEY_BLOCK     30  /* keys per block of the scores: 5 tiles of 6, 30 KB of 256-dim keys */

#if ATTN_AVX512

/* Lines a chunk of the mix asks for while its tiles run: at .. end − 1, per_step at a
 * time (per_step 0: none). */
typedef struct {
    const char *at, *end;
    int per_step;
} Asks;

/* o[r][0 .. 16·NV) (+)= Σ_{j < n} p[r][j] · V[j][0 .. 16·NV) for R ≤ 4 heads: p row r at
 * p + r·p_stride, value j at V + j·v_stride, output row r at o + r·o_stride; the
 * last vector takes only the lanes of `last` (a row that does not end on 16 dims).
 * The sums start from zero, or, with `more`, from what o holds (an earlier chunk's).
 * With `lines` > 0, row j + PREFETCH's first `lines` cache lines are asked for at step
 * j, while that row exists (j + PREFETCH < rows: the rows from V on); and at every step
 * the next ask->per_step lines of ask's stretch. */
static inline ALWAYS_INLINE void mix_tile(const float *p, int64_t p_stride, const float *V, int64_t v_stride,
                                          int n, int rows, int lines, __mmask16 last, float *o,
                                          int64_t o_stride, bool more, Asks *ask, int R, int NV) {
    __m512 acc[QUERIES][MIX_VECS];
#pragma GCC unroll 4
    for (int r = 0; r < R; r++)
#pragma GCC unroll 6
        for (int c = 0; c < NV; c++) {
            const float *at = o + r * o_stride + 16 * c;
            acc[r][c] = !more         ? _mm512_setzero_ps()
                        : c == NV - 1 ? _mm512_maskz_loadu_ps(last, at)
                                      : _mm512_loadu_ps(at);
        }
    for (int j = 0; j < n; j++) {
        const float *vj = V + (int64_t)j * v_stride;
        for (int l = 0; l < ask->per_step && ask->at < ask->end; l++, ask->at += 64)
            _mm_prefetch(ask->at, _MM_HINT_T0);
        if (j + PREFETCH < rows)
            for (int l = 0; l < lines; l++)
                _mm_prefetch((const char *)(vj + PREFETCH * v_stride) + 64 * l, _MM_HINT_T0);
        __m512 v[MIX_VECS];
#pragma GCC unroll 6
        for (int c = 0; c < NV; c++) {
            v[c] = c == NV - 1 ? _mm512_maskz_loadu_ps(last, vj + 16 * c) : _mm512_loadu_ps(vj + 16 * c);
            __asm__("" : "+v"(v[c])); /* in a register, not loaded again by each multiply-add */
        }
#pragma GCC unroll 4
        for (int r = 0; r < R; r++) {
            __m512 pr = _mm512_set1_ps(p[r * p_stride + j]);
#pragma GCC unroll 6
            for (int c = 0; c < NV; c++) acc[r][c] = _mm512_fmadd_ps(pr, v[c], acc[r][c]);
        }
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; r++)
#pragma GCC unroll 6
        for (int c = 0; c < NV; c++) {
            float *at = o + r * o_stride + 16 * c;
            if (c == NV - 1)
                _mm512_mask_storeu_ps(at, last, acc[r][c]);
            else
                _mm512_storeu_ps(at, acc[r][c]);
        }
}

/* mix_tile with R and NV as constants, so that its loops unroll into registers. */
#define MIX_CASE(R, NV)                                                                                      \
    case (R)*8 + (NV):                                                                                       \
        mix_tile(p, p_stride, V, v_stride, n, rows, lines, last, o, o_stride, more, ask, R, NV);             \
        break;
#define MIX_CASES(R) MIX_CASE(R, 1) MIX_CASE(R, 2) MIX_CASE(R, 3) MIX_CASE(R, 4) MIX_CASE(R, 5) MIX_CASE(R, 6)

static void mix_block(const float *p, int64_t p_stride, const float *V, int64_t v_stride, int n, int rows,
                      int lines, __mmask16 last, float *o, int64_t o_stride, bool more, Asks *ask, int R,
                      int NV) {
    switch (R * 8 + NV) {
        MIX_CASES(1)
        MIX_CASES(2)
        MIX_CASES(3)
        MIX_CASES(4)
    }
}

/* One chunk of the mix, positions j0 .. j0 + len − 1 of o[g] = Σ_j p[g][j] v_j for G
 * heads of d dims (the rows v_j d floats apart; `rows` of them from j0 on): tiles of up
 * to 4 heads × 96 dims, the sums of an earlier chunk taken on from o. ask_own: the first
 * dim tile asks for the chunk's rows ahead; ask_next: the tiles ask for the next
 * chunk's. */
static void mix_chunk(const float *p, int G, int64_t p_stride, const float *V, int j0, int len, int rows,
                      int d, float *o, bool ask_own, bool ask_next) {
    int64_t row_bytes = (int64_t)d * (int64_t)sizeof(float);
    int row_lines = (int)((row_bytes + 63) / 64);
    int next = rows - len < MIX_CHUNK ? rows - len : MIX_CHUNK; /* the next chunk's rows */
    Asks asks = {0};
    if (ask_next && next > 0) { /* spread over every step of the chunk's tiles */
        int tiles = (G + QUERIES - 1) / QUERIES * ((d + 16 * MIX_VECS - 1) / (16 * MIX_VECS));
        asks.at = (const char *)(V + (int64_t)(j0 + len) * d);
        asks.end = asks.at + next * row_bytes;
        asks.per_step = (int)((next * row_lines + (int64_t)tiles * len - 1) / ((int64_t)tiles * len));
    }
    for (int g = 0; g < G; g += QUERIES) {
        int R = G - g < QUERIES ? G - g : QUERIES;
        for (int i = 0; i < d; i += 16 * MIX_VECS) {
            int width = d - i < 16 * MIX_VECS ? d - i : 16 * MIX_VECS;
            int NV = (width + 15) / 16, tail = width - 16 * (NV - 1);
            __mmask16 last = (__mmask16)((1u << tail) - 1);
            mix_block(p + g * p_stride + j0, p_stride, V + (int64_t)j0 * d + i, d, len, rows,
                      ask_own && i == 0 ? row_lines : 0, last, o + (int64_t)g * d + i, d, j0 > 0, &asks, R,
                      NV);
        }
    }
}

#else /* portable: the readable loop's order, which the compiler vectorizes over the dims */

static void mix_chunk(const float *p, int G, int64_t p_stride, const float *V, int j0, int len, int rows,
                      int d, float *o, bool ask_own, bool ask_next) {
    (void)rows, (void)ask_own, (void)ask_next;
    if (j0 == 0) memset(o, 0, sizeof(float) * (size_t)G * (size_t)d);
    for (int j = j0; j < j0 + len; j++) {
        const float *restrict vj = V + (int64_t)j * d;
        for (int g = 0; g < G; g++) {
            const float pj = p[g * p_stride + j];
            float *restrict og = o + (int64_t)g * d;
#pragma omp simd
            for (int i = 0; i < d; i++) og[i] += pj * vj[i];
        }
    }
}

#endif /* ATTN_AVX512 */

/* How many positions token b of a block from position pos0 reads: 0 .. pos0 + b
 * (causal: none after its own). */
static inline int reads(int pos0, int b) { return pos0 + b + 1; }

void attend_tokens_fast(const float *q, int64_t q_stride, int B, int G, const float *K, const float *V,
                        int pos0, int d, float scale, float *restrict score, int P, float *restrict o,
                        int64_t o_stride) {
    int64_t per_token = (int64_t)G * P; /* token b's scores: score + b · per_token, [G, P] */
    int n_all = pos0 + B;               /* the last token reads positions 0 .. pos0 + B − 1 */
    /* 4. s[g][j] = q_g · k_j, a block of keys at a time for every token that reads it
     *    (token b reads n = pos0 + b + 1 positions), then / sqrt(d). One token reads
     *    each key once: its keys are one block, read as 6 long streams (dot_rows). */
    int key_block = B == 1 ? n_all : KEY_BLOCK;
    for (int j0 = 0; j0 < n_all; j0 += key_block)
        for (int b = 0; b < B; b++) {
            int n = reads(pos0, b);
            if (j0 >= n) continue;
            int len = n - j0 < key_block ? n - j0 : key_block;
            for (int g = 0; g < G; g += QUERIES) {
                int C = G - g < QUERIES ? G - g : QUERIES;
                dot_rows(q + b * q_stride + (int64_t)g * d, C, K + (int64_t)j0 * d, d, len, d,
                         score + b * per_token + (int64_t)g * P + j0, P);
            }
        }
    for (int b = 0; b < B; b++)
        for (int g = 0; g < G; g++) {
            int n = reads(pos0, b);
            float *sg = score + b * per_token + (int64_t)g * P;
#pragma omp simd
            for (int j = 0; j < n; j++) sg[j] *= scale;
            /* 5. p = softmax(s) in place */
            softmax_vec(sg, n);
        }
    /* 6. o = Σ_j p_j v_j, a chunk of values at a time for every token that reads it */
    for (int j0 = 0; j0 < n_all; j0 += MIX_CHUNK)
        for (int b = 0; b < B; b++) {
            int n = reads(pos0, b);
            if (j0 >= n) continue;
            int len = n - j0 < MIX_CHUNK ? n - j0 : MIX_CHUNK;
            /* the first token of the block to read this chunk asks for the next one's
             * rows, and for this one's unless it asked for them in the chunk before */
            bool first_reader = b == 0 || j0 >= reads(pos0, b - 1);
            bool asked = j0 > 0 && (b == 0 || j0 - MIX_CHUNK >= reads(pos0, b - 1));
            mix_chunk(score + b * per_token, G, P, V, j0, len, n - j0, d, o + b * o_stride,
                      first_reader && !asked, first_reader);
        }
}

void attend_group_fast(const float *q, int G, const float *K, const float *V, int pos, int d, float scale,
                       float *restrict score, int P, float *restrict o) {
    attend_tokens_fast(q, 0, 1, G, K, V, pos, d, scale, score, P, o, 0);
}
