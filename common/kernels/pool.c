/* kernels/pool.c — the worker threads (see pool.h).
 *
 * The state of the current job, shared by every worker:
 *
 *   generation  counts the jobs; a worker waiting for work watches it (and sleeps on
 *               it, a futex word)
 *   claim       (generation << 32) | (back << 16) | front: the tasks not taken yet
 *               are front .. back − 1. The caller takes them from the front, the other
 *               workers from the back, each task by a compare-and-swap that checks
 *               the generation too, so that a worker that was paused in the middle of
 *               taking one can never take a task of the next job thinking it belongs
 *               to the last
 *   fn, ctx,    the job: tasks base .. base + n − 1 of the pool_run call (a call of more
 *   n, base     than JOB_TASKS tasks runs as several jobs); written before claim
 *               announces it, and read by a worker only once it holds a task of it —
 *               until that task is done the job cannot end, so they cannot change
 *               under it
 *   done        tasks finished, added by each worker once it finds none left to take;
 *               the worker whose count completes it wakes the caller if it went to
 *               sleep
 *   sharers     workers taking over units of another's task, or running them: the job
 *               ends when done reaches n and sharers is 0
 *
 * Why two ends. On an idle machine each worker then takes nearly the same tasks at every
 * token — the same rows of every matrix, the same heads of a layer — and finds the lines
 * it wrote for them last time in its own cache. Taken from one end, the tasks fell to
 * the workers anew at every job, and each took over lines the other had written: a
 * cache line that moves between two cores costs ~60 ns where they share a cache, but
 * ~350 ns on a processor whose two cores sit on different chips. There, a decoded
 * token took 3–5% less time with two ends (the DeltaNet's steps 1.3 → 0.95 ms a token;
 * alternated in one process). Taking from the two ends changes nothing else: a worker
 * the system has paused still leaves its tasks to the others, and they meet in the
 * middle.
 *
 * Why share a task. The tasks of one token's matrices are long (1 MB of weights, so that
 * every stream a task reads runs long: kernels/linear.c), and when the shared counter
 * is empty the worker done first would wait for the rest of the other's last task —
 * half a task on average. A task that takes its row groups one at a time from its
 * offer (pool_units_next) lets that worker take over the back half of what is left,
 * and again, until under two units remain. Measured on the whole model, blocks of 8
 * tokens taking turns in one process on 2 cores: sharing, with every task of 1 MB,
 * decoded a token 0.7–2% faster than the tasks of a quarter where the two ends meet that
 * came before it, with the cores on one chip, and 1.2–2.6% with them on two. Taking a unit
 * costs its owner a compare-and-swap on a cache line that others only read, nanoseconds
 * against the 0.2–1.5 µs its weights take to arrive (4 rows of 1024 to 3584 numbers).
 *
 * Waiting is spin, then sleep: SPIN_NS of checking (with the CPU's pause hint), then a
 * futex wait on Linux (elsewhere a short sleep in a loop).
 *
 * Sharing the cores with another program. When more threads want to run than there are
 * cores, the system pauses one of them for a few milliseconds at a time; if it holds a
 * task, the whole job waits for it, and the other workers with it. A thread can tell:
 * Linux counts the time each thread spent ready to run but waiting for a core
 * (/proc/thread-self/schedstat, its second number). Every thread of the pool looks
 * every WINDOW_NS; when it waited more than a fifth of that window, the pool gives up
 * one worker: jobs go to one worker fewer (never fewer than the caller), so that the
 * threads that remain have a core each. After a while (BACKOFF_NS, doubled each time
 * the extra worker had to be given up again at once, up to MAX_BACKOFF_NS) it tries one
 * more — if a core looks free: while the machine has as many threads ready to run as
 * it has cores, the caller among them, the try is put off. (Without that look, 2 cores
 * beside one busy program: each try took a 139-token prompt 4–5 ms longer, 0.755 s
 * against 0.751, the worker taking turns with the busy program until the pool noticed
 * again; and the tries that failed doubled the wait, so that once the busy program had
 * stopped the worker came back after 0.8–1.2 s instead of 0.03.) Beside one busy
 * program on 2 cores the caller then works alone, with a core of its own; on an idle
 * machine a thread waits for a core a few microseconds a second, and every worker takes
 * part. (Counting the times a thread was paused, getrusage's ru_nivcsw, does not tell
 * the two apart: an idle machine's own housekeeping pauses a thread tens of times a
 * second, for microseconds each.)
 */
