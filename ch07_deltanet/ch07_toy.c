/* ch07_toy.c — chapter 7, part one: the memory table by hand, and how much it holds.
 *
 * The C twin of the book's ch07_toy.py; stdout is the book's printed block, line
 * for line:
 *
 *   1. A 2-dimensional table S written with two outer products (write = S += k vᵀ)
 *      and read with three queries (read = Sᵀq).
 *   2. k1 must now hold (5, 0): plain linear attention piles the new value on the
 *      old one, DeltaNet looks k1 up first and writes only the difference, Gated
 *      DeltaNet also multiplies the whole table by α = 0.5 first.
 *   3. How fast old content fades when every step multiplies it by α.
 *   4. Capacity: a 128 × 128 table filled with n (k, v) pairs, then every pair read
 *      back with its own key. 128 orthogonal keys come back perfectly; 256 and 1024
 *      random unit keys do not, and the delta rule keeps the recent ones best.
 *
 * Part 4 draws its keys and values from PyTorch's random stream after
 * torch.manual_seed(0) (common/workbook/torch_rng.h), so its percentages are the book's.
 * Figures (plots/): the decay curves, the error against the number of pairs, and
 * the error of each pair by when it was written.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workbook/demo.h"
#include "workbook/linalg.h"
#include "workbook/plot.h"
#include "workbook/pyfmt.h"
#include "workbook/torch_rng.h"
#include "workbook/util.h"

#define D    2   /* parts 1-2: the hand-sized table is [2, 2] */
#define DK   128 /* part 4: key and value size of one Qwen3.5 head, the table is [128, 128] */
#define ENDS 16  /* part 4 looks at the 16 pairs written last and first */

/* ---- parts 1-3: the table by hand --------------------------------------------- */

#define LIST_MAX 96

/* The book's r(t): each value rounded to 3 decimals, printed as a Python list. */
static const char *r(char buf[LIST_MAX], const float *t, int n) {
    py_repr_rounded(buf, LIST_MAX, t, n, 3);
    return buf;
}

/* Reading: o = Sᵀq, printed the book's way. */
static const char *read_r(char buf[LIST_MAX], const float *S, const float *q) {
    float o[D];
    la_matvec_t(o, S, D, D, q);
    return r(buf, o, D);
}

static void parts_1_to_3(void) {
    char a[LIST_MAX], b[LIST_MAX];
    const float k1[D] = {1, 0}, k2[D] = {0, 1}, v1[D] = {3, 1}, v2[D] = {-1, 2};

    /* 1. write: each outer product k vᵀ stores v in the row of k */
    float S[D * D]; /* [2, 2] */
    la_outer(S, k1, D, v1, D);
    la_add_outer(S, 1.0f, k2, D, v2, D);
    printf("1. 写入 k1 → [3, 1]、k2 → [-1, 2] 之后，表 S = [%s, %s]\n", r(a, S, D), r(b, S + D, D));
    const float q3[D] = {0.6f, 0.8f};
    const float *queries[3] = {k1, k2, q3};
    for (int i = 0; i < 3; i++) /* read: o = Sᵀq */
        printf("   用 q = %s 去读：Sᵀq = %s\n", r(a, queries[i], D), read_r(b, S, queries[i]));

    /* 2. k1 should now hold (5, 0) */
    const float v_new[D] = {5, 0};
    float linear[D * D], delta[D * D], gated[D * D], pred[D], diff[D]; /* [2, 2] tables, [2] vectors */
    memcpy(linear, S, sizeof S);
    la_add_outer(linear, 1.0f, k1, D, v_new, D); /* linear attention: just add it on top */

    memcpy(delta, S, sizeof S); /* DeltaNet: look k1 up, write only the difference (β = 1) */
    la_matvec_t(pred, S, D, D, k1);
    for (int j = 0; j < D; j++) diff[j] = v_new[j] - pred[j];
    la_add_outer(delta, 1.0f, k1, D, diff, D);

    const float alpha = 0.5f; /* Gated DeltaNet: the whole table × α first, then as DeltaNet */
    for (int i = 0; i < D * D; i++) gated[i] = alpha * S[i];
    la_matvec_t(pred, gated, D, D, k1);
    for (int j = 0; j < D; j++) diff[j] = v_new[j] - pred[j];
    la_add_outer(gated, 1.0f, k1, D, diff, D);

    const char *names[3] = {"线性注意力", "DeltaNet", "Gated DeltaNet（α = 0.5）"};
    const float *tables[3] = {linear, delta, gated};
    for (int i = 0; i < 3; i++)
        printf("2. %s：读 k1 得 %s，读 k2 得 %s\n", names[i], read_r(a, tables[i], k1),
               read_r(b, tables[i], k2));

    /* 3. decay: content that is not written again is multiplied by α every step */
    const double alphas[3] = {1.0, 0.9, 0.5};
    for (int i = 0; i < 3; i++) {
        char text[3][PY_REPR_MAX];
        py_repr(text[0], sizeof text[0], alphas[i]);
        py_format(text[1], sizeof text[1], pow(alphas[i], 10), ".3f");
        py_format(text[2], sizeof text[2], pow(alphas[i], 50), ".3g");
        printf("3. α = %s：10 步后旧内容剩 %s，50 步后剩 %s\n", text[0], text[1], text[2]);
    }
}

