/* Exercise 262 (gated GQA attention), the runner: each case's inputs, the call, the
 * outputs handed back. The checker (check.c) holds what they should be. */
#include "ptest_run.h"
#include "gated_attention.h"

static void worked_example(void) {
    const float c = 1.55367239842f, g = 1.09861228867f;
    const float qg0[16] = {1, 0, 0, 0, 0, 1, g, -g, 0, c, 0, 0, 0, 0, g, -g};
    const float k0[4] = {1, 0, 0, 1}, v0[4] = {1, 2, 3, 4};
    float *qg = pt_copy(qg0, 16), *k = pt_copy(k0, 4), *v = pt_copy(v0, 4), *out = pt_floats(8);
    gated_attention(qg, k, v, 2, 2, 1, 2, out);
    pt_out_floats("out", out, 8);
}

/* qg, k drawn with seeds seed, seed + 1 times scale; v with seed + 2 */
static void run(int T, int nh, int nkv, int hd, uint32_t seed, float scale) {
    size_t nq = (size_t)T * nh * 2 * hd, nk = (size_t)T * nkv * hd;
    float *qg = pt_floats(nq), *k = pt_floats(nk), *v = pt_floats(nk), *out = pt_floats((size_t)T * nh * hd);
    pt_fill(qg, nq, seed, scale);
    pt_fill(k, nk, seed + 1, scale);
    pt_fill(v, nk, seed + 2, 1.0f);
    gated_attention(qg, k, v, T, nh, nkv, hd, out);
    pt_out_floats("out", out, (size_t)T * nh * hd);
}

static void real_shape(void) { run(6, 8, 2, 256, 91, 1.0f); }
static void plain_mha(void) { run(5, 4, 4, 32, 94, 1.0f); }
static void large_scores(void) { run(4, 2, 1, 64, 97, 20.0f); }
static void one_token(void) { run(1, 8, 2, 256, 101, 2.0f); }

PT_RUNNER({"worked_example", worked_example}, {"real_shape", real_shape}, {"plain_mha", plain_mha},
          {"large_scores", large_scores}, {"one_token", one_token})
