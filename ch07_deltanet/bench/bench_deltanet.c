/* bench_deltanet — how long layer 0's Gated DeltaNet takes on the book's two texts,
 * next to the same computation in PyTorch, on the same weights, in the same run.
 *
 *   make synthetic            (once: models/Qwen3.5-0.8B-synthetic, the real shapes)
 *   make bench                (or: build/ch07_deltanet/bench/bench_deltanet [--model DIR] [--no-torch])
 *
 * The inputs are the book's sentence 今天天气不错，我们去公园 and the same joined 20
 * times with 。. Token ids: the book prints 6 and 139 tokens for them with the
 * Qwen3.5 tokenizer (the book's figures); the Qwen3 tokenizer gives 7 and 159
 * (docs/tokenizer.md §6 lists those ids, which are used here; the timing depends on
 * the count, not on the ids). Both pairs of counts are measured.
 *
 * The PyTorch side is reference/bench_deltanet.py (Debian's /usr/bin/python3 with
 * python3-torch, float32, torch.set_num_threads(2): the script's default; the book's
 * scripts take half the cores, os.cpu_count() // 2, which is 2 on four cores),
 * started from here so both run on the same machine in the same run, in three
 * set-ups:
 *   1. as installed: Debian's torch does its matrix products in the system's
 *      libblas.so.3, the reference BLAS unless an optimized one is installed;
 *   2. with OpenBLAS (Debian's libopenblas0-pthread, when it is there);
 *   3. with OpenBLAS and OMP_WAIT_POLICY=PASSIVE: torch's own OpenMP threads then
 *      sleep instead of spinning while OpenBLAS's threads multiply, which matters
 *      when the two share a few cores.
 * The speed-up is against the fastest of them. Each C figure is the median (and
 * the fastest) of many runs after warm-up runs (the weights are then in the
 * caches, as they are when a layer runs inside the model).
 *
 * What bounds each case (docs/math.md §6), to read the printed figures against:
 *   long text   ≈ 3.3 GFLOP of projections: compute-bound, so the time is that
 *               over what linear_batch reaches on the machine (the GFLOP/s column);
 *               the rest of the layer (conv, norms, gates, the delta rule) adds a
 *               few milliseconds
 *   short text  the layer's ≈ 21 MB of BF16 weights, each used for 6-7 multiply-
 *               adds (126-147 MFLOP): the weights are read for little work, so
 *               the time is closer to reading them than to the multiply-adds
 * The C figure is split into the five projections alone (linear_batch) and the
 * rest.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/pool.h"
#include "qwen/deltanet.h"
#include "qwen/linear.h"
#include "qwen/model.h"
#include "tests/bench_model.h"
#include "qwen/norm.h"
#include "workbook/machine.h"
#include "workbook/sentence.h"
#include "workbook/util.h"

/* The Qwen3 tokenizer's ids for the book's sentence, and its id for 。 (docs/tokenizer.md §6). */
static const int SENTENCE[7] = {100644, 104307, 100832, 3837, 97639, 85336, 102077};
static const int FULL_STOP = 1773;

/* n ids of the sentence, joined `copies` times with 。; returns the count. */
static int make_ids(int *ids, int n, int copies) {
    int T = 0;
    for (int c = 0; c < copies; c++) {
        if (c > 0) ids[T++] = FULL_STOP;
        for (int i = 0; i < n; i++) ids[T++] = SENTENCE[i];
    }
    return T;
}

/* Median and fastest of the timed runs, in ms. */
typedef struct {
    double median, min;
} Timing;

typedef struct {
    int T;
    Timing layer, proj;   /* C: the whole layer, and its five projections alone */
    Timing torch[3];      /* PyTorch in the three set-ups; NAN: not run */
    double c_sum_abs;     /* Σ|y| of the C output */
    double torch_sum_abs; /* Σ|y| of PyTorch's output (NAN: not run) */
} Row;

static Timing summarize(double *ms, int n) {
    Timing t = {median(ms, n), ms[0]}; /* median() sorts */
    return t;
}

/* The layer on x [T, hidden] from an empty state, and its five projections alone. */
static void time_c(const DeltaNet *dn, const float *x, int T, Row *row) {
    const DeltaNetDims *d = &dn->d;
    const DeltaNetWeights *w = &dn->w;
    float *y = xaligned_alloc(sizeof(float) * T * d->hidden);
    DeltaNetActs a;
    DeltaNetState st;
    dn_acts_init(&a, d, T);
    dn_state_init(&st, d);
    int reps = T > 64 ? 50 : 300, warm = T > 64 ? 3 : 20;
    double *ms = xmalloc(sizeof(double) * reps);
    for (int r = -warm; r < reps; r++) {
        dn_state_reset(&st);
        double t0 = now_seconds();
        dn_forward(dn, &a, x, T, &st, y, PATH_FAST);
        if (r >= 0) ms[r] = (now_seconds() - t0) * 1e3;
    }
    row->layer = summarize(ms, reps);
    row->c_sum_abs = 0;
    for (int64_t i = 0; i < (int64_t)T * d->hidden; i++) row->c_sum_abs += fabs(y[i]);
    for (int r = -warm; r < reps; r++) {
        double t0 = now_seconds();
        linear_batch(x, w->in_proj_qkv, T, a.qkv);
        linear_batch(x, w->in_proj_z, T, a.z);
        linear_batch(x, w->in_proj_b, T, a.beta);
        linear_batch(x, w->in_proj_a, T, a.g);
        linear_batch(a.normed, w->out_proj, T, y);
        if (r >= 0) ms[r] = (now_seconds() - t0) * 1e3;
    }
    row->proj = summarize(ms, reps);
    free(ms);
    free(y);
    dn_acts_free(&a);
    dn_state_free(&st);
}