/* ---- part 4: capacity -------------------------------------------------------------- */

/* The four numbers one experiment prints: mean relative read-back error of all
 * pairs with plain linear attention and with the delta rule, and the delta rule's
 * error over the 16 pairs written last and the 16 written first. */
typedef struct {
    double plain, delta, last, first;
} Capacity;

/* For the figures: errors measured after selected numbers of writes, and the
 * error of every pair at the end. All pointers may be NULL. */
typedef struct {
    const int *at; /* [npoints] measure after this many writes (increasing) */
    int npoints;
    double *plain_at;  /* [npoints] mean error of the pairs written so far */
    double *delta_at;  /* [npoints] */
    float *plain_pair; /* [n] error of each pair after all n writes */
    float *delta_pair; /* [n] */
} CapacityTrace;

/* ‖Mᵀk − v‖ / ‖v‖: how far the value read back with key k is from the v that was
 * stored with it, relative to the size of v. */
static float read_error(const float *M, const float *k, const float *v) {
    float got[DK]; /* [128] */
    la_matvec_t(got, M, DK, DK, k);
    for (int j = 0; j < DK; j++) got[j] -= v[j];
    return la_norm(got, DK) / la_norm(v, DK);
}

/* Mean read_error over pairs from..to-1 (K, V: [n, 128]); per_pair (optional)
 * receives each pair's error. */
static double mean_error(const float *M, const float *K, const float *V, int from, int to, float *per_pair) {
    double sum = 0.0;
    for (int t = from; t < to; t++) {
        float e = read_error(M, K + (size_t)t * DK, V + (size_t)t * DK);
        if (per_pair) per_pair[t] = e;
        sum += e;
    }
    return sum / (to - from);
}

/* The book's fill(K, V): write the n pairs in order into two empty tables, one
 * the plain way (S += k vᵀ), one with the delta rule (S += k (v − Sᵀk)ᵀ, β = 1),
 * then read every pair back. K and V are [n, 128]. */
static Capacity fill(const float *K, const float *V, int n, CapacityTrace *trace) {
    float *plain = xcalloc(DK * DK, sizeof *plain); /* [128, 128] */
    float *dlt = xcalloc(DK * DK, sizeof *dlt);     /* [128, 128] */
    float pred[DK], diff[DK];                       /* [128] */
    int point = 0;
    for (int t = 0; t < n; t++) {
        const float *k = K + (size_t)t * DK, *v = V + (size_t)t * DK;
        la_add_outer(plain, 1.0f, k, DK, v, DK); /* plain: add k vᵀ */
        la_matvec_t(pred, dlt, DK, DK, k);       /* delta rule: what the table holds for k … */
        for (int j = 0; j < DK; j++) diff[j] = v[j] - pred[j];
        la_add_outer(dlt, 1.0f, k, DK, diff, DK); /* … and write only the difference */
        if (trace && point < trace->npoints && trace->at[point] == t + 1) {
            /* the tables now hold exactly the first t + 1 pairs: that experiment's error */
            trace->plain_at[point] = mean_error(plain, K, V, 0, t + 1, NULL);
            trace->delta_at[point] = mean_error(dlt, K, V, 0, t + 1, NULL);
            point++;
        }
    }
    Capacity c;
    c.plain = mean_error(plain, K, V, 0, n, trace ? trace->plain_pair : NULL);
    c.delta = mean_error(dlt, K, V, 0, n, trace ? trace->delta_pair : NULL);
    c.last = mean_error(dlt, K, V, n - ENDS, n, NULL);
    c.first = mean_error(dlt, K, V, 0, ENDS, NULL);
    free(plain);
    free(dlt);
    return c;
}

/* n rows of 128 random unit keys and 128 random values, drawn as the book draws
 * them: F.normalize(torch.randn(n, dk), dim=-1), then torch.randn(n, dk). */
