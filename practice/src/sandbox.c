/* sandbox.c — starting a program under limits, and confining code under test.
 *
 * Every program the judge starts (the compiler, a test case, a checker) runs under
 * limits: CPU seconds (RLIMIT_CPU), the judge's wall clock, address space
 * (RLIMIT_AS, where the program allows it), bytes written (RLIMIT_FSIZE), no core
 * file. A process that holds the learner's code — the compiler reading the learner's
 * file, and the runner of every case — is also confined, with what an unprivileged
 * user has on Linux:
 *
 *   Landlock   it may read the system's folders (/usr, /etc, ...), /proc for
 *              AddressSanitizer, and its scratch folder; it may write only its scratch
 *              folder. Your files, the exercise's expected values and the judge's
 *              build products are out of its reach. It cannot ptrace a process
 *              outside its sandbox (any ABI); from ABI 4 it cannot make TCP
 *              connections, from ABI 6 not send signals outside its sandbox.
 *   seccomp    no signal to the judge or its process group (the same protection on
 *              kernels before Landlock ABI 6), no pidfd signals, and no fork():
 *              threads only — clone() must share memory (CLONE_VM), which is what
 *              threads and AddressSanitizer's leak checker do.
 *   NPROC      RLIMIT_NPROC: a few dozen processes more than the user already runs
 *              (the kernel does not apply it to root).
 *   root       run as root, the code under test gets no capabilities, and execve
 *              gives none back (SECBIT_NOROOT).
 * And whatever a case starts stays below the judge: the judge is a subreaper
 * (PR_SET_CHILD_SUBREAPER), so setsid() and double forks still leave a descendant,
 * and after every program every descendant is killed. The judge is not dumpable, so
 * other processes of the same user cannot ptrace it or write its memory.
 *
 * Where the kernel lacks Landlock or seccomp, the judge still runs with the rest and
 * says once which protection is missing (sandbox_missing).
 */
#include "judge.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/securebits.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- Landlock: the parts newer than the system's headers may know ---------------------- */

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13) /* ABI 2 */
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#endif
#define LL_NET_BIND_TCP       (1ULL << 0) /* ABI 4 */
#define LL_NET_CONNECT_TCP    (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL       (1ULL << 1)

/* struct landlock_ruleset_attr as of ABI 6; older kernels take a prefix of it */
typedef struct {
    uint64_t handled_access_fs, handled_access_net, scoped;
} RulesetAttr;

#define LL_READ_FILE  LANDLOCK_ACCESS_FS_READ_FILE
#define LL_READ_TREE  (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_EXECUTE)
#define LL_FILE_RIGHTS                                                                                       \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |             \
     LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

static int landlock_abi = -1; /* 0: none */

static uint64_t fs_rights(int abi) {
    uint64_t all = (1ULL << 13) - 1; /* ABI 1: EXECUTE ... MAKE_SYM */
    if (abi >= 2) all |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) all |= LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi >= 5) all |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    return all;
}

/* What the system's programs and libraries need: read (and run) these trees. */
static const char *const SYSTEM_TREES[] = {"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32",
                                           "/etc", NULL};

/* A rule: path (a folder and what is beneath it, or one file) with the rights given,
 * narrowed to what a file can have and to what the ruleset handles. */
static bool add_rule(int ruleset, const char *path, uint64_t rights, uint64_t handled) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return true; /* /lib32 and friends may not exist: nothing to allow */
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) rights &= LL_FILE_RIGHTS;
    struct landlock_path_beneath_attr rule = {.allowed_access = rights & handled, .parent_fd = fd};
    long r = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    close(fd);
    return r == 0;
}

/* In the child, before exec: from now on it reads only the system, what lim allows
 * and its scratch folder, and writes only the scratch folder. */
