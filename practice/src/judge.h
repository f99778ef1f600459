/* judge.h — the practice judge: what its parts share.
 *
 *   main.c       the command line and the learner's commands (list, start, test, ...)
 *   exercise.c   finding the exercises and reading problem.md, hints.md
 *   progress.c   the plain-text progress file in the workspace
 *   build.c      the compiler; the parts of a run built from trusted files only (the
 *                tests' runner objects, the checker)
 *   run.c        a test run: the learner's file compiled in a scratch folder, each case
 *                run confined, its outputs judged by the checker
 *   sandbox.c    starting a program under limits; confining code under test (Landlock,
 *                seccomp, no privileges, every descendant killed)
 *   sanitizer.c  what the sanitizers reported, and how a process ended, in words
 *   report.c     printing a run: a line per case, the values, the verdict line
 *   check.c      `judge check`, for maintainers
 *   util.c       paths, files, processes, text width, colour, questions
 */
#ifndef JUDGE_H
#define JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define PATH_LEN 4096

/* Exit statuses (documented in --help and practice/README.md). */
/* accepted, or the command did what was asked */
#define EXIT_ACCEPTED 0
/* not accepted (wrong answer, runtime error, timeout, compile error); check found a problem */
#define EXIT_REJECTED 1
/* bad command line, unknown exercise, unreadable file or progress file */
#define EXIT_USAGE 2

/* Limits of one test case's process. A program that allocates without end must meet the
 * memory limit well before the CPU limit, or it is reported as an endless loop: every
 * page it touches costs CPU time, ~4.5 ms a MB under AddressSanitizer on a virtual
 * machine whose page faults are slow (measured: 256 MB after 1.2–1.3 s, 512 MB after
 * 1.7–2.4 s), and the sanitizer looks at the resident memory from time to time, not at
 * every page. */
#define CPU_LIMIT_S     3   /* CPU seconds (RLIMIT_CPU) */
#define WALL_LIMIT_S    6   /* wall-clock seconds, for code that sleeps or waits */
#define MEMORY_LIMIT_MB 256 /* resident memory (AddressSanitizer's hard_rss_limit_mb) */
#define OUTPUT_LIMIT_MB 16  /* bytes a case may write to each of its files (RLIMIT_FSIZE) */
/* ... of compiling the learner's file */
#define COMPILE_CPU_S     10
#define COMPILE_WALL_S    20
#define COMPILE_MEMORY_MB 2048 /* address space (RLIMIT_AS) of every compiler process */
#define COMPILE_OUTPUT_MB 64
/* ... of the checker, which reads a case's outputs */
#define CHECK_CPU_S     5
#define CHECK_WALL_S    10
#define CHECK_MEMORY_MB 1024
#define MAX_CASES       64

#define SANITIZER_EXIT 23 /* the exit status a sanitizer ends a case with (its exitcode option) */
#define HARNESS_EXIT   70 /* the test harness's own failure (PT_EXIT_HARNESS in practice/lib/ptest.h) */

#define STR_(x) #x
#define STR(x)  STR_(x) /* a macro's value as a string literal */

/* ---- exercises ------------------------------------------------------------------ */

enum { DIFF_EASY, DIFF_MEDIUM, DIFF_HARD };

typedef struct {
    char dir[PATH_LEN]; /* absolute path of practice/NNN-slug */
    char slug[128];     /* "206-delta-rule" */
    int number;         /* 206 */
    char title[256];    /* Chinese title */
    char title_en[256];
    int chapter;     /* 1..7 */
    int difficulty;  /* DIFF_* */
    char tags[256];  /* as written: "[deltanet, 递推]" */
    char file[128];  /* the starter's file name: "delta_rule.c" */
    char error[512]; /* what is wrong with problem.md's front matter; "" when nothing */
} Exercise;

typedef struct {
    char practice[PATH_LEN];  /* the practice/ folder */
    char workspace[PATH_LEN]; /* the learner's files and progress.txt */
    char build[PATH_LEN];     /* workspace/.build: compiled tests, binaries, case output */
    char cwd[PATH_LEN];       /* for making paths relative in messages */
    Exercise *ex;
    int n_ex;
    bool color;
    bool english; /* --lang=en: statements in English */
    bool yes;     /* --yes: answer yes to questions */
} Judge;

/* Finds every practice/NNN-slug folder and reads its front matter (sorted by chapter,
 * then number). A folder whose front matter is broken is still listed, with error set. */
void load_exercises(Judge *j);
/* The title in the language the judge speaks (--lang). */
const char *exercise_title(const Judge *j, const Exercise *e);
Exercise *find_exercise(Judge *j, const char *arg); /* "206" or "206-delta-rule"; NULL if none */
/* In the language the judge speaks (--lang). */
const char *difficulty_name(const Judge *j, int d);
const char *chapter_name(const Judge *j, int chapter);

/* problem.md without the front matter: the Chinese part (before the separator line
 * "---") or the English part (after it); without a separator, the whole statement,
 * and *separated (when given) false. Malloc'd; NULL when unreadable. */
