/* pool.h — the cores' share of the work: a fixed set of threads that run the tasks of
 * one job at a time.
 *
 * A job is n independent tasks — blocks of a matrix's rows, the heads of a layer, the
 * tokens of a pass: pool_run(n, fn, ctx) calls fn(ctx, task, worker) once for every
 * task 0 .. n − 1, spread over the workers (the calling thread is worker 0), and
 * returns when all are done (a task that shares its units may also be called for a
 * share of them: below).
 *
 * It is built for a machine that is doing other things too (a browser, an editor):
 *   - tasks are taken one at a time from a shared counter, so a worker the system has
 *     paused to run another program leaves the remaining tasks to the others instead
 *     of holding them up (a static split, one half per thread, would wait for it);
 *   - the caller takes them from the front and the other workers from the back, so
 *     that on an idle machine a worker gets nearly the same tasks job after job, and
 *     the numbers it wrote for them last time are still in its own cache (pool.c says
 *     what that is worth);
 *   - a worker that has run out of tasks may take over half of what is left of
 *     another's (pool_units_begin, below), so that at the end of a job the first
 *     worker done waits for a few rows, not for the rest of a task;
 *   - a worker with nothing to do spins for a few microseconds — on an idle machine
 *     the next job or the last task comes within that — and then sleeps (a futex
 *     wait), so that it never keeps a core from the worker that still has a task;
 *   - when the system keeps pausing the pool's threads (more threads want to run than
 *     there are cores), the pool uses one worker fewer, and tries again later, once
 *     the machine has a core free.
 * Each task, or each unit of a shared one, is computed by one worker from start to
 * end, by the same code whichever it is, so no result ever depends on which worker ran
 * it, nor on how many there are.
 *
 * The number of workers is OMP_NUM_THREADS when it is set (the convention of
 * OpenMP programs), else the CPUs this process may run on; pool_set_threads changes
 * it (the tests, the benchmarks). pool_run is meant for one thread at a time (the
 * program's own); called from inside a task it runs the job on that worker alone.
 */
#ifndef POOL_H
#define POOL_H

#include <stdbool.h>
#include <stdint.h>

typedef void PoolTask(void *ctx, int64_t task, int worker);

void pool_run(int64_t n_tasks, PoolTask *fn, void *ctx);

/* Workers, the calling thread included (≥ 1). */
int pool_threads(void);
/* The workers the next job will use: pool_threads(), or fewer while the system has
 * been pausing them to run other programs (pool.c says how the pool notices). */
int pool_workers_in_use(void);
/* n ≥ 1 workers from now on; 0: the default again. */
void pool_set_threads(int n);
/* True on a thread that is running a task (where a pool_run runs alone). */
bool pool_in_task(void);

/* Whether the text of /proc/loadavg says that every one of `cores` cores has a thread
 * ready to run (its fourth field, "ready/all", has ready ≥ cores): then the pool does
 * not try to take back a worker it gave up (pool.c). False for a text it cannot read. */
bool pool_loadavg_full(const char *loadavg, int cores);

/* Units per task for a job of `units` (rows, blocks): `want` of them, but at most a
 * worker's share, so that a small job still goes to every worker; rounded down to a
 * multiple of `align`, and at least align. */
int64_t pool_task_units(int64_t want, int64_t units, int64_t align);

/* A job of `units` (rows, blocks) cut into tasks of `per` units, the last one shorter
 * when per does not divide units. */
typedef struct {
    int64_t units, per;
} PoolCut;

PoolCut pool_cut(int64_t units, int64_t per);
/* The cut's tasks. */
int64_t pool_cut_tasks(const PoolCut *c);
/* Task `task`'s units first .. last − 1. */
void pool_cut_range(const PoolCut *c, int64_t task, int64_t *first, int64_t *last);

/* Sharing a task. A task that is a run of independent pieces ("units": the row groups
 * of a matrix) may take them one at a time from the pool,
 *
 *     PoolUnits u;
 *     pool_units_begin(&u, n);                           units 0 .. n − 1
 *     for (int64_t i; pool_units_next(&u, &i);) ...      unit i
 *
 * and then a worker that has run out of tasks takes over the back half of the units not
 * taken yet, instead of waiting for the task to end (pool.c says what that is worth).
 * It runs the same task function for them, where pool_units_begin gives it only those:
 * so a task that uses units begins them once and does all its work in them. Each unit
 * is computed by one worker, by the same code whoever it is, so no result depends on
 * who ran it. Where nothing is shared (one worker, a job inside a task, more than
 * POOL_MAX_UNITS units) the units come in order, all to the task. */
#define POOL_MAX_UNITS 0xffff

typedef struct {
    int64_t next, end; /* the units, where they are not shared */
    void *offer;       /* where they are (pool.c), or NULL */
} PoolUnits;

void pool_units_begin(PoolUnits *u, int64_t n);
/* The next unit into *unit, or false when none is left to this task. */
bool pool_units_next(PoolUnits *u, int64_t *unit);

#endif
