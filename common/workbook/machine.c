/* machine.c — the read bandwidth, the multiply-add peaks and the round trip between
 * two cores (see machine.h). */
#include "machine.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdint.h>

#include "kernels/pool.h"
#include "util.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

/* What the loops computed, kept so that the compiler cannot drop them. */
static uint16_t read_sink;
static float fma_sink;

/* The regions are read in tasks of READ_TASK bytes, which the workers take one at a
 * time (kernels/pool.h), as the linear kernel takes its rows. A task reads its bytes
 * as a few equal parts at once, one 64-byte line from each in turn: one core that
 * follows a single stream leaves part of what memory can deliver unused on many
 * machines, and the fast linear kernels read their weights as several streams per core
 * too (kernels/linear.c, kernels/quant.c). Only the reading counts: the sums wrap
 * around.
 *
 * Which way of reading draws the most from memory depends on the machine, so a pass is
 * made in each of these ways (READ_WAYS) and the fastest counts:
 *   4 streams, nothing asked for ahead, 16-bit sums: a loop so light that the memory,
 *             not the core, should set its speed; the core's own prefetcher follows
 *             each stream;
 *   2 streams, each line asked for 4 KB ahead of the one being read (a prefetch
 *             instruction), 16-bit sums: on some machines the core's prefetcher alone
 *             runs each stream too slowly, and there this reads up to a third faster
 *             (measured on an AMD EPYC under KVM: 55–58 GB/s against 37–42);
 *   4 streams, 2 KB ahead, each number widened to 32 bits and multiplied into 32-bit
 *             sums, 32 bytes of each stream a step: the pace of the BF16 decode tile.
 *             On an AMD EPYC (Zen 5) under KVM with its two cores on different chips,
 *             that tile read its weights up to 13% faster than either light way; this
 *             loop then read 70–73 GB/s where they read 49–56 (the same loop with the
 *             16-bit sums read 38–47: it is the lighter loop that draws less from that
 *             memory, not the order of the reads).
 * A yardstick that a kernel beats is no limit, so the bound takes the fastest reading
 * known (a share of the bound above 100%: bench/README). */
#define MAX_STREAMS 4
#define READ_LINE   32           /* 16-bit numbers: one 64-byte cache line */
#define READ_TASK   (1024 << 10) /* bytes */
#define MAX_WORKERS 256

typedef struct {
    const void *const *data;
    const size_t *bytes;
    const int64_t *first_task; /* [n + 1]: region r's tasks are first_task[r] .. first_task[r + 1] − 1 */
    int n;
    uint16_t sink[MAX_WORKERS]; /* each worker's sum */
} ReadJob;

/* The 16-bit numbers first .. last − 1 of a region that task reads. */
static const uint16_t *task_range(const ReadJob *j, int64_t task, int64_t *first, int64_t *last) {
    int r = 0;
    while (task >= j->first_task[r + 1]) r++;
    int64_t len = (int64_t)(j->bytes[r] / sizeof(uint16_t)), per_task = READ_TASK / (int64_t)sizeof(uint16_t);
    *first = (task - j->first_task[r]) * per_task;
    *last = *first + per_task < len ? *first + per_task : len;
    return j->data[r];
}

/* One task, read with `streams` streams and `ahead` numbers asked for ahead: constants
 * in each of the read_task_* below, so that the sums stay in registers. */
static inline __attribute__((always_inline)) void read_part(ReadJob *j, int64_t task, int worker,
                                                            const int streams, const int ahead) {
    int64_t first, last;
    const uint16_t *a = task_range(j, task, &first, &last);
    int64_t part = (last - first) / (streams * READ_LINE) * READ_LINE; /* per stream */
    uint16_t sum[MAX_STREAMS][READ_LINE] = {{0}}; /* one running sum per lane and stream */
    uint16_t s = 0;
    for (int64_t jj = 0; jj < part; jj += READ_LINE)
        for (int k = 0; k < streams; k++) {
            const uint16_t *p = a + first + k * part + jj;
            if (ahead > 0 && jj + ahead < part) __builtin_prefetch(p + ahead, 0, 3); /* within the stream */
#pragma omp simd
            for (int i = 0; i < READ_LINE; i++) sum[k][i] += p[i];
        }
    for (int64_t i = first + streams * part; i < last; i++) s += a[i]; /* what is left */
    for (int k = 0; k < streams; k++)
        for (int i = 0; i < READ_LINE; i++) s += sum[k][i];
    j->sink[worker % MAX_WORKERS] += s;
}
static void read_task_4(void *ctx, int64_t task, int worker) { read_part(ctx, task, worker, 4, 0); }
static void read_task_2_ahead(void *ctx, int64_t task, int worker) { read_part(ctx, task, worker, 2, 2048); }