#include "kernels/pool.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

#include "workbook/util.h"

#define MAX_WORKERS 256
#define JOB_TASKS   0xffff /* the most tasks of one job: front and back have 16 bits each */
/* How long a worker without work spins before it sleeps. Jobs follow each other within
 * a few microseconds while the model reads a token (the serial steps between them are
 * short); a worker the system has paused keeps the others waiting for a scheduler
 * slice (milliseconds), and then sleeping gives its core away at once. */
#define SPIN_NS 30000
/* How often a thread looks at its time spent waiting for a core, and what share of that
 * window makes the pool give up a worker. */
#define WINDOW_NS  20000000
#define WAIT_SHARE 0.2
/* How long the pool goes on with a worker fewer before it tries one more: BACKOFF_NS,
 * doubled each time the worker it took back had to be given up within WINDOW_NS · 4. */
#define BACKOFF_NS     100000000
#define MAX_BACKOFF_NS 1600000000

static struct {
    pthread_mutex_t lock; /* one job at a time */
    int started;          /* worker threads created (1 .. started − 1) */
    _Atomic int active;   /* workers that take part, the caller included (0: not decided yet) */
    _Atomic uint32_t generation;
    _Atomic uint64_t claim;
    _Atomic(PoolTask *) fn;
    _Atomic(void *) ctx;
    _Atomic int64_t n, base;
    _Atomic int64_t done;
    _Atomic uint32_t done_word; /* bumped when the last task is done: the caller sleeps on it */
    _Atomic int caller_asleep;
    _Atomic int sleepers;        /* workers asleep on generation */
    _Atomic int job_workers;     /* workers 0 .. job_workers − 1 take part in the current job */
    _Atomic int limit;           /* workers the pool uses while others want the cores too (0: all) */
    _Atomic int64_t retry;       /* now_ns() after which it tries one worker more */
    _Atomic int64_t raised;      /* now_ns() when it last did */
    _Atomic int64_t backoff;     /* how long it waits before the next try */
    _Atomic uint32_t shared_job; /* the last job whose tasks offered units (its generation) */
    _Atomic int sharers;         /* workers looking for units to take over, or running them */
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Each worker's offer: the units of its task not taken yet (see "sharing a task"). On a
 * cache line of its own: only the owner writes it often. */
typedef struct {
    _Alignas(64) _Atomic uint64_t word;
} Offer;

static Offer offers[MAX_WORKERS];

/* The task this thread is running for work() or share(), for pool_units_begin. */
typedef struct {
    bool on;      /* inside such a task (not in a job run alone) */
    bool offered; /* it has put its units in its offer */
    int worker;
    uint32_t g;     /* the job */
    int64_t task;   /* the task, within the job */
    int64_t lo, hi; /* the units taken over from another worker (hi < 0: the whole task) */
} Running;

static _Thread_local Running running;

static _Thread_local bool in_worker; /* a task that calls pool_run runs it alone */

/* ---- waiting -------------------------------------------------------------------------- */

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Sleeps while *word == value (it may also wake for no reason: the caller checks). */
static void sleep_on(_Atomic uint32_t *word, uint32_t value) {
#ifdef __linux__
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, value, NULL, NULL, 0);
#else
    if (atomic_load(word) == value) {
        struct timespec ts = {0, 50000};
        nanosleep(&ts, NULL);
    }
#endif
}

static void wake_all(_Atomic uint32_t *word) {
#ifdef __linux__
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
#else
    (void)word;
#endif
}

/* Spins until cond(arg) holds or SPIN_NS have passed; true when it holds. */
static bool spin_until(bool (*cond)(const void *), const void *arg) {
    int64_t deadline = 0;
    for (int i = 0;; i++) {
        if (cond(arg)) return true;
        if ((i & 255) == 255) {
            int64_t t = now_ns();
            if (deadline == 0)
                deadline = t + SPIN_NS;
            else if (t > deadline)
                return false;
        }
        cpu_relax();
    }
}

static bool generation_moved(const void *seen) {
    return atomic_load_explicit(&pool.generation, memory_order_acquire) != *(const uint32_t *)seen;
}

/* Every task counted done, and no worker still taking over units or running them. */
static bool job_done(const void *n) {
    return atomic_load_explicit(&pool.done, memory_order_acquire) >= *(const int64_t *)n &&
           atomic_load(&pool.sharers) == 0;
}

