/* sanitizer.c — what AddressSanitizer, LeakSanitizer and UBSan reported about a case,
 * and how a process ended, in the book's words: the kind of error, the line of the
 * learner's code where it happened, where the memory came from. */
#include "judge.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool runtime_frame(const char *line) {
    return strstr(line, "libsanitizer") || strstr(line, "/asan_") || strstr(line, "/ubsan_") ||
           strstr(line, "/lib/x86_64-linux-gnu/") || strstr(line, "(/lib") || strstr(line, "(/usr/lib") ||
           strstr(line, "libc_start") || strstr(line, "in _start") || strstr(line, "<null>");
}

/* "    #3 0x55d0c1 in rmsnorm /abs/ws/231-rmsnorm.c:12" → "rmsnorm (ws/231-rmsnorm.c:12)". */
static bool frame_text(const Judge *j, const char *line, char *out, size_t size) {
    const char *p = line;
    while (*p == ' ') p++;
    if (*p != '#') return false;
    const char *in = strstr(p, " in ");
    if (!in) return false;
    char buf[2048];
    strf(buf, sizeof buf, "%s", in + 4);
    relativize(j, buf, sizeof buf);
    char *space = strchr(buf, ' ');
    if (space) {
        *space = '\0';
        strf(out, size, "在 %s（%s）", buf, space + 1);
    } else
        strf(out, size, "在 %s", buf);
    return true;
}

