/* machine.c — the read bandwidth and the multiply-add peak (see machine.h). */
#include "machine.h"

#include <math.h>
#include <omp.h>
#include <stdint.h>

#include "util.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

/* What the loops computed, kept so that the compiler cannot drop them. */
static uint16_t read_sink;
static float fma_sink;

/* Each thread reads its share of a region as READ_STREAMS equal parts at once, one
 * 64-byte line from each in turn: one core that follows a single stream leaves part
 * of what memory can deliver unused on many machines, and the fast linear kernel
 * reads its weights as several streams per core too (kernels/linear.c), so the
 * yardstick must read at least as well as it does. The numbers are added as 16-bit
 * sums that wrap around (only the reading counts): with no widening to 32 bits, the
 * loop is so light that the memory, not the core, sets its speed. */
#define READ_STREAMS 4
#define READ_LINE    32 /* 16-bit numbers: one 64-byte cache line */

double machine_read_seconds(const void *const *data, const size_t *bytes, int n) {
    double t0 = now_seconds();
#pragma omp parallel
    {
        int threads = omp_get_num_threads(), id = omp_get_thread_num();
        uint16_t sum[READ_STREAMS][READ_LINE] = {{0}}; /* one running sum per lane and stream */
        uint16_t s = 0;
        for (int r = 0; r < n; r++) {
            const uint16_t *a = data[r];
            int64_t len = (int64_t)(bytes[r] / sizeof(uint16_t));
            int64_t first = len * id / threads, last = len * (id + 1) / threads;    /* this thread's share */
            int64_t part = (last - first) / (READ_STREAMS * READ_LINE) * READ_LINE; /* per stream */
            for (int64_t j = 0; j < part; j += READ_LINE)
                for (int k = 0; k < READ_STREAMS; k++) {
                    const uint16_t *p = a + first + k * part + j;
#pragma omp simd
                    for (int i = 0; i < READ_LINE; i++) sum[k][i] += p[i];
                }
            for (int64_t i = first + READ_STREAMS * part; i < last; i++) s += a[i]; /* what is left */
        }
        for (int k = 0; k < READ_STREAMS; k++)
            for (int i = 0; i < READ_LINE; i++) s += sum[k][i];
#pragma omp atomic
        read_sink += s;
    }
    return now_seconds() - t0;
}

double machine_read_bandwidth(const void *const *data, const size_t *bytes, int n, int tries) {
    double total = 0;
    for (int r = 0; r < n; r++) total += (double)bytes[r];
    double best = 0;
    for (int i = 0; i < tries; i++) {
        double gbs = total / machine_read_seconds(data, bytes, n) / 1e9;
        if (gbs > best) best = gbs;
    }
    return best;
}

/* One run: every thread updates independent 16-wide chains a ← a·m + b, `iters`
 * times each; returns GFLOP/s (2 per multiply-add). A chain's next multiply-add
 * must wait for its last one, so there must be enough chains to keep every
 * multiply-add unit busy during that wait: 12 with AVX-512's 32 registers, 6
 * (12 registers of 8) in the portable loop, which must also fit in AVX2's 16. */
#if defined(__AVX512F__)
#define FMA_KIND   "AVX-512 FMA loop"
#define FMA_CHAINS 12
#define FMA_ITERS  1000000 /* × 12 chains × 32 flops per thread: a few ms */
/* One thread's share: FMA_ITERS steps of the chains, and their sum (kept, so that
 * the compiler cannot drop the work). */
static float fma_chains(void) {
    /* different starting values, or the compiler would see 12 copies of one chain */
    __m512 a0 = _mm512_set1_ps(0), a1 = _mm512_set1_ps(1), a2 = _mm512_set1_ps(2), a3 = _mm512_set1_ps(3),
           a4 = _mm512_set1_ps(4), a5 = _mm512_set1_ps(5), a6 = _mm512_set1_ps(6), a7 = _mm512_set1_ps(7),
           a8 = _mm512_set1_ps(8), a9 = _mm512_set1_ps(9), a10 = _mm512_set1_ps(10), a11 = _mm512_set1_ps(11);
    const __m512 m = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(0.001f);
    for (int64_t i = 0; i < FMA_ITERS; i++) {
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
#define FMA_ITERS  2000000 /* × 6 chains × 32 flops per thread: a few ms */
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
    for (int64_t i = 0; i < FMA_ITERS; i++)
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

/* Every thread runs the chains at once: GFLOP/s of the whole machine. */
static double fma_run(void) {
    double t0 = now_seconds();
    float total = 0;
    int threads = 1;
#pragma omp parallel reduction(+ : total)
    {
#pragma omp single
        threads = omp_get_num_threads();
        total += fma_chains();
    }
    double t = now_seconds() - t0;
    fma_sink += total;
    return (double)FMA_ITERS * FMA_CHAINS * 32 * threads / t / 1e9;
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
