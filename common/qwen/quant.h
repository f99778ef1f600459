/* quant.h — 8-bit weights: each group of 32 numbers as 32 small integers and one scale.
 *
 * A BF16 weight takes 2 bytes, and generating one token reads every weight once, so
 * the speed of decoding is the speed of reading 1.5 GB. Storing each weight in one
 * byte instead halves that. A row of W is cut into groups of 32 numbers; each group
 * keeps 32 integers q in [−127, 127] and one scale:
 *
 *     w[i] ≈ scale · q[i]        scale = max|w| / 127,   q[i] = round(w[i] / scale)
 *
 * so the largest number of the group becomes ±127 and the others fall on the grid
 * 0, ±scale, ±2·scale, ... in between. Shapes, for a row of n numbers in G = ⌈n/32⌉
 * groups (the last one shorter when n is not a multiple of 32):
 *
 *     w: [n] float32  ->  q: [n] int8,  scale: [G] fp16
 *
 * Guarantees:
 *   - every value is off by at most half a step:  |w[i] − scale·q[i]| ≤ scale / 2;
 *   - round is to the nearest integer, ties to the even one (2.5 -> 2, 3.5 -> 4, −2.5
 *     -> −2), IEEE's default and what the vector instructions do (rintf);
 *   - a group of zeros gets scale 0 and q = 0, and comes back as exact zeros;
 *   - a row holding a NaN or an infinity is refused (false), and so is a number above
 *     Q8_MAX_ABS, whose scale would not fit an fp16. Real weights are far inside.
 *
 * The scale is max|w| / 127 computed in float32 and rounded to the nearest fp16, and q
 * is rounded from w / scale with the scale as stored, so the bound holds for what is
 * stored (fp16 moves the scale by at most 1/2048, which the rounding of q absorbs).
 * Below fp16's normal range (max|w| < 0.008) fp16 has fewer digits; where the rounded
 * scale falls under max|w| / 127.5, and the largest q would become 128, the next fp16
 * up is taken instead.
 *
 * Activations. The product of a weight row with a token is done on integers too: one
 * token's vector x is cut into the same groups and each group quantized with the same
 * formula, with a float32 scale (made on the fly, never stored) and one of two ranges
 * for its integers a:
 *
 *     Q8_ACT8   |a| ≤ 127:    sx = max|x| / 127,    one byte per number
 *     Q8_ACT16  |a| ≤ 32385:  sx = max|x| / 32385,  two bytes: a = 255·hi + lo,
 *                                                   |hi|, |lo| ≤ 127
 *
 * so that the product is one integer dot product per group, exact in int32, and one
 * float multiply-add per group:
 *
 *     y = Σ_g  (sw_g · sx_g) · d_g,     d_g = Σ_{i in g} q[i] · a[i]
 *
 * The order of those float sums is part of the formula, so that the fast kernels can
 * match it bit for bit: for row o and token t,
 *
 *     acc = 0;  for g = 0, 1, ..., G−1:  acc = fma((float)d_g, sw_g · sx_g, acc)
 *
 * (|d_g| ≤ 32·127·32385 < 2^31, rounded to float32 above 2^24; sw_g · sx_g is one
 * float32 product; fma rounds once). The reference functions below do exactly this;
 * the kernels (kernels/quant.c) do it for 16 rows at a time, one row per vector lane,
 * and so give the same bits whatever the number of workers or of tokens in a call.
 * An activation group holding a NaN or an infinity gets a NaN scale (and a = 0), so
 * every output of that token is NaN, as float arithmetic would have made it; a scale
 * that float32 rounds below max|x| / (range + 0.5) (among its denormals only, for
 * max|x| < 1e-34) is taken one step up, as for the weights.
 *
 * Why this format: the choices, and what ch04_mlp/bench/bench_quant.c measures for them
 * (its accuracy table: a random layer [256, 1024] with some large weights and some
 * large activation channels, error relative to float64):
 *   - integer activations: the machine's byte dot-product instruction (vpdpbusd) does
 *     64 multiply-adds at once, four times float32. Reading a prompt is multiply-adds,
 *     and with it the projections run about 4× (Q8_ACT8) or 2× (Q8_ACT16) as fast as
 *     in BF16; with float32 activations they could not beat BF16, whose products cost
 *     the same once a weight is widened;
 *   - two ranges: Q8_ACT8 is what llama.cpp's Q8_0 × Q8_0 does (its activation scales
 *     in fp16), and has its error: 1.09e-2 for both, about 1.5 times that of the
 *     weights alone (7.3e-3). Q8_ACT16 sends hi and lo through the same instruction
 *     one after the other and adds the sums as 255·d_hi + d_lo, exactly: the error of
 *     the weights alone (7.3e-3), for twice the integer work in a prompt. Decoding
 *     reads memory, not arithmetic: there Q8_ACT16 costs a few percent at most. A
 *     model whose prefill and decode must agree bit for bit uses one range for both;
 *   - groups of 32: groups of 64 or 128 would read 3% or 4% fewer bytes (fewer scales)
 *     and do a little less float work, for 32% or 76% more error (1.44e-2, 1.92e-2);
 *   - fp16 scales: 34 bytes per 32 weights instead of 36 with float32, 6% less to read
 *     per token, and no measurable error (1.089e-2 either way).
 */