static bool enter_landlock(const Limits *lim) {
    int abi = landlock_abi;
    RulesetAttr attr = {.handled_access_fs = fs_rights(abi)};
    size_t size = sizeof attr.handled_access_fs;
    if (abi >= 4) {
        attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP; /* and no rule allows any */
        size = offsetof(RulesetAttr, scoped);
    }
    if (abi >= 6) {
        attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
        size = sizeof attr;
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) return false;
    uint64_t handled = attr.handled_access_fs;
    bool ok = true;
    for (int i = 0; SYSTEM_TREES[i]; i++) ok = add_rule(ruleset, SYSTEM_TREES[i], LL_READ_TREE, handled) && ok;
    ok = add_rule(ruleset, "/dev/null", LL_FILE_RIGHTS, handled) && ok;
    ok = add_rule(ruleset, "/dev/urandom", LL_READ_FILE, handled) && ok;
    if (lim->proc) ok = add_rule(ruleset, "/proc", LL_READ_TREE, handled) && ok;
    for (int i = 0; i < 4 && lim->read_extra[i]; i++)
        ok = add_rule(ruleset, lim->read_extra[i], LL_READ_TREE, handled) && ok;
    if (lim->scratch) ok = add_rule(ruleset, lim->scratch, handled, handled) && ok;
    ok = ok && syscall(SYS_landlock_restrict_self, ruleset, 0) == 0;
    close(ruleset);
    return ok;
}

/* ---- seccomp ----------------------------------------------------------------------------- */

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define NATIVE_ARCH AUDIT_ARCH_RISCV64
#endif

static bool seccomp_works = true;

#ifdef NATIVE_ARCH
#define ARG_LOW(i) ((uint32_t)offsetof(struct seccomp_data, args[i]) + (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) * 4)
#define ERRNO(e)   (SECCOMP_RET_ERRNO | (uint32_t)(e))

typedef struct {
    struct sock_filter insn[128];
    int n;
} Filter;

static void emit(Filter *f, struct sock_filter insn) {
    if (f->n < 128) f->insn[f->n++] = insn;
}

/* Syscall nr may not name the judge: argument arg (a pid, as the kernel reads it, 32
 * bits) is refused when it is the judge, its process group (as −pgid) or −1 (every
 * process). Seven instructions; A holds the syscall number before and, when this is
 * not nr, after. */
static void refuse_judge_as(Filter *f, int nr, int arg, pid_t judge, pid_t group) {
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 6));
    emit(f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(arg)));
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)judge, 3, 0));
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)-1, 2, 0));
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)-group, 1, 0));
    emit(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    emit(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ERRNO(EPERM)));
}

static void refuse(Filter *f, int nr, int err) {
    emit(f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1));
    emit(f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ERRNO(err)));
}

static bool enter_seccomp(pid_t judge, pid_t group) {
    Filter f = {.n = 0};
    emit(&f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    emit(&f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0));
    emit(&f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)); /* i386 calls, ... */
    emit(&f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
#ifdef __x86_64__
    emit(&f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1)); /* x32 calls */
    emit(&f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#endif
    /* no signal to the judge */
    refuse_judge_as(&f, SYS_kill, 0, judge, group);
    refuse_judge_as(&f, SYS_tkill, 0, judge, group);
    refuse_judge_as(&f, SYS_tgkill, 0, judge, group);
    refuse_judge_as(&f, SYS_rt_sigqueueinfo, 0, judge, group);
    refuse_judge_as(&f, SYS_rt_tgsigqueueinfo, 0, judge, group);
    refuse_judge_as(&f, SYS_ptrace, 1, judge, group);
    refuse_judge_as(&f, SYS_process_vm_readv, 0, judge, group);
    refuse_judge_as(&f, SYS_process_vm_writev, 0, judge, group);
#ifdef SYS_pidfd_open
    refuse_judge_as(&f, SYS_pidfd_open, 0, judge, group);
#endif
#ifdef SYS_pidfd_send_signal
    refuse(&f, SYS_pidfd_send_signal, EPERM); /* a /proc/PID folder is a pidfd too */
#endif
    /* no fork: clone only with CLONE_VM (threads); clone3's flags are out of a
     * filter's reach, so it is "not implemented" and the C library falls back to clone */
#ifdef SYS_fork
    refuse(&f, SYS_fork, EPERM);
#endif
#ifdef SYS_clone3
    refuse(&f, SYS_clone3, ENOSYS);
#endif
    emit(&f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4));
    emit(&f, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LOW(0)));
    emit(&f, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_VM, 0, 1));
    emit(&f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    emit(&f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, ERRNO(EPERM)));
    emit(&f, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    if (f.n >= 128) return false;
    struct sock_fprog prog = {.len = (unsigned short)f.n, .filter = f.insn};
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == 0;
}
#else
static bool enter_seccomp(pid_t judge, pid_t group) {
    (void)judge, (void)group;
    return false;
}
#endif

