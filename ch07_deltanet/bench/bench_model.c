/* bench_model — the whole model's speed, set against what the machine can do and
 * against PyTorch, in one run on the full synthetic checkpoint (the real 0.8B shapes).
 *
 *   make synthetic            (once: models/Qwen3.5-0.8B-synthetic, 1.5 GB)
 *   make bench                (or: build/ch07_deltanet/bench/bench_model [--model DIR] [--no-torch])
 *   build/ch07_deltanet/bench/bench_model --quant q8_0    the same on 8-bit weights (below)
 *
 * What it measures, in this order (bench/README.md says how to read each figure):
 *   the machine   read bandwidth and float32 FMA peak (workbook/machine.h), the best
 *                 of 3 tries, measured again before every timed block and reported
 *                 as the median, so a burst of load from elsewhere moves both the
 *                 figures and their yardsticks. The bandwidth is measured on the
 *                 model's own mapped weights: the very memory decoding reads, and no
 *                 extra array to swell the resident memory measured below. Beside them
 *                 the round trip of a cache line between two cores, which says whether
 *                 they share a cache (bench/README.md: why that moves the decode's share).
 *   prefill       a prompt of 139, 512 and 2048 tokens read in one model_forward call
 *                 from an empty state, logits for its last token only (no trace), in
 *                 passes of CHUNK tokens as the chapter's demo reads them; the median
 *                 of up to 5 runs (fewer when they take long). Its share of the FMA
 *                 peak counts the model's multiply-adds from the shapes (prefill_macs);
 *                 the peak is measured again before each run and the run set against
 *                 that one (time_prefill): the median of the runs' shares.
 *   decode        64 tokens timed one at a time after the 139-token prompt, and after
 *                 the 2048-token one; the median token time. Its share of the
 *                 bandwidth bound: a token must read every weight once (the tied
 *                 embedding, as the output head, included) and the state the text
 *                 has built (the attention layers' K and V rows, the DeltaNet layers'
 *                 tables and conv history), so it can take no less than those bytes
 *                 ÷ the read bandwidth. The bandwidth is measured again before each
 *                 timed token and the token set against that one (time_decode): the
 *                 median of the 64 shares. The round trip is measured there too, and
 *                 one token not timed goes between them and the timed one.
 *   contention    the 139-token prefill (median of 3) and decoding after it, with the default
 *                 number of workers and with one, first on the machine as it is, then
 *                 with one busy process beside them (started and stopped here: a loop
 *                 of arithmetic, as a browser tab or an editor's indexer can be), the
 *                 machine's limits measured under the same load. Two workers sharing 2
 *                 cores with a third program must still do at least 90% of what one
 *                 worker does there (kernels/pool.h says how).
 *   memory        peak resident memory of the process (getrusage) against the weight
 *                 file + 5% + the largest state of the run.
 *   PyTorch       reference/bench_model.py, the whole model in plain float32 PyTorch
 *                 on the same safetensors files and the same ids, started from here in
 *                 up to three set-ups as bench_deltanet.c does (as installed; with
 *                 OpenBLAS; with OpenBLAS and OMP_WAIT_POLICY=PASSIVE). PyTorch is
 *                 much slower, so to keep the run within minutes it reads only the
 *                 139-token prompt and decodes up to TORCH_DECODE tokens after it.
 *                 The speed-ups are against its fastest set-up, and the logits of
 *                 both sides are compared (Σ|logits| and the argmax) to show that
 *                 they computed the same model.
 *
 * With --quant q8_0 the model runs on 8-bit weights (model.h's model_quantize), and the
 * figures change where the work does:
 *   load          the seconds model_quantize takes to make them from the checkpoint;
 *   the machine   the read bandwidth is measured on the packed weights and the tensors
 *                 still read from the file: again the very memory decoding reads; and
 *                 the int8 dot-product peak is measured beside the FMA peak;
 *   prefill       its share of the int8 peak (2 operations per multiply-add of the
 *                 model, as bench_quant counts them: with two-byte activations each
 *                 costs two of the instruction's byte products, so half the peak is
 *                 the ceiling);
 *   decode        the bound counts the 8-bit bytes (34 per 32 weights) and the rest;
 *   memory        the bound is the weights as held (the packed bytes and the tensors
 *                 left in the file) + 5% + what the run allocates besides (run_bytes: the
 *                 buffers and the quantized input, the largest state); with the weights
 *                 half as large, 5% of them no longer covers the buffers, as it does for
 *                 the file;
 *   accuracy      after everything is timed (and the peak memory taken, since it opens
 *                 the checkpoint's weights too): the logits of every position of the
 *                 139-token prompt against those of the same model on the checkpoint's
 *                 weights (the float32 path): the worst position's relative RMS
 *                 difference, |a − b| / |b| over the vocabulary, how many positions pick
 *                 the same top token, and how many of the 5 top tokens they share;
 *   PyTorch       not run: it has no such weights.
 *
 * The token ids are the Qwen3 tokenizer's for the book's sentence 今天天气不错，我们去公园
 * followed by 。, over and over, cut to the length wanted; the
 * decoded tokens read on in the same stream (not sampled: the time does not depend
 * on the ids, and both sides then read the same tokens). MB and GB are 10^6 and 10^9
 * bytes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernels/pool.h"
#include "qwen/linear.h"
#include "qwen/model.h"
#include "tests/bench_model.h"
#include "workbook/machine.h"
#include "workbook/util.h"

#define CHUNK          256 /* tokens per pass through the layers: the demo's (ch07_model.c) */
#define DECODE_TOKENS  64  /* tokens decoded after a prompt */
#define TORCH_DECODE   16  /* ... by PyTorch (at most; it may stop earlier when slow) */
#define PREFILL_RUNS   5   /* at most, per prompt length */
#define PREFILL_BUDGET 20  /* seconds: no further run of a length once this much is spent */
#define YARD_TRIES     3   /* tries behind each measurement of the machine's limits */
#define BUSY_DECODE    32  /* tokens decoded in each contention row */
#define BUSY_PREFILLS  3   /* ... after the prompt read this many times (the median) */