/* Reading a text token by token: the time of one more token after n (ms). */
static Timing time_decode(const DeltaNet *dn, const float *x, int n) {
    const DeltaNetDims *d = &dn->d;
    float *y = xaligned_alloc(sizeof(float) * d->hidden);
    DeltaNetActs a;
    DeltaNetState st;
    dn_acts_init(&a, d, 1);
    dn_state_init(&st, d);
    double *ms = xmalloc(sizeof(double) * n);
    for (int t = 0; t < n; t++) {
        double t0 = now_seconds();
        dn_forward(dn, &a, x + (size_t)t * d->hidden, 1, &st, y, PATH_FAST);
        ms[t] = (now_seconds() - t0) * 1e3;
    }
    Timing r = summarize(ms + n / 4, n - n / 4); /* the first quarter warms up */
    free(ms), free(y);
    dn_acts_free(&a);
    dn_state_free(&st);
    return r;
}

/* Runs reference/bench_deltanet.py on the same model and token counts with the
 * environment settings env ("" for none); fills rows[].torch[which]. */
static void time_torch(const char *model, Row *rows, int n, int which, const char *env) {
    char cmd[4096];
    int o =
        snprintf(cmd, sizeof cmd, "%s /usr/bin/python3 %s/reference/bench_deltanet.py --model '%s' --counts ",
                 env, REPO_ROOT, model);
    for (int i = 0; i < n; i++)
        o += snprintf(cmd + o, sizeof cmd - (size_t)o, "%s%d", i ? "," : "", rows[i].T);
    FILE *p = popen(cmd, "r");
    if (!p) {
        fprintf(stderr, "could not start PyTorch: %s\n", cmd);
        return;
    }
    char line[1024];
    while (fgets(line, sizeof line, p)) {
        int T;
        double med, mn, sum;
        int reps;
        if (sscanf(line, "torch T=%d median_ms=%lf min_ms=%lf reps=%d sum_abs=%lf", &T, &med, &mn, &reps,
                   &sum) == 5) {
            for (int i = 0; i < n; i++)
                if (rows[i].T == T) rows[i].torch[which] = (Timing){med, mn}, rows[i].torch_sum_abs = sum;
        } else if (strncmp(line, "torch version=", 14) == 0) {
            printf("  PyTorch %d: %s%s%s", which + 1, env[0] ? env : "", env[0] ? "\n             " : "",
                   line + 6);
        } else {
            fputs(line, stderr);
        }
    }
    int rc = pclose(p);
    if (rc != 0)
        fprintf(stderr, "PyTorch benchmark exited with status %d (is python3-torch installed?)\n", rc);
}