/* ---- root: no capabilities, and none regained by execve ---------------------------------- */

static void drop_root_powers(void) {
    if (geteuid() != 0 && getuid() != 0) return;
    prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                 SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
                                 SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
          0, 0, 0);
    for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct __user_cap_header_struct head = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    memset(data, 0, sizeof data);
    syscall(SYS_capset, &head, data);
}

/* ---- RLIMIT_NPROC ---------------------------------------------------------------------- */

/* The tasks (threads included, as the kernel counts) of the user right now. */
static long user_tasks(void) {
    static long counted = -1;
    if (counted >= 0) return counted;
    counted = 0;
    DIR *d = opendir("/proc");
    if (!d) return counted = 1000;
    struct dirent *de;
    uid_t me = getuid();
    while ((de = readdir(d))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9') continue;
        char path[64], buf[4096];
        strf(path, sizeof path, "/proc/%s/status", de->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0) continue;
        buf[n] = '\0';
        const char *uid = strstr(buf, "\nUid:"), *threads = strstr(buf, "\nThreads:");
        if (uid && threads && strtoul(uid + 5, NULL, 10) == me) counted += strtol(threads + 9, NULL, 10);
    }
    closedir(d);
    return counted;
}

/* ---- the judge's side ------------------------------------------------------------------- */

void sandbox_init(void) {
#ifndef __SANITIZE_ADDRESS__ /* LeakSanitizer's own check of the judge (make test-san) ptraces it */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
#endif
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    landlock_abi = abi > 0 ? (int)abi : 0;
#ifdef NATIVE_ARCH
    seccomp_works = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
#else
    seccomp_works = false;
#endif
    /* the judge's own tests: behave as on a kernel without them */
    const char *without = getenv("PRACTICE_WITHOUT");
    if (without && strstr(without, "landlock")) landlock_abi = 0;
    if (without && strstr(without, "seccomp")) seccomp_works = false;
}

int sandbox_landlock_abi(void) { return landlock_abi; }

const char *sandbox_missing(void) {
    if (landlock_abi <= 0 && !seccomp_works)
        return "这个内核没有 Landlock 和 seccomp：被测的代码能读写你的文件、给评测机发信号；"
               "其余的限制（时间、内存、输出、进程）照旧";
    if (landlock_abi <= 0)
        return "这个内核没有 Landlock（Linux 5.13 起才有）：被测的代码能读写你的文件；"
               "其余的限制（时间、内存、输出、进程、信号）照旧";
    if (!seccomp_works) return "这个内核没有 seccomp：Landlock ABI 6 之前，被测的代码能给评测机发信号";
    return NULL;
}