#ifndef QUANT_H
#define QUANT_H

#include <stdbool.h>
#include <stdint.h>

#include "tensor.h"
#include "workbook/util.h"

#define Q8_GROUP 32 /* numbers per group */
#define Q8_QMAX  127
/* The largest |w| a weight row may hold: its scale, |w| / 127, is then the largest fp16. */
#define Q8_MAX_ABS (127.0f * 65504.0f)

/* Groups in a row of n numbers: ⌈n / 32⌉. */
static inline int64_t q8_groups(int64_t n) { return (n + Q8_GROUP - 1) / Q8_GROUP; }

/* ---- the readable version (quant.c) ---------------------------------------------- */

/* w: [n] -> q: [n], scale: [⌈n/32⌉] fp16 bits. False, and nothing written, when w holds
 * a NaN, an infinity or a number above Q8_MAX_ABS. */
bool q8_quantize_row(const float *w, int64_t n, int8_t *q, uint16_t *scale);

/* w[i] = scale · q[i]: the numbers the 8-bit weights stand for.  q: [n], scale: [⌈n/32⌉]
 * -> w: [n]. */
void q8_dequantize_row(const int8_t *q, const uint16_t *scale, int64_t n, float *w);

/* The two ranges of the activations' integers (the value is the largest |a|). */
typedef enum { Q8_ACT8 = 127, Q8_ACT16 = 32385 } Q8ActRange;

/* One token's activations, same groups, float32 scales: x: [n] -> a: [n], scale:
 * [⌈n/32⌉]. Never fails: a group with a NaN or an infinity gets scale NaN and a = 0. */
void q8_quantize_act_row(const float *x, int64_t n, Q8ActRange range, int16_t *a, float *scale);

/* The scale of one group of n ≤ 32 numbers (the rule above), as float32 (activations,
 * max|x| / range) or as the fp16 a weight row stores. Exposed for the tests and the
 * kernels. */
float q8_act_scale(const float *x, int n, Q8ActRange range);
uint16_t q8_weight_scale(const float *w, int n);
/* The same from the group's largest |w| (finite, at most Q8_MAX_ABS). */
uint16_t q8_weight_scale_of_max(float max);

/* y = Σ_g (sw_g · sx_g) · d_g for one token x and one weight row (q, scale), both of n
 * numbers: x is quantized group by group, then the sums run in the order above. */
float q8_dot_ref(const float *x, const int8_t *q, const uint16_t *scale, int64_t n, Q8ActRange range);

/* Y[t][o] = q8_dot_ref(token t, row o of W), the formula loop by loop.
 * x: [T, in]; q: [out, in], scale: [out, ⌈in/32⌉] (row o's scales at scale + o·⌈in/32⌉);
 * y: [T, out]. Slow; for tests and for reading. */
void q8_linear_ref(const float *x, const int8_t *q, const uint16_t *scale, int64_t T, int64_t in, int64_t out,
                   Q8ActRange range, float *y);

/* The same product for W as a checkpoint stores it (any dtype, [out, in]): each group of
 * each row quantized with q8_quantize_row as it is read, each token's group with
 * q8_quantize_act_row, then the sums in the order above. Nothing is made in advance
 * and nothing is allocated, so this is the formula from the checkpoint alone: what a
 * model on 8-bit weights runs on its readable path, and the same bits as q8_linear on
 * q8_pack(W) (the tests hold them to each other). A group that q8_quantize_row refuses
 * (a NaN, an infinity, a number above Q8_MAX_ABS) makes the row's outputs NaN; q8_pack
 * refuses such a W before a model gets this far. x: [T, in], y: [T, out]. Very slow:
 * every weight is quantized again for every token. */