static const int PROMPTS[] = {139, 512, 2048}; /* prompt lengths; decoding follows the first and the last */
#define N_PROMPTS  ((int)ARRAY_LEN(PROMPTS))
#define MAX_TOKENS (2048 + 2 * DECODE_TOKENS)

/* The Qwen3 tokenizer's ids for the book's sentence, and its id for 。. */
static const int SENTENCE[7] = {100644, 104307, 100832, 3837, 97639, 85336, 102077};
static const int FULL_STOP = 1773;

/* The first n ids of the endless text: the sentence, 。, the sentence, 。, ... */
static void make_ids(int *ids, int n) {
    int unit = (int)ARRAY_LEN(SENTENCE) + 1;
    for (int i = 0; i < n; i++) ids[i] = i % unit < unit - 1 ? SENTENCE[i % unit] : FULL_STOP;
}

/* ---- the machine's limits, measured again before every timed block ------------------ */

typedef struct {
    const void **data; /* the regions a decoding token reads: every weight the model reads */
    size_t *bytes;
    int n;
    double bw[16], peak[16], ipeak[16], trip[16]; /* GB/s, GFLOP/s, int8 GOP/s, ns: one per measurement */
    int k;
    bool int8; /* 8-bit weights: the int8 peak is measured too */
} Yardsticks;

static void measure_machine(Yardsticks *y) {
    if (y->k == (int)ARRAY_LEN(y->bw)) return;
    y->bw[y->k] = machine_read_bandwidth(y->data, y->bytes, y->n, YARD_TRIES);
    y->peak[y->k] = machine_fma_peak(YARD_TRIES);
    y->ipeak[y->k] = y->int8 ? machine_int8_peak(YARD_TRIES) : 0;
    y->trip[y->k] = machine_round_trip_ns(YARD_TRIES);
    y->k++;
}

/* The regions decoding reads: every tensor the model reads whole from the file
 * (model_reads_whole), and with 8-bit weights the packed matrices. */
static void weight_regions(const Model *m, Yardsticks *y) {
    y->data = xmalloc((size_t)(m->ck.n_refs + m->n_packed) * sizeof *y->data);
    y->bytes = xmalloc((size_t)(m->ck.n_refs + m->n_packed) * sizeof *y->bytes);
    y->n = 0;
    for (int i = 0; i < m->ck.n_refs; i++) {
        const Tensor *t = m->ck.refs[i];
        if (!model_reads_whole(m, t)) continue;
        y->data[y->n] = t->data;
        y->bytes[y->n++] = (size_t)(t->numel * dtype_size(t->dtype));
    }
    for (int j = 0; j < m->n_packed; j++) {
        y->data[y->n] = m->packed[j].q8->data;
        y->bytes[y->n++] = (size_t)(m->packed[j].q8->blocks * q8_block_bytes(m->packed[j].q8));
    }
}

/* ---- what a prompt costs ------------------------------------------------------------- */

/* Multiply-adds of reading a T-token prompt from an empty state, logits for its last
 * token only, counted from the shapes:
 *
 *     MAC(T) = T · Σ_layers Σ_projections out·in      every projection weight, once per token
 *            + vocab · hidden                         the output head, for the last token only
 *            + Σ_attention layers Hq · d · T(T + 1)  q·k and p·v: the token at position t
 *                                                     reads t + 1 positions, d multiply-adds
 *                                                     each for its score and for its share
 *                                                     of the mix, in each of Hq query heads
 *
 * The projections are q/k/v/o_proj in attention, in_proj_qkv/z/a/b and out_proj in
 * the Gated DeltaNet, gate/up/down_proj in the MLP. Left out, as small next to
 * these: the delta rule (3·dk·dv per value head and token: look-up, write, read;
 * ≈ 3% of the projections for 0.8B), the short convolution, the norms, the gates.
 * The share of the FMA peak is therefore a slight underestimate. */
static double prefill_macs(const Model *m, int64_t T) {
    const Config *c = &m->ck.config;
    double per_token = 0, attn = 0;
    for (int i = 0; i < c->num_hidden_layers; i++) {
        const Layer *l = &m->layers[i];
        const MlpWeights *mw = &l->mlp.w;
        per_token += (double)(mw->gate_proj->numel + mw->up_proj->numel + mw->down_proj->numel);
        if (l->type == LAYER_FULL_ATTENTION) {
            const AttnWeights *w = &l->self_attn.w;
            per_token += (double)(w->q_proj->numel + w->k_proj->numel + w->v_proj->numel + w->o_proj->numel);
            attn += (double)l->self_attn.d.n_heads * l->self_attn.d.head_dim * (double)T * (double)(T + 1);
        } else {
            const DeltaNetWeights *w = &l->linear_attn.w;
            per_token += (double)(w->in_proj_qkv->numel + w->in_proj_z->numel + w->in_proj_a->numel +
                                  w->in_proj_b->numel + w->out_proj->numel);
        }
    }
    return (double)T * per_token + (double)m->lm_head->numel + attn;
}

/* ---- timing the C model ---------------------------------------------------------------- */

typedef struct {
    double sum_abs; /* Σ|logits| */
    int argmax;
} Check;

static Check check_of(const float *logits, int V) {
    Check k = {0, 0};
    for (int i = 0; i < V; i++) {
        k.sum_abs += fabs(logits[i]);
        if (logits[i] > logits[k.argmax]) k.argmax = i;
    }
    return k;
}

typedef struct {
    int T;
    int runs;
    double seconds; /* median */
    double macs;
    double peak;  /* the median of the peaks measured beside the runs (GFLOP/s or, int8, GOP/s) */
    double share; /* each run's rate / the peak measured just before it: the median */
    Check check;  /* the logits after the prompt */
} Prefill;

