/* ch05_rope — chapter 5: rotary position embedding, partial, on the real config.
 *
 * Which dims of a head rotate and which do not, the 32 frequencies and their
 * wavelengths in tokens (theta from config.json, 1e7), the cos/sin table computed
 * once per position for the book's sentence, and the property RoPE is for: a
 * query and a key from the first full-attention layer, placed at different
 * positions, score the same whenever their distance is the same.
 *
 * Figures (plots/): the wavelength of every pair, and one pair turning over the
 * positions.
 *
 *   ./ch05_rope [--model DIR] [--ids 1,2,3] [--dump FILE] [--plot=png|ascii|none]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/linear.h"
#include "qwen/norm.h"
#include "qwen/rope.h"
#include "qwen/safetensors.h"
#include "qwen/weights.h"
#include "workbook/demo.h"
#include "workbook/plot.h"
#include "workbook/sentence.h"
#include "workbook/util.h"

static void usage(FILE *to) {
    fprintf(to,
            "usage: %s [--model DIR] [--ids 1,2,3] [--plot=png|ascii|none]\n"
            "          [--dump FILE] [--max-memory SIZE] [--help]\n"
            "Chapter 5: partial RoPE. Which dims rotate, the frequencies and wavelengths from\n"
            "rope_theta, the cos/sin table of the book's sentence, and a check that a rotated\n"
            "query-key score depends only on the distance between the two positions.\n" DEMO_HELP_MODEL
            "  --ids LIST         token ids instead of the book's sentence, e.g. 1,2,3\n"
            "  --dump FILE        write rope.inv_freq, rope.wavelength, rope.cos, rope.sin,\n"
            "                     the query/key used and their scores to FILE (float32\n"
            "                     safetensors)\n"
            "  --plot=MODE        png (default): plots/ch05_wavelength.png and\n"
            "                     ch05_rotation.png;\n"
            "                     ascii: the same, each figure also drawn on stderr; none\n",
            program_name());
}

/* The pairs at which positions are compared: (query position, key position). */
static const int placements[][2] = {{1, 0},       {11, 10},       {1001, 1000}, {10001, 10000}, {5, 0},
                                    {1005, 1000}, {10005, 10000}, {100, 0},     {10100, 10000}};
#define N_PLACEMENTS ((int)ARRAY_LEN(placements))

/* Score of q at position m against k at position n: (R_m q) · (R_n k) / sqrt(d),
 * split into the part of the rotated dims and the part of the others. */
static double score_at(const RopeTable *rt, const float *q, const float *k, int m, int n,
                       double *rotated_part) {
    int d = rt->head_dim;
    float *qm = xmalloc((size_t)d * sizeof(float)), *kn = xmalloc((size_t)d * sizeof(float)); /* [d] each */
    memcpy(qm, q, (size_t)d * sizeof(float));
    memcpy(kn, k, (size_t)d * sizeof(float));
    rope_apply(rt, qm, 1, m);
    rope_apply(rt, kn, 1, n);
    double rot = 0, rest = 0;
    for (int i = 0; i < d; i++) *(i < rt->rotary_dim ? &rot : &rest) += (double)qm[i] * kn[i];
    free(qm), free(kn);
    *rotated_part = rot / sqrt(d);
    return (rot + rest) / sqrt(d);
}

/* Head 0's query (of token tq) and key (of token tk) in the first full-attention
 * layer, after q_norm / k_norm and before RoPE: [head_dim] each. The input is the
 * embedding through that layer's input_layernorm, standing in for the real layer
 * input, which needs the layers before it (chapter 7). */