void q8_linear_tensor_ref(const float *x, const Tensor *w, int64_t T, Q8ActRange range, float *y);

/* ---- the fast path (kernels/quant.c) ----------------------------------------------
 *
 * The kernels read W in their own order, so q8_pack() lays the 8-bit weights out for
 * them once, when the model is loaded:
 *
 *   - rows go in blocks of 16 (the last block padded with zero rows), and within a
 *     block the 16 rows are interleaved 4 numbers at a time: for each group, 8 steps
 *     of [16 rows][4 numbers] = 64 bytes, one vector load whose lane r holds 4 numbers
 *     of row r. One integer dot-product instruction then adds 4 products into each of
 *     16 row sums, and the sums of the 16 rows never need to be added across lanes;
 *   - q is stored plus 128, as a byte 1 .. 255 (the instruction multiplies an unsigned
 *     byte by a signed one; the extra 128·Σx is taken off exactly, see kernels/quant.c);
 *   - the scales go with the integers, two groups at a time: the two groups' 2 × 16
 *     fp16 scales (64 bytes), then their 2 × 512 bytes of integers, 1088 bytes in all =
 *     17 whole cache lines. Reading W is then one stream of whole, aligned 64-byte
 *     lines, in the order the kernel uses them, always forward (a group's scales are
 *     read before its integers): the core's prefetcher follows such a stream at full
 *     speed, and lost a quarter of it when the scales came after the integers and the
 *     stream stepped back to them. A separate array of scales is a second stream for
 *     the memory system to follow (measured: as fast on most shapes, a few percent
 *     slower on the output head);
 *   - a row shorter than whole groups is padded with q = 0 (in need not be a multiple
 *     of 32), and an odd last group leaves the second half of its pair unused. W starts
 *     on a 64-byte boundary, and so does every block, pair, group and step.
 *
 * Bytes: 34 per 32 weights (1088 per 512), as with llama.cpp's Q8_0.
 *
 * A stack. Matrices that multiply the same input (a layer's q, k and v; gate and up)
 * can be packed as one W, their rows one after another, each matrix (a "part")
 * starting on a block of its own: one call of the kernels then computes all of them,
 * each part's outputs into an array of its own (q8_linear_parts). For one token the
 * kernels' start and end, and the wait for the last task, come once instead of once
 * per matrix (measured on the 0.8B model: 97 calls a token instead of 187, about 2%
 * of a token's time). Each row is computed exactly as it would be alone.
 */
#define Q8_MAX_PARTS 4

typedef struct {
    int64_t out, in;   /* W: [out, in] (out: the rows of every part) */
    int64_t groups;    /* ⌈in / 32⌉ */
    int64_t blocks;    /* Σ ⌈part_out / 16⌉ */
    int parts;         /* matrices stacked (1: one matrix) */
    int64_t part_out[Q8_MAX_PARTS];       /* the rows of each */
    int64_t part_block[Q8_MAX_PARTS + 1]; /* part p is blocks part_block[p] .. part_block[p + 1] − 1 */
    uint8_t *data;     /* the blocks one after another, q8_block_bytes() each */
} Q8Weights;

#define Q8_BLOCK_ROWS 16

/* Bytes of one block of 16 rows: ⌈groups / 2⌉ pairs of 2 · 512 + 64. */
static inline int64_t q8_block_bytes(const Q8Weights *p) { return (p->groups + 1) / 2 * 1088; }

/* Bytes q8_pack() allocates for W [out, in], and q8_pack_stack() for n matrices
 * [outs[i], in], computed before anything is allocated (saturating, as util.h's
 * size_mul: UINT64_MAX is "too much"). */
uint64_t q8_packed_bytes(int64_t out, int64_t in);
uint64_t q8_stack_bytes(const int64_t *outs, int n, int64_t in);

/* The shape of one matrix [out, in] packed — every field but data, which the caller
 * points at q8_packed_bytes(out, in) bytes of packed weights (a benchmark's copies). */
Q8Weights q8_packed_shape(int64_t out, int64_t in);

/* Quantizes W (any dtype, [out, in]) with q8_quantize_row() and lays it out as above.
 * False, with a message naming the tensor and the row, for a NaN, an infinity or a
 * number above Q8_MAX_ABS. Allocates; q8_free() gives the memory back. */
bool q8_pack(const Tensor *w, Q8Weights *out, Error *err);
/* The same for n ≤ Q8_MAX_PARTS matrices [rows_i, in] (any dtypes) stacked as one W,
 * part i = w[i]. False for a row as above, naming its tensor, or for matrices of
 * different widths. */
