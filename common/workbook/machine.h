/* machine.h — the machine's own limits, measured in the run that uses them.
 *
 * A speed means little on its own: 10 tokens a second is slow on one machine and
 * the best there is on another. The benchmarks therefore set every figure beside
 * what the machine itself can do, measured in the same run (so under the same load
 * from elsewhere):
 *
 *   read bandwidth   how many bytes a second the cores can read from memory: one
 *                    pass summing a large array on all threads, as the STREAM
 *                    benchmark does (each thread reading its share as a few streams
 *                    at once, in the ways that draw the most from memory); the best of
 *                    a few passes. A forward pass over one token reads every weight
 *                    once, so this bounds decoding.
 *   FMA peak         how many float32 multiply-adds a second the cores can do at
 *                    best: independent chains of 16-wide fused multiply-adds on all
 *                    threads (enough of them to hide each one's latency), nothing
 *                    read from memory; the best of a few runs. Reading a prompt is
 *                    multiply-adds, so this bounds prefill.
 *   round trip       how long one cache line takes from one core to another and
 *                    back. It bounds nothing on its own, but says where the cores
 *                    sit: a decoded token hands its work between the cores a few
 *                    hundred times, and what is done on one core meanwhile waits.
 *
 * The peak uses AVX-512 intrinsics where the compiler targets AVX-512, and
 * otherwise a plain loop of fmaf() that the compiler turns into the machine's own
 * vector multiply-adds (a multiply and an add where the machine has no FMA).
 * Figures are in GB/s (10^9 bytes) and GFLOP/s (10^9 operations, a multiply-add
 * counting as 2).
 */
#ifndef MACHINE_H
#define MACHINE_H

#include <stddef.h>

/* GB/s of the fastest of `tries` rounds of passes that read the n regions (region i:
 * bytes[i] bytes at data[i], 2-byte aligned), summing them as 16-bit numbers on all
 * threads, each thread its share of every region as a few streams; each round makes
 * one pass in each of the ways machine.c tries (streams the core's prefetcher follows
 * alone, fewer streams with lines asked for ahead, and streams read at the pace of the
 * decode tile, with lines asked for ahead). The regions may be a pool
 * allocated for the purpose or the very memory a benchmark reads (a model's mapped
 * weights). */
double machine_read_bandwidth(const void *const *data, const size_t *bytes, int n, int tries);

/* GFLOP/s of the fastest of `tries` runs of the multiply-add loop (a few ms each). */
double machine_fma_peak(int tries);

/* How the peak was measured: "AVX-512 FMA loop" or "portable FMA loop". */
const char *machine_fma_kind(void);

/* The median of v[0..n), n ≥ 1 (the mean of the middle two when n is even), sorting
 * v in place (v[0] is then the fastest of a list of times): what the benchmarks
 * report of repeated timings, which one slow run from elsewhere does not move. */
double median(double *v, int n);

/* GOP/s of the fastest of `tries` runs of the int8 dot-product instruction the 8-bit
 * kernels use (vpdpbusd: 64 multiply-adds of bytes into 16 sums, counted as 128
 * operations), on all threads, nothing read from memory; 0 where the compiler targets
 * no AVX-512 VNNI. Reading a prompt with 8-bit weights is these (qwen/quant.h). */
double machine_int8_peak(int tries);

/* Nanoseconds for one cache line to go from one core to another and back: two threads
 * taking turns on one counter, timed in batches of 16 turns, the fastest batch of
 * `tries` runs of up to 2000 turns; 0 when this process has one worker (pool_threads)
 * or the two threads never ran at the same time within 50 ms. The pool's workers hand each job and its
 * numbers over this way, a few hundred times a token. Cores that share a cache do it in
 * tens of ns; on a processor built of several chips (AMD's chiplets), cores on two
 * different chips take several times longer. */
double machine_round_trip_ns(int tries);
#endif
