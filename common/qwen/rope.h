/* rope.h — chapter 5: rotary position embedding (RoPE), partial, rotate-half.
 *
 * Attention compares a query with every key by a dot product, which by itself
 * knows nothing about where the two tokens sit. RoPE writes the position into q
 * and k by turning pairs of their dimensions by an angle proportional to the
 * position: a query at position m and a key at position n, each turned by its own
 * angle, have a dot product that depends only on m − n — the distance between them.
 *
 * Qwen3.5 turns only part of each head. With head_dim 256 and
 * partial_rotary_factor 0.25, the first rotary_dim = 64 dims rotate and dims
 * 64..255 pass through unchanged (they carry content only). The 64 rotating dims
 * form 32 pairs by "rotate-half": dim i is paired with dim i + 32, not with its
 * neighbour. Pair i turns at its own speed
 *
 *     inv_freq[i] = theta^(−2i / rotary_dim),   i = 0 .. 31,   theta = 1e7
 *
 * so pair 0 turns by 1 radian per token and pair 31 about 6.0 million times slower
 * (1e7^(62/64) = 6.04 million)
 * (a wavelength of 2π / inv_freq[i] tokens). At position p, with c = cos(p·inv_freq[i])
 * and s = sin(p·inv_freq[i]):
 *
 *     out[i]      = x[i] · c − x[i + 32] · s
 *     out[i + 32] = x[i + 32] · c + x[i] · s
 *
 * which is the 2-d rotation of the point (x[i], x[i + 32]) by the angle p·inv_freq[i].
 * The angles depend on the position only, not on the head or on q versus k, so a
 * RopeTable computes cos and sin once per position and every head of q and of k
 * reuses them.
 *
 * The angles are computed in double and stored as float: at position 200 000,
 * p·inv_freq in float32 would already be off by about 0.01 rad.
 *
 * Usage (attention at positions pos0 .. pos0 + T − 1):
 *
 *     RopeTable rt;
 *     rope_init_config(&rt, &cfg, T);                 // cos/sin for positions 0 .. T − 1
 *     rope_apply_tokens(&rt, q, T, n_heads, 0);       // q: [T, n_heads, head_dim]
 *     rope_apply_tokens(&rt, k, T, n_kv_heads, 0);    // k: [T, n_kv_heads, head_dim]
 *     ...
 *     rope_reserve(&rt, pos + 1);                     // decoding one more token
 *     rope_apply(&rt, q_one, n_heads, pos);           // q_one: [n_heads, head_dim]
 *     rope_free(&rt);
 *
 * The apply functions only read the table, so several threads may use one table.
 */
#ifndef ROPE_H
#define ROPE_H

#include "config.h"

typedef struct {
    int head_dim;     /* 256: length of one head's vector */
    int rotary_dim;   /* 64: the first rotary_dim dims of each head rotate */
    int half;         /* 32: number of rotating pairs (i, i + half) */
    double theta;     /* 1e7: the base of the frequencies */
    double *inv_freq; /* [half]: radians per token of pair i, theta^(−2i/rotary_dim) */
    int n_pos;        /* positions 0 .. n_pos − 1 are in the table */
    int cap;          /* positions allocated */
    float *cos;       /* [cap, half]: cos(p · inv_freq[i]) at row p */
    float *sin;       /* [cap, half]: sin(p · inv_freq[i]) at row p */
} RopeTable;

/* A table for positions 0 .. n_positions − 1 (n_positions may be 0). Dies with a
 * clear message when rotary_dim is not even, not positive or larger than head_dim,
 * or when theta <= 1 (config.json is checked for all of these when it is loaded). */
void rope_init(RopeTable *rt, int head_dim, int rotary_dim, double theta, int n_positions);
/* The same with head_dim, rotary_dim and rope_theta from config.json. */
void rope_init_config(RopeTable *rt, const Config *c, int n_positions);
void rope_free(RopeTable *rt);
/* Bytes of a table for n_positions (cos and sin, grown as rope_reserve grows it;
 * saturating: what a demo adds up before it allocates, util.h's memory rule). */
uint64_t rope_table_bytes(int rotary_dim, int64_t n_positions);

/* Makes sure positions 0 .. n_positions − 1 are in the table (grows it, keeping the
 * rows already computed). Call it before applying at a new position while decoding. */
void rope_reserve(RopeTable *rt, int n_positions);

/* cos / sin of every pair at position pos: [half] values each (pos < n_pos). */
const float *rope_cos(const RopeTable *rt, int pos);
const float *rope_sin(const RopeTable *rt, int pos);

/* Rotates, in place, the first rotary_dim dims of every head of one token at
 * position pos; the other dims are left alone. x: [heads, head_dim]. pos < n_pos. */
void rope_apply(const RopeTable *rt, float *x, int heads, int pos);

/* T tokens at positions pos0 .. pos0 + T − 1. x: [T, heads, head_dim].
 * pos0 + T <= n_pos. */
void rope_apply_tokens(const RopeTable *rt, float *x, int T, int heads, int pos0);

#endif