static void random_pairs(TorchRng *g, int n, float *K, float *V) {
    rng_randn(g, (int64_t)n * DK, K);
    for (int t = 0; t < n; t++) la_normalize(K + (size_t)t * DK, DK);
    rng_randn(g, (int64_t)n * DK, V);
}

#define N_RANDOM 2
static const int random_sizes[N_RANDOM] = {256, 1024};

/* Part 4 from torch.manual_seed(seed): result[0] for 128 orthogonal keys (the Q
 * of a QR of a random matrix), result[1], result[2] for 256 and 1024 random unit
 * keys. trace (optional) records the 1024-key experiment for the figures. */
static void capacity_experiment(uint64_t seed, RngVariant variant, Capacity result[1 + N_RANDOM],
                                CapacityTrace *trace) {
    TorchRng g;
    rng_init(&g, seed);
    g.variant = variant;
    int max_n = random_sizes[N_RANDOM - 1];
    float *K = xmalloc((size_t)max_n * DK * sizeof *K); /* [n, 128] keys, one per row */
    float *V = xmalloc((size_t)max_n * DK * sizeof *V); /* [n, 128] values */
    float *R = xmalloc((size_t)DK * DK * sizeof *R);    /* [128, 128] QR's R, unused */

    rng_randn(&g, DK * DK, V); /* Q, _ = torch.linalg.qr(torch.randn(dk, dk)) */
    la_qr(K, R, V, DK, DK);
    rng_randn(&g, DK * DK, V); /* the values */
    result[0] = fill(K, V, DK, NULL);

    for (int i = 0; i < N_RANDOM; i++) {
        int n = random_sizes[i];
        random_pairs(&g, n, K, V);
        result[1 + i] = fill(K, V, n, i == N_RANDOM - 1 ? trace : NULL);
    }
    free(K);
    free(V);
    free(R);
}

static const char *pct(char buf[PY_REPR_MAX], double x) {
    py_format(buf, PY_REPR_MAX, x, ".0%");
    return buf;
}

static void print_part_4(const Capacity result[1 + N_RANDOM]) {
    char a[PY_REPR_MAX], b[PY_REPR_MAX], c[PY_REPR_MAX], d[PY_REPR_MAX];
    printf("4. 128 个互相垂直的 key：线性注意力误差 %s，delta 规则 %s\n", pct(a, result[0].plain),
           pct(b, result[0].delta));
    for (int i = 0; i < N_RANDOM; i++) {
        const Capacity *x = &result[1 + i];
        /* the book's line, kept whole */
        /* clang-format off */
        printf("   %d 个随机 key：线性注意力误差 %s，delta 规则 %s（其中最后写的 16 个 %s，最早写的 16 个 %s）\n",
               random_sizes[i], pct(a, x->plain), pct(b, x->delta), pct(c, x->last), pct(d, x->first));
        /* clang-format on */
    }
}

/* ---- figures -------------------------------------------------------------------------- */

/* Numbers of stored pairs at which the capacity curve is measured. */
static const int curve_at[] = {16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
#define CURVE_POINTS ((int)ARRAY_LEN(curve_at))

/* One colour per write rule in every figure. */
#define COLOR_LINEAR      "#1f77b4"
#define COLOR_DELTA       "#d95f02"
#define COLOR_DELTA_LIGHT "#fdb97d"

static void plot_decay(const PlotOptions *opt) {
    enum { STEPS = 50, NA = 5 };
    static const double alphas[NA] = {1.0, 0.99, 0.9, 0.7, 0.5};
    static const char *titles[NA] = {"α = 1.0（从不忘）", "α = 0.99", "α = 0.9", "α = 0.7", "α = 0.5"};
    static const char *colors[NA] = {"#000000", "#1b9e77", "#1f77b4", "#7570b3", "#d95f02"};
    double t[STEPS + 1], y[NA][STEPS + 1];
    for (int s = 0; s <= STEPS; s++) {
        t[s] = s;
        for (int a = 0; a < NA; a++) y[a][s] = pow(alphas[a], s);
    }
    /* the six numbers part 3 prints (after 10 and 50 steps for α = 1.0, 0.9, 0.5),
     * circled and labelled as printed */
    double px[6], py[6];
    const double printed[3] = {1.0, 0.9, 0.5};
    char labels[512] = "", *l = labels;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 2; j++) {
            int steps = j ? 50 : 10;
            double v = pow(printed[i], steps);
            char text[PY_REPR_MAX];
            py_format(text, sizeof text, v, j ? ".3g" : ".3f");
            px[2 * i + j] = steps, py[2 * i + j] = v;
            /* after 50 steps: above left; after 10: above for α = 1, below otherwise */
            const char *place = j        ? "right offset -1.2, 0.9"
                                : i == 0 ? "left offset 1.2, 0.9"
                                         : "left offset 1.2, -0.9";
            l += sprintf(l, "set label '%s' at %d, %.9g %s\n", text, steps, v, place);
        }
    }
    PlotSeries series[NA + 1];
    for (int a = 0; a < NA; a++)
        series[a] = (PlotSeries){titles[a], t, y[a], STEPS + 1, PLOT_LINES, colors[a]};
    series[NA] = (PlotSeries){"第 3 段打印的数", px, py, 6, PLOT_MARKS, "#000000"};
    Plot p = {.name = "ch07_decay",
              .title = "衰减：t 步之后旧内容还剩 α^t",
              .xlabel = "上次写入之后过了多少步（t）",
              .ylabel = "旧内容还剩多少（对数刻度）",
              .logy = true,
              .xmin = 0,
              .xmax = STEPS + 2,
              .ymin = 1e-17,
              .ymax = 20,
              .key = "bottom left",
              .extra = labels};
    plot_lines(&p, series, NA + 1, opt);
}

