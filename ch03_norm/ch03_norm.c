/* ch03_norm — chapter 3: RMSNorm, on the layer-0 input of the book's sentence.
 *
 * Looks up the sentence's embedding rows (the input of layer 0), measures every
 * token's root-mean-square before and after input_layernorm, shows what the stored
 * weight w looks like (an offset centred on 0) and what the 1 + w it really
 * multiplies by does, and what forgetting the "1 +" would do. Then the two other
 * norms of the model on small examples: the gated RMSNorm at the DeltaNet's output
 * and the l2norm of its q and k.
 *
 *   ./ch03_norm [--model DIR] [--ids 1,2,3] [--dump FILE]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/activations.h"
#include "qwen/norm.h"
#include "qwen/safetensors.h"
#include "qwen/weights.h"
#include "workbook/demo.h"
#include "workbook/pyfmt.h"
#include "workbook/sentence.h"
#include "workbook/util.h"

static void usage(FILE *to) {
    fprintf(to,
            "usage: %s [--model DIR] [--ids 1,2,3] [--dump FILE] [--max-memory SIZE]\n"
            "          [--help]\n"
            "Chapter 3: the layer-0 input of the book's sentence before and after\n"
            "input_layernorm (per-token RMS, the stored weight w and the 1 + w it scales by),\n"
            "then the gated RMSNorm and l2norm on small examples.\n" DEMO_HELP_MODEL
            "  --ids LIST         token ids instead of the book's sentence, e.g. 1,2,3\n"
            "  --dump FILE        write what the demo computed (embed, layer.0.input_norm,\n"
            "                     ...) to FILE as float32 safetensors\n" DEMO_HELP_MAX_MEMORY,
            program_name());
}

/* Euclidean length sqrt(Σx²) = rms · sqrt(n). */
static double length_of(const float *x, int n) { return rms_of(x, n) * sqrt(n); }

/* A weight vector the norm functions accept, for the hand-made examples. */
static Tensor f32_weight(const char *name, const float *values, int n) {
    Tensor t = {.name = name, .dtype = DTYPE_F32, .ndim = 1, .numel = n, .data = values, .file = "(example)"};
    t.shape[0] = n;
    return t;
}