typedef struct {
    int after;                      /* prompt tokens before the first decoded one */
    double ms;                      /* median token time */
    double mean_ms;                 /* the 64 timed tokens' total / 64 */
    double bytes;                   /* read per token: weights + the state at the middle token */
    double bw;                      /* GB/s: the median of the read bandwidths measured beside the tokens */
    double trip;                    /* ns: the median of the round trips between two cores, likewise */
    double share;                   /* the median token's rate / the bound at its side */
    double first_share;             /* the same of the tokens right after each measurement, not counted */
    Check check[2 * DECODE_TOKENS]; /* the logits after decoded token k + 1, counted or not */
} Decode;

static void forward(const Model *m, RunState *s, const int *ids, int T) {
    Error err;
    if (!model_forward(m, s, ids, T, NULL, &err)) die("%s", err.msg);
}

/* What a prefill is set against: the FMA peak, or, with 8-bit weights, the int8 peak
 * (where the machine has one to measure; else the FMA peak). */
static double prefill_yardstick(bool int8) {
    double p = int8 ? machine_int8_peak(YARD_TRIES) : 0;
    return p > 0 ? p : machine_fma_peak(YARD_TRIES);
}

/* Prompts of p->T tokens from an empty state, up to PREFILL_RUNS times; s is left
 * holding the last one's state. The peak is measured again just before each run and
 * the run set against that one, as time_decode does with the bandwidth: the cores'
 * clock and the share of them that other programs take move from minute to minute,
 * and runs set against a peak measured a minute away showed 64% where the same
 * prompt in the same run of this program, beside a peak measured just before it,
 * showed 69%. */
static void time_prefill(const Model *m, RunState *s, const int *ids, bool int8, Prefill *p) {
    double t[PREFILL_RUNS], peak[PREFILL_RUNS], share[PREFILL_RUNS], spent = 0;
    int n = 0;
    p->macs = prefill_macs(m, p->T);
    while (n < PREFILL_RUNS && (n == 0 || spent + t[n - 1] < PREFILL_BUDGET)) {
        peak[n] = prefill_yardstick(int8);
        run_reset(s);
        double t0 = now_seconds();
        forward(m, s, ids, p->T);
        t[n] = now_seconds() - t0;
        share[n] = 2 * p->macs / t[n] / 1e9 / peak[n];
        spent += t[n++];
    }
    p->runs = n;
    p->seconds = median(t, n);
    p->peak = median(peak, n);
    p->share = median(share, n);
    p->check = check_of(s->logits, m->ck.config.vocab_size);
}

/* The bytes the next decoded token must read: every weight once and the state so far. */
static double token_bytes(const Model *m, const RunState *s) {
    return (double)(model_weight_bytes(m) + run_state_bytes(s));
}

/* One token after the s->pos already read: its seconds, and in *share its rate against
 * the bound at bw GB/s (its bytes: token_bytes before it). */
static double decode_token(const Model *m, RunState *s, const int *ids, double bw, double *share,
                           Check *check) {
    double bytes = token_bytes(m, s);
    double t0 = now_seconds();
    forward(m, s, &ids[s->pos], 1);
    double t = now_seconds() - t0;
    *share = bytes / t / (bw * 1e9);
    *check = check_of(s->logits, m->ck.config.vocab_size);
    return t;
}

/* DECODE_TOKENS timed tokens, one at a time after the s->pos already read (ids[s->pos]
 * on). The read bandwidth is measured again before each, and the token's share of the
 * bound is taken against that: on a shared machine the bandwidth moves by a third within
 * minutes, and a token set against a yardstick measured seconds away could show 70% or
 * 130%. Between the measurement and the timed token goes one token that is not counted:
 * the measurement reads every weight several times in its own ways, and the token right
 * after it is slower than one after another token, which is what a token follows when
 * text is generated (bench/README: by 1–3% with BF16 weights, up to 6% with 8-bit
 * ones). Its share is kept apart (first_share) and printed beside. */
static void time_decode(const Model *m, RunState *s, const int *ids, const Yardsticks *y, Decode *d) {
    double t[DECODE_TOKENS], bw[DECODE_TOKENS], trip[DECODE_TOKENS], share[DECODE_TOKENS],
        first[DECODE_TOKENS], total = 0;
    d->after = (int)s->pos;
    for (int k = 0; k < DECODE_TOKENS; k++) {
        bw[k] = machine_read_bandwidth(y->data, y->bytes, y->n, YARD_TRIES);
        trip[k] = machine_round_trip_ns(1);
        decode_token(m, s, ids, bw[k], &first[k], &d->check[2 * k]);
        if (k == DECODE_TOKENS / 2) d->bytes = token_bytes(m, s);
        t[k] = decode_token(m, s, ids, bw[k], &share[k], &d->check[2 * k + 1]);
        total += t[k];
    }
    d->ms = median(t, DECODE_TOKENS) * 1e3;
    d->mean_ms = total / DECODE_TOKENS * 1e3;
    d->bw = median(bw, DECODE_TOKENS);
    d->trip = median(trip, DECODE_TOKENS);
    d->share = median(share, DECODE_TOKENS);
    d->first_share = median(first, DECODE_TOKENS);
}

/* ---- contention: another program on the same cores ------------------------------------ */

/* A process that keeps one core busy until it is killed. */
static pid_t start_busy(void) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) die("fork: cannot start the busy process");
    if (pid == 0) {
        volatile double x = 1;
        for (;;) x = x * 1.0000001 + 1e-9;
    }
    struct timespec settle = {0, 200 * 1000 * 1000}; /* let the scheduler see it */
    nanosleep(&settle, NULL);
    return pid;
}