static void plot_capacity(const CapacityTrace *tr, const Capacity result[1 + N_RANDOM],
                          const PlotOptions *opt) {
    double n[CURVE_POINTS], plain[CURVE_POINTS], delta[CURVE_POINTS];
    for (int i = 0; i < CURVE_POINTS; i++)
        n[i] = curve_at[i], plain[i] = 100 * tr->plain_at[i], delta[i] = 100 * tr->delta_at[i];
    /* the printed lines of part 4 (orthogonal keys at 128, then 256 and 1024) */
    double pn[1 + N_RANDOM], pp[1 + N_RANDOM], pd[1 + N_RANDOM];
    for (int i = 0; i <= N_RANDOM; i++) {
        pn[i] = i == 0 ? DK : random_sizes[i - 1];
        pp[i] = 100 * result[i].plain, pd[i] = 100 * result[i].delta;
    }
    PlotSeries series[4] = {
        {"线性注意力（S += k vᵀ）", n, plain, CURVE_POINTS, PLOT_LINESPOINTS, COLOR_LINEAR},
        {"delta 规则（S += k (v - Sᵀk)ᵀ）", n, delta, CURVE_POINTS, PLOT_LINESPOINTS, COLOR_DELTA},
        {"第 4 段打印的数：线性注意力", pn, pp, 1 + N_RANDOM, PLOT_MARKS, COLOR_LINEAR},
        {"第 4 段打印的数：delta 规则", pn, pd, 1 + N_RANDOM, PLOT_MARKS, COLOR_DELTA},
    };
    Plot p = {.name = "ch07_capacity",
              .title = "一张 128 × 128 的表能记多少：每一对都读回来，平均误差多大",
              .xlabel = "写进去的 (k, v) 对数（曲线：1024 个随机 key 的前 n 个；对数刻度）",
              .ylabel = "读回来的平均误差 |Sᵀk - v| / |v|（%）",
              .logx = true,
              .xmin = 12,
              .xmax = 1400,
              .ymin = -10,
              .ymax = 320,
              .key = "top left",
              .extra = "set arrow from 128, graph 0 to 128, graph 1 nohead dashtype 2\n"
                       "set label 'd_k = 128' at 135, graph 0.55\n"
                       "set label '128 个互相垂直的 key：0%' at 135, 6"};
    plot_lines(&p, series, 4, opt);
}

/* Mean of the window around each position: the trend through noisy per-pair errors. */
static void moving_average(double *out, const float *x, int n, int window) {
    for (int i = 0; i < n; i++) {
        int from = i - window / 2 < 0 ? 0 : i - window / 2, to = i + window / 2 > n ? n : i + window / 2;
        double s = 0;
        for (int j = from; j < to; j++) s += x[j];
        out[i] = s / (to - from);
    }
}

