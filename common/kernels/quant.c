/* kernels/quant.c — the fast paths of the 8-bit linear layer: q8_quantize_act() and
 * q8_linear(), and q8_pack(), which lays the weights out for them.
 *
 * Speed code. The formula and its plain loops are in qwen/quant.c; the tests
 * (ch04_mlp/tests/test_quant.c) hold every function here to them bit for bit.
 *
 * How the fast path is laid out
 * -----------------------------
 * W is packed in blocks of 16 rows (quant.h): for each group of 32 numbers, 8 steps of
 * 64 bytes, lane r of a step holding 4 numbers of row r. A "tile" is R blocks of W times
 * C tokens. It walks the groups in order; for each group it
 *
 *   1. starts one integer sum per (block, token) — 16 lanes, one per row — at
 *      −128 · Σ a (the weights are stored as q + 128: what the extra 128 adds, taken
 *      off in advance), then adds 8 steps of vpdpbusd: each adds, in every lane, the 4
 *      products of that lane's 4 weights with the token's 4 bytes at that step
 *      (broadcast to every lane). After the 8 steps lane r holds d_g of row r, exactly.
 *      With Q8_ACT16 the token has two planes of bytes, hi and lo: the sums of the hi
 *      plane are multiplied by 255, then the lo plane's 8 steps add on, and the lane
 *      holds Σ q · (255·hi + lo) = d_g, exactly again;
 *   2. folds it into the row's float sum: acc = fma((float)d_g, sw_g · sx_g, acc), the
 *      order quant.h prescribes.
 *
 * Each row stays in its own lane from start to end, so no sums are ever added across
 * lanes, and a row's result is the same whatever tile, token group or worker computes
 * it: bit for bit the reference's, for any T and any number of workers.
 *
 *   one token (decode):  the time is that of reading W. Tiles of 4 blocks × 1 token,
 *                        the 4 blocks taken from 4 distant parts of a task's share, so
 *                        that each part is read front to back as one long stream
 *                        (kernels/linear.c does the same with rows). The arithmetic
 *                        has 2 to 5 times more room than memory needs (from the cache,
 *                        one core runs through ~75 GB/s of integers with Q8_ACT8, ~65
 *                        with Q8_ACT16), so the speed is that of the core's prefetcher,
 *                        which follows a stream only while it goes forward: a group's
 *                        scales lie before its integers in W (quant.h) and are read
 *                        first. With the scales after the pair's integers, read after
 *                        each group, every stream stepped back by 8 lines once a group,
 *                        and one core read W at 22 GB/s where the bandwidth yardstick's
 *                        plain loop (workbook/machine.c) read the same bytes at 30; in
 *                        order, at 29.5–30.5. On some machines the prefetcher alone
 *                        runs four streams too slowly, so the tile may also ask for
 *                        the line DEC_AHEAD bytes ahead in each stream at every step
 *                        (a prefetch instruction; it changes no number, and asks only
 *                        for lines of W's own memory): measured on an AMD EPYC (Zen 5)
 *                        under KVM with the two cores on different chips, a token of
 *                        the whole 8-bit model took ~14.3 ms instead of ~16 (tokens
 *                        alternating in one process; 512 bytes ahead gained nothing,
 *                        1536 or 2048 less than 1024). On a Zen 4 EPYC not asking was
 *                        faster, so the tile asks only where the trials find asking
 *                        faster (kernels/ahead.h). It asks with the non-temporal hint,
 *                        as the BF16 one does, since it reads each line once: blocks
 *                        of 32 tokens taking turns with the plain hint, always asking,
 *                        a token 2.3% faster with the cores on one chip, the same on
 *                        two (bench/README).
 *   T tokens (prefill):  tiles of 3 blocks × 4 tokens: 12 integer sums per group step
 *                        for 3 weight loads and 4 broadcasts; 12 integer and 12 float
 *                        sums, 3 weight vectors and 3 of scales fill 30 of the 32
 *                        registers (every loop over them is unrolled, or they would
 *                        live in memory). The 3 blocks' weights (3 · 17 KB for in =
 *                        1024) stay in the core's cache while all the tokens pass by.
 * How the work is cut into tasks for the pool's workers: above q8_linear_parts_with below.
 *
 * AVX2 has no vpdpbusd: its vpmaddubsw multiplies unsigned by signed bytes too, but
 * adds pairs of products into 16 bits, which 255 · 127 · 2 would overflow. The AVX2
 * tile therefore takes |q| as the unsigned side and gives the token's byte the sign of
 * q (vpsignb), so each pair stays within 2 · 127 · 127; then vpmaddwd adds pairs into
 * 32 bits. Same integers, same float steps, same bits. The plain-C tile does the same
 * arithmetic in loops the compiler vectorises as it can.
 */
#include "qwen/quant.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "kernels/ahead.h"
#include "kernels/pool.h"

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && defined(__AVX512VNNI__) &&     \
    defined(__F16C__)
#define HAVE_AVX512 1
#else
#define HAVE_AVX512 0
#endif
#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#define HAVE_AVX2 1
#else
#define HAVE_AVX2 0
#endif
#if HAVE_AVX512 || HAVE_AVX2
#include <immintrin.h>
#endif

#define STEPS         (Q8_GROUP / 4)                  /* vector steps per group: 4 numbers per lane */
#define STEP_BYTES    (Q8_BLOCK_ROWS * 4)             /* one step of one block: 16 rows × 4 numbers */
#define GROUP_BYTES   (STEPS * STEP_BYTES)            /* one group of one block: 512 bytes */
#define SCALE_BYTES   (2 * Q8_BLOCK_ROWS * 2)         /* a pair's 32 fp16 scales: one line */
#define PAIR_BYTES    (SCALE_BYTES + 2 * GROUP_BYTES) /* two groups and their scales: 1088 */
#define DEC_BLOCKS    4                               /* blocks per tile, one token */
#define DEC_AHEAD     1024                            /* bytes ahead a decode tile asks for, per stream */
#define PRE_BLOCKS    3                               /* blocks per tile, several tokens */
#define PRE_TOKENS    4                               /* tokens per tile */
#define MAX_BLOCKS    (PRE_BLOCKS > DEC_BLOCKS ? PRE_BLOCKS : DEC_BLOCKS)
#define ALWAYS_INLINE __attribute__((always_inline))
_Static_assert(PAIR_BYTES == 1088, "q8_block_bytes() in quant.h counts 1088 bytes a pair");

/* Group g of a block (the block's bytes start at `block`): its 16 scales, which open
 * its pair of groups (the pair's first 64 bytes), and its 512 bytes of integers. */
