/* Exercise 206 (the gated delta rule), the runner: each case's inputs, the call, the
 * outputs handed back. The checker (check.c) holds what they should be. */
#include <math.h>
#include <string.h>

#include "ptest_run.h"
#include "delta_rule.h"

#include "inputs.h"

static void worked_example(void) {
    const float S0[4] = {3, 1, -1, 2}, q0[2] = {0.6f, 0.8f}, k0[2] = {1, 0}, v0[2] = {5, 0};
    float *S = pt_copy(S0, 4), *q = pt_copy(q0, 2), *k = pt_copy(k0, 2), *v = pt_copy(v0, 2);
    float *g = pt_floats(1), *beta = pt_floats(1), *out = pt_floats(2);
    g[0] = logf(0.5f);
    beta[0] = 1.0f;
    delta_rule(q, k, v, g, beta, 1, 1, 2, 2, S, out);
    pt_out_floats("out", out, 2);
    pt_out_floats("S", S, 4);
}

static void book_six_writes(void) {
    /* ch07_deltanet.py, part 3: delta_rule(k, k, v, zeros, 0.5) over 6 tokens */
    float *q = pt_floats(6 * 128), *k = pt_floats(6 * 128), *v = pt_floats(6 * 128);
    float *g = pt_zeros(6), *beta = pt_floats(6), *S = pt_zeros(128 * 128), *out = pt_floats(6 * 128);
    for (int t = 0; t < 6; t++) {
        memcpy(q + t * 128, book_k, sizeof book_k);
        memcpy(k + t * 128, book_k, sizeof book_k);
        memcpy(v + t * 128, book_v, sizeof book_v);
        beta[t] = 0.5f;
    }
    delta_rule(q, k, v, g, beta, 6, 1, 128, 128, S, out);
    pt_out_floats("out", out, 6 * 128);
}

/* 2 heads, dk 4, dv 3, 5 tokens, a table that is not empty at the start (seeds 201..206,
 * as make_expected.py draws them) */
enum { T = 5, H = 2, DK = 4, DV = 3 };
static void small_inputs(float **q, float **k, float **v, float **g, float **beta, float **S) {
    *q = pt_floats(T * H * DK), *k = pt_floats(T * H * DK), *v = pt_floats(T * H * DV);
    *g = pt_floats(T * H), *beta = pt_floats(T * H), *S = pt_floats(H * DK * DV);
    pt_fill(*q, T * H * DK, 201, 1.0f);
    pt_fill(*k, T * H * DK, 202, 1.0f);
    pt_fill(*v, T * H * DV, 203, 1.0f);
    pt_fill(*g, T * H, 204, 1.0f);
    for (int i = 0; i < T * H; i++) (*g)[i] = -fabsf((*g)[i]) * 2.0f;
    pt_fill(*beta, T * H, 205, 0.5f);
    for (int i = 0; i < T * H; i++) (*beta)[i] += 0.5f;
    pt_fill(*S, H * DK * DV, 206, 1.0f);
}

static void small_heads(void) {
    float *q, *k, *v, *g, *beta, *S, *out = pt_floats(T * H * DV);
    small_inputs(&q, &k, &v, &g, &beta, &S);
    delta_rule(q, k, v, g, beta, T, H, DK, DV, S, out);
    pt_out_floats("out", out, T * H * DV);
    pt_out_floats("S", S, H * DK * DV);
}

static void two_calls(void) {
    float *q, *k, *v, *g, *beta, *S, *out = pt_floats(T * H * DV);
    small_inputs(&q, &k, &v, &g, &beta, &S);
    /* tokens 0-1, then 2-4 with the table the first call left */
    delta_rule(q, k, v, g, beta, 2, H, DK, DV, S, out);
    delta_rule(q + 2 * H * DK, k + 2 * H * DK, v + 2 * H * DV, g + 2 * H, beta + 2 * H, 3, H, DK, DV, S,
               out + 2 * H * DV);
    pt_out_floats("out", out, T * H * DV);
    pt_out_floats("S", S, H * DK * DV);
}

static void real_shapes(void) {
    enum { RT = 4, RH = 16, D = 128 };
    float *q = pt_floats(RT * RH * D), *k = pt_floats(RT * RH * D), *v = pt_floats(RT * RH * D);
    float *g = pt_floats(RT * RH), *beta = pt_floats(RT * RH), *S = pt_zeros(RH * D * D),
          *out = pt_floats(RT * RH * D);
    pt_fill(q, RT * RH * D, 211, 1.0f);
    pt_fill(k, RT * RH * D, 212, 1.0f);
    pt_fill(v, RT * RH * D, 213, 1.0f);
    pt_fill(g, RT * RH, 214, 1.0f);
    for (int i = 0; i < RT * RH; i++) g[i] = -fabsf(g[i]) * 2.0f;
    pt_fill(beta, RT * RH, 215, 0.5f);
    for (int i = 0; i < RT * RH; i++) beta[i] += 0.5f;
    delta_rule(q, k, v, g, beta, RT, RH, D, D, S, out);
    pt_out_floats("out", out, RT * RH * D);
    pt_out_floats("S", S, RH * D * D);
}

static void one_token_empty(void) {
    enum { D = 8 };
    float *q = pt_zeros(D), *k = pt_zeros(D), *v = pt_floats(D), *g = pt_zeros(1), *beta = pt_floats(1);
    float *S = pt_zeros(D * D), *out = pt_floats(D);
    q[3] = k[3] = 1.0f;
    pt_fill(v, D, 221, 2.0f);
    beta[0] = 0.75f;
    delta_rule(q, k, v, g, beta, 1, 1, D, D, S, out);
    pt_out_floats("out", out, D);
}

static void zero_q_k(void) {
    enum { ZH = 2, D = 16 };
    float *q = pt_zeros(ZH * D), *k = pt_zeros(ZH * D), *v = pt_floats(ZH * D), *g = pt_floats(ZH),
          *beta = pt_floats(ZH), *S = pt_floats(ZH * D * D), *out = pt_floats(ZH * D);
    pt_fill(v, ZH * D, 231, 1.0f);
    g[0] = -0.5f;
    g[1] = -1.5f;
    beta[0] = beta[1] = 0.5f;
    pt_fill(S, ZH * D * D, 232, 1.0f);
    delta_rule(q, k, v, g, beta, 1, ZH, D, D, S, out);
    pt_out_floats("out", out, ZH * D);
    pt_out_floats("S", S, ZH * D * D);
}

PT_RUNNER({"worked_example", worked_example}, {"book_six_writes", book_six_writes}, {"small_heads", small_heads},
          {"real_shapes", real_shapes}, {"one_token_empty", one_token_empty}, {"zero_q_k", zero_q_k},
          {"two_calls", two_calls})