static void plot_position(const CapacityTrace *tr, int n, const PlotOptions *opt) {
    double *pos = xmalloc((size_t)n * sizeof *pos), *delta = xmalloc((size_t)n * sizeof *delta);
    double *delta_avg = xmalloc((size_t)n * sizeof *delta_avg),
           *plain_avg = xmalloc((size_t)n * sizeof *plain_avg);
    for (int i = 0; i < n; i++) pos[i] = i + 1, delta[i] = 100.0 * tr->delta_pair[i];
    moving_average(delta_avg, tr->delta_pair, n, 32);
    moving_average(plain_avg, tr->plain_pair, n, 32);
    for (int i = 0; i < n; i++) delta_avg[i] *= 100, plain_avg[i] *= 100;
    PlotSeries series[3] = {
        {"delta 规则，每一对", pos, delta, n, PLOT_DOTS, COLOR_DELTA_LIGHT},
        {"delta 规则，前后 32 对的平均", pos, delta_avg, n, PLOT_LINES, COLOR_DELTA},
        {"线性注意力，前后 32 对的平均", pos, plain_avg, n, PLOT_LINES, COLOR_LINEAR},
    };
    Plot p = {.name = "ch07_position",
              .title = "表还记得哪几对：1024 个随机 key，按写入的先后看误差",
              .xlabel = "第几个写进去的（1 = 最早写的，1024 = 最后写的）",
              .ylabel = "读回来的误差 |Sᵀk - v| / |v|（%）",
              .xmin = 0,
              .xmax = n + 1,
              .ymin = 0,
              .ymax = 320,
              .key = "bottom left"};
    plot_lines(&p, series, 3, opt);
    free(pos), free(delta), free(delta_avg), free(plain_avg);
}

/* ---- command line -------------------------------------------------------------------------- */

typedef struct {
    uint64_t seed;
    RngVariant rng;
    PlotMode plot;
} Options;

static void usage(FILE *out) {
    fprintf(out,
            "usage: %s [--seed N] [--plot=png|ascii|none] [--rng=x86|libm]\n"
            "\n"
            "Chapter 7, part one (the book's ch07_toy.py): the memory table worked by hand,\n"
            "linear attention vs DeltaNet vs Gated DeltaNet, decay, and the capacity\n"
            "experiment. Prints the book's lines on stdout; notices go to stderr.\n"
            "\n"
            "  --seed N       torch.manual_seed(N) before part 4 (default 0, the book's).\n"
            "                 Another seed shows how much the capacity numbers move.\n"
            "  --plot=MODE    png (default): plots/ch07_decay.png, ch07_capacity.png and\n"
            "                   ch07_position.png, each with its .dat and .gp beside it\n"
            "                 ascii: the same, and each figure drawn in the terminal (stderr)\n"
            "                 none: no figures\n"
            "  --rng=VARIANT  x86 (default) or libm: which of PyTorch's two randn\n"
            "                 implementations to copy; both print the book's lines\n"
            "  --help         this text\n",
            program_name());
}

static Options parse_args(int argc, char **argv) {
    Options o = {.seed = 0, .rng = RNG_X86, .plot = PLOT_PNG};
    for (int i = 1; i < argc; i++) {
        const char *v;
        if (demo_is_help(argv[i])) {
            usage(stdout);
            exit(0);
        } else if ((v = demo_value("--seed", argc, argv, &i))) {
            Error err;
            if (!parse_count("--seed", v, 0, UINT64_MAX, &o.seed, &err)) die("%s", err.msg);
        } else if ((v = demo_value("--plot", argc, argv, &i))) {
            o.plot = demo_plot_mode(v);
        } else if ((v = demo_value("--rng", argc, argv, &i))) {
            if (!rng_variant_parse(v, &o.rng)) die("--rng is x86 or libm, got '%s'", v);
        } else {
            demo_unknown(argv[i]);
        }
    }
    return o;
}

int main(int argc, char **argv) {
    set_program_name(argv[0]);
    Options opt = parse_args(argc, argv);

    parts_1_to_3();

    int n_last = random_sizes[N_RANDOM - 1];
    double plain_at[CURVE_POINTS], delta_at[CURVE_POINTS];
    float *plain_pair = xmalloc((size_t)n_last * sizeof *plain_pair); /* [1024] */
    float *delta_pair = xmalloc((size_t)n_last * sizeof *delta_pair); /* [1024] */
    CapacityTrace trace = {curve_at, CURVE_POINTS, plain_at, delta_at, plain_pair, delta_pair};
    Capacity result[1 + N_RANDOM];
    capacity_experiment(opt.seed, opt.rng, result, opt.plot == PLOT_NONE ? NULL : &trace);
    print_part_4(result);
    fflush(stdout);

    if (opt.plot != PLOT_NONE) {
        PlotOptions po = {.mode = opt.plot};
        plot_decay(&po);
        plot_capacity(&trace, result, &po);
        plot_position(&trace, n_last, &po);
    }
    free(plain_pair);
    free(delta_pair);
    return 0;
}