static void stop_busy(pid_t pid) {
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

typedef struct {
    bool busy;
    int workers;
    double prefill_s; /* the 139-token prompt */
    double decode_ms; /* median token time of BUSY_DECODE after it */
    double bytes;     /* read per decoded token */
    double bw, peak;  /* the machine's limits, measured under the same load */
    int in_use;       /* workers the pool used at the end (fewer when it was being paused) */
} Contention;

static void time_contention(const Model *m, RunState *s, const int *ids, Contention *c) {
    pool_set_threads(c->workers);
    double t[BUSY_DECODE];
    for (int r = 0; r < BUSY_PREFILLS; r++) {
        run_reset(s);
        double t0 = now_seconds();
        forward(m, s, ids, PROMPTS[0]);
        t[r] = now_seconds() - t0;
    }
    c->prefill_s = median(t, BUSY_PREFILLS);
    for (int k = 0; k < BUSY_DECODE; k++) {
        if (k == BUSY_DECODE / 2) c->bytes = token_bytes(m, s);
        double t0 = now_seconds();
        forward(m, s, &ids[s->pos], 1);
        t[k] = now_seconds() - t0;
    }
    c->decode_ms = median(t, BUSY_DECODE) * 1e3;
    c->in_use = pool_workers_in_use();
    pool_set_threads(0);
}

/* ---- PyTorch ------------------------------------------------------------------------- */

typedef struct {
    bool ran;
    char blas[512];
    double load_s;
    double prefill_ms; /* median, the 139-token prompt */
    int prefill_runs;
    Check prefill_check;
    int decoded;        /* tokens decoded after it (0: none reported) */
    double decode_ms;   /* median token time */
    Check decode_check; /* after the last of them */
    double peak_mb;
} Torch;

/* Runs reference/bench_model.py with the environment settings env ("" for none). */
static Torch run_torch(const char *model, const char *env, int T) {
    Torch r = {0};
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "%s /usr/bin/python3 %s/reference/bench_model.py --model '%s' --counts %d --decode %d", env,
             REPO_ROOT, model, T, TORCH_DECODE);
    fprintf(stderr, "PyTorch: %s\n", cmd);
    FILE *p = popen(cmd, "r");
    if (!p) {
        fprintf(stderr, "could not start PyTorch: %s\n", cmd);
        return r;
    }
    char line[2048];
    while (fgets(line, sizeof line, p)) {
        int t, runs, after, tokens, argmax;
        long long bytes;
        double med, mn, sum;
        long kb;
        if (sscanf(line, "torch prefill T=%d median_ms=%lf min_ms=%lf reps=%d sum_abs=%lf argmax=%d", &t,
                   &med, &mn, &runs, &sum, &argmax) == 6 &&
            t == T) {
            r.prefill_ms = med, r.prefill_runs = runs, r.prefill_check = (Check){sum, argmax};
            r.ran = true;
        } else if (sscanf(line,
                          "torch decode after=%d tokens=%d median_ms=%lf min_ms=%lf sum_abs=%lf argmax=%d",
                          &after, &tokens, &med, &mn, &sum, &argmax) == 6 &&
                   after == T) {
            r.decoded = tokens, r.decode_ms = med, r.decode_check = (Check){sum, argmax};
        } else if (sscanf(line, "torch load seconds=%lf float32_bytes=%lld", &r.load_s, &bytes) == 2) {
            continue;
        } else if (sscanf(line, "torch peak_rss_kb=%ld", &kb) == 1) {
            r.peak_mb = (double)kb * 1024 / 1e6;
        } else if (strncmp(line, "torch version=", 14) == 0) {
            const char *b = strstr(line, "blas=");
            snprintf(r.blas, sizeof r.blas, "%s", b ? b + 5 : "?");
            r.blas[strcspn(r.blas, "\n")] = 0;
        } else {
            fputs(line, stderr);
        }
    }
    int rc = pclose(p);
    if (rc != 0) {
        fprintf(stderr, "PyTorch benchmark exited with status %d (is python3-torch installed?)\n", rc);
        r.ran = false;
    }
    return r;
}

/* ---- accuracy: 8-bit weights against the checkpoint's ------------------------------------ */

typedef struct {
    int T;
    double worst_rel; /* the largest over positions of |a − b| / |b| (Euclidean, over the vocabulary) */
    int worst_at;
    double mean_rel;
    int top1; /* positions whose top token is the same */
    int top5; /* top-5 tokens in common, summed over the positions (at most 5·T) */
} Accuracy;

/* Every position's logits of the T-token prompt, from an empty state. */
static float *prompt_logits(const Model *m, const int *ids, int T) {
    float *logits = xmalloc((size_t)T * (size_t)m->ck.config.vocab_size * sizeof *logits);
    RunState s;
    run_init(&s, m, CHUNK);
    ModelTrace tr = {.logits = logits};
    Error err;
    if (!model_forward(m, &s, ids, T, &tr, &err)) die("%s", err.msg);
    run_free(&s);
    return logits;
}

/* The indices of the k largest of v [n], into top (k ≤ 8). */
static void top_k(const float *v, int n, int k, int *top) {
    for (int j = 0; j < k; j++) top[j] = -1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < k; j++)
            if (top[j] < 0 || v[i] > v[top[j]]) {
                for (int l = k - 1; l > j; l--) top[l] = top[l - 1];
                top[j] = i;
                break;
            }
}