int main(int argc, char **argv) {
    set_program_name(argv[0]);
    SentenceDemo demo;
    demo_start_sentence(&demo, argc, argv, false, usage);
    Error err;
    const Config *c = &demo.m.ck.config;
    int T = demo.ids.n, H = c->hidden_size;
    float eps = (float)c->rms_norm_eps;
    /* what the run allocates for T tokens, before any of it: four [T, H] tensors, three [T], two [H] */
    char what[64];
    snprintf(what, sizeof what, "the demo on %d tokens", T);
    demo_require_memory(
        floats(size_add(size_mul(4, size_mul(T, H)), size_add(size_mul(3, T), size_mul(2, H)))), what);
    DumpSet dump;
    dump_init(&dump);
    char a[512], b[512];
    int64_t sT[1] = {T}, sTH[2] = {T, H}, s4[1] = {4}, s32[2] = {3, 2};

    /* ---- 1. the layer-0 input, before and after input_layernorm ---- */
    float *ids_f = dump_buffer(&dump, "ids", 1, sT);             /* [T] */
    float *x = dump_buffer(&dump, "embed", 2, sTH);              /* [T, H] the embedding rows */
    float *y = dump_buffer(&dump, "layer.0.input_norm", 2, sTH); /* [T, H] x / rms(x) · (1 + w) */
    float *unit = dump_buffer(&dump, "layer.0.input_norm.unscaled", 2, sTH); /* [T, H] x / rms(x) only */
    /* [T, H] x / rms(x) · w: the classic bug, for comparison */
    float *wrong = dump_buffer(&dump, "layer.0.input_norm.without_one_plus", 2, sTH);
    float *rms_before = dump_buffer(&dump, "layer.0.input_norm.rms_before", 1, sT); /* [T] */
    float *rms_after = dump_buffer(&dump, "layer.0.input_norm.rms_after", 1, sT);   /* [T] */
    for (int t = 0; t < T; t++) ids_f[t] = (float)demo.ids.ids[t];
    if (!sentence_embed(&demo.m, demo.ids.ids, T, x, &err)) die("%s", err.msg);
    const Tensor *w_in = demo.m.layers[0].input_layernorm; /* [H], stored centred on 0 */
    float *zeros = xcalloc((size_t)H, sizeof(float));
    Tensor no_scale = f32_weight("w = 0", zeros, H);
    rmsnorm(x, &no_scale, T, H, eps, unit); /* w = 0: the scale 1 + w is 1, nothing but the division */
    rmsnorm(x, w_in, T, H, eps, y);

    printf("第 0 层的输入：%s %s，查词向量得到形状 (%d, %d)\n", demo.label,
           ids_str(demo.ids.ids, T, a, sizeof a), T, H);
    printf("RMSNorm：y = x / sqrt(mean(x²) + %g) · (1 + w)。每个 token 的均方根 RMS = sqrt(mean(x²))：\n",
           c->rms_norm_eps);
    int shown = T <= 16 ? T : 12;
    for (int t = 0; t < T; t++) {
        rms_before[t] = (float)rms_of(x + (size_t)t * H, H);
        rms_after[t] = (float)rms_of(y + (size_t)t * H, H);
        if (t < shown)
            printf("  token %d（id %d）：归一化前 %.4f，除以 RMS 之后 %.4f，再乘 (1 + w) 之后 %.4f\n", t,
                   demo.ids.ids[t], rms_before[t], rms_of(unit + (size_t)t * H, H), rms_after[t]);
    }
    if (shown < T) printf("  ……共 %d 个 token，后面 %d 个从略\n", T, T - shown);

    /* ---- 2. the stored weight and what 1 + w does ---- */
    float *w = xmalloc((size_t)H * sizeof(float)); /* [H] */
    tensor_read_f32(w_in, 0, H, w);
    double sum = 0, sq = 0;
    int lo = 0, hi = 0, grow = 0, shrink = 0;
    for (int i = 0; i < H; i++) {
        sum += w[i], sq += (double)w[i] * w[i];
        if (w[i] < w[lo]) lo = i;
        if (w[i] > w[hi]) hi = i;
        grow += w[i] > 0, shrink += w[i] < 0;
    }
    double mean = sum / H, sd = sqrt(fmax(sq / H - mean * mean, 0));
    printf("input_layernorm.weight 存的是 w（%s，%d 个数）：均值 %.4f，标准差 %.4f，范围 [%.4f, %.4f]——"
           "存的是相对 1 的偏移，w = 0 就是不缩放\n",
           dtype_name(w_in->dtype), H, mean, sd, w[lo], w[hi]);
    printf("真正乘上去的是 1 + w：%d 维放大、%d 维缩小；放得最大的是第 %d 维（× %.4f），压得最狠的是第 %d "
           "维（× %.4f）\n",
           grow, shrink, hi, 1.0 + w[hi], lo, 1.0 + w[lo]);
    /* the bug: scaling by w itself */
    double cos_sum = 0, rms_wrong = 0;
    for (int t = 0; t < T; t++) {
        const float *u = unit + (size_t)t * H, *yt = y + (size_t)t * H;
        float *bad = wrong + (size_t)t * H;
        double dot = 0, n1 = 0, n2 = 0;
        for (int i = 0; i < H; i++) {
            bad[i] = u[i] * w[i];
            dot += (double)bad[i] * yt[i], n1 += (double)bad[i] * bad[i], n2 += (double)yt[i] * yt[i];
        }
        cos_sum += n1 > 0 && n2 > 0 ? dot / sqrt(n1 * n2) : 0;
        rms_wrong += rms_of(bad, H);
    }
    double rms_right = 0;
    for (int t = 0; t < T; t++) rms_right += rms_after[t];
    printf(
        "忘了「1 +」、直接乘 w：输出的 RMS 平均只有 %.4f（正确的是 %.4f），和正确输出的余弦相似度平均 %.4f\n",
        rms_wrong / T, rms_right / T, cos_sum / T);

    /* ---- 3. the gated RMSNorm (DeltaNet output), on a small example ---- */
    printf(
        "门控归一化 y = w · (x / rms(x)) · silu(z)：第 7 章 Gated DeltaNet 的输出用它，w 直接乘，不加 1\n");
    int first_linear = -1;
    for (int i = 0; i < c->num_hidden_layers && first_linear < 0; i++)
        if (c->layer_types[i] == LAYER_LINEAR_ATTENTION) first_linear = i;
    if (first_linear >= 0) {
        const Tensor *gw = demo.m.layers[first_linear].linear_attn.w.norm; /* [dv], F32 in the real file */
        int n = (int)gw->numel;
        float *g = xmalloc((size_t)n * sizeof(float));
        tensor_read_f32(gw, 0, n, g);
        double gs = 0;
        float gmin = g[0], gmax = g[0];
        for (int i = 0; i < n; i++) gs += g[i], gmin = fminf(gmin, g[i]), gmax = fmaxf(gmax, g[i]);
        printf(
            "  第 %d 层的 linear_attn.norm.weight（%s，%d 个数，%d 个头共用）：均值 %.4f，范围 [%.4f, %.4f]"
            "——存的就是缩放本身\n",
            first_linear, dtype_name(gw->dtype), n, c->linear_num_value_heads, gs / n, gmin, gmax);
        free(g);
    }
    float *gx = dump_buffer(&dump, "gated_example.x", 1, s4),
          *gz = dump_buffer(&dump, "gated_example.z", 1, s4);
    float *gy = dump_buffer(&dump, "gated_example.out", 1, s4);
    float gnorm[4], gsilu[4];
    const float ex_x[4] = {2, -4, 4, -8}, ex_z[4] = {-4, -1, 0, 4}, ones[4] = {1, 1, 1, 1};
    memcpy(gx, ex_x, sizeof ex_x);
    memcpy(gz, ex_z, sizeof ex_z);
    Tensor ex_zero = f32_weight("w = 0", zeros, 4), ex_ones = f32_weight("w = 1", ones, 4);
    rmsnorm(gx, &ex_zero, 1, 4, eps, gnorm);
    for (int i = 0; i < 4; i++) gsilu[i] = siluf(gz[i]);
    gated_rmsnorm(gx, gz, &ex_ones, 1, 4, eps, gy);
    printf("  x = %s，除以 RMS（%.1f）后 %s\n", py_rounded(gx, 4, 3, a, sizeof a), rms_of(gx, 4),
           py_rounded(gnorm, 4, 3, b, sizeof b));
    printf("  z = %s，silu(z) = %s：z 很负时门几乎关上，z = 0 时正好关上，z 大时约等于 z（放行还放大）\n",
           py_rounded(gz, 4, 3, a, sizeof a), py_rounded(gsilu, 4, 3, b, sizeof b));
    printf("  w = 1 时输出 %s\n", py_rounded(gy, 4, 3, a, sizeof a));

    /* ---- 4. l2norm (DeltaNet q and k), on small examples ---- */
    printf("l2norm y = x / sqrt(Σx² + 1e-6)：第 7 章 q、k 用它，把每个头变成单位长度\n");
    float *lx = dump_buffer(&dump, "l2norm_example.x", 2, s32);   /* [3, 2] */
    float *ly = dump_buffer(&dump, "l2norm_example.out", 2, s32); /* [3, 2] */
    const float ex_l[6] = {3, 4, 0.3f, -0.4f, 0, 0};
    memcpy(lx, ex_l, sizeof ex_l);
    l2norm(lx, 3, 2, L2NORM_EPS, ly);
    for (int r = 0; r < 3; r++)
        printf("  %s → %s，长度 %.4f%s\n", py_rounded(lx + 2 * r, 2, 3, a, sizeof a),
               py_rounded(ly + 2 * r, 2, 4, b, sizeof b), length_of(ly + 2 * r, 2),
               r == 2 ? "（全零向量不会除出 nan：eps 兜底）" : "");
    float l4[4];
    l2norm(gx, 1, 4, L2NORM_EPS, l4);
    printf("  同一个 x = %s：RMSNorm（w = 0）之后长度 %.4f = sqrt(4)，l2norm 之后长度 %.4f——两者只差一个 "
           "sqrt(n)\n",
           py_rounded(gx, 4, 3, a, sizeof a), length_of(gnorm, 4), length_of(l4, 4));

    dump_write(&dump, demo.args.dump);
    dump_free(&dump);
    free(w);
    free(zeros);
    demo_end_sentence(&demo);
    return 0;
}