static inline const uint16_t *group_s(const uint8_t *block, int64_t g) {
    return (const uint16_t *)(block + (g >> 1) * PAIR_BYTES) + (g & 1) * Q8_BLOCK_ROWS;
}
static inline const uint8_t *group_q(const uint8_t *block, int64_t g) {
    return block + (g >> 1) * PAIR_BYTES + SCALE_BYTES + (g & 1) * GROUP_BYTES;
}

const Q8Kernel q8_best_kernel = HAVE_AVX512 ? Q8_AVX512 : HAVE_AVX2 ? Q8_AVX2 : Q8_PORTABLE;

bool q8_kernel_built(Q8Kernel k) {
    return k == Q8_PORTABLE || (k == Q8_AVX2 && HAVE_AVX2) || (k == Q8_AVX512 && HAVE_AVX512);
}

const char *q8_kernel_name(Q8Kernel k) {
    return k == Q8_AVX512 ? "AVX-512 VNNI" : k == Q8_AVX2 ? "AVX2" : "portable C";
}

/* ------------------------------------------------------------------------------------
 * Packing (once, when the model is loaded)
 * ------------------------------------------------------------------------------------ */

/* Asks Linux for 2 MB pages under [p, p + bytes): reading W then needs 512 times fewer
 * page-table entries, which the memory stream feels (a few percent on the big shapes).
 * Only a hint: the pages come when the memory is first written, if the system has
 * them, and nothing changes where it has not. */
static void advise_huge_pages(void *p, size_t bytes) {
#ifdef MADV_HUGEPAGE
    uintptr_t huge = (uintptr_t)2 << 20, first = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t last = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (last > first) madvise((void *)first, last - first, MADV_HUGEPAGE);
#else
    (void)p, (void)bytes;
#endif
}

/* The sizes of a stack of n matrices [outs[p], in] packed, data aside: the one place
 * they are computed. Each part starts on a block of its own. */
static Q8Weights packed_shape(const int64_t *outs, int n, int64_t in) {
    Q8Weights p = {.in = in, .groups = q8_groups(in), .parts = n};
    for (int i = 0; i < n; i++) {
        p.out += outs[i];
        p.part_out[i] = outs[i];
        p.part_block[i + 1] = p.part_block[i] + (outs[i] + Q8_BLOCK_ROWS - 1) / Q8_BLOCK_ROWS;
    }
    p.blocks = p.part_block[n];
    return p;
}

uint64_t q8_stack_bytes(const int64_t *outs, int n, int64_t in) {
    if (n < 1 || n > Q8_MAX_PARTS || in < 0) return UINT64_MAX;
    for (int i = 0; i < n; i++)
        if (outs[i] < 0 || outs[i] > INT64_MAX / 4) return UINT64_MAX;
    Q8Weights p = packed_shape(outs, n, in);
    return size_mul((uint64_t)p.blocks, (uint64_t)(p.groups + 1) / 2 * PAIR_BYTES);
}

uint64_t q8_packed_bytes(int64_t out, int64_t in) { return q8_stack_bytes(&out, 1, in); }

Q8Weights q8_packed_shape(int64_t out, int64_t in) { return packed_shape(&out, 1, in); }

static void packed_alloc(Q8Weights *p, const int64_t *outs, int n, int64_t in) {
    *p = packed_shape(outs, n, in);
    uint64_t bytes = q8_stack_bytes(outs, n, in);
    if (bytes > SIZE_MAX)
        die("q8_pack: %lld rows of %lld are too many to pack", (long long)p->out, (long long)in);
    /* DEC_AHEAD bytes more: a decode tile asks for lines up to that far past its last
     * block, and every address it asks for lies inside W's memory */
    p->data = xaligned_alloc((size_t)bytes + DEC_AHEAD);
    advise_huge_pages(p->data, bytes);
    memset(p->data, 0, bytes + DEC_AHEAD); /* the unused half of an odd last pair stays zero */
}

/* The row in lane `slot` % 16 of block `slot` / 16 (q: [in], scale: [groups]; NULL for a
 * padding row) into its lanes. */
static void pack_row(Q8Weights *p, int64_t slot, const int8_t *q, const uint16_t *scale) {
    int64_t b = slot / Q8_BLOCK_ROWS, r = slot % Q8_BLOCK_ROWS;
    for (int64_t g = 0; g < p->groups; g++) {
        uint8_t *block = p->data + b * q8_block_bytes(p);
        uint8_t *unit = (uint8_t *)group_q(block, g);
        for (int i = 0; i < Q8_GROUP; i++) {
            int64_t k = g * Q8_GROUP + i;
            int v = q && k < p->in ? q[k] : 0;
            unit[(i / 4) * STEP_BYTES + r * 4 + i % 4] = (uint8_t)(v + 128);
        }
        ((uint16_t *)group_s(block, g))[r] = scale ? scale[g] : 0;
    }
}

/* Which part of a stack block b belongs to. */
static int part_of(const Q8Weights *p, int64_t b) {
    int i = 0;
    while (b >= p->part_block[i + 1]) i++;
    return i;
}

/* Packing is cut into tasks of one block (16 rows) each. */
typedef struct {
    Q8Weights *p;
    const int8_t *q;        /* q8_pack_quantized: [out, in] */
    const uint16_t *scale;  /* [out, groups] */
    const Tensor *const *w; /* q8_pack_stack: the matrices themselves */
    int64_t *bad; /* q8_pack_stack: [blocks], the block's first row that cannot be stored, or −1 */
} Pack;

static void pack_quantized_task(void *ctx, int64_t b, int worker) {
    (void)worker;
    const Pack *pk = ctx;
    Q8Weights *p = pk->p;
    for (int64_t row = b * Q8_BLOCK_ROWS; row < (b + 1) * Q8_BLOCK_ROWS; row++)
        if (row < p->out)
            pack_row(p, row, pk->q + row * p->in, pk->scale + row * p->groups);
        else
            pack_row(p, row, NULL, NULL);
}

void q8_pack_quantized(const int8_t *q, const uint16_t *scale, int64_t out, int64_t in, Q8Weights *p) {
    packed_alloc(p, &out, 1, in);
    Pack pk = {.p = p, .q = q, .scale = scale};
    pool_run(p->blocks, pack_quantized_task, &pk);
}

#if HAVE_AVX512
/* A row of W (f: [in], widened) quantized and put in its lanes (slot as in pack_row): q8_quantize_row and
 * pack_row in one pass, 16 numbers at a time, with the same max, the same scale
 * (q8_weight_scale_of_max), the same division and the same rounding to nearest even,
 * so the same bytes (the tests compare q8_pack with them). Packing the 0.8B model's
 * 800 M weights this way takes a fraction of a second instead of seconds. False, and
 * the row left as it is, when it holds a number q8_quantize_row refuses. */