/* The job may be over: the caller, if it went to sleep, sleeps on done_word. */
static void wake_caller(void) {
    atomic_fetch_add(&pool.done_word, 1);
    if (atomic_load(&pool.caller_asleep)) wake_all(&pool.done_word);
}

/* ---- sharing the cores ------------------------------------------------------------------ */

#ifdef __linux__
/* A /proc file's text, read anew from its start into buf (size bytes, ended by a 0);
 * false when fd is not open or nothing could be read. */
static bool read_text(int fd, char *buf, size_t size) {
    ssize_t n = fd >= 0 ? pread(fd, buf, size - 1, 0) : -1;
    if (n <= 0) return false;
    buf[n] = '\0';
    return true;
}
#endif

/* What one thread last saw of its waiting. */
typedef struct {
    int fd;          /* /proc/thread-self/schedstat, opened at the first look (−1: none) */
    int64_t checked; /* now_ns() of the last look (0: none yet) */
    int64_t waited;  /* nanoseconds it had waited for a core then */
} WaitCount;

static _Thread_local WaitCount waits = {.fd = -2}; /* −2: not opened yet */

/* Nanoseconds this thread has spent ready to run but waiting for a core, or −1. */
static int64_t time_waited(void) {
#ifdef __linux__
    if (waits.fd == -2) waits.fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    char buf[96];
    if (!read_text(waits.fd, buf, sizeof buf)) return -1;
    long long run, wait;
    return sscanf(buf, "%lld %lld", &run, &wait) == 2 ? (int64_t)wait : -1;
#else
    return -1;
#endif
}

/* Every WINDOW_NS: when this thread waited for a core more than WAIT_SHARE of the
 * window, one of the `workers` in use is given up. */
static void note_waits(int64_t now, int workers) {
    if (waits.checked != 0 && now - waits.checked < WINDOW_NS) return;
    int64_t waited = time_waited();
    if (waited < 0) return;
    if (waits.checked != 0 && workers > 1 &&
        waited - waits.waited > WAIT_SHARE * (double)(now - waits.checked)) {
        /* taken back only a moment ago: wait twice as long before the next try */
        int64_t backoff = atomic_load_explicit(&pool.backoff, memory_order_relaxed);
        if (now - atomic_load_explicit(&pool.raised, memory_order_relaxed) > 4 * (int64_t)WINDOW_NS)
            backoff = BACKOFF_NS;
        else if (backoff < MAX_BACKOFF_NS)
            backoff = backoff ? 2 * backoff : BACKOFF_NS;
        atomic_store_explicit(&pool.backoff, backoff, memory_order_relaxed);
        atomic_store_explicit(&pool.limit, workers - 1, memory_order_relaxed);
        atomic_store_explicit(&pool.retry, now + backoff, memory_order_relaxed);
    }
    waits.checked = now;
    waits.waited = waited;
}

/* The CPUs this process may run on (≥ 1). */
static int usable_cpus(void) {
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 1) return CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > INT32_MAX ? INT32_MAX : (int)n;
}

bool pool_loadavg_full(const char *loadavg, int cores) {
    const char *p = loadavg;
    for (int field = 0; field < 3; field++) { /* the three load averages */
        while (*p == ' ') p++;
        if (*p == '\0') return false;
        while (*p != ' ' && *p != '\0') p++;
    }
    char *end;
    long ready = strtol(p, &end, 10); /* saturates: a number too long is not undefined */
    return end != p && *end == '/' && ready >= cores;
}

/* True when every core of the machine has a thread ready to run right now, the caller's
 * among them: then one more worker would only take turns with another program. Linux
 * says how many threads are ready to run on the whole machine (/proc/loadavg, its
 * fourth field: "ready/all"); this counts only where the process may run on every core
 * (else those threads may sit on cores it does not use), and only under pool.lock. */
static bool cores_all_taken(void) {
#ifdef __linux__
    static int fd = -2, cores;
    if (fd == -2) {
        fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        cores = online == usable_cpus() ? (int)online : 0;
    }
    char buf[128];
    return cores > 0 && read_text(fd, buf, sizeof buf) && pool_loadavg_full(buf, cores);
#else
    return false;
#endif
}

/* The workers the next job uses, out of `active`: all of them, or the limit the waits
 * have set, raised by one once its time is up — unless the cores are all still taken,
 * then the try is put off by BACKOFF_NS. */