/* One task read at the pace of the BF16 decode tile (kernels/linear.c): 4 streams, 16
 * numbers a step from each, each widened to 32 bits, multiplied and added into 32-bit
 * sums, each stream's line 2 KB ahead asked for at every step. Integers, so that the
 * speed cannot depend on the bytes (float arithmetic on bytes that are no BF16 numbers
 * — 8-bit weights — may meet subnormals, which some cores handle slowly). */
#define PACED_STEP  16   /* numbers of each stream a step: 32 bytes, as the tile reads */
#define PACED_AHEAD 1024 /* numbers: 2 KB */
static void read_task_paced(void *ctx, int64_t task, int worker) {
    ReadJob *j = ctx;
    int64_t first, last;
    const uint16_t *a = task_range(j, task, &first, &last);
    int64_t part = (last - first) / (MAX_STREAMS * READ_LINE) * READ_LINE; /* per stream */
    uint32_t sum[MAX_STREAMS][PACED_STEP] = {{0}};
    for (int64_t jj = 0; jj < part; jj += PACED_STEP)
#pragma GCC unroll 4
        for (int k = 0; k < MAX_STREAMS; k++) {
            const uint16_t *p = a + first + k * part + jj;
            if (jj + PACED_AHEAD < part) __builtin_prefetch(p + PACED_AHEAD, 0, 3); /* within the stream */
#pragma omp simd
            for (int i = 0; i < PACED_STEP; i++) sum[k][i] += (uint32_t)p[i] * 3u;
        }
    uint16_t s = 0;
    for (int64_t i = first + MAX_STREAMS * part; i < last; i++) s += a[i]; /* what is left */
    for (int k = 0; k < MAX_STREAMS; k++)
        for (int i = 0; i < PACED_STEP; i++) s += (uint16_t)sum[k][i];
    j->sink[worker % MAX_WORKERS] += s;
}

static void (*const READ_WAYS[])(void *, int64_t, int) = {read_task_4, read_task_2_ahead, read_task_paced};

/* Seconds of one pass over the regions, each task read by `read`. */
static double read_seconds(const void *const *data, const size_t *bytes, int n,
                           void (*read)(void *, int64_t, int)) {
    int64_t *first_task = xmalloc(sizeof(int64_t) * (size_t)(n + 1));
    first_task[0] = 0;
    for (int r = 0; r < n; r++)
        first_task[r + 1] = first_task[r] + ((int64_t)bytes[r] + READ_TASK - 1) / READ_TASK;
    ReadJob *job = xcalloc(1, sizeof *job);
    *job = (ReadJob){.data = data, .bytes = bytes, .first_task = first_task, .n = n};
    double t0 = now_seconds();
    pool_run(first_task[n], read, job);
    double t = now_seconds() - t0;
    for (int w = 0; w < MAX_WORKERS; w++) read_sink += job->sink[w];
    free(job);
    free(first_task);
    return t;
}

double machine_read_bandwidth(const void *const *data, const size_t *bytes, int n, int tries) {
    double total = 0;
    for (int r = 0; r < n; r++) total += (double)bytes[r];
    double best = 0;
    for (int i = 0; i < tries; i++)
        for (size_t w = 0; w < ARRAY_LEN(READ_WAYS); w++) { /* the ways take turns: both see the same load */
            double gbs = total / read_seconds(data, bytes, n, READ_WAYS[w]) / 1e9;
            if (gbs > best) best = gbs;
        }
    return best;
}

#define FMA_TASKS 4 /* tasks per worker (fma_run) */

/* One run: every thread updates independent 16-wide chains a ← a·m + b, `iters`
 * times each; returns GFLOP/s (2 per multiply-add). A chain's next multiply-add
 * must wait for its last one, so there must be enough chains to keep every
 * multiply-add unit busy during that wait: 12 with AVX-512's 32 registers, 6
 * (12 registers of 8) in the portable loop, which must also fit in AVX2's 16. */
#if defined(__AVX512F__)
#define FMA_KIND   "AVX-512 FMA loop"
#define FMA_CHAINS 12
#define FMA_ITERS  1000000 /* × 12 chains × 32 flops per worker: a few ms */
/* One thread's share: FMA_ITERS steps of the chains, and their sum (kept, so that
 * the compiler cannot drop the work). */