char *problem_text(const Exercise *e, bool english, bool *separated);
/* hints.md split at its "## " headings: n tiers, each "heading\nbody". Returns n
 * (0 when unreadable); *tiers is malloc'd (free with free_strings). */
int read_hints(const Exercise *e, char ***tiers);
void free_strings(char **s, int n);

/* Paths of an exercise's files. */
void workspace_file(const Judge *j, const Exercise *e, char *out, size_t size); /* workspace/NNN-slug.c */
void starter_file(const Exercise *e, char *out, size_t size);
void solution_file(const Exercise *e, char *out, size_t size);

/* ---- progress ----------------------------------------------------------------------- */

enum { ST_NONE, ST_FAILED, ST_PASSED };

typedef struct {
    int number;
    int status;         /* ST_*: the best result so far */
    int hints;          /* tiers shown so far */
    bool latest_failed; /* passed before, but the latest test did not pass */
} ProgressEntry;

typedef struct {
    ProgressEntry *e;
    int n;
} Progress;

/* Reads workspace/progress.txt (a missing file is an empty progress). False with one
 * line in err (naming the file and the line) when the file is not what the judge writes. */
bool progress_load(const Judge *j, Progress *p, char *err, size_t err_size);
typedef enum { PROGRESS_PASSED, PROGRESS_FAILED, PROGRESS_HINT, PROGRESS_RESET } ProgressChange;
/* Records one change for exercise number, under the workspace's lock (read, change,
 * write to a temporary file, rename). now, when not NULL, gets the progress as
 * written. False with one line in err when it could not be read or written. */
bool progress_update(const Judge *j, int number, ProgressChange change, Progress *now, char *err,
                     size_t err_size);
ProgressEntry *progress_get(Progress *p, int number); /* adds an empty entry when missing */
int progress_status(const Progress *p, int number);
void progress_free(Progress *p);

/* ---- running the tests --------------------------------------------------------------- */

typedef enum { V_PASS, V_WRONG, V_RUNTIME, V_TIMEOUT, V_COMPILE, V_SKIPPED } Verdict;

typedef struct {
    char id[64];
    char title[256];
    Verdict v;
    double ms;          /* CPU time of the case's process */
    char message[1024]; /* one line: what went wrong */
    char **lines;       /* details: values, sanitizer lines */
    int n_lines;
    long long out_bytes; /* what the learner's code printed on stdout */
    char first_out[256]; /* its first line */
    long long err_bytes; /* ... and on stderr (besides sanitizer reports) */
} CaseResult;

typedef struct {
    Verdict verdict; /* V_PASS only when every case passed */
    int passed, total;
    double compile_s;     /* wall-clock seconds of compiling the learner's file */
    char **compile_lines; /* the first relevant compiler lines (errors, or the first warning) */
    int n_compile_lines;
    int n_warnings;
    CaseResult *cases;
    char setup_error[1024]; /* the judge could not even try (tests did not build, ...) */
} TestRun;

/* The compiler flags of every file under test: C11, the warnings, the sanitizers,
 * plain diagnostics (NULL-terminated; the workspace's compile_flags.txt takes the
 * first ones, for editors). */
extern const char *const COMPILE_FLAGS[];

/* Compiles `file` against exercise e's tests with warnings and the sanitizers, then runs
 * every case in its own confined process and lets the checker judge its outputs. only,
 * when not NULL, is a space-separated list of the case ids to run (the others are
 * skipped). */
void run_tests(const Judge *j, const Exercise *e, const char *file, const char *only, TestRun *run);
void free_run(TestRun *run);
const char *verdict_name(Verdict v);

/* build.c: the build folder (wiped when the compiler or its flags changed); false
 * with run->setup_error set when it cannot be written. */
bool prepare_build(const Judge *j, TestRun *run);
/* The trusted parts of exercise e's tests, rebuilt when stale: runner_objs gets the
 * runner's object files (in .build/NNN-slug/runner/), checker the checker's path.
 * Returns how many objects, or −1 with run->setup_error set. */
int build_tests(const Judge *j, const Exercise *e, char runner_objs[][128], int max, char *checker,
                size_t checker_size, TestRun *run);
/* Builds them ahead of time (start does it in the background, so that the first test
 * round is as quick as the others). */
void prebuild_tests(const Judge *j, const Exercise *e);
/* The compiler command: $CC split at spaces, or cc. Returns the number of words. */
int compiler_argv(char **argv, int max, char *buf, size_t size);
/* The compiler's folder when it is outside the system's ("" otherwise). */
void compiler_home(char *out, size_t size);
/* The compiler's first relevant lines from log_path into run->compile_lines (the first
 * error, or without want_error the first warning, with their context), counting the
 * warnings; names, when not NULL, is {name in the scratch folder, name to show}. */
void keep_compiler_lines(const Judge *j, const char *log_path, bool want_error, const char *const *names,
                         TestRun *run);
void add_compile_line(TestRun *run, const char *text); /* escaped */

/* run.c: a case's detail lines (escaped) */
void case_add_line(CaseResult *c, const char *text);
void case_clear_lines(CaseResult *c);