static int query_and_key(const Model *m, const float *emb, int tq, int tk, float *q, float *k) {
    const Config *c = &m->ck.config;
    int L = -1;
    for (int i = 0; i < c->num_hidden_layers && L < 0; i++)
        if (c->layer_types[i] == LAYER_FULL_ATTENTION) L = i;
    if (L < 0) die("%s/config.json: no full_attention layer, so no query and key to rotate", m->ck.dir);
    const Layer *lw = &m->layers[L];
    const AttnWeights *aw = &lw->self_attn.w;
    int H = c->hidden_size, d = c->head_dim;
    float *x = xmalloc((size_t)H * sizeof(float)); /* [H] */
    /* [heads · 2d]: per head d query values, then d gate values */
    float *qg = xmalloc((size_t)aw->q_proj->shape[0] * sizeof(float));
    float *kv = xmalloc((size_t)aw->k_proj->shape[0] * sizeof(float)); /* [kv_heads · d] */
    rmsnorm(emb + (size_t)tq * H, lw->input_layernorm, 1, H, (float)c->rms_norm_eps, x);
    linear(x, aw->q_proj, qg);
    memcpy(q, qg, (size_t)d * sizeof(float)); /* head 0's query (its gate follows) */
    rmsnorm(emb + (size_t)tk * H, lw->input_layernorm, 1, H, (float)c->rms_norm_eps, x);
    linear(x, aw->k_proj, kv);
    memcpy(k, kv, (size_t)d * sizeof(float)); /* kv head 0 */
    rmsnorm(q, aw->q_norm, 1, d, (float)c->rms_norm_eps, q);
    rmsnorm(k, aw->k_norm, 1, d, (float)c->rms_norm_eps, k);
    free(x), free(qg), free(kv);
    return L;
}

static void plot_wavelengths(const RopeTable *rt, int context, const PlotOptions *opt) {
    int half = rt->half;
    double *pair = xmalloc((size_t)half * sizeof(double)), *wave = xmalloc((size_t)half * sizeof(double));
    for (int i = 0; i < half; i++) pair[i] = i, wave[i] = 2 * M_PI / rt->inv_freq[i];
    char extra[256];
    snprintf(extra, sizeof extra,
             "set arrow from graph 0, first %d to graph 1, first %d nohead dashtype 2\n"
             "set label '上下文长度 %d' at graph 0.03, first %g",
             context, context, context, context * 2.2);
    PlotSeries s = {"波长 2π / inv_freq[i]", pair, wave, half, PLOT_LINESPOINTS, "#1f77b4"};
    char title[128], xlabel[96];
    snprintf(title, sizeof title, "RoPE：%d 对各要多少个 token 才转满一圈（theta = %g）", half, rt->theta);
    snprintf(xlabel, sizeof xlabel, "第 i 对（第 i 维和第 i + %d 维）", half);
    Plot p = {.name = "ch05_wavelength",
              .title = title,
              .xlabel = xlabel,
              .ylabel = "波长（多少个 token，对数刻度）",
              .logy = true,
              .xmin = -0.5,
              .xmax = half - 0.5,
              .key = "top left",
              .extra = context > 0 ? extra : NULL};
    plot_lines(&p, &s, 1, opt);
    free(pair), free(wave);
}

/* The first component of pair i's vector (1, 0) rotated to position p, cos(p · inv_freq[i]),
 * for three pairs: a smooth curve over every real p, and dots at the token positions
 * (a token only ever sits at a whole p). */
static void plot_rotation(const RopeTable *rt, const PlotOptions *opt) {
    enum { N = 64, FINE = 10 * N + 1, MAX_PAIRS = 3 };
    int step = rt->half >= 16 ? rt->half / 8 : 1; /* pairs 0, 4, 8 of the 32 */
    int PAIRS = rt->half < MAX_PAIRS ? rt->half : MAX_PAIRS;
    const int pairs[MAX_PAIRS] = {0, step, 2 * step};
    static const char *colors[MAX_PAIRS] = {"#1f77b4", "#d95f02", "#1b9e77"};
    static double fine_p[FINE], fine_c[MAX_PAIRS][FINE], pos[N + 1], dots[MAX_PAIRS][N + 1];
    char titles[MAX_PAIRS][128];
    PlotSeries s[2 * MAX_PAIRS];
    for (int j = 0; j < PAIRS; j++) {
        double f = rt->inv_freq[pairs[j]];
        for (int i = 0; i < FINE; i++) fine_p[i] = i / 10.0, fine_c[j][i] = cos(fine_p[i] * f);
        for (int p = 0; p <= N; p++) pos[p] = p, dots[j][p] = rope_cos(rt, p)[pairs[j]];
        snprintf(titles[j], sizeof titles[j], "第 %d 对：cos(p · %.3g)，每 %.3g 个 token 转一圈", pairs[j], f,
                 2 * M_PI / f);
        s[2 * j] = (PlotSeries){titles[j], fine_p, fine_c[j], FINE, PLOT_LINES, colors[j]};
        s[2 * j + 1] = (PlotSeries){NULL, pos, dots[j], N + 1, PLOT_POINTS, colors[j]};
    }
    Plot p = {.name = "ch05_rotation",
              .title = "第 i 对的向量 (1, 0) 转到位置 p：它的第一个分量（圆点：token 所在的位置）",
              .xlabel = "位置 p",
              .ylabel = "cos(p · inv_freq[i])",
              .xmin = 0,
              .xmax = N,
              .ymin = -1.15,
              .ymax = 1.75,
              .key = "top right"};
    plot_lines(&p, s, 2 * PAIRS, opt);
}