static Accuracy accuracy(const Model *q8, const char *dir, const int *ids, int T) {
    Model ref;
    Error err;
    if (!model_open(&ref, dir, &err)) die("%s", err.msg);
    int V = q8->ck.config.vocab_size;
    float *a = prompt_logits(q8, ids, T), *b = prompt_logits(&ref, ids, T);
    Accuracy r = {.T = T};
    for (int t = 0; t < T; t++) {
        const float *at = a + (size_t)t * V, *bt = b + (size_t)t * V;
        double diff = 0, norm = 0;
        for (int v = 0; v < V; v++) {
            diff += ((double)at[v] - bt[v]) * ((double)at[v] - bt[v]);
            norm += (double)bt[v] * bt[v];
        }
        double rel = sqrt(diff / norm);
        if (rel > r.worst_rel) r.worst_rel = rel, r.worst_at = t;
        r.mean_rel += rel / T;
        int ta[5], tb[5];
        top_k(at, V, 5, ta);
        top_k(bt, V, 5, tb);
        r.top1 += ta[0] == tb[0];
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++) r.top5 += ta[i] == tb[j];
    }
    free(a), free(b);
    model_close(&ref);
    return r;
}

/* ---- the report ---------------------------------------------------------------------- */

static double rel_diff(double a, double b) { return fabs(a - b) / fabs(b); }