/* sanitizer.c: the sanitizer report in err (if any) into c; true when there was one.
 * describe_signal: a signal in words (NULL when it has none). */
bool parse_sanitizer(const Judge *j, char *err, const char *learner_file, CaseResult *c);
const char *describe_signal(int sig);

/* ---- sandbox.c: programs under limits -------------------------------------------------- */

typedef struct {
    double cpu_s;              /* RLIMIT_CPU (0: none) */
    double wall_s;             /* killed after this long on the judge's clock */
    long long memory_mb;       /* RLIMIT_AS (0: none; AddressSanitizer needs none) */
    long long output_mb;       /* RLIMIT_FSIZE: bytes per file written (0: none) */
    bool confine;              /* code under test: Landlock, seccomp, no privileges, NPROC */
    bool proc;                 /* confined, may still read /proc (AddressSanitizer needs it) */
    const char *scratch;       /* confined, the one folder it may write (NULL: none) */
    const char *read_extra[4]; /* confined, what else it may read: files or folders */
    const char *cwd;           /* NULL: the judge's */
    const char *out_path;      /* stdout, and stderr unless err_path (NULL: /dev/null) */
    const char *err_path;
    const char *fd3_path; /* a file on descriptor 3 (NULL: /dev/null) */
    const char *env[8];   /* NAME=VALUE settings added to the environment */
} Limits;

typedef struct {
    int status;        /* as waitpid gives it */
    bool wall_timeout; /* killed at the wall-clock limit */
    double cpu_ms;     /* CPU time of the program and of every process it started */
    char error[256];   /* why it could not be started (run_limited false) */
} Outcome;

/* Once, at the start: the judge becomes not dumpable; which protections the kernel has
 * (PRACTICE_WITHOUT=landlock,seccomp makes it behave as on a kernel without them, for
 * the judge's own tests). */
void sandbox_init(void);
/* One line saying which protection the kernel lacks, or NULL when it has them all. */
const char *sandbox_missing(void);
int sandbox_landlock_abi(void); /* 0: no Landlock */
/* Runs argv (PATH searched) under lim and waits for it; then every process it left
 * behind is killed. False (with o->error) when it could not be started. */
bool run_limited(char *const argv[], const Limits *lim, Outcome *o);

/* Prints the run: header, a line per case, the verdict line. */
void print_run(const Judge *j, const Exercise *e, const char *file, const TestRun *run);

/* ---- check (maintainers) -------------------------------------------------------------- */
int cmd_check(Judge *j, int argc, char **argv);

/* ---- util ---------------------------------------------------------------------------- */

/* Colour (only when j->color): */
const char *c_green(const Judge *j);
const char *c_red(const Judge *j);
const char *c_yellow(const Judge *j);
const char *c_dim(const Judge *j);
const char *c_bold(const Judge *j);
const char *c_off(const Judge *j);

/* Files and folders (fs_). fs_read: a whole file, NUL-terminated (NULL on error);
 * fs_read_max: at most max bytes of it. fs_write replaces path as databases do (a
 * temporary file beside it, flushed, renamed over it). */
char *fs_read(const char *path, size_t *len);
char *fs_read_max(const char *path, size_t max, size_t *len);
bool fs_write(const char *path, const char *data, size_t len);
bool fs_copy(const char *from, const char *to);
bool fs_exists(const char *path); /* a regular file */
bool fs_is_dir(const char *path);
bool fs_mkdirs(const char *path);      /* mkdir -p */
bool fs_remove_tree(const char *path); /* rm -rf */
double fs_mtime(const char *path);     /* 0 when missing */
long long fs_size(const char *path);   /* 0 when missing */
/* The names of the regular files in dir ending in suffix (leaving out skip, when not
 * NULL; and names starting with '.'), sorted; returns how many (at most max). */
int fs_list(const char *dir, const char *suffix, const char *skip, char names[][128], int max);
/* a/b (b itself when it is absolute) into out. */
void fs_join(char *out, size_t size, const char *a, const char *b);

/* src with control characters written out (a newline as \n, a tab as \t, others and
 * bytes that are not UTF-8 as \xNN), so that text from the code under test cannot
 * move the cursor, clear the screen or break a report line. Cut to fit size. */
void escape_text(char *dst, size_t size, const char *src);

double now_s(void);
/* path as the learner would type it from the current folder. */
void rel_path(const Judge *j, const char *path, char *out, size_t size);
/* Replaces every absolute "cwd/" (and practice folder) prefix in line by the relative form. */
void relativize(const Judge *j, char *line, size_t size);

/* Display width of UTF-8 text in a terminal (CJK = 2 columns). */
int text_width(const char *s);
/* Prints s padded with spaces to width columns. */
void print_padded(const char *s, int width);

/* Asks a yes/no question on stdin; default no. j->yes answers yes. */
bool ask_yes(const Judge *j, const char *question);

/* Splits a malloc'd text into lines (the array of pointers points into text). */
int split_lines(char *text, char ***lines);

/* snprintf into a fixed buffer, truncating when it does not fit (paths and messages
 * here are short; a cut message is better than none). True when everything fit. */
bool strf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* errors: one line on stderr, "judge: ..." */
void errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