static float fma_chains(void) {
    /* different starting values, or the compiler would see 12 copies of one chain */
    __m512 a0 = _mm512_set1_ps(0), a1 = _mm512_set1_ps(1), a2 = _mm512_set1_ps(2), a3 = _mm512_set1_ps(3),
           a4 = _mm512_set1_ps(4), a5 = _mm512_set1_ps(5), a6 = _mm512_set1_ps(6), a7 = _mm512_set1_ps(7),
           a8 = _mm512_set1_ps(8), a9 = _mm512_set1_ps(9), a10 = _mm512_set1_ps(10), a11 = _mm512_set1_ps(11);
    const __m512 m = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(0.001f);
    for (int64_t i = 0; i < FMA_ITERS / FMA_TASKS; i++) {
        a0 = _mm512_fmadd_ps(a0, m, b), a1 = _mm512_fmadd_ps(a1, m, b), a2 = _mm512_fmadd_ps(a2, m, b);
        a3 = _mm512_fmadd_ps(a3, m, b), a4 = _mm512_fmadd_ps(a4, m, b), a5 = _mm512_fmadd_ps(a5, m, b);
        a6 = _mm512_fmadd_ps(a6, m, b), a7 = _mm512_fmadd_ps(a7, m, b), a8 = _mm512_fmadd_ps(a8, m, b);
        a9 = _mm512_fmadd_ps(a9, m, b), a10 = _mm512_fmadd_ps(a10, m, b), a11 = _mm512_fmadd_ps(a11, m, b);
    }
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                             _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
    s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)));
    return _mm512_reduce_add_ps(s);
}
#else
#define FMA_KIND   "portable FMA loop"
#define FMA_CHAINS 6
#define FMA_ITERS  2000000 /* × 6 chains × 32 flops per worker: a few ms */
/* fmaf is one instruction where the machine has FMA (FP_FAST_FMAF); elsewhere a
 * multiply and an add do the same work without the library's slow exact fmaf. */
#ifdef FP_FAST_FMAF
#define MULADD(a, m, b) fmaf(a, m, b)
#else
#define MULADD(a, m, b) ((a) * (m) + (b))
#endif
static float fma_chains(void) {
    float a[FMA_CHAINS][16];
    for (int c = 0; c < FMA_CHAINS; c++)
        for (int j = 0; j < 16; j++) a[c][j] = (float)(c * 16 + j); /* distinct chains */
    const float m = 0.999f, b = 0.001f;
    for (int64_t i = 0; i < FMA_ITERS / FMA_TASKS; i++)
#pragma GCC unroll 6
        for (int c = 0; c < FMA_CHAINS; c++)
#pragma omp simd
            for (int j = 0; j < 16; j++) a[c][j] = MULADD(a[c][j], m, b);
    float total = 0;
    for (int c = 0; c < FMA_CHAINS; c++)
        for (int j = 0; j < 16; j++) total += a[c][j];
    return total;
}
#endif

/* FMA_TASKS tasks per worker, so that every core runs the chains at once (a paused
 * worker's share is done by the others, as in the model): GFLOP/s of the machine. */

static void fma_task(void *ctx, int64_t task, int worker) {
    (void)task;
    ((float *)ctx)[worker % MAX_WORKERS] += fma_chains();
}

static double fma_run(void) {
    static float totals[MAX_WORKERS];
    int64_t tasks = (int64_t)pool_threads() * FMA_TASKS;
    double t0 = now_seconds();
    pool_run(tasks, fma_task, totals);
    double t = now_seconds() - t0;
    for (int w = 0; w < MAX_WORKERS; w++) fma_sink += totals[w];
    return (double)FMA_ITERS / FMA_TASKS * FMA_CHAINS * 32 * (double)tasks / t / 1e9;
}

double machine_fma_peak(int tries) {
    double best = 0;
    for (int i = 0; i < tries; i++) {
        double g = fma_run();
        if (g > best) best = g;
    }
    return best;
}

const char *machine_fma_kind(void) { return FMA_KIND; }

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- the int8 dot-product peak ------------------------------------------------------
 * vpdpbusd (AVX-512 VNNI) on all workers: INT8_CHAINS independent chains, nothing read
 * from memory, as fma_chains does for float32, INT8_TASKS tasks per worker. */
#if defined(__AVX512F__) && defined(__AVX512VNNI__)
#define INT8_CHAINS 12
#define INT8_ITERS  250000 /* per task: × 12 chains × 128 operations, a few ms */
#define INT8_TASKS  4