/* The sanitizer's kind of error, in the book's words. */
static const char *describe_asan(const char *kind) {
    static const struct {
        const char *key, *text;
    } table[] = {
        {"heap-buffer-overflow", "越界访问 heap-buffer-overflow：读写超出了数组的末尾（或开头）"},
        {"stack-buffer-overflow", "越界访问 stack-buffer-overflow：读写超出了局部数组"},
        {"global-buffer-overflow", "越界访问 global-buffer-overflow：读写超出了全局数组"},
        {"heap-use-after-free", "释放后使用 use-after-free：用了已经 free 的内存"},
        {"double-free", "重复释放 double-free：同一块内存 free 了两次"},
        {"bad-free", "释放了不是 malloc 来的指针 bad-free"},
        {"SEGV", "段错误 SEGV：访问了不能访问的地址（空指针？没有分配的数组？）"},
        {"stack-overflow", "栈溢出 stack-overflow：递归太深，或者局部数组太大"},
        {"FPE", "算术异常 FPE：整数除以 0？"},
        {"stack-use-after-return", "用了已经返回的函数的局部变量 stack-use-after-return"},
        {"dynamic-stack-buffer-overflow", "越界访问 dynamic-stack-buffer-overflow：读写超出了变长数组"},
        {"alloc-dealloc-mismatch", "分配和释放不配对 alloc-dealloc-mismatch"},
        {"memcpy-param-overlap", "memcpy 的源和目标重叠 memcpy-param-overlap（用 memmove）"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strstr(kind, table[i].key)) return table[i].text;
    return NULL;
}

const char *describe_signal(int sig) {
    switch (sig) {
    case SIGSEGV:
        return "段错误 SIGSEGV：访问了不能访问的地址";
    case SIGBUS:
        return "总线错误 SIGBUS：地址没有对齐，或者文件映射出错";
    case SIGFPE:
        return "算术异常 SIGFPE：整数除以 0？";
    case SIGABRT:
        return "程序中止 SIGABRT（abort 或 assert 失败）";
    case SIGILL:
        return "非法指令 SIGILL";
    case SIGXFSZ:
        return "输出太多：超过 " STR(OUTPUT_LIMIT_MB) " MB（output limit），是不是在循环里打印？";
    case SIGPIPE:
        return "SIGPIPE：往已经关闭的管道里写";
    }
    return NULL;
}

/* Reads the sanitizer report in err (if any) into c; true when there was one. */
bool parse_sanitizer(const Judge *j, char *err, const char *learner_file, CaseResult *c) {
    char **lines;
    int n = split_lines(err, &lines);
    int at = -1;
    enum { NONE, MEMORY, ASAN, LEAK, UB } kind = NONE;
    for (int i = 0; i < n && kind == NONE; i++) {
        const char *l = lines[i];
        if (strstr(l, "hard rss limit exhausted") || strstr(l, "allocation-size-too-big") ||
            strstr(l, "requested allocation size") || strstr(l, "out-of-memory") ||
            strstr(l, "allocator is out of memory") || strstr(l, "rss-limit-exceeded") ||
            strstr(l, "calloc-overflow") || strstr(l, "malloc limit"))
            kind = MEMORY, at = i;
        else if (strstr(l, "ERROR: AddressSanitizer:"))
            kind = ASAN, at = i;
        else if (strstr(l, "ERROR: LeakSanitizer:"))
            kind = LEAK, at = i;
        else if (strstr(l, ": runtime error: "))
            kind = UB, at = i;
    }
    if (kind == NONE) {
        free(lines);
        return false;
    }
    char text[2048], frame[2048], first_frame[2048] = "", mine_frame[2048] = "";
    const char *base = strrchr(learner_file, '/');
    base = base ? base + 1 : learner_file;
    /* the stack right after the report line: the first frame outside the sanitizer
     * runtime, and the first one in the learner's file */
    for (int i = at + 1, frames = 0; i < n && frames < 16; i++) {
        const char *l = lines[i];
        while (*l == ' ') l++;
        if (*l != '#') {
            if (frames > 0) break;
            continue;
        }
        frames++;
        if (runtime_frame(l) || !frame_text(j, l, frame, sizeof frame)) continue;
        if (!first_frame[0]) strf(first_frame, sizeof first_frame, "%s", frame);
        if (strstr(l, base)) {
            strf(mine_frame, sizeof mine_frame, "%s", frame);
            break;
        }
    }
    if (first_frame[0]) case_add_line(c, first_frame);
    if (mine_frame[0] && strcmp(mine_frame, first_frame) != 0) case_add_line(c, mine_frame);

    if (kind == MEMORY) {
        strf(c->message, sizeof c->message,
             "内存超限：用了超过 %d MB（memory limit）——是不是在循环里 malloc，或者算错了大小？",
             MEMORY_LIMIT_MB);
    } else if (kind == ASAN) {
        const char *what = strstr(lines[at], "AddressSanitizer: ") + strlen("AddressSanitizer: ");
        const char *desc = describe_asan(what);
        char access[256] = "";
        for (int i = at + 1; i < n && i < at + 4; i++) {
            const char *l = lines[i];
            int size;
            if (sscanf(l, "READ of size %d", &size) == 1)
                strf(access, sizeof access, "（读 READ %d 字节）", size);
            if (sscanf(l, "WRITE of size %d", &size) == 1)
                strf(access, sizeof access, "（写 WRITE %d 字节）", size);
            if (strstr(l, "The signal is caused by a READ")) strf(access, sizeof access, "（读 READ）");
            if (strstr(l, "The signal is caused by a WRITE")) strf(access, sizeof access, "（写 WRITE）");
        }
        if (desc)
            strf(c->message, sizeof c->message, "%s%s", desc, access);
        else {
            strf(text, sizeof text, "%s", what);
            char *cut = strstr(text, " on ");
            if (cut) *cut = '\0';
            strf(c->message, sizeof c->message, "AddressSanitizer 报告 %s%s", text, access);
        }
        /* where the memory came from: "located N bytes after M-byte region", "allocated by" */
        for (int i = at + 1; i < n; i++) {
            const char *loc = strstr(lines[i], " is located ");
            int off, region;
            if (loc &&
                sscanf(loc, " is located %d bytes to the right of %d-byte region", &off, &region) == 2) {
                if (off == 0)
                    strf(text, sizeof text,
                         "越界的地址：紧挨在一块 %d 字节的内存末尾之后（下标多了一个：< 写成了 <=？）",
                         region);
                else
                    strf(text, sizeof text, "越界的地址：在一块 %d 字节的内存末尾之后 %d 个字节", region,
                         off);
                case_add_line(c, text);
            } else if (loc && sscanf(loc, " is located %d bytes to the left of %d-byte region", &off,
                                     &region) == 2) {
                strf(text, sizeof text, "越界的地址：在一块 %d 字节的内存开头之前 %d 个字节", region, off);
                case_add_line(c, text);
            } else if (loc &&
                       sscanf(loc, " is located %d bytes inside of %d-byte region", &off, &region) == 2) {
                strf(text, sizeof text, "出错的地址：在一块 %d 字节的内存里的第 %d 个字节", region, off);
                case_add_line(c, text);
            }
            if (strstr(lines[i], "allocated by thread")) {
                for (int k = i + 1; k < n && k < i + 12; k++) {
                    const char *l = lines[k];
                    while (*l == ' ') l++;
                    if (*l != '#') break;
                    if (runtime_frame(l) || strstr(l, "ptest.c") || !frame_text(j, l, frame, sizeof frame))
                        continue;
                    strf(text, sizeof text, "这块内存分配%s", frame);
                    case_add_line(c, text);
                    break;
                }
                break;
            }
            if (strstr(lines[i], "Hint: address points to the zero page"))
                case_add_line(c, "提示：地址在零页，多半是空指针 NULL");
        }
    } else if (kind == LEAK) {
        long long bytes = 0;
        for (int i = at; i < n; i++) {
            long long b;
            if (sscanf(lines[i], "Direct leak of %lld", &b) == 1 ||
                sscanf(lines[i], "Indirect leak of %lld", &b) == 1)
                bytes += b;
        }
        strf(c->message, sizeof c->message, "内存泄漏 memory leak：%lld 字节 malloc 了没有 free", bytes);
    } else {
        strf(text, sizeof text, "%s", lines[at]);
        relativize(j, text, sizeof text);
        const char *msg = strstr(text, "runtime error: ") + strlen("runtime error: ");
        strf(c->message, sizeof c->message, "未定义行为 undefined behavior：%s", msg);
        char *where = strstr(text, ": runtime error");
        if (where && !first_frame[0]) {
            *where = '\0';
            strf(frame, sizeof frame, "在 %s", text);
            case_add_line(c, frame);
        }
    }
    free(lines);
    return true;
}