int main(int argc, char **argv) {
    set_program_name(argv[0]);
    const char *model = REPO_ROOT "/" BENCH_MODEL_DIR;
    bool torch = true;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--model") == 0 && i + 1 < argc)
            model = argv[++i];
        else if (strcmp(argv[i], "--no-torch") == 0)
            torch = false;
        else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: %s [--model DIR] [--no-torch]\n"
                   "Times layer 0's Gated DeltaNet on 6, 7, 139 and 159 tokens, and the same in PyTorch.\n"
                   "DIR defaults to models/Qwen3.5-0.8B-synthetic (make synthetic).\n",
                   program_name());
            return 0;
        } else
            die("unknown option '%s' (see --help)", argv[i]);
    }
    Model m;
    if (!bench_open_model(&m, model)) return 0;
    const Config *c = &m.ck.config;
    int layer = 0;
    if (m.layers[layer].type != LAYER_LINEAR_ATTENTION) die("%s: layer 0 is not a DeltaNet layer", model);
    const DeltaNet *dn = &m.layers[layer].linear_attn;
    int H = c->hidden_size;

    /* 6 / 139: the book's counts; 7 / 159: the Qwen3 tokenizer's. */
    Row rows[4];
    int shapes[4][2] = {{6, 1}, {7, 1}, {6, 20}, {7, 20}};
    int ids[7 * 20 + 19];
    float *long_x = NULL;
    printf("Gated DeltaNet, layer 0 of %s\n  C: %d threads, linear kernels: %s\n", model, pool_threads(),
           linear_kernel_name());
    for (int i = 0; i < 4; i++) {
        int T = make_ids(ids, shapes[i][0], shapes[i][1]);
        for (int t = 0; t < T; t++)
            if (ids[t] >= c->vocab_size)
                die("%s: token id %d beyond the vocabulary (%d)", model, ids[t], c->vocab_size);
        float *x = xaligned_alloc(sizeof(float) * T * H); /* [T, hidden]: the layer's real input */
        float *embed = xaligned_alloc(sizeof(float) * T * H);
        Error err;
        if (!sentence_layer_input(&m, ids, T, layer, embed, x, &err)) die("%s", err.msg);
        free(embed);
        rows[i] = (Row){.T = T, .torch = {{NAN, NAN}, {NAN, NAN}, {NAN, NAN}}, .torch_sum_abs = NAN};
        time_c(dn, x, T, &rows[i]);
        if (i == 3)
            long_x = x;
        else
            free(x);
    }
    Timing decode = time_decode(dn, long_x, rows[3].T);
    free(long_x);

    /* PyTorch as installed, with OpenBLAS, and with OpenBLAS and sleeping OpenMP threads. */
    const char *openblas = "/usr/lib/x86_64-linux-gnu/openblas-pthread";
    char probe[256], env_blas[512], env_passive[600];
    snprintf(probe, sizeof probe, "%s/libblas.so.3", openblas);
    snprintf(env_blas, sizeof env_blas, "LD_LIBRARY_PATH=%s", openblas);
    snprintf(env_passive, sizeof env_passive, "LD_LIBRARY_PATH=%s OMP_WAIT_POLICY=PASSIVE", openblas);
    if (torch) {
        time_torch(model, rows, 4, 0, "");
        if (is_file(probe)) {
            time_torch(model, rows, 4, 1, env_blas);
            time_torch(model, rows, 4, 2, env_passive);
        } else {
            printf("  PyTorch 2, 3: skipped (no %s; apt-get install libopenblas0-pthread)\n", probe);
        }
    }

    /* FLOPs of the projections: 2 per weight per token. */
    const DeltaNetWeights *w = &dn->w;
    double flop_per_token = 2.0 * (double)(w->in_proj_qkv->numel + w->in_proj_z->numel + w->in_proj_b->numel +
                                           w->in_proj_a->numel + w->out_proj->numel);
    printf("\nmedian (fastest) in ms\n");
    printf("%6s  %14s  %14s  %6s  %7s  %17s  %15s  %15s  %13s\n", "tokens", "C layer", "C projections",
           "C rest", "GFLOP/s", "PyTorch 1", "PyTorch 2", "PyTorch 3", "C speed-up");
    for (int i = 0; i < 4; i++) {
        Row *r = &rows[i];
        char cell[5][40];
        snprintf(cell[0], sizeof cell[0], "%.2f (%.2f)", r->layer.median, r->layer.min);
        snprintf(cell[1], sizeof cell[1], "%.2f (%.2f)", r->proj.median, r->proj.min);
        int best = -1; /* the fastest PyTorch set-up (by median) */
        for (int k = 0; k < 3; k++) {
            if (isnan(r->torch[k].median))
                snprintf(cell[2 + k], sizeof cell[2 + k], "-");
            else
                snprintf(cell[2 + k], sizeof cell[2 + k], "%.1f (%.1f)", r->torch[k].median, r->torch[k].min);
            if (!isnan(r->torch[k].median) && (best < 0 || r->torch[k].median < r->torch[best].median))
                best = k;
        }
        printf("%6d  %14s  %14s  %6.2f  %7.1f  %17s  %15s  %15s", r->T, cell[0], cell[1],
               r->layer.median - r->proj.median, flop_per_token * r->T / (r->proj.median * 1e6), cell[2],
               cell[3], cell[4]);
        if (best < 0)
            printf("  %13s\n", "-");
        else
            printf("  %5.1fx (%.1fx)\n", r->torch[best].median / r->layer.median,
                   r->torch[best].min / r->layer.min);
    }
    /* Both sides computed the same layer: Σ|y| agrees to float32 rounding. */
    for (int i = 0; i < 4; i++)
        if (!isnan(rows[i].torch_sum_abs))
            printf("%s%d tokens %.2g",
                   i ? ", " : "same output (relative difference of Σ|y|, C vs PyTorch): ", rows[i].T,
                   fabs(rows[i].c_sum_abs - rows[i].torch_sum_abs) / rows[i].torch_sum_abs);
    if (torch) printf("\n");
    printf("one more token after %d, token by token: %.2f ms (%.2f)\n", rows[3].T, decode.median, decode.min);
    printf("speed-up: the fastest PyTorch median / the C median (fastest / fastest); goals: long text >= 3x, "
           "short "
           "text >= 10x\n");
    model_close(&m);
    return 0;
}