int main(int argc, char **argv) {
    set_program_name(argv[0]);
    const char *model = REPO_ROOT "/" BENCH_MODEL_DIR;
    const char *openblas = "/usr/lib/x86_64-linux-gnu/openblas-pthread";
    bool torch = true, quick = false;
    Quant quant = QUANT_BF16;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--model") == 0 && i + 1 < argc)
            model = argv[++i];
        else if (strcmp(argv[i], "--openblas") == 0 && i + 1 < argc)
            openblas = argv[++i];
        else if (strcmp(argv[i], "--no-torch") == 0)
            torch = false;
        else if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--quant") == 0 && i + 1 < argc) {
            if (!quant_parse(argv[++i], &quant)) {
                char shown[64];
                die("--quant takes one of %s, got '%s'", QUANT_NAMES,
                    escape_text(argv[i], shown, sizeof shown));
            }
        } else if (strcmp(argv[i], "--help") == 0) {
            printf("usage: %s [--model DIR] [--quant q8_0] [--quick] [--no-torch] [--openblas DIR]\n"
                   "Times the whole model: prefill of 139, 512 and 2048 tokens, decoding after 139 and\n"
                   "2048, against the machine's read bandwidth and FMA peak, and PyTorch on the same\n"
                   "weights and ids. DIR defaults to models/Qwen3.5-0.8B-synthetic (make synthetic).\n"
                   "  --quant q8_0    on 8-bit weights (against the int8 peak and the bytes they take),\n"
                   "                  and their logits against the checkpoint's weights'; no PyTorch\n"
                   "  --quick         the 139-token prompt only (its prefill, and decoding after it)\n"
                   "  --no-torch      the C side only\n"
                   "  --openblas DIR  the folder holding OpenBLAS's libblas.so.3, for PyTorch's faster\n"
                   "                  set-ups (default: Debian's, %s)\n",
                   program_name(), openblas);
            return 0;
        } else
            die("unknown option '%s' (see --help)", argv[i]);
    }
    Model m;
    if (!bench_open_model(&m, model)) return 0;
    const Config *c = &m.ck.config;
    int ids[MAX_TOKENS];
    make_ids(ids, MAX_TOKENS);
    for (int i = 0; i < MAX_TOKENS; i++)
        if (ids[i] >= c->vocab_size)
            die("%s: token id %d beyond the vocabulary (%d)", model, ids[i], c->vocab_size);
    if (c->max_position_embeddings > 0 && c->max_position_embeddings < MAX_TOKENS)
        die("%s: the config allows %d positions, the benchmark needs %d", model, c->max_position_embeddings,
            MAX_TOKENS);

    /* The weights in from the disk first: a cold checkpoint's first touch is the disk's
     * speed, not the model's. The 8-bit ones are made from them (and then hold the place
     * of theirs). */
    double quant_s = 0;
    if (quant != QUANT_BF16) {
        fprintf(stderr, "making the %s weights ...\n", quant_name(quant));
        double t0 = now_seconds();
        Error err;
        if (!model_quantize(&m, quant, &err)) die("%s", err.msg);
        quant_s = now_seconds() - t0;
        torch = false; /* PyTorch has no such weights */
    }
    fprintf(stderr, "reading the weights in ...\n");
    model_touch(&m, NULL, NULL);
    double file_bytes = 0;
    for (int i = 0; i < m.ck.n_shards; i++) file_bytes += (double)m.ck.shards[i].size;
    double weight_bytes = (double)model_weight_bytes(&m);

    Yardsticks yard = {.int8 = quant != QUANT_BF16};
    weight_regions(&m, &yard);

    RunState s;
    run_init(&s, &m, CHUNK);
    /* one untimed prompt: first-call costs (thread start-up, the caches' first growth) */
    forward(&m, &s, ids, PROMPTS[0]);

    int n_prompts = quick ? 1 : N_PROMPTS, n_dec = n_prompts > 1 ? 2 : 1;
    Prefill pre[N_PROMPTS];
    Decode dec[2];
    double state_max = 0;
    for (int i = 0; i < n_prompts; i++) {
        fprintf(stderr, "prefill of %d tokens ...\n", PROMPTS[i]);
        measure_machine(&yard);
        pre[i] = (Prefill){.T = PROMPTS[i]};
        time_prefill(&m, &s, ids, yard.int8, &pre[i]);
        if (i == 0 || i == n_prompts - 1) { /* decoding after the shortest and the longest prompt */
            fprintf(stderr, "decoding %d tokens after %d ...\n", DECODE_TOKENS, PROMPTS[i]);
            measure_machine(&yard);
            Decode *d = &dec[i == 0 ? 0 : 1];
            time_decode(&m, &s, ids, &yard, d);
        }
        double st = (double)run_state_bytes(&s);
        if (st > state_max) state_max = st;
    }
    measure_machine(&yard);

    /* contention: the default workers and one, idle and beside a busy process */
    int workers = pool_threads();
    Contention con[4] = {{.busy = false, .workers = workers},
                         {.busy = false, .workers = 1},
                         {.busy = true, .workers = workers},
                         {.busy = true, .workers = 1}};
    for (int i = 0; i < 4; i++) {
        fprintf(stderr, "%s, %d worker%s ...\n", con[i].busy ? "beside a busy process" : "idle",
                con[i].workers, con[i].workers == 1 ? "" : "s");
        pid_t busy = con[i].busy ? start_busy() : 0;
        con[i].bw = machine_read_bandwidth(yard.data, yard.bytes, yard.n, YARD_TRIES);
        con[i].peak = prefill_yardstick(yard.int8);
        time_contention(&m, &s, ids, &con[i]);
        if (busy) stop_busy(busy);
    }

    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    double peak_rss = (double)u.ru_maxrss * 1024; /* KiB on Linux */
    double bw = median(yard.bw, yard.k), peak = median(yard.peak, yard.k), ipeak = median(yard.ipeak, yard.k),
           trip = median(yard.trip, yard.k);
    /* a prefill's yardstick: the FMA peak, or with 8-bit weights the int8 peak (0 where
     * there is none to measure: then the FMA peak) */
    bool int8 = quant != QUANT_BF16 && ipeak > 0;
    const char *pre_unit = int8 ? "GOP/s" : "GFLOP/s", *pre_name = int8 ? "int8 peak" : "FMA peak";

    Accuracy acc = {0};
    if (quant != QUANT_BF16) {
        fprintf(stderr, "the logits against the checkpoint's weights ...\n");
        acc = accuracy(&m, model, ids, PROMPTS[0]);
    }

    /* PyTorch as installed, with OpenBLAS, and with OpenBLAS and sleeping OpenMP threads. */
    const char *setup_name[3] = {"as installed", "OpenBLAS", "OpenBLAS, OMP_WAIT_POLICY=PASSIVE"};
    Torch tr[3] = {{0}};
    char probe[1024], env_blas[1100], env_passive[1200];
    snprintf(probe, sizeof probe, "%s/libblas.so.3", openblas);
    snprintf(env_blas, sizeof env_blas, "LD_LIBRARY_PATH='%s'", openblas);
    snprintf(env_passive, sizeof env_passive, "LD_LIBRARY_PATH='%s' OMP_WAIT_POLICY=PASSIVE", openblas);
    bool have_openblas = is_file(probe);
    if (torch) {
        tr[0] = run_torch(model, "", PROMPTS[0]);
        if (have_openblas) {
            tr[1] = run_torch(model, env_blas, PROMPTS[0]);
            tr[2] = run_torch(model, env_passive, PROMPTS[0]);
        }
    }

    /* ---- the report ---- */
    printf("the whole model on %s\n", model);
    if (quant == QUANT_BF16)
        printf(
            "  %d layers (%d Gated DeltaNet, %d full attention), %.2f GB of weights read as they are stored "
            "(file %.2f GB)\n",
            c->num_hidden_layers, cfg_count_layers(c, LAYER_LINEAR_ATTENTION),
            cfg_count_layers(c, LAYER_FULL_ATTENTION), weight_bytes / 1e9, file_bytes / 1e9);
    else
        printf(
            "  %d layers (%d Gated DeltaNet, %d full attention), %.2f GB of weights as held: every "
            "projection "
            "and the output head\n  as %s (8-bit groups, made in %.2f s from the %.2f GB file), the rest as "
            "stored\n",
            c->num_hidden_layers, cfg_count_layers(c, LAYER_LINEAR_ATTENTION),
            cfg_count_layers(c, LAYER_FULL_ATTENTION), weight_bytes / 1e9, quant_name(quant), quant_s,
            file_bytes / 1e9);
    printf("  C: %d worker threads, linear kernels: %s, passes of %d tokens\n", pool_threads(),
           quant == QUANT_BF16 ? linear_kernel_name() : q8_kernel_name(q8_best_kernel), CHUNK);
    { /* decided by trials while decoding (kernels/ahead.h) */
        int asks = quant == QUANT_BF16 ? linear_asks_ahead() : q8_asks_ahead();
        const char *ask = asks == 1 ? "yes" : asks == 0 ? "no" : "not measured yet";
        printf("  one token's tiles ask for their weights ahead: %s (the way the last trial found faster)\n",
               ask);
    }

    printf("\nthe machine (best of %d tries, median of the %d times it was measured during the run)\n",
           YARD_TRIES, yard.k);
    printf("  read bandwidth  %7.1f GB/s      STREAM-like sum over the model's own %.2f GB of weights\n", bw,
           weight_bytes / 1e9);
    printf("  FMA peak        %7.1f GFLOP/s   float32, %s\n", peak, machine_fma_kind());
    if (int8) printf("  int8 peak       %7.1f GOP/s     vpdpbusd loop (a multiply-add counts 2)\n", ipeak);
    if (trip > 0)
        printf("  round trip      %7.0f ns        one cache line from one core to another and back\n", trip);

    printf("\nprefill: the prompt in one call from an empty state, logits for its last token only (median "
           "of the runs)\n");
    printf("  %6s  %9s  %8s  %8s  %9s  %9s  %9s  %5s\n", "tokens", "seconds", "tok/s", "GMAC", pre_unit,
           int8 ? "int8 peak" : "FMA peak", int8 ? "of int8" : "of peak", "runs");
    for (int i = 0; i < n_prompts; i++) {
        const Prefill *p = &pre[i];
        printf("  %6d  %9.3f  %8.1f  %8.1f  %9.1f  %9.1f  %8.0f%%  %5d\n", p->T, p->seconds,
               p->T / p->seconds, p->macs / 1e9, 2 * p->macs / p->seconds / 1e9, p->peak, 100 * p->share,
               p->runs);
    }
    printf("  (GMAC: the model's multiply-adds for the prompt, from the shapes; %s counts 2 per "
           "multiply-add;\n   the peak is measured again before each run, and each run set against its own: "
           "of peak is\n   the median of the runs' shares%s)\n",
           pre_unit,
           int8 && s.xq.planes == 2
               ? "; two-byte activations take two byte products each, so 50% is the ceiling"
               : "");
    printf("  logits after the %d-token prompt: sum of |x| %.9e, argmax %d\n", pre[0].T, pre[0].check.sum_abs,
           pre[0].check.argmax);

    printf("\ndecode: %d timed tokens read one at a time after the prompt, each after one not timed\n"
           "(median token time; mean in brackets)\n",
           DECODE_TOKENS);
    printf("  %6s  %16s  %15s  %13s  %9s  %11s  %8s  %7s\n", "after", "ms per token", "tok/s", "MB per token",
           "read GB/s", "bound tok/s", "of bound", "trip ns");
    for (int i = 0; i < n_dec; i++) {
        const Decode *d = &dec[i];
        char ms[40], rate[40];
        snprintf(ms, sizeof ms, "%.1f (%.1f)", d->ms, d->mean_ms);
        snprintf(rate, sizeof rate, "%.2f (%.2f)", 1e3 / d->ms, 1e3 / d->mean_ms);
        printf("  %6d  %16s  %15s  %13.1f  %9.1f  %11.2f  %7.0f%%  %7.0f\n", d->after, ms, rate,
               d->bytes / 1e6, d->bw, d->bw * 1e9 / d->bytes, 100 * d->share, d->trip);
    }
    printf("  (MB per token: every weight once%s, the output head included,\n"
           "   plus the K/V rows and DeltaNet tables the text has built, at the middle token;\n"
           "   read GB/s: measured again before each timed token and the token not timed before it,\n"
           "   the median; of bound: each timed token's rate / (that bandwidth / its MB), the median;\n"
           "   trip ns: the round trip between two cores, measured there too, the median: high when the\n"
           "   cores sit on different chips, and then the memory reads faster but every handover between\n"
           "   them is slow)\n",
           quant == QUANT_BF16 ? "" : " as held (8-bit: 34 bytes per 32 weights)");
    printf("  the tokens not timed, right after each measurement:");
    for (int i = 0; i < n_dec; i++)
        printf("%s %.0f%%%s after %d", i ? "," : "", 100 * dec[i].first_share, i ? "" : " of the bound",
               dec[i].after);
    printf("\n   (the measurement reads every weight several times in its own ways, and the token\n"
           "   after it is slower than one after a token, which is what follows in generated text:\n"
           "   bench/README)\n");
    printf("  logits after %d tokens decoded after the %d-token prompt: sum of |x| %.9e, argmax %d\n",
           TORCH_DECODE, dec[0].after, dec[0].check[TORCH_DECODE - 1].sum_abs,
           dec[0].check[TORCH_DECODE - 1].argmax);

    printf("\ncontention: the %d-token prefill and %d tokens decoded after it, with %d workers and with 1,\n"
           "on the machine as it is and beside one busy process (the limits measured under the same load;\n"
           "in use: the workers the pool was using at the end, fewer when the system kept pausing them)\n",
           PROMPTS[0], BUSY_DECODE, workers);
    printf("  %-32s  %13s  %8s  %12s  %8s  %6s\n", "", "prefill tok/s", "of peak", "decode tok/s", "of bound",
           "in use");
    for (int i = 0; i < 4; i++) {
        const Contention *k = &con[i];
        char name[64];
        snprintf(name, sizeof name, "%s, %d worker%s", k->busy ? "beside a busy process" : "idle", k->workers,
                 k->workers == 1 ? "" : "s");
        double macs = prefill_macs(&m, PROMPTS[0]), rate = 1e3 / k->decode_ms;
        printf("  %-32s  %13.1f  %7.0f%%  %12.2f  %7.0f%%  %6d\n", name, PROMPTS[0] / k->prefill_s,
               100 * 2 * macs / k->prefill_s / 1e9 / k->peak, rate, 100 * rate / (k->bw * 1e9 / k->bytes),
               k->in_use);
    }

    double bound_mem;
    if (quant == QUANT_BF16) {
        bound_mem = file_bytes * 1.05 + state_max;
        printf("\nmemory: peak resident %.0f MB; bound: weight file %.0f MB + 5%% + state %.1f MB = %.0f MB "
               "(%.0f%% of it)\n",
               peak_rss / 1e6, file_bytes / 1e6, state_max / 1e6, bound_mem / 1e6,
               100 * peak_rss / bound_mem);
    } else {
        int64_t longest = PROMPTS[n_prompts - 1] + 2 * DECODE_TOKENS;
        double run = (double)(run_bytes(&m, CHUNK, longest) - model_quant_bytes(&m, quant));
        bound_mem = weight_bytes * 1.05 + run;
        printf(
            "\nmemory: peak resident %.0f MB; bound: weights as held %.0f MB + 5%% + buffers and state %.1f "
            "MB = %.0f MB (%.0f%% of it)\n",
            peak_rss / 1e6, weight_bytes / 1e6, run / 1e6, bound_mem / 1e6, 100 * peak_rss / bound_mem);
    }
    if (quant != QUANT_BF16) {
        printf("\naccuracy: the logits of all %d positions of the %d-token prompt, %s weights against the "
               "checkpoint's (float32 path)\n",
               acc.T, PROMPTS[0], quant_name(quant));
        printf("  relative RMS difference per position: worst %.4f (position %d), mean %.4f\n", acc.worst_rel,
               acc.worst_at, acc.mean_rel);
        printf("  same top token at %d of %d positions; top-5 tokens in common: %d of %d\n", acc.top1, acc.T,
               acc.top5, 5 * acc.T);
        printf("  (random weights make every difference larger than trained ones would: bench/README.md)\n");
    }

    int best = -1; /* the fastest PyTorch set-up, by prefill; its decode too */
    int best_dec = -1;
    if (torch) {
        printf("\nPyTorch (reference/bench_model.py: float32, the same weights and ids; the %d-token prompt, "
               "then up to %d tokens decoded)\n",
               PROMPTS[0], TORCH_DECODE);
        printf("  %-36s  %7s  %13s  %12s  %8s\n", "set-up", "load s", "prefill tok/s", "decode tok/s",
               "peak MB");
        for (int k = 0; k < 3; k++) {
            if (k > 0 && !have_openblas) {
                printf("  %-36s  skipped: no %s (apt-get install libopenblas0-pthread)\n", setup_name[k],
                       probe);
                continue;
            }
            const Torch *t = &tr[k];
            if (!t->ran) {
                printf("  %-36s  did not run\n", setup_name[k]);
                continue;
            }
            char dec_s[40] = "-";
            if (t->decoded > 0) snprintf(dec_s, sizeof dec_s, "%.2f", 1e3 / t->decode_ms);
            printf("  %-36s  %7.1f  %13.2f  %12s  %8.0f\n", setup_name[k], t->load_s,
                   PROMPTS[0] * 1e3 / t->prefill_ms, dec_s, t->peak_mb);
            printf("    BLAS: %s\n", t->blas);
            if (best < 0 || t->prefill_ms < tr[best].prefill_ms) best = k;
            if (t->decoded > 0 && (best_dec < 0 || t->decode_ms < tr[best_dec].decode_ms)) best_dec = k;
        }
        for (int k = 0; k < 3; k++) { /* both sides computed the same model */
            const Torch *t = &tr[k];
            if (!t->ran) continue;
            printf(
                "  same model (%s): after the prompt, Σ|logits| differs by %.1e (relative), argmax %d vs %d",
                setup_name[k], rel_diff(pre[0].check.sum_abs, t->prefill_check.sum_abs), pre[0].check.argmax,
                t->prefill_check.argmax);
            if (t->decoded > 0 && t->decoded <= 2 * DECODE_TOKENS) {
                const Check *cc = &dec[0].check[t->decoded - 1];
                printf("; after %d decoded tokens %.1e, argmax %d vs %d", t->decoded,
                       rel_diff(cc->sum_abs, t->decode_check.sum_abs), cc->argmax, t->decode_check.argmax);
            }
            printf("\n");
        }
    }

    printf("\nagainst the goals\n");
    for (int i = 0; i < n_dec; i++) {
        const Decode *d = &dec[i];
        printf("  decode after %4d tokens: %5.1f%% of the bandwidth bound       (goal >= 90%%)\n", d->after,
               100 * d->share);
    }
    if (quant == QUANT_BF16)
        for (int i = 0; i < n_prompts; i++) {
            const Prefill *p = &pre[i];
            printf("  prefill of %4d tokens:   %5.1f%% of the FMA peak%s\n", p->T, 100 * p->share,
                   i < 2 ? "              (goal >= 65%)" : "");
        }
    else {
        /* the goals of the 8-bit weights, set on a 2-core AVX-512 VNNI machine where llama.cpp's
         * Q8_0 (llama-bench -p 139 -n 64 -t 2) decoded about 31 tokens a second: 1.2 times that */
        printf("  decode after %4d tokens: %6.2f tok/s                      (goal >= 37, 1.2x llama.cpp "
               "Q8_0's ~31 where the goal was set)\n",
               dec[0].after, 1e3 / dec[0].ms);
        printf("  prefill of %4d tokens:   %6.1f tok/s, %4.1f%% of the %s (goal >= 151 tok/s)\n", pre[0].T,
               pre[0].T / pre[0].seconds, 100 * pre[0].share, pre_name);
        printf("  logits against the checkpoint's weights: worst relative RMS %.4f, top-1 %d of %d\n",
               acc.worst_rel, acc.top1, acc.T);
    }
    const Prefill *p0 = &pre[0], *pn = &pre[n_prompts - 1];
    if (n_prompts > 1) {
        /* A run's time × the peak measured just before it is its work in the machine's own
         * units (2·macs / share), so the ratio of those per token does not move with the
         * peak between the two prompts' runs, which are minutes apart. */
        double macs_ratio = (pn->macs / pn->T) / (p0->macs / p0->T);
        printf("  prefill time per token at %d vs at %d: %.2fx against each run's peak (as timed: %.2fx;\n"
               "    multiply-adds per token: %.2fx; goal <= 1.1x)\n",
               pn->T, p0->T, macs_ratio * p0->share / pn->share,
               (pn->seconds / pn->T) / (p0->seconds / p0->T), macs_ratio);
    }
    if (best >= 0)
        printf("  C vs PyTorch (%s), prefill of %d tokens: %.1fx      (goal >= 10x)\n", setup_name[best],
               PROMPTS[0], tr[best].prefill_ms / 1e3 / p0->seconds);
    if (best_dec >= 0)
        printf("  C vs PyTorch (%s), decode after %d tokens: %.1fx    (goal >= 5x)\n", setup_name[best_dec],
               PROMPTS[0], tr[best_dec].decode_ms / dec[0].ms);
    printf("  beside a busy process, decode with %d workers: %.2fx of 1 worker's   (goal >= 0.9x)\n", workers,
           con[3].decode_ms / con[2].decode_ms);
    printf("  beside a busy process, prefill with %d workers: %.2fx of 1 worker's  (goal >= 0.9x)\n", workers,
           con[3].prefill_s / con[2].prefill_s);
    printf("  peak resident memory %.0f MB vs the bound %.0f MB: %s    (goal: within it)\n", peak_rss / 1e6,
           bound_mem / 1e6, peak_rss <= bound_mem ? "within" : "over");

    run_free(&s);
    free(yard.data), free(yard.bytes);
    model_close(&m);
    return 0;
}