static void int8_task(void *ctx, int64_t task, int worker) {
    (void)task;
    __m512i a[INT8_CHAINS];
    for (int c = 0; c < INT8_CHAINS; c++) a[c] = _mm512_set1_epi32(c);
    const __m512i u = _mm512_set1_epi8(3), s = _mm512_set1_epi8(-2);
    for (int i = 0; i < INT8_ITERS; i++)
#pragma GCC unroll 12
        for (int c = 0; c < INT8_CHAINS; c++) a[c] = _mm512_dpbusd_epi32(a[c], u, s);
    for (int c = 1; c < INT8_CHAINS; c++) a[0] = _mm512_add_epi32(a[0], a[c]);
    ((int32_t *)ctx)[worker % MAX_WORKERS] += _mm512_reduce_add_epi32(a[0]);
}

double machine_int8_peak(int tries) {
    static int32_t sums[MAX_WORKERS];
    double best = 0;
    for (int i = 0; i < tries; i++) {
        int64_t tasks = (int64_t)pool_threads() * INT8_TASKS;
        double t0 = now_seconds();
        pool_run(tasks, int8_task, sums);
        double g = (double)INT8_ITERS * INT8_CHAINS * 128 * (double)tasks / (now_seconds() - t0) / 1e9;
        if (g > best) best = g; /* 64 multiply-adds per instruction = 128 operations */
    }
    for (int w = 0; w < MAX_WORKERS; w++) read_sink += (uint16_t)sums[w];
    return best;
}
#else
double machine_int8_peak(int tries) {
    (void)tries;
    return 0; /* no VNNI: the 8-bit kernels run other instructions, with no such peak */
}
#endif

/* ---- the round trip between two cores -----------------------------------------------
 * Two threads take turns on one counter: the caller writes an odd number and waits for
 * the next even one, a second thread waits for the odd one and writes the next. Each
 * turn moves the counter's cache line from one core to the other and back. The turns
 * are timed in batches of TRIP_BATCH, and the fastest batch counts: a batch during which
 * the system paused one of the threads (a busy machine, a virtual machine whose cores
 * are not both running) says nothing about the cores. The caller gives up at
 * TRIP_LIMIT, so a run in which the two never run at once ends too (and counts 0). */
#define TRIP_BATCH   16
#define TRIP_BATCHES 125
#define TRIP_LIMIT   0.05 /* seconds */

typedef struct {
    _Alignas(64) atomic_int turn;
    atomic_bool stop;
} Trip;

static void *trip_partner(void *arg) {
    Trip *t = arg;
    for (int i = 1; !atomic_load_explicit(&t->stop, memory_order_relaxed);) {
        if (atomic_load_explicit(&t->turn, memory_order_acquire) == i) {
            atomic_store_explicit(&t->turn, i + 1, memory_order_release);
            i += 2;
        }
    }
    return NULL;
}

/* ns per turn of the fastest batch, or 0 when no batch was done within TRIP_LIMIT. */
static double trip_run(void) {
    Trip t = {0};
    atomic_init(&t.turn, 0);
    atomic_init(&t.stop, false);
    pthread_t partner;
    if (pthread_create(&partner, NULL, trip_partner, &t) != 0) return 0;
    double start = now_seconds(), best = 0;
    int turn = 0;
    for (int b = 0; b < TRIP_BATCHES && now_seconds() - start < TRIP_LIMIT; b++) {
        double t0 = now_seconds();
        bool whole = true;
        for (int k = 0; k < TRIP_BATCH && whole; k++, turn++) {
            atomic_store_explicit(&t.turn, 2 * turn + 1, memory_order_release);
            for (int spins = 0; atomic_load_explicit(&t.turn, memory_order_acquire) != 2 * turn + 2; spins++)
                if ((spins & 1023) == 1023 && now_seconds() - start > TRIP_LIMIT) {
                    whole = false;
                    break;
                }
        }
        double ns = (now_seconds() - t0) / TRIP_BATCH * 1e9;
        if (whole && (best == 0 || ns < best)) best = ns;
    }
    atomic_store(&t.stop, true);
    pthread_join(partner, NULL);
    return best;
}

double machine_round_trip_ns(int tries) {
    if (pool_threads() < 2) return 0; /* one core: no second core to go to */
    double best = 0;
    for (int i = 0; i < tries; i++) {
        double ns = trip_run();
        if (ns > 0 && (best == 0 || ns < best)) best = ns;
    }
    return best;
}
