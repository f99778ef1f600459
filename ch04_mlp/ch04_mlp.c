/* ch04_mlp — chapter 4: the SwiGLU MLP of layer 0 on the book's sentence.
 *
 * Takes chapter 3's result (the sentence's embedding rows through layer 0's
 * input_layernorm) and runs layer 0's MLP on it: the shapes 1024 → 3584 → 1024, the
 * parameter count, how many of the 3584 features per token SiLU nearly switches
 * off, and how large the output is next to the residual stream it is added to.
 *
 *   ./ch04_mlp [--model DIR] [--ids 1,2,3] [--dump FILE]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qwen/activations.h"
#include "qwen/mlp.h"
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
            "Chapter 4: layer 0's SwiGLU MLP, down(silu(gate(x)) * up(x)), on the book's\n"
            "sentence after input_layernorm: shapes, parameters, how many features SiLU\n"
            "nearly switches off, the scale of the output.\n" DEMO_HELP_MODEL
            "  --ids LIST         token ids instead of the book's sentence, e.g. 1,2,3\n"
            "  --dump FILE        write mlp.x, mlp.gate, mlp.up, mlp.act, mlp.out (and ids)\n"
            "                     to FILE as float32 safetensors\n" DEMO_HELP_MAX_MEMORY,
            program_name());
}

int main(int argc, char **argv) {
    set_program_name(argv[0]);
    SentenceDemo demo;
    demo_start_sentence(&demo, argc, argv, false, usage);
    Error err;
    const Config *c = &demo.m.ck.config;
    int T = demo.ids.n, H = c->hidden_size, I = c->intermediate_size;
    const Mlp *mlp = &demo.m.layers[0].mlp;
    const MlpWeights *mw = &mlp->w;
    char a[512], b[64], d[64];
    /* what the run allocates for T tokens, before any of it: three [T, H] tensors, the ids, the MLP's buffers
     */
    snprintf(a, sizeof a, "the demo on %d tokens", T);
    demo_require_memory(
        size_add(floats(size_add(size_mul(3, size_mul(T, H)), T)), mlp_acts_bytes(&mlp->d, T)), a);

    DumpSet dump;
    dump_init(&dump);
    int64_t sT[1] = {T}, sTH[2] = {T, H}, sTI[2] = {T, I};
    float *ids_f = dump_buffer(&dump, "ids", 1, sT);  /* [T] */
    float *emb = dump_buffer(&dump, "embed", 2, sTH); /* [T, H] the residual stream entering layer 0 */
    float *x = dump_buffer(&dump, "mlp.x", 2, sTH);   /* [T, H] chapter 3's output: the MLP's input here */
    MlpActs acts;                                     /* gate, up, act: [T, I] each, kept after the call */
    mlp_acts_init(&acts, &mlp->d, T);
    dump_add(&dump, "mlp.gate", 2, sTI, acts.gate);
    dump_add(&dump, "mlp.up", 2, sTI, acts.up);
    dump_add(&dump, "mlp.act", 2, sTI, acts.act);
    float *out = dump_buffer(&dump, "mlp.out", 2, sTH); /* [T, H] */
    const float *gate = acts.gate, *up = acts.up, *act = acts.act;
    for (int t = 0; t < T; t++) ids_f[t] = (float)demo.ids.ids[t];
    if (!sentence_layer_input(&demo.m, demo.ids.ids, T, 0, emb, x, &err)) die("%s", err.msg);

    /* ---- the shapes and the size ---- */
    long long params = mlp_param_count(mlp);
    printf("第 0 层的 MLP（SwiGLU）：out = down_proj(silu(gate_proj(x)) · up_proj(x))\n");
    printf("  gate_proj [%lld, %lld]、up_proj [%lld, %lld]、down_proj [%lld, %lld]：%d → %d → %d，中间宽 "
           "%.1f 倍\n",
           (long long)mw->gate_proj->shape[0], (long long)mw->gate_proj->shape[1],
           (long long)mw->up_proj->shape[0], (long long)mw->up_proj->shape[1],
           (long long)mw->down_proj->shape[0], (long long)mw->down_proj->shape[1], H, I, H, (double)I / H);
    printf(
        "  参数 %.1fM（%s 个，没有偏置）；老式 MLP 两个矩阵、中间 4 倍宽，是 %.1fM，SwiGLU 多了一个门矩阵\n",
        (double)params / 1e6, py_grouped(params, b, sizeof b), 2.0 * H * 4 * H / 1e6);

    /* ---- run it ---- */
    mlp_forward(mlp, &acts, x, T, out, PATH_FAST); /* once to page the weights in from the file */
    double t0 = now_seconds();
    mlp_forward(mlp, &acts, x, T, out, PATH_FAST);
    double ms = (now_seconds() - t0) * 1000;

    printf("输入：%s %s 的词向量过 input_layernorm（第 3 章），形状 (%d, %d)\n", demo.label,
           ids_str(demo.ids.ids, T, a, sizeof a), T, H);
    size_t nTI = (size_t)T * I;
    float gmin = gate[0], gmax = gate[0];
    size_t negative = 0, nearly_off = 0;
    for (size_t i = 0; i < nTI; i++) {
        gmin = fminf(gmin, gate[i]), gmax = fmaxf(gmax, gate[i]);
        negative += gate[i] < 0;
        nearly_off += sigmoidf(gate[i]) < 0.1f; /* silu(g) = g · sigmoid(g): less than a tenth of g passes */
    }
    printf("  gate = gate_proj(x)：形状 (%d, %d)，范围 [%.3f, %.3f]，RMS %.3f；up = up_proj(x)：RMS %.3f\n",
           T, I, gmin, gmax, rms_of(gate, nTI), rms_of(up, nTI));
    printf("  silu(gate) = gate · sigmoid(gate)：%zu 个 gate 里 %s 是负的，被压进 (-0.28, 0)；"
           "%zu 个（%s）的 sigmoid(gate) < 0.1（gate < -2.2），几乎关掉\n",
           nTI, (py_format(b, sizeof b, (double)negative / nTI, ".1%"), b), nearly_off,
           (py_format(d, sizeof d, (double)nearly_off / nTI, ".1%"), d));
    printf("  act = silu(gate) · up：形状 (%d, %d)，RMS %.3f\n", T, I, rms_of(act, nTI));

    float rms_out[16];
    double mean_out = 0, mean_emb = 0;
    for (int t = 0; t < T; t++) {
        double r = rms_of(out + (size_t)t * H, H);
        if (t < 16) rms_out[t] = (float)r;
        mean_out += r / T;
        mean_emb += rms_of(emb + (size_t)t * H, H) / T;
    }
    printf("  out = down_proj(act)：形状 (%d, %d)，每个 token 的 RMS %s%s，平均 %.3f（输入 x 的 RMS 是 1）\n",
           T, H, py_rounded(rms_out, T < 16 ? T : 16, 3, a, sizeof a), T > 16 ? "……" : "", mean_out);
    printf("它要加回残差流：残差流（这里是词向量）的 RMS 平均 %.3f，MLP 这一步加上去的 RMS 平均 %.3f\n",
           mean_emb, mean_out);
    printf("%d 个 token 用时 %.1f ms（每个 token 约 %.1fM 次乘加，权重 %.1f MB 从头到尾读一遍）\n", T, ms,
           (double)params / 1e6, (double)params * dtype_size(mw->gate_proj->dtype) / 1e6);

    dump_write(&dump, demo.args.dump);
    dump_free(&dump);
    mlp_acts_free(&acts);
    demo_end_sentence(&demo);
    return 0;
}