static bool quantize_row_avx512(Q8Weights *p, int64_t slot, const float *f) {
    int64_t b = slot / Q8_BLOCK_ROWS, r = slot % Q8_BLOCK_ROWS, in = p->in;
    uint8_t *block = p->data + b * q8_block_bytes(p);
    const __m512 limit = _mm512_set1_ps(Q8_MAX_ABS);
    __mmask16 ok = 0xFFFF; /* lanes whose numbers were all finite and at most Q8_MAX_ABS */
    for (int64_t g = 0; g < p->groups; g++) {
        int64_t left = in - g * Q8_GROUP;
        __mmask16 m0 = left >= 16 ? 0xFFFF : (__mmask16)((1u << left) - 1);
        __mmask16 m1 = left >= 32 ? 0xFFFF : left <= 16 ? 0 : (__mmask16)((1u << (left - 16)) - 1);
        __m512 v0 = _mm512_maskz_loadu_ps(m0, f + g * Q8_GROUP),
               v1 = _mm512_maskz_loadu_ps(m1, f + g * Q8_GROUP + 16);
        __m512 a0 = _mm512_abs_ps(v0), a1 = _mm512_abs_ps(v1);
        /* NaN compares false: a NaN, an infinity or a number above the limit clears its lane */
        ok &= _mm512_cmp_ps_mask(a0, limit, _CMP_LE_OQ) & _mm512_cmp_ps_mask(a1, limit, _CMP_LE_OQ);
        if (ok != 0xFFFF) return false;
        uint16_t scale = q8_weight_scale_of_max(_mm512_reduce_max_ps(_mm512_max_ps(a0, a1)));
        __m512 s = _mm512_set1_ps(f16_to_f32(scale));
        __m512i q0 = _mm512_setzero_si512(), q1 = _mm512_setzero_si512();
        if (scale != 0) { /* a group of zeros stays zeros (q8_quantize_row's round_q) */
            q0 = _mm512_cvtps_epi32(
                _mm512_roundscale_ps(_mm512_div_ps(v0, s), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
            q1 = _mm512_cvtps_epi32(
                _mm512_roundscale_ps(_mm512_div_ps(v1, s), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        }
        const __m512i plus = _mm512_set1_epi32(128); /* stored as q + 128; padding (q = 0) becomes 128 */
        uint8_t bytes[Q8_GROUP];
        _mm_storeu_si128((__m128i *)bytes, _mm512_cvtepi32_epi8(_mm512_add_epi32(q0, plus)));
        _mm_storeu_si128((__m128i *)(bytes + 16), _mm512_cvtepi32_epi8(_mm512_add_epi32(q1, plus)));
        uint8_t *unit = (uint8_t *)group_q(block, g);
        for (int st = 0; st < STEPS; st++)
            memcpy(unit + st * STEP_BYTES + r * 4, bytes + st * 4, 4); /* lane r */
        ((uint16_t *)group_s(block, g))[r] = scale;
    }
    return true;
}
#endif

static void pack_task(void *ctx, int64_t b, int worker) {
    (void)worker;
    const Pack *pk = ctx;
    Q8Weights *p = pk->p;
    int64_t in = p->in;
    float *f = xmalloc((size_t)in * sizeof *f); /* one row at a time (packing happens once, at load) */
    int8_t *q = xmalloc((size_t)in);
    uint16_t *s = xmalloc((size_t)p->groups * sizeof *s);
    pk->bad[b] = -1;
    int part = part_of(p, b);
    for (int64_t slot = b * Q8_BLOCK_ROWS; slot < (b + 1) * Q8_BLOCK_ROWS; slot++) {
        int64_t row = slot - p->part_block[part] * Q8_BLOCK_ROWS; /* the row of its matrix */
        if (row >= p->part_out[part]) {
            pack_row(p, slot, NULL, NULL);
            continue;
        }
        tensor_read_f32(pk->w[part], row * in, in, f);
#if HAVE_AVX512
        bool ok = quantize_row_avx512(p, slot, f);
#else
        bool ok = q8_quantize_row(f, in, q, s);
        if (ok) pack_row(p, slot, q, s);
#endif
        if (!ok && pk->bad[b] < 0) pk->bad[b] = row;
    }
    free(f), free(q), free(s);
}

bool q8_pack_stack(const Tensor *const *w, int n, Q8Weights *p, Error *err) {
    if (n < 1 || n > Q8_MAX_PARTS)
        return error_set(err, "q8_pack_stack: %d matrices, not 1 .. %d", n, Q8_MAX_PARTS);
    int64_t outs[Q8_MAX_PARTS];
    for (int i = 0; i < n; i++) {
        if (w[i]->ndim != 2 || w[i]->shape[1] != w[0]->shape[1])
            return error_set(err, "%s: %s cannot be stacked with %s (not [rows, %lld])",
                             w[i]->file ? w[i]->file : "weights", w[i]->name, w[0]->name,
                             (long long)w[0]->shape[1]);
        outs[i] = w[i]->shape[0];
    }
    packed_alloc(p, outs, n, w[0]->shape[1]);
    int64_t *bad = xmalloc((size_t)p->blocks * sizeof *bad);
    Pack pk = {.p = p, .w = w, .bad = bad};
    pool_run(p->blocks, pack_task, &pk);
    int64_t bad_block = -1; /* the first row that cannot be quantized, whichever worker saw it */
    for (int64_t b = 0; b < p->blocks && bad_block < 0; b++)
        if (bad[b] >= 0) bad_block = b;
    int64_t bad_row = bad_block >= 0 ? bad[bad_block] : -1;
    free(bad);
    if (bad_block >= 0) {
        const Tensor *t = w[part_of(p, bad_block)];
        q8_free(p);
        return error_set(err,
                         "%s: %s row %lld holds a NaN, an infinity or a number above %g: "
                         "cannot be stored as 8-bit groups",
                         t->file ? t->file : "weights", t->name, (long long)bad_row, (double)Q8_MAX_ABS);
    }
    return true;
}

bool q8_pack(const Tensor *w, Q8Weights *p, Error *err) { return q8_pack_stack(&w, 1, p, err); }

void q8_free(Q8Weights *p) {
    free(p->data);
    p->data = NULL;
}

void q8_packed_row(const Q8Weights *p, int64_t o, float *row) {
    int part = 0; /* row o of the stack: row o − (the rows before) of its part */
    while (o >= p->part_out[part]) o -= p->part_out[part++];
    int64_t b = p->part_block[part] + o / Q8_BLOCK_ROWS, r = o % Q8_BLOCK_ROWS;
    for (int64_t g = 0; g < p->groups; g++) {
        const uint8_t *block = p->data + b * q8_block_bytes(p);
        const uint8_t *unit = group_q(block, g);
        float s = f16_to_f32(group_s(block, g)[r]);
        for (int i = 0; i < Q8_GROUP && g * Q8_GROUP + i < p->in; i++)
            row[g * Q8_GROUP + i] = s * (float)((int)unit[(i / 4) * STEP_BYTES + r * 4 + i % 4] - 128);
    }
}

/* ------------------------------------------------------------------------------------
 * Activations
 * ------------------------------------------------------------------------------------ */

/* The three arrays of a Q8Act for max_tokens tokens of max_in numbers: [0] the bytes,
 * [1] the scales, [2] the corrections (saturating): the one place their sizes are
 * computed. */
static void act_sizes(int64_t max_tokens, int64_t max_in, Q8ActRange range, uint64_t bytes[3]) {
    uint64_t planes = range == Q8_ACT8 ? 1 : 2,
             cells = size_mul((uint64_t)max_tokens, (uint64_t)q8_groups(max_in));
    bytes[0] = size_mul(size_mul(cells, planes), Q8_GROUP);        /* [T][planes][groups · 32] int8 */
    bytes[1] = size_mul(cells, sizeof(float));                     /* [T][groups] */
    bytes[2] = size_mul(size_mul(cells, planes), sizeof(int32_t)); /* [T][planes][groups] */
}

uint64_t q8_act_bytes(int64_t max_tokens, int64_t max_in, Q8ActRange range) {
    uint64_t b[3];
    act_sizes(max_tokens, max_in, range, b);
    return size_add(size_add(b[0], b[1]), b[2]);
}

void q8_act_init(Q8Act *a, int64_t max_tokens, int64_t max_in, Q8ActRange range) {
    a->range = range, a->planes = range == Q8_ACT8 ? 1 : 2;
    a->max_tokens = max_tokens, a->max_in = max_in;
    a->T = 0, a->in = 0, a->groups = 0;
    uint64_t b[3];
    act_sizes(max_tokens, max_in, range, b);
    if (size_add(size_add(b[0], b[1]), b[2]) > SIZE_MAX)
        die("q8_act_init: %lld tokens of %lld numbers are too many", (long long)max_tokens,
            (long long)max_in);
    a->q = xaligned_alloc((size_t)b[0]);
    a->scale = xaligned_alloc((size_t)b[1]);
    a->correction = xaligned_alloc((size_t)b[2]);
}

void q8_act_free(Q8Act *a) {
    free(a->q), free(a->scale), free(a->correction);
    a->q = NULL, a->scale = NULL, a->correction = NULL;
}

/* a = 255·hi + lo with hi the integer nearest a / 255 (never a tie: a / 255 is never
 * k + 1/2) and so |lo| ≤ 127; for |a| ≤ 32385, |hi| ≤ 127. */
static inline int hi_of(int a) { return a + 127 >= 0 ? (a + 127) / 255 : -((254 - (a + 127)) / 255); }

/* Token t's group g, its integers given (a: [len]): into the planes, with the padding
 * and the corrections. */
static void act_store(Q8Act *a, int64_t t, int64_t g, const int32_t *v, int len) {
    int64_t G = a->groups;
    int8_t *plane0 = a->q + (t * a->planes * G + g) * Q8_GROUP;
    int32_t sum[2] = {0, 0};
    for (int i = 0; i < Q8_GROUP; i++) {
        int x = i < len ? v[i] : 0;
        int hi = a->planes == 1 ? x : hi_of(x), lo = x - 255 * hi;
        plane0[i] = (int8_t)hi, sum[0] += hi;
        if (a->planes == 2) plane0[G * Q8_GROUP + i] = (int8_t)lo, sum[1] += lo;
    }
    for (int p = 0; p < a->planes; p++) a->correction[(t * a->planes + p) * G + g] = -128 * sum[p];
}

/* One token, plain C: the reference's q8_quantize_act_row, one group at a time. */
static void act_token_portable(Q8Act *a, const float *x, int64_t t) {
    for (int64_t g = 0; g < a->groups; g++) {
        int len = a->in - g * Q8_GROUP < Q8_GROUP ? (int)(a->in - g * Q8_GROUP) : Q8_GROUP;
        int16_t v[Q8_GROUP];
        int32_t v32[Q8_GROUP];
        q8_quantize_act_row(x + g * Q8_GROUP, len, a->range, v, a->scale + t * a->groups + g);
        for (int i = 0; i < len; i++) v32[i] = v[i];
        act_store(a, t, g, v32, len);
    }
}

#if HAVE_AVX512
/* One token with AVX-512: the same max, the same division and the same rounding to
 * nearest even, 16 numbers at a time, so the same bits; then the planes as above.
 *
 * stream: write around the cache (non-temporal stores), for a decode step's input.
 * Every core reads it in the projection that follows, so the other cores read these
 * same lines at the step before; a plain store must first take each line back from the
 * core that holds it, and waits for one line after another. When the two cores of a
 * 2-core machine sit on different chips of the processor, that took ~5 µs for a vector
 * of 1024 numbers, six times the arithmetic, ~0.5 ms of a 17 ms token in all; written
 * around the cache, 0.15 ms (measured within one process, tokens alternating). Where
 * the cores share a cache it costs nothing either way. The caller fences (_mm_sfence)
 * before the readers start. */
static void act_token_avx512(Q8Act *a, const float *x, int64_t t, bool stream) {
    int64_t G = a->groups;
    int8_t *plane0 = a->q + t * a->planes * G * Q8_GROUP;
    for (int64_t g = 0; g < G; g++) {
        int64_t left = a->in - g * Q8_GROUP; /* numbers of this group: 32, or fewer at the end */
        __mmask16 m0 = left >= 16 ? 0xFFFF : (__mmask16)((1u << left) - 1);
        __mmask16 m1 = left >= 32 ? 0xFFFF : left <= 16 ? 0 : (__mmask16)((1u << (left - 16)) - 1);
        __m512 v0 = _mm512_maskz_loadu_ps(m0, x + g * Q8_GROUP);
        __m512 v1 = _mm512_maskz_loadu_ps(m1, x + g * Q8_GROUP + 16);
        /* 0x99: quiet NaN, signalling NaN, +inf, −inf */
        bool finite = (_mm512_fpclass_ps_mask(v0, 0x99) | _mm512_fpclass_ps_mask(v1, 0x99)) == 0;
        float max = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(v0), _mm512_abs_ps(v1)));
        float s = NAN;
        if (finite) {
            s = max / (float)a->range;
            if ((double)max > ((double)a->range + 0.5) * (double)s) s = nextafterf(s, INFINITY);
        }
        if (stream)
            _mm_stream_si32((int *)&a->scale[t * G + g], _mm_cvtsi128_si32(_mm_castps_si128(_mm_set_ss(s))));
        else
            a->scale[t * G + g] = s;
        __m512i q[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()}; /* a, 16 + 16 numbers */
        if (finite && s != 0.0f) {
            __m512 sv = _mm512_set1_ps(s);
            q[0] = _mm512_cvt_roundps_epi32(_mm512_div_ps(v0, sv),
                                            _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            q[1] = _mm512_cvt_roundps_epi32(_mm512_div_ps(v1, sv),
                                            _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        }
        __m512i hi[2] = {q[0], q[1]}, lo[2];
        if (a->planes == 2)
            for (int h = 0; h < 2; h++) {
                /* hi: a / 255 to the nearest integer, in float32 (a is exact there, and
                 * a / 255 is at least 1/510 away from a tie); lo: what is left */
                __m512 f = _mm512_div_ps(_mm512_cvtepi32_ps(q[h]), _mm512_set1_ps(255.0f));
                hi[h] = _mm512_cvt_roundps_epi32(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
                lo[h] = _mm512_sub_epi32(q[h], _mm512_mullo_epi32(hi[h], _mm512_set1_epi32(255)));
            }
        for (int p = 0; p < a->planes; p++) {
            __m512i *v = p == 0 ? hi : lo;
            __m128i *dst = (__m128i *)(plane0 + (p * G + g) * Q8_GROUP); /* 16-byte aligned */
            int32_t *correction = &a->correction[(t * a->planes + p) * G + g];
            int32_t c = -128 * _mm512_reduce_add_epi32(_mm512_add_epi32(v[0], v[1]));
            if (stream) {
                _mm_stream_si128(dst, _mm512_cvtepi32_epi8(v[0]));
                _mm_stream_si128(dst + 1, _mm512_cvtepi32_epi8(v[1]));
                _mm_stream_si32(correction, c);
            } else {
                _mm_store_si128(dst, _mm512_cvtepi32_epi8(v[0]));
                _mm_store_si128(dst + 1, _mm512_cvtepi32_epi8(v[1]));
                *correction = c;
            }
        }
    }
}
#endif

typedef struct {
    Q8Act *a;
    const float *x;
    Q8Kernel k;
} Quantize;

#define ACT_TOKENS 8 /* tokens per task of q8_quantize_act */

static void quantize_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const Quantize *qz = ctx;
    Q8Act *a = qz->a;
    for (int64_t t = task * ACT_TOKENS; t < (task + 1) * ACT_TOKENS && t < a->T; t++) {
#if HAVE_AVX512
        if (qz->k == Q8_AVX512) {
            act_token_avx512(a, qz->x + t * a->in, t, a->T == 1);
            continue;
        }
#endif
        act_token_portable(a, qz->x + t * a->in, t);
    }
}

void q8_quantize_act_with(const float *x, int64_t T, int64_t in, Q8Act *a, Q8Kernel k) {
    if (T > a->max_tokens || in > a->max_in)
        die("q8_quantize_act: %lld tokens of %lld numbers, room for %lld of %lld", (long long)T,
            (long long)in, (long long)a->max_tokens, (long long)a->max_in);
    a->T = T, a->in = in, a->groups = q8_groups(in);
    Quantize qz = {a, x, k};
    /* a token takes about a microsecond: one task for a few tokens, tasks of 8 for many */
    int64_t tasks = (T + ACT_TOKENS - 1) / ACT_TOKENS;
    if (tasks == 1)
        quantize_task(&qz, 0, 0);
    else
        pool_run(tasks, quantize_task, &qz);
#if HAVE_AVX512
    if (T == 1 && k == Q8_AVX512) _mm_sfence(); /* the streamed stores, before the readers' job */
#endif
}

void q8_quantize_act(const float *x, int64_t T, int64_t in, Q8Act *a) {
    q8_quantize_act_with(x, T, in, a, q8_best_kernel);
}

/* ------------------------------------------------------------------------------------
 * The tiles. A tile's R blocks are b0, b0 + bstep, ...; its C tokens t0 .. t0 + C − 1;
 * its outputs for token t go to y[t·out + b·16 + lane], the lanes of `mask` only (the
 * last block of W may be short). P is the activations' planes: 1 (Q8_ACT8) or 2
 * (Q8_ACT16: the group's sums of the hi bytes, times 255, then plus the lo bytes').
 * Token t's plane p of group g: a->q + ((t·P + p)·groups + g)·32.
 * ------------------------------------------------------------------------------------ */

typedef struct {
    const Q8Weights *w;
    const Q8Act *a;
    float *const *y; /* [w->parts]: each part's outputs */
    bool ask;        /* one token: the tiles ask ahead (kernels/ahead.h) */
} Job;

/* Where block b's outputs for token t go (the first of its 16 lanes), and in *mask
 * which lanes are rows: the last block of a part may be short. */
static inline float *block_out(const Job *j, int64_t b, int64_t t, uint32_t *mask) {
    const Q8Weights *w = j->w;
    int p = part_of(w, b);
    int64_t row = (b - w->part_block[p]) * Q8_BLOCK_ROWS, left = w->part_out[p] - row;
    *mask = left >= Q8_BLOCK_ROWS ? 0xFFFF : (1u << left) - 1;
    return j->y[p] + t * w->part_out[p] + row;
}

static inline int32_t load_i32(const int8_t *p) {
    int32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

#if HAVE_AVX512
/* One token: asks for the lines DEC_AHEAD bytes ahead of step s of group g in each of
 * the R streams, where the trials say so (see "one token" at the top). */
static inline ALWAYS_INLINE void ask_ahead(const Job *j, const uint8_t *const *wb, int R, int64_t g, int s) {
    if (!j->ask) return;
#pragma GCC unroll 8
    for (int r = 0; r < R; r++)
        _mm_prefetch((const char *)group_q(wb[r], g) + s * STEP_BYTES + DEC_AHEAD, _MM_HINT_NTA);
}

static inline ALWAYS_INLINE void tile_avx512(const Job *j, int64_t b0, int64_t bstep, int64_t t0, int R,
                                             int C, int P) {
    int64_t groups = j->w->groups;
    const uint8_t *wb[MAX_BLOCKS]; /* the tile's blocks */
#pragma GCC unroll 8
    for (int r = 0; r < R; r++) wb[r] = j->w->data + (b0 + r * bstep) * q8_block_bytes(j->w);
    const int8_t *xq = j->a->q + t0 * P * groups * Q8_GROUP;
    const float *xs = j->a->scale + t0 * groups;
    const int32_t *xc = j->a->correction + t0 * P * groups;
    __m512 acc[MAX_BLOCKS][PRE_TOKENS]; /* float sums: one row per lane */
#pragma GCC unroll 8
    for (int r = 0; r < R; r++)
#pragma GCC unroll 4
        for (int c = 0; c < C; c++) acc[r][c] = _mm512_setzero_ps();
    for (int64_t g = 0; g < groups; g++) {
        __m512i d[MAX_BLOCKS][PRE_TOKENS]; /* this group's integer sums */
        __m512 sw[MAX_BLOCKS];             /* its scales, read first: they come first in W */
#pragma GCC unroll 8
        for (int r = 0; r < R; r++)
            sw[r] = _mm512_cvtph_ps(_mm256_load_si256((const __m256i *)group_s(wb[r], g)));
        if (C == 1 && P == 2) {
            /* One token, two planes: the hi and lo sums side by side, from the same weight
             * loads, as two chains of 8 instead of one of 17 (decode has the registers, and
             * a shorter chain lets the core run further ahead of memory). */
            const int8_t *xh = xq + g * Q8_GROUP, *xl = xq + (groups + g) * Q8_GROUP;
            __m512i hi[MAX_BLOCKS], lo[MAX_BLOCKS];
#pragma GCC unroll 8
            for (int r = 0; r < R; r++)
                hi[r] = _mm512_set1_epi32(xc[g]), lo[r] = _mm512_set1_epi32(xc[groups + g]);
#pragma GCC unroll 8
            for (int s = 0; s < STEPS; s++) {
                ask_ahead(j, wb, R, g, s);
                __m512i vh = _mm512_set1_epi32(load_i32(xh + s * 4)),
                        vl = _mm512_set1_epi32(load_i32(xl + s * 4));
#pragma GCC unroll 8
                for (int r = 0; r < R; r++) {
                    __m512i wv = _mm512_load_si512(group_q(wb[r], g) + s * STEP_BYTES);
                    hi[r] = _mm512_dpbusd_epi32(hi[r], wv, vh);
                    lo[r] = _mm512_dpbusd_epi32(lo[r], wv, vl);
                }
            }
#pragma GCC unroll 8
            for (int r = 0; r < R; r++)
                d[r][0] = _mm512_add_epi32(_mm512_mullo_epi32(hi[r], _mm512_set1_epi32(255)), lo[r]);
        } else
#pragma GCC unroll 2
            for (int p = 0; p < P; p++) {
#pragma GCC unroll 4
                for (int c = 0; c < C; c++) {
                    __m512i start = _mm512_set1_epi32(xc[(c * P + p) * groups + g]);
#pragma GCC unroll 8
                    for (int r = 0; r < R; r++)
                        d[r][c] = p == 0 ? start
                                         : _mm512_add_epi32(
                                               _mm512_mullo_epi32(d[r][c], _mm512_set1_epi32(255)), start);
                }
#pragma GCC unroll 8
                for (int s = 0; s < STEPS; s++) {
                    if (C == 1) ask_ahead(j, wb, R, g, s);
                    __m512i wv[MAX_BLOCKS];
#pragma GCC unroll 8
                    for (int r = 0; r < R; r++) wv[r] = _mm512_load_si512(group_q(wb[r], g) + s * STEP_BYTES);
#pragma GCC unroll 4
                    for (int c = 0; c < C; c++) {
                        const int8_t *xg = xq + ((c * P + p) * groups + g) * Q8_GROUP;
                        __m512i xv = _mm512_set1_epi32(load_i32(xg + s * 4));
#pragma GCC unroll 8
                        for (int r = 0; r < R; r++) d[r][c] = _mm512_dpbusd_epi32(d[r][c], wv[r], xv);
                    }
                }
            }
#pragma GCC unroll 8
        for (int r = 0; r < R; r++) {
#pragma GCC unroll 4
            for (int c = 0; c < C; c++) {
                __m512 s = _mm512_mul_ps(sw[r], _mm512_set1_ps(xs[c * groups + g]));
                acc[r][c] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(d[r][c]), s, acc[r][c]);
            }
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; r++)
#pragma GCC unroll 4
        for (int c = 0; c < C; c++) {
            uint32_t mask;
            float *y = block_out(j, b0 + r * bstep, t0 + c, &mask);
            _mm512_mask_storeu_ps(y, (__mmask16)mask, acc[r][c]);
        }
}
#endif

#if HAVE_AVX2
/* One block (two halves of 8 rows) × C tokens. */
static inline ALWAYS_INLINE void tile_avx2(const Job *j, int64_t b0, int64_t bstep, int64_t t0, int R, int C,
                                           int P) {
    (void)bstep;
    (void)R; /* always one block */
    int64_t groups = j->w->groups;
    const uint8_t *wb = j->w->data + b0 * q8_block_bytes(j->w);
    const int8_t *xq = j->a->q + t0 * P * groups * Q8_GROUP;
    const float *xs = j->a->scale + t0 * groups;
    const __m256i flip = _mm256_set1_epi8((char)0x80), ones = _mm256_set1_epi16(1);
    __m256 acc[2][PRE_TOKENS];
    for (int h = 0; h < 2; h++)
        for (int c = 0; c < C; c++) acc[h][c] = _mm256_setzero_ps();
    for (int64_t g = 0; g < groups; g++) {
        __m256 sw[2]; /* the group's scales, read first: they come first in W */
        for (int h = 0; h < 2; h++)
            sw[h] = _mm256_cvtph_ps(_mm_load_si128((const __m128i *)(group_s(wb, g) + h * 8)));
        __m256i d[2][PRE_TOKENS];
        for (int h = 0; h < 2; h++)
            for (int c = 0; c < C; c++) d[h][c] = _mm256_setzero_si256();
        for (int p = 0; p < P; p++) {
            if (p == 1) /* the hi bytes' sums become 255 times themselves, then the lo bytes add on */
                for (int h = 0; h < 2; h++)
                    for (int c = 0; c < C; c++) d[h][c] = _mm256_mullo_epi32(d[h][c], _mm256_set1_epi32(255));
            for (int s = 0; s < STEPS; s++)
                for (int h = 0; h < 2; h++) {
                    __m256i q = _mm256_xor_si256(
                        _mm256_load_si256((const __m256i *)(group_q(wb, g) + s * STEP_BYTES + h * 32)), flip);
                    __m256i aq = _mm256_abs_epi8(q);
                    for (int c = 0; c < C; c++) {
                        const int8_t *xg = xq + ((c * P + p) * groups + g) * Q8_GROUP;
                        __m256i xv = _mm256_set1_epi32(load_i32(xg + s * 4));
                        __m256i pr = _mm256_maddubs_epi16(aq, _mm256_sign_epi8(xv, q));
                        d[h][c] = _mm256_add_epi32(d[h][c], _mm256_madd_epi16(pr, ones));
                    }
                }
        }
        for (int h = 0; h < 2; h++) {
            for (int c = 0; c < C; c++) {
                __m256 s = _mm256_mul_ps(sw[h], _mm256_set1_ps(xs[c * groups + g]));
                acc[h][c] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(d[h][c]), s, acc[h][c]);
            }
        }
    }
    for (int c = 0; c < C; c++) {
        float lanes[Q8_BLOCK_ROWS];
        _mm256_storeu_ps(lanes, acc[0][c]);
        _mm256_storeu_ps(lanes + 8, acc[1][c]);
        uint32_t mask;
        float *yc = block_out(j, b0, t0 + c, &mask);
        for (int r = 0; r < Q8_BLOCK_ROWS; r++)
            if (mask >> r & 1) yc[r] = lanes[r];
    }
}
#endif

/* One block × C tokens in plain C. */
static inline ALWAYS_INLINE void tile_portable(const Job *j, int64_t b0, int64_t bstep, int64_t t0, int R,
                                               int C, int P) {
    (void)bstep;
    (void)R; /* always one block */
    int64_t groups = j->w->groups;
    const uint8_t *wb = j->w->data + b0 * q8_block_bytes(j->w);
    float acc[PRE_TOKENS][Q8_BLOCK_ROWS] = {{0}};
    for (int64_t g = 0; g < groups; g++) {
        float sw[Q8_BLOCK_ROWS];
        for (int r = 0; r < Q8_BLOCK_ROWS; r++) sw[r] = f16_to_f32(group_s(wb, g)[r]);
        const uint8_t *unit = group_q(wb, g);
        for (int c = 0; c < C; c++) {
            int32_t d[Q8_BLOCK_ROWS];
            for (int p = 0; p < P; p++) {
                const int8_t *xg = j->a->q + (((t0 + c) * P + p) * groups + g) * Q8_GROUP;
                int32_t start = j->a->correction[((t0 + c) * P + p) * groups + g];
                for (int r = 0; r < Q8_BLOCK_ROWS; r++) d[r] = p == 0 ? start : 255 * d[r] + start;
                for (int s = 0; s < STEPS; s++)
                    for (int r = 0; r < Q8_BLOCK_ROWS; r++)
                        for (int k = 0; k < 4; k++)
                            d[r] += (int32_t)unit[s * STEP_BYTES + r * 4 + k] * xg[s * 4 + k];
            }
            float sx = j->a->scale[(t0 + c) * groups + g];
            for (int r = 0; r < Q8_BLOCK_ROWS; r++) acc[c][r] = fmaf((float)d[r], sw[r] * sx, acc[c][r]);
        }
    }
    for (int c = 0; c < C; c++) {
        uint32_t mask;
        float *yc = block_out(j, b0, t0 + c, &mask);
        for (int r = 0; r < Q8_BLOCK_ROWS; r++)
            if (mask >> r & 1) yc[r] = acc[c][r];
    }
}

/* ------------------------------------------------------------------------------------
 * The tiles as functions, one per (kernel, blocks, tokens), and the walk over them.
 * ------------------------------------------------------------------------------------ */

typedef void TileFn(const Job *j, int64_t b0, int64_t bstep, int64_t t0);

typedef struct {
    int dec_blocks, pre_blocks;  /* blocks per tile: one token, several */
    TileFn *dec;                 /* dec_blocks × 1 */
    TileFn *pre[PRE_TOKENS + 1]; /* pre_blocks × c tokens, c = 1 .. 4 */
    TileFn *one[PRE_TOKENS + 1]; /* 1 block × c tokens: the blocks left over */
} Tiles;

#define DEFINE_TILE(name, impl, R, C, P)                                                                     \
    static void name(const Job *j, int64_t b0, int64_t bstep, int64_t t0) { impl(j, b0, bstep, t0, R, C, P); }
#define DEFINE_TILES(name, impl, DEC, PRE, P)                                                                \
    DEFINE_TILE(name##_dec, impl, DEC, 1, P)                                                                 \
    DEFINE_TILE(name##_p1, impl, PRE, 1, P)                                                                  \
    DEFINE_TILE(name##_p2, impl, PRE, 2, P)                                                                  \
    DEFINE_TILE(name##_p3, impl, PRE, 3, P)                                                                  \
    DEFINE_TILE(name##_p4, impl, PRE, 4, P)                                                                  \
    DEFINE_TILE(name##_o1, impl, 1, 1, P)                                                                    \
    DEFINE_TILE(name##_o2, impl, 1, 2, P)                                                                    \
    DEFINE_TILE(name##_o3, impl, 1, 3, P)                                                                    \
    DEFINE_TILE(name##_o4, impl, 1, 4, P)                                                                    \
    static const Tiles name = {DEC,                                                                          \
                               PRE,                                                                          \
                               name##_dec,                                                                   \
                               {NULL, name##_p1, name##_p2, name##_p3, name##_p4},                           \
                               {NULL, name##_o1, name##_o2, name##_o3, name##_o4}};
_Static_assert(PRE_TOKENS == 4, "DEFINE_TILES spells out the tiles of 1 .. 4 tokens");

/* [planes − 1]: one set of tiles for Q8_ACT8, one for Q8_ACT16 */
DEFINE_TILES(portable_8, tile_portable, 1, 1, 1)
DEFINE_TILES(portable_16, tile_portable, 1, 1, 2)
static const Tiles *const portable_tiles[2] = {&portable_8, &portable_16};
#if HAVE_AVX2
DEFINE_TILES(avx2_8, tile_avx2, 1, 1, 1)
DEFINE_TILES(avx2_16, tile_avx2, 1, 1, 2)
static const Tiles *const avx2_tiles[2] = {&avx2_8, &avx2_16};
#endif
#if HAVE_AVX512
DEFINE_TILES(avx512_8, tile_avx512, DEC_BLOCKS, PRE_BLOCKS, 1)
DEFINE_TILES(avx512_16, tile_avx512, DEC_BLOCKS, PRE_BLOCKS, 2)
static const Tiles *const avx512_tiles[2] = {&avx512_8, &avx512_16};
#endif

static const Tiles *tiles_for(Q8Kernel k, int planes) {
#if HAVE_AVX512
    if (k == Q8_AVX512) return avx512_tiles[planes - 1];
#endif
#if HAVE_AVX2
    if (k == Q8_AVX2) return avx2_tiles[planes - 1];
#endif
    (void)k;
    return portable_tiles[planes - 1];
}

/* Tokens [t0, t1) of blocks b0, b0 + bstep, ... (n of them) through tiles of n blocks. */
static void tokens_of(const Tiles *k, const Job *j, int64_t b0, int64_t bstep, int n, int64_t t0,
                      int64_t t1) {
    for (int64_t t = t0; t < t1; t += PRE_TOKENS) {
        int c = t1 - t < PRE_TOKENS ? (int)(t1 - t) : PRE_TOKENS;
        (n == 1 ? k->one : k->pre)[c](j, b0, bstep, t);
    }
}

/* The work is cut into tasks, which the workers take one at a time (kernels/pool.h):
 *
 *   one token:  tasks of about DEC_TASK_BYTES of W, at most a worker's share (so that a
 *               small W is shared too), as kernels/linear.c cuts its rows. A task cuts
 *               its blocks into DEC_BLOCKS equal parts and goes through them side by
 *               side: tile i takes block i of every part, so that each part is read
 *               front to back as one long stream (up to 256 KB); the blocks left over
 *               go one at a time. The task takes its tiles one at a time from the pool
 *               (pool_units_begin), so that the worker done first takes over the back
 *               half of what the other's last task has left instead of waiting for it.
 *               Measured on the whole model, blocks of 32 tokens taking turns in one
 *               process (the first 2 of each not counted), AMD EPYC (Zen 5): a token
 *               took 0.986 and 0.984 of the time (medians of 29 and 7 pairs of blocks)
 *               with the cores on two chips, 0.987 and 0.992 (30 and 21 pairs) with them
 *               on one, against tasks of 256 KB, as many as made whole rounds of the
 *               workers and a quarter of that where the workers' two ends meet; tasks of
 *               2 MB were no different from 1 MB (1.002, one chip);
 *   T tokens:   a task is PRE_BLOCKS neighbouring blocks (their integers stay in the
 *               core's cache while the tokens pass by) times a range of tokens: all of
 *               them, or, when there are too few blocks to keep every worker busy
 *               (in_proj_a has one block), a share of them.
 * A short block (the last of a part whose rows are not a multiple of 16) is computed
 * whole and stores only its rows' lanes (block_out). Every output is computed whole by
 * one tile, the same way whatever the tasks, so the cut changes nothing in the result. */
#define DEC_TASK_BYTES (1024 << 10)

typedef struct {
    const Tiles *k;
    Job job;
    PoolCut cut;             /* one token: blocks in tasks of whole parts (kernels/pool.h) */
    int64_t blocks_per_task; /* T tokens: PRE_BLOCKS */
    int64_t block_tasks, tokens_per_task;
} Walk;

static void decode_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const Walk *wk = ctx;
    const Tiles *k = wk->k;
    int64_t first, last;
    pool_cut_range(&wk->cut, task, &first, &last);
    int64_t part = (last - first) / k->dec_blocks; /* blocks per part */
    int64_t rest = first + k->dec_blocks * part;   /* the blocks left over: rest .. last − 1 */
    /* units the pool may share (kernels/pool.h): tile i (i < part), then the blocks left
     * over one at a time */
    PoolUnits units;
    pool_units_begin(&units, part + (last - rest));
    for (int64_t i; pool_units_next(&units, &i);)
        if (i < part)
            k->dec(&wk->job, first + i, part, 0);
        else
            k->one[1](&wk->job, rest + (i - part), 1, 0);
}

static void prefill_task(void *ctx, int64_t task, int worker) {
    (void)worker;
    const Walk *wk = ctx;
    const Tiles *k = wk->k;
    int64_t T = wk->job.a->T, blocks = wk->job.w->blocks;
    int64_t first = task % wk->block_tasks * wk->blocks_per_task;
    int64_t last = first + wk->blocks_per_task < blocks ? first + wk->blocks_per_task : blocks;
    int64_t t0 = task / wk->block_tasks * wk->tokens_per_task;
    int64_t t1 = t0 + wk->tokens_per_task < T ? t0 + wk->tokens_per_task : T;
    if (last - first == k->pre_blocks)
        tokens_of(k, &wk->job, first, 1, k->pre_blocks, t0, t1);
    else
        for (int64_t b = first; b < last; b++) tokens_of(k, &wk->job, b, 1, 1, t0, t1);
}

/* Whether one token's tiles ask ahead: trials while the program runs (kernels/ahead.h). */
static AheadTrial trial = AHEAD_TRIAL_INIT;

int q8_asks_ahead(void) { return trial.choice; }

void q8_linear_parts_with(const Q8Act *x, const Q8Weights *w, float *const *y, Q8Kernel kind) {
    if (x->in != w->in)
        die("q8_linear: activations of %lld numbers for rows of %lld", (long long)x->in, (long long)w->in);
    Walk wk = {.k = tiles_for(kind, x->planes), .job = {w, x, y}};
    int64_t T = x->T, blocks = w->blocks;
    if (T == 0 || blocks == 0) return;
    if (T == 1) {
        int64_t parts = wk.k->dec_blocks;
        int64_t per = pool_task_units(DEC_TASK_BYTES / q8_block_bytes(w), blocks, parts); /* whole parts */
        wk.cut = pool_cut(blocks, per);
        AheadCall call = ahead_begin(&trial); /* ask ahead or not: kernels/ahead.h */
        wk.job.ask = call.asks;
        pool_run(pool_cut_tasks(&wk.cut), decode_task, &wk);
        ahead_end(&trial, call, (double)(blocks * q8_block_bytes(w)));
        return;
    }
    wk.blocks_per_task = wk.k->pre_blocks;
    wk.block_tasks = (blocks + wk.blocks_per_task - 1) / wk.blocks_per_task;
    /* Enough tasks for 4 per worker, the tokens shared out in whole tiles if need be. */
    int64_t token_tasks = (4 * pool_threads() + wk.block_tasks - 1) / wk.block_tasks;
    int64_t tiles = (T + PRE_TOKENS - 1) / PRE_TOKENS;
    if (token_tasks > tiles) token_tasks = tiles;
    wk.tokens_per_task = (tiles + token_tasks - 1) / token_tasks * PRE_TOKENS;
    token_tasks = (T + wk.tokens_per_task - 1) / wk.tokens_per_task;
    pool_run(wk.block_tasks * token_tasks, prefill_task, &wk);
}

void q8_linear_with(const Q8Act *x, const Q8Weights *w, float *y, Q8Kernel kind) {
    if (w->parts != 1)
        die("q8_linear: a stack of %d matrices writes %d outputs (q8_linear_parts)", w->parts, w->parts);
    q8_linear_parts_with(x, w, &y, kind);
}

void q8_linear_parts(const Q8Act *x, const Q8Weights *w, float *const *y) {
    q8_linear_parts_with(x, w, y, q8_best_kernel);
}

void q8_linear(const Q8Act *x, const Q8Weights *w, float *y) { q8_linear_with(x, w, y, q8_best_kernel); }