static int workers_now(int64_t now, int active) {
    int limit = atomic_load_explicit(&pool.limit, memory_order_relaxed);
    if (limit == 0 || limit >= active) return active;
    if (now > atomic_load_explicit(&pool.retry, memory_order_relaxed)) {
        if (cores_all_taken()) {
            atomic_store_explicit(&pool.retry, now + BACKOFF_NS, memory_order_relaxed);
            return limit;
        }
        limit++;
        atomic_store_explicit(&pool.limit, limit >= active ? 0 : limit, memory_order_relaxed);
        atomic_store_explicit(&pool.raised, now, memory_order_relaxed);
        atomic_store_explicit(&pool.retry, now + BACKOFF_NS, memory_order_relaxed);
    }
    return limit;
}

/* ---- sharing a task ---------------------------------------------------------------------- */

/* An offer's word: (job & 0xffff) << 48 | task << 32 | next << 16 | end — the units
 * next .. end − 1 of that task of that job are not taken yet. Its owner takes the next
 * one by a compare-and-swap that moves next up; a worker out of tasks takes the back
 * half by one that moves end down. Whichever comes second fails, and looks again. The
 * word names the job and the task, and within a task next only rises and end only
 * falls, so a compare-and-swap made on a word seen earlier succeeds only while the
 * word has not changed since. (A job cannot end while a worker is among the sharers,
 * so its generation cannot come round again meanwhile.) */
static uint64_t offer_word(uint32_t g, int64_t task, int64_t next, int64_t end) {
    return (uint64_t)(g & 0xffff) << 48 | (uint64_t)task << 32 | (uint64_t)next << 16 | (uint64_t)end;
}
static uint32_t offer_job(uint64_t w) { return (uint32_t)(w >> 48); }
static int64_t offer_task(uint64_t w) { return (int64_t)(w >> 32 & 0xffff); }
static int64_t offer_next(uint64_t w) { return (int64_t)(w >> 16 & 0xffff); }
static int64_t offer_end(uint64_t w) { return (int64_t)(w & 0xffff); }

/* Runs task `task` of job g on this worker: the whole task (hi < 0) or, taken over
 * from another worker, its units lo .. hi − 1. */
static void run_task(uint32_t g, int64_t task, int64_t lo, int64_t hi, int worker) {
    PoolTask *fn = atomic_load_explicit(&pool.fn, memory_order_relaxed);
    void *ctx = atomic_load_explicit(&pool.ctx, memory_order_relaxed);
    running = (Running){.on = true, .worker = worker, .g = g, .task = task, .lo = lo, .hi = hi};
    fn(ctx, atomic_load_explicit(&pool.base, memory_order_relaxed) + task, worker);
    if (running.offered) atomic_store_explicit(&offers[worker].word, 0, memory_order_relaxed);
    running.on = false;
}

/* A worker that has found no task of job g left: as long as another worker's task has
 * at least two units not taken, it takes the back half and runs them. */
static void share(uint32_t g, int worker) {
    if (atomic_load_explicit(&pool.shared_job, memory_order_relaxed) != g) return; /* no task offered units */
    atomic_fetch_add(&pool.sharers, 1);
    int workers = atomic_load_explicit(&pool.job_workers, memory_order_relaxed);
    for (bool again = true; again;) {
        again = false;
        for (int v = 0; v < workers; v++) {
            if (v == worker) continue;
            uint64_t w = atomic_load_explicit(&offers[v].word, memory_order_acquire);
            int64_t task = offer_task(w), next = offer_next(w), end = offer_end(w);
            if (offer_job(w) != (g & 0xffff) || end - next < 2) continue;
            int64_t mid = end - (end - next) / 2;
            if (atomic_compare_exchange_strong(&offers[v].word, &w, offer_word(g, task, next, mid)))
                run_task(g, task, mid, end, worker);
            again = true; /* taken, or the owner moved first: look again */
        }
    }
    if (atomic_fetch_sub(&pool.sharers, 1) == 1 &&
        atomic_load(&pool.done) >= atomic_load_explicit(&pool.n, memory_order_relaxed))
        wake_caller(); /* the job may have waited only for this */
}