bool q8_pack_stack(const Tensor *const *w, int n, Q8Weights *out, Error *err);
/* The same from a readable q8 matrix (q: [out, in], scale: [out, ⌈in/32⌉]). */
void q8_pack_quantized(const int8_t *q, const uint16_t *scale, int64_t out, int64_t in, Q8Weights *p);
void q8_free(Q8Weights *p);

/* Row o of packed W as float32 (scale · q): [in]. For an embedding table stored this
 * way, one row per token. In a stack, o counts the rows of part 0, then of part 1, ... */
void q8_packed_row(const Q8Weights *p, int64_t o, float *row);

/* The quantized activations of up to max_tokens tokens of up to max_in numbers: the
 * buffer the kernels work in, allocated once (q8_act_init) and reused by every call,
 * whatever the width of the projection's input. The integers go in planes of bytes:
 * one (Q8_ACT8: a itself) or two (Q8_ACT16: hi, then lo, a = 255·hi + lo). */
typedef struct {
    Q8ActRange range;
    int planes; /* 1 or 2 */
    int64_t max_tokens, max_in;
    int64_t T, in, groups; /* what it holds now: T tokens of `in` numbers, ⌈in/32⌉ groups */
    int8_t *q;             /* [T][planes][groups · 32]: the bytes, padded with zeros */
    float *scale;          /* [T][groups] */
    int32_t *correction;   /* [T][planes][groups]: −128 · Σ of the plane's bytes over the group */
} Q8Act;

void q8_act_init(Q8Act *a, int64_t max_tokens, int64_t max_in, Q8ActRange range);
void q8_act_free(Q8Act *a);
/* Bytes q8_act_init allocates (saturating), for an estimate made before it is called. */
uint64_t q8_act_bytes(int64_t max_tokens, int64_t max_in, Q8ActRange range);

/* The kernels, chosen at compile time: AVX-512 VNNI where the compiler targets it, else
 * AVX2, else plain C. Every one that the compiler can build is built, so that the tests
 * hold each of them to the reference (the *_with functions take it as their last
 * argument; q8_quantize_act has no AVX2 form of its own and uses plain C there). */
typedef enum { Q8_PORTABLE, Q8_AVX2, Q8_AVX512 } Q8Kernel;
extern const Q8Kernel q8_best_kernel;
bool q8_kernel_built(Q8Kernel k);
const char *q8_kernel_name(Q8Kernel k); /* "portable C", "AVX2", "AVX-512 VNNI" */
/* Whether one token's AVX-512 tiles ask for their weights ahead with prefetch
 * instructions: 1 or 0, the way the last trial of the one-token calls found faster
 * (kernels/ahead.h), −1 until the first trial has ended. Speed only. */
int q8_asks_ahead(void);

/* x: [T, in] -> a (T <= a->max_tokens, in <= a->max_in). Token t's integers and scales
 * are those of q8_quantize_act_row(x + t·in, in, a->range, ...), bit for bit. */
void q8_quantize_act(const float *x, int64_t T, int64_t in, Q8Act *a);
void q8_quantize_act_with(const float *x, int64_t T, int64_t in, Q8Act *a, Q8Kernel k);

/* Y[t][o] = the q8_linear_ref formula, bit for bit, for the x->T tokens in x.
 * y: [x->T, w->out]; x->in == w->in; W one matrix. The work goes to the pool's workers
 * (kernels/pool.h); the result depends neither on their number nor on T (row t of a
 * batch equals the call with token t alone). No allocation. */
void q8_linear(const Q8Act *x, const Q8Weights *w, float *y);
void q8_linear_with(const Q8Act *x, const Q8Weights *w, float *y, Q8Kernel k);

/* The same for a stack: part i's outputs into y[i] [x->T, w->part_out[i]], each bit for
 * bit what q8_linear gives for that matrix alone. */
void q8_linear_parts(const Q8Act *x, const Q8Weights *w, float *const *y);
void q8_linear_parts_with(const Q8Act *x, const Q8Weights *w, float *const *y, Q8Kernel k);

/* Quantizes x [T, in] into the buffer a, then y = W x: what a layer calls for one
 * projection. x: [T, w->in], y: [T, w->out]. */
static inline void q8_project(const float *x, const Q8Weights *w, int64_t T, Q8Act *a, float *y) {
    q8_quantize_act(x, T, w->in, a);
    q8_linear(a, w, y);
}

#endif