/* The pid in /proc/PID/stat's fourth field: the parent. */
static pid_t parent_of(const char *pid) {
    char path[64], buf[512];
    strf(path, sizeof path, "/proc/%s/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = '\0';
    const char *close_paren = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
    int ppid = 0;
    if (!close_paren || sscanf(close_paren + 1, " %*c %d", &ppid) != 1) return 0;
    return ppid;
}

/* Kills and reaps every descendant: as their subreaper, the judge is the parent of
 * whatever is left (orphans come up to it as their parents die). */
static void kill_descendants(void) {
    for (int round = 0; round < 10000; round++) {
        int status;
        pid_t r;
        while ((r = waitpid(-1, &status, WNOHANG)) > 0) {
        }
        if (r < 0) return; /* ECHILD: nobody left */
        DIR *d = opendir("/proc");
        struct dirent *de;
        pid_t me = getpid();
        while (d && (de = readdir(d)))
            if (de->d_name[0] >= '0' && de->d_name[0] <= '9' && parent_of(de->d_name) == me)
                kill((pid_t)atoi(de->d_name), SIGKILL);
        if (d) closedir(d);
        struct timespec ts = {0, 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* CPU milliseconds of every process the judge has reaped so far. A process reaped by
 * its parent adds to that parent's count, and orphans come up to the judge: so across a
 * run, the difference is the CPU time of the program and of everything it started (a
 * compiler's driver and its cc1 alike, even when they were killed). */
static double children_cpu_ms(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_CHILDREN, &ru) != 0) return 0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/* The program: argv[0] itself when it names a path, else the first executable of
 * that name on $PATH (as execvp finds it). False when there is none. */
static bool find_program(const char *name, char *out, size_t size) {
    if (strchr(name, '/')) return strf(out, size, "%s", name);
    const char *dirs = getenv("PATH");
    for (const char *p = dirs && *dirs ? dirs : "/usr/bin:/bin"; *p;) {
        size_t len = strcspn(p, ":");
        if (strf(out, size, "%.*s%s%s", (int)len, p, len ? "/" : "", name) && access(out, X_OK) == 0) return true;
        p += len + (p[len] == ':');
    }
    return false;
}

/* The environment of the child: ours, with lim->env's settings added (replacing a
 * variable of the same name). Malloc'd array; its strings are ours or lim's. */
static char **child_environment(const Limits *lim) {
    extern char **environ;
    size_t n = 0;
    while (environ[n]) n++;
    char **env = malloc((n + 9) * sizeof *env);
    if (!env) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        bool replaced = false;
        for (int e = 0; e < 8 && lim->env[e]; e++) {
            size_t name = strcspn(lim->env[e], "=");
            if (!strncmp(environ[i], lim->env[e], name + 1)) replaced = true;
        }
        if (!replaced) env[k++] = environ[i];
    }
    for (int e = 0; e < 8 && lim->env[e]; e++) env[k++] = (char *)lim->env[e];
    env[k] = NULL;
    return env;
}

/* In the child: the files, the limits, the confinement; then exec. Never returns.
 * Nothing here allocates memory: this code may be built with AddressSanitizer, whose
 * allocator cannot grow under an address-space limit — which is set last. */
static _Noreturn void start_child(const char *path, char *const argv[], char *const envp[], const Limits *lim,
                                  pid_t judge, pid_t group, int report) {
    setpgid(0, 0);
    int in = open("/dev/null", O_RDONLY);
    int out = lim->out_path ? open(lim->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0666) : open("/dev/null", O_WRONLY);
    int err = lim->err_path ? open(lim->err_path, O_WRONLY | O_CREAT | O_TRUNC, 0666) : dup(out);
    int fd3 = lim->fd3_path ? open(lim->fd3_path, O_WRONLY | O_CREAT | O_TRUNC, 0666) : open("/dev/null", O_WRONLY);
    /* the report pipe (close-on-exec) moves out of the way of 0..3, everything else closes */
    report = fcntl(report, F_DUPFD_CLOEXEC, 64);
    if (in < 0 || out < 0 || err < 0 || fd3 < 0 || report < 0) _exit(126);
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 || dup2(fd3, 3) < 0) _exit(126);
    for (int fd = 4; fd < 1024; fd++)
        if (fd != report) close(fd);
    const char *failed = NULL;
    struct rlimit core = {0, 0};
    setrlimit(RLIMIT_CORE, &core);
    if (lim->cpu_s > 0) {
        struct rlimit cpu = {(rlim_t)lim->cpu_s, (rlim_t)lim->cpu_s + 1};
        setrlimit(RLIMIT_CPU, &cpu);
    }
    if (lim->output_mb > 0) {
        struct rlimit fsize = {(rlim_t)lim->output_mb << 20, (rlim_t)lim->output_mb << 20};
        setrlimit(RLIMIT_FSIZE, &fsize);
    }
    if (lim->cwd && chdir(lim->cwd) != 0) failed = "chdir";
    if (!failed && lim->confine) {
        struct rlimit nproc = {(rlim_t)user_tasks() + 64, (rlim_t)user_tasks() + 64};
        setrlimit(RLIMIT_NPROC, &nproc);
        drop_root_powers();
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) failed = "no_new_privs";
        else if (landlock_abi > 0 && !enter_landlock(lim)) failed = "Landlock";
        else if (seccomp_works && !enter_seccomp(judge, group)) failed = "seccomp";
    }
    if (!failed && lim->memory_mb > 0) {
        struct rlimit as = {(rlim_t)lim->memory_mb << 20, (rlim_t)lim->memory_mb << 20};
        setrlimit(RLIMIT_AS, &as);
    }
    if (!failed) {
        execve(path, argv, envp);
        failed = "exec";
    }
    /* tell the judge what went wrong: a word, then errno */
    int e = errno;
    (void)!write(report, failed, strlen(failed) + 1);
    (void)!write(report, &e, sizeof e);
    _exit(127);
}

bool run_limited(char *const argv[], const Limits *lim, Outcome *o) {
    memset(o, 0, sizeof *o);
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); /* not inherited: each process that starts others */
    if (lim->confine) user_tasks();            /* counted here, before the child needs it */
    pid_t judge = getpid(), group = getpgrp();
    char path[PATH_LEN];
    if (!find_program(argv[0], path, sizeof path)) {
        strf(o->error, sizeof o->error, "找不到 %s", argv[0]);
        return false;
    }
    char **envp = child_environment(lim);
    int report[2];
    if (!envp || pipe2(report, O_CLOEXEC) != 0) {
        free(envp);
        strf(o->error, sizeof o->error, "pipe: %s", strerror(errno));
        return false;
    }
    /* SIGCHLD stays blocked while the program runs, so that the wait below can sleep
     * until the child ends (or the wall-clock limit) instead of polling */
    sigset_t chld, saved;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &saved);
    fflush(NULL);
    double cpu_before = children_cpu_ms();
    pid_t pid = fork();
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &saved, NULL);
        close(report[0]);
        start_child(path, argv, envp, lim, judge, group, report[1]);
    }
    close(report[1]);
    free(envp);
    if (pid < 0) {
        close(report[0]);
        sigprocmask(SIG_SETMASK, &saved, NULL);
        strf(o->error, sizeof o->error, "fork: %s", strerror(errno));
        return false;
    }
    /* the report pipe closes at exec; before it, a failure writes what failed */
    char failed[32] = "";
    int child_errno = 0;
    ssize_t got = read(report[0], failed, sizeof failed - 1);
    if (got > 0) {
        size_t word = strnlen(failed, (size_t)got);
        if ((size_t)got >= word + 1 + sizeof child_errno) memcpy(&child_errno, failed + word + 1, sizeof child_errno);
        failed[word < sizeof failed ? word : sizeof failed - 1] = '\0';
    }
    close(report[0]);
    double deadline = now_s() + lim->wall_s;
    for (;;) {
        pid_t r = waitpid(pid, &o->status, WNOHANG);
        if (r == pid) break;
        if (r < 0 && errno != EINTR) break;
        double left = deadline - now_s();
        if (left <= 0) {
            o->wall_timeout = true;
            kill(pid, SIGKILL);
            while (waitpid(pid, &o->status, 0) < 0 && errno == EINTR) {
            }
            break;
        }
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        sigtimedwait(&chld, NULL, &ts); /* a child ended, or time is up: look again */
    }
    kill(-pid, SIGKILL); /* its process group, then whatever else it left */
    kill_descendants();
    sigprocmask(SIG_SETMASK, &saved, NULL);
    o->cpu_ms = children_cpu_ms() - cpu_before;
    if (got > 0) {
        strf(o->error, sizeof o->error, "%s %s: %s", argv[0], failed, strerror(child_errno));
        return false;
    }
    return true;
}