int main(int argc, char **argv) {
    set_program_name(argv[0]);
    SentenceDemo demo;
    demo_start_sentence(&demo, argc, argv, true, usage);
    Error err;
    const Config *c = &demo.m.ck.config;
    int T = demo.ids.n, H = c->hidden_size, d = c->head_dim;

    /* one table for everything below: the sentence's positions and the far placements */
    int n_pos = T;
    for (int i = 0; i < N_PLACEMENTS; i++)
        n_pos = placements[i][0] + 1 > n_pos ? placements[i][0] + 1 : n_pos;
    /* what the run allocates, before any of it: the table, [T, H] embedding rows, the dumped cos/sin [T,
     * half] */
    char what[64];
    snprintf(what, sizeof what, "the demo on %d tokens", T);
    uint64_t half_dims = (uint64_t)c->rotary_dim / 2;
    demo_require_memory(size_add(rope_table_bytes(c->rotary_dim, n_pos),
                                 floats(size_add(size_mul(T, H), size_mul(size_add(2 * half_dims, 1), T)))),
                        what);
    RopeTable rt;
    rope_init_config(&rt, c, n_pos);
    int half = rt.half;

    DumpSet dump;
    dump_init(&dump);
    int64_t sT[1] = {T}, sHalf[1] = {half}, sTHalf[2] = {T, half}, sD[1] = {d}, sP[1] = {N_PLACEMENTS};
    float *ids_f = dump_buffer(&dump, "ids", 1, sT);                      /* [T] */
    float *inv_freq = dump_buffer(&dump, "rope.inv_freq", 1, sHalf);      /* [half] */
    float *wavelength = dump_buffer(&dump, "rope.wavelength", 1, sHalf);  /* [half] */
    float *cos_t = dump_buffer(&dump, "rope.cos", 2, sTHalf);             /* [T, half] */
    float *sin_t = dump_buffer(&dump, "rope.sin", 2, sTHalf);             /* [T, half] */
    float *q = dump_buffer(&dump, "rope_check.q", 1, sD);                 /* [d] before RoPE */
    float *k = dump_buffer(&dump, "rope_check.k", 1, sD);                 /* [d] before RoPE */
    float *scores = dump_buffer(&dump, "rope_check.score", 1, sP);        /* [placements] */
    float *qpos = dump_buffer(&dump, "rope_check.query_position", 1, sP); /* [placements] */
    float *kpos = dump_buffer(&dump, "rope_check.key_position", 1, sP);   /* [placements] */
    for (int t = 0; t < T; t++) ids_f[t] = (float)demo.ids.ids[t];

    /* ---- 1. which dims rotate ---- */
    printf("RoPE 只转每个头的一部分：head_dim %d × partial_rotary_factor %g = 前 %d 维转，后 %d 维原样不动\n",
           d, c->partial_rotary_factor, rt.rotary_dim, d - rt.rotary_dim);
    printf("  %d 维配成 %d 对，rotate-half：第 i 维和第 i + %d 维是一对（不是相邻的两维），i = 0..%d\n",
           rt.rotary_dim, half, half, half - 1);
    printf("  位置 p 上第 i 对转 p · inv_freq[i] 弧度，inv_freq[i] = %.0f^(-2i/%d)\n", rt.theta,
           rt.rotary_dim);

    /* ---- 2. the frequencies and wavelengths ---- */
    printf("%d 对的频率（弧度/token）和波长 2π / inv_freq（转一整圈要多少个 token）：\n", half);
    for (int i = 0; i < half; i++) {
        inv_freq[i] = (float)rt.inv_freq[i];
        wavelength[i] = (float)(2 * M_PI / rt.inv_freq[i]);
    }
    int rows = (half + 1) / 2;
    for (int r = 0; r < rows; r++) {
        printf("  第 %2d 对 %-9.3g 波长 %-9.3g", r, rt.inv_freq[r], 2 * M_PI / rt.inv_freq[r]);
        if (r + rows < half)
            printf("    第 %2d 对 %-9.3g 波长 %.3g", r + rows, rt.inv_freq[r + rows],
                   2 * M_PI / rt.inv_freq[r + rows]);
        printf("\n");
    }
    int context = c->max_position_embeddings, beyond = 0;
    for (int i = 0; i < half; i++) beyond += context > 0 && 2 * M_PI / rt.inv_freq[i] > context;
    printf("最快的一对每 %.2f 个 token 转一圈，最慢的一对要 %.3g 个", 2 * M_PI / rt.inv_freq[0],
           2 * M_PI / rt.inv_freq[half - 1]);
    if (context > 0)
        printf("；波长超过上下文长度 %d 的有 %d 对，它们在整段上下文里都转不满一圈", context, beyond);
    printf("\n");

    /* ---- 3. one table per position, shared by every head ---- */
    for (int t = 0; t < T; t++) {
        memcpy(cos_t + (size_t)t * half, rope_cos(&rt, t), (size_t)half * sizeof(float));
        memcpy(sin_t + (size_t)t * half, rope_sin(&rt, t), (size_t)half * sizeof(float));
    }
    printf("cos、sin 每个位置只算一次：%s 在位置 0..%d，表的形状 (%d, %d)，%d 个 query 头和 %d 个 key "
           "头共用这一张\n",
           demo.label, T - 1, T, half, c->num_attention_heads, c->num_key_value_heads);

    /* ---- 4. only the distance counts ---- */
    float *emb = xmalloc((size_t)T * H * sizeof(float)); /* [T, H] */
    if (!sentence_embed(&demo.m, demo.ids.ids, T, emb, &err)) die("%s", err.msg);
    int tq = T > 1 ? 1 : 0;
    int L = query_and_key(&demo.m, emb, tq, 0, q, k);
    printf("只看距离：第 %d 层（第一个全注意力层）给第 %d 个 token 算出 query（头 0）、给第 0 个 token 算出 "
           "key（KV 头 0），"
           "放到不同位置上打分 q·k / sqrt(%d)：\n",
           L, tq, d);
    double same_distance_spread = 0;
    for (int i = 0; i < N_PLACEMENTS; i++) {
        int m = placements[i][0], n = placements[i][1];
        double rotated;
        double s = score_at(&rt, q, k, m, n, &rotated);
        scores[i] = (float)s, qpos[i] = (float)m, kpos[i] = (float)n;
        printf("  q 在位置 %d，k 在位置 %d（距离 %d）：%.4f（其中转的 %d 维贡献 %.4f）\n", m, n, m - n, s,
               rt.rotary_dim, rotated);
        for (int j = 0; j < i; j++)
            if (placements[j][0] - placements[j][1] == m - n)
                same_distance_spread = fmax(same_distance_spread, fabs((double)scores[j] - s));
    }
    double rest = 0;
    for (int i = rt.rotary_dim; i < d; i++) rest += (double)q[i] * k[i];
    printf("距离相同的几行分数一样（最大相差 %.1e，只是 float32 的舍入）；不转的 %d 维贡献永远是 %.4f，"
           "位置只通过转的 %d 维进来\n",
           same_distance_spread, d - rt.rotary_dim, rest / sqrt(d), rt.rotary_dim);

    fflush(stdout);
    if (demo.args.plot != PLOT_NONE) {
        PlotOptions po = {.mode = demo.args.plot};
        plot_wavelengths(&rt, context, &po);
        plot_rotation(&rt, &po);
    }
    dump_write(&dump, demo.args.dump);
    dump_free(&dump);
    free(emb);
    rope_free(&rt);
    demo_end_sentence(&demo);
    return 0;
}