void pool_units_begin(PoolUnits *u, int64_t n) {
    *u = (PoolUnits){.next = 0, .end = n, .offer = NULL};
    if (!running.on || n > POOL_MAX_UNITS || running.offered) return; /* nothing to share */
    int64_t lo = running.hi < 0 ? 0 : running.lo, hi = running.hi < 0 ? n : running.hi;
    running.offered = true;
    u->offer = &offers[running.worker].word;
    atomic_store_explicit(&offers[running.worker].word, offer_word(running.g, running.task, lo, hi),
                          memory_order_release);
    if (atomic_load_explicit(&pool.shared_job, memory_order_relaxed) != running.g)
        atomic_store_explicit(&pool.shared_job, running.g, memory_order_relaxed);
}

bool pool_units_next(PoolUnits *u, int64_t *unit) {
    if (u->offer == NULL) {
        if (u->next >= u->end) return false;
        *unit = u->next++;
        return true;
    }
    _Atomic uint64_t *word = u->offer;
    uint64_t w = atomic_load_explicit(word, memory_order_acquire);
    for (;;) {
        int64_t next = offer_next(w);
        if (next >= offer_end(w)) return false;
        if (atomic_compare_exchange_weak_explicit(word, &w, w + ((uint64_t)1 << 16), memory_order_acq_rel,
                                                  memory_order_acquire)) {
            *unit = next;
            return true;
        }
    }
}

/* ---- working -------------------------------------------------------------------------- */

/* Takes and runs tasks of job g until none is left (or the job is over), then adds
 * the number it ran to done: one atomic add per worker and job, not one per task —
 * every atomic on the job's shared counters moves their cache line from one core to
 * the other, and a decode step runs thousands of tasks. (Until this worker has added
 * its count, job g cannot end, so n is still g's.) Worker 0, the caller, takes the
 * tasks from the front, the others from the back. */
static void work(uint32_t g, int worker) {
    int64_t ran = 0, n = 0;
    for (;;) {
        uint64_t c = atomic_load_explicit(&pool.claim, memory_order_acquire);
        if ((uint32_t)(c >> 32) != g) break; /* a later job: this one is over (and ran is 0) */
        uint32_t front = (uint32_t)(c & 0xffff), back = (uint32_t)((c >> 16) & 0xffff);
        if (front >= back) break;
        int64_t task = worker == 0 ? front : back - 1;
        uint64_t next = worker == 0 ? c + 1 : c - ((uint64_t)1 << 16);
        if (!atomic_compare_exchange_weak_explicit(&pool.claim, &c, next, memory_order_acq_rel,
                                                   memory_order_relaxed))
            continue;
        /* task is ours, so job g cannot end before it: its fields are g's */
        n = atomic_load_explicit(&pool.n, memory_order_relaxed);
        run_task(g, task, 0, -1, worker);
        ran++;
    }
    share(g, worker);
    if (ran > 0 && atomic_fetch_add(&pool.done, ran) + ran == n) wake_caller();
}

static void *worker_main(void *arg) {
    int worker = (int)(intptr_t)arg;
    in_worker = true;
    uint32_t seen = atomic_load(&pool.generation);
    for (;;) {
        if (!spin_until(generation_moved, &seen)) {
            atomic_fetch_add(&pool.sleepers, 1);
            while (atomic_load(&pool.generation) == seen) sleep_on(&pool.generation, seen);
            atomic_fetch_sub(&pool.sleepers, 1);
        }
        seen = atomic_load_explicit(&pool.generation, memory_order_acquire);
        int workers = atomic_load_explicit(&pool.job_workers, memory_order_relaxed);
        if (worker < workers) {
            work(seen, worker);
            note_waits(now_ns(), workers);
        }
    }
    return NULL;
}

/* ---- the pool ---------------------------------------------------------------------------- */

static int default_threads(void) {
    const char *env = getenv("OMP_NUM_THREADS");
    if (env && *env) {
        char *end;
        long n = strtol(env, &end, 10);
        if (*end == '\0' && n >= 1) return n > MAX_WORKERS ? MAX_WORKERS : (int)n;
    }
    int n = usable_cpus();
    return n > MAX_WORKERS ? MAX_WORKERS : n;
}

static int active_workers(void) {
    int n = atomic_load(&pool.active);
    if (n == 0) {
        int expected = 0;
        atomic_compare_exchange_strong(&pool.active, &expected, default_threads());
        n = atomic_load(&pool.active);
    }
    return n;
}

/* Makes sure the active workers' threads exist (under pool.lock). */
static void start_workers(void) {
    int active = active_workers();
    for (; pool.started < active; pool.started++) {
        if (pool.started == 0) continue; /* worker 0 is the caller */
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, (size_t)8 << 20); /* the batched kernel's panel lives on it */
        int rc = pthread_create(&t, &attr, worker_main, (void *)(intptr_t)pool.started);
        pthread_attr_destroy(&attr);
        if (rc != 0) die("cannot start worker thread %d: %s", pool.started, strerror(rc));
        pthread_detach(t);
    }
    if (pool.started == 0) pool.started = 1;
}

int pool_threads(void) { return active_workers(); }

bool pool_in_task(void) { return in_worker; }

int pool_workers_in_use(void) {
    int active = active_workers(), limit = atomic_load(&pool.limit);
    return limit == 0 || limit >= active ? active : limit;
}

void pool_set_threads(int n) {
    pthread_mutex_lock(&pool.lock); /* not while a job runs */
    atomic_store(&pool.active, n >= 1 ? (n > MAX_WORKERS ? MAX_WORKERS : n) : default_threads());
    atomic_store(&pool.limit, 0);
    pthread_mutex_unlock(&pool.lock);
}

/* Tasks base .. base + n_tasks − 1 (at most JOB_TASKS) as one job. */
static void run_job(int64_t base, int64_t n_tasks, PoolTask *fn, void *ctx) {
    pthread_mutex_lock(&pool.lock);
    start_workers();
    int64_t now = now_ns();
    int workers = workers_now(now, atomic_load(&pool.active));
    note_waits(now, workers);
    if (workers == 1) {
        pthread_mutex_unlock(&pool.lock);
        for (int64_t t = 0; t < n_tasks; t++) fn(ctx, base + t, 0);
        return;
    }
    /* announce the job: its fields, then claim with the new generation, then the
     * generation itself (which wakes whoever sleeps on it) */
    uint32_t g = atomic_load(&pool.generation) + 1;
    atomic_store_explicit(&pool.fn, fn, memory_order_relaxed);
    atomic_store_explicit(&pool.ctx, ctx, memory_order_relaxed);
    atomic_store_explicit(&pool.n, n_tasks, memory_order_relaxed);
    atomic_store_explicit(&pool.base, base, memory_order_relaxed);
    atomic_store_explicit(&pool.done, 0, memory_order_relaxed);
    atomic_store_explicit(&pool.job_workers, workers, memory_order_relaxed);
    atomic_store_explicit(&pool.claim, (uint64_t)g << 32 | (uint64_t)n_tasks << 16, memory_order_release);
    atomic_store(&pool.generation, g);
    if (atomic_load(&pool.sleepers) > 0) wake_all(&pool.generation);

    in_worker = true; /* the caller's own tasks: a nested pool_run runs alone */
    work(g, 0);
    in_worker = false;

    /* the others' last tasks */
    if (!spin_until(job_done, &n_tasks)) {
        for (;;) {
            uint32_t word = atomic_load(&pool.done_word);
            atomic_store(&pool.caller_asleep, 1);
            if (job_done(&n_tasks)) break;
            sleep_on(&pool.done_word, word);
            if (job_done(&n_tasks)) break;
        }
        atomic_store(&pool.caller_asleep, 0);
    }
    pthread_mutex_unlock(&pool.lock);
}

void pool_run(int64_t n_tasks, PoolTask *fn, void *ctx) {
    if (n_tasks <= 0) return;
    if (in_worker || n_tasks == 1) { /* nothing to share */
        Running outer = running;
        running.on = false; /* a task's units of this job are its own */
        for (int64_t t = 0; t < n_tasks; t++) fn(ctx, t, 0);
        running = outer;
        return;
    }
    for (int64_t base = 0; base < n_tasks; base += JOB_TASKS)
        run_job(base, n_tasks - base < JOB_TASKS ? n_tasks - base : JOB_TASKS, fn, ctx);
}

/* ---- cutting a job into tasks ------------------------------------------------------- */

int64_t pool_task_units(int64_t want, int64_t units, int64_t align) {
    int64_t share = (units + pool_threads() - 1) / pool_threads();
    int64_t per = want < share ? want : share;
    per -= per % align;
    return per < align ? align : per;
}

PoolCut pool_cut(int64_t units, int64_t per) { return (PoolCut){units, per}; }

int64_t pool_cut_tasks(const PoolCut *c) { return (c->units + c->per - 1) / c->per; }

void pool_cut_range(const PoolCut *c, int64_t task, int64_t *first, int64_t *last) {
    *first = task * c->per;
    *last = *first + c->per < c->units ? *first + c->per : c->units;
}
