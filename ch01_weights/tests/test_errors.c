/* test_errors.c — error lines never carry a file's control characters (workbook/util.h).
 *
 * Messages quote what files hold: tensor names, keys, token strings. A safetensors
 * header may name a tensor "\u001b[2J" or put a newline in it (JSON allows both), so
 * error_set() and die() escape what their arguments bring in, and print their own
 * format as written. Every expected string here is spelled out byte by byte.
 */
#include <wchar.h>

#include "helpers.h"

static void expect_msg(const Error *e, const char *want) {
    ck_assert_msg(strcmp(e->msg, want) == 0, "got  \"%s\"\nwant \"%s\"", e->msg, want);
}

START_TEST(control_characters_in_arguments_are_escaped) {
    Error e;
    error_set(&e, "%s: tensor '%s' is odd", "f.safetensors",
              "a\nb\x1b[2Jc\td\re\x7f"
              "f\x01");
    expect_msg(&e, "f.safetensors: tensor 'a\\nb\\x1b[2Jc\\td\\re\\x7ff\\x01' is odd");
    ck_assert_ptr_null(strchr(e.msg, '\n'));
    ck_assert_ptr_null(strchr(e.msg, '\x1b'));
    /* %c too */
    error_set(&e, "[%c%c]", 'x', '\a');
    expect_msg(&e, "[x\\x07]");
}
END_TEST

START_TEST(utf8_passes_and_broken_bytes_are_escaped) {
    Error e;
    error_set(&e, "%s", "张量 é ∑ 😀"); /* 3-, 2-, 3- and 4-byte sequences stay as they are */
    expect_msg(&e, "张量 é ∑ 😀");
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"\xff", "\\xff"},                            /* never in UTF-8 */
        {"a\xc3", "a\\xc3"},                          /* a lead byte at the end */
        {"\xc3(", "\\xc3("},                          /* a lead byte without its continuation */
        {"\xc0\xaf", "\\xc0\\xaf"},                   /* overlong '/' */
        {"\xe0\x80\xaf", "\\xe0\\x80\\xaf"},          /* overlong, 3 bytes */
        {"\xed\xa0\x80", "\\xed\\xa0\\x80"},          /* a UTF-16 surrogate */
        {"\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"}, /* beyond U+10FFFF */
        {"\x80", "\\x80"},                            /* a lone continuation byte */
        {"\xc2\x9b"
         "31m",
         "\\u009b31m"},                             /* C1 CSI: starts an escape sequence */
        {"\xc2\x85", "\\u0085"},                    /* C1 NEL: a line break */
        {"\xc2\xa0|\xc2\xbf", "\xc2\xa0|\xc2\xbf"}, /* U+00A0, U+00BF: printable */
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        error_set(&e, "<%s>", cases[i].in);
        char want[64];
        snprintf(want, sizeof want, "<%s>", cases[i].out);
        expect_msg(&e, want);
    }
}
END_TEST

/* The program's own format is printed as written, line breaks included (the
 * "no checkpoint found" message lists places on lines of their own). */
START_TEST(the_format_itself_is_not_escaped) {
    Error e;
    error_set(&e, "looked at:\n  %s\n  %s", "a\nb", "c");
    expect_msg(&e, "looked at:\n  a\\nb\n  c");
    error_set(&e, "100%% of %s", "x");
    expect_msg(&e, "100% of x");
    const char *volatile none = NULL; /* glibc's printf says (null); so does this */
    error_set(&e, "%s", none);
    expect_msg(&e, "(null)");
}
END_TEST

/* Every other conversion comes out exactly as printf makes it. */
START_TEST(other_conversions_as_printf) {
    Error e;
    char want[1024];
    long long big = -9007199254740993LL;
    size_t z = 18446744073709551615u;
    snprintf(want, sizeof want, "%d|%5d|%-5d|%+d|%05d|%i|%ld|%lld|%hd|%hhd|%zu|%zx|%jd|%td", -3, 42, 42, 7,
             42, 9, -123456789L, big, (short)-2, (signed char)-1, z, z, (intmax_t)-5, (ptrdiff_t)-6);
    error_set(&e, "%d|%5d|%-5d|%+d|%05d|%i|%ld|%lld|%hd|%hhd|%zu|%zx|%jd|%td", -3, 42, 42, 7, 42, 9,
              -123456789L, big, (short)-2, (signed char)-1, z, z, (intmax_t)-5, (ptrdiff_t)-6);
    expect_msg(&e, want);
    snprintf(want, sizeof want, "%u|%x|%X|%#x|%o|%lu|%llu|%llx", 3000000000u, 255u, 255u, 255u, 8u,
             4000000000UL, 18446744073709551615ULL, 0xdeadbeefULL);
    error_set(&e, "%u|%x|%X|%#x|%o|%lu|%llu|%llx", 3000000000u, 255u, 255u, 255u, 8u, 4000000000UL,
              18446744073709551615ULL, 0xdeadbeefULL);
    expect_msg(&e, want);
    snprintf(want, sizeof want, "%g|%.3f|%10.2e|%G|%.0f|%a|%Lg|%.15g", 1e-6, 3.14159, 12345.678, 1e300, 2.5,
             1.0, 1.5L, 1099511627776.0);
    error_set(&e, "%g|%.3f|%10.2e|%G|%.0f|%a|%Lg|%.15g", 1e-6, 3.14159, 12345.678, 1e300, 2.5, 1.0, 1.5L,
              1099511627776.0);
    expect_msg(&e, want);
    snprintf(want, sizeof want, "%*d|%-*d|%.*s|%8s|%-8s|%.3s|%*.*s|%lc", 6, 42, 6, 42, 3, "abcdef", "ab",
             "ab", "abcdef", 5, 2, "xyz", (wint_t)'w');
    error_set(&e, "%*d|%-*d|%.*s|%8s|%-8s|%.3s|%*.*s|%lc", 6, 42, 6, 42, 3, "abcdef", "ab", "ab", "abcdef", 5,
              2, "xyz", (wint_t)'w');
    expect_msg(&e, want);
    int x;
    snprintf(want, sizeof want, "%p", (void *)&x);
    error_set(&e, "%p", (void *)&x);
    expect_msg(&e, want);
}
END_TEST

/* A long message is cut to the buffer, terminated, and never cut into a raw control
 * character (an escape is plain ASCII). */
START_TEST(long_messages_are_cut_cleanly) {
    char *name = xmalloc(5000);
    for (int i = 0; i < 4999; i++) name[i] = i % 2 ? '\x1b' : 'n';
    name[4999] = '\0';
    Error e;
    error_set(&e, "tensor %s", name);
    ck_assert_uint_eq(strlen(e.msg), sizeof e.msg - 1);
    for (const char *p = e.msg; *p; p++)
        ck_assert_msg((unsigned char)*p >= 0x20, "raw control byte in the message");
    ck_assert(strncmp(e.msg, "tensor n\\x1bn\\x1b", 16) == 0);
    free(name);
    error_set(NULL, "nothing %s", "happens"); /* no Error: only the return value */
    ck_assert(!error_set(&e, "x"));
}
END_TEST

START_TEST(escape_text_for_stdout) {
    char buf[16];
    ck_assert_str_eq(escape_text("A_log\x1b]0;", buf, sizeof buf), "A_log\\x1b]0;");
    ck_assert_str_eq(escape_text("0123456789abcdefghij", buf, sizeof buf), "0123456789abcde"); /* cut */
    ck_assert_str_eq(escape_text("\n\n\n\n\n\n", buf, sizeof buf), "\\n\\n\\n\\n\\n\\n");
}
END_TEST

/* die(): "<program>: <message>" on stderr, status 1; arguments escaped, and a message
 * made by error_set keeps its own line breaks. Run in a child, stderr captured. */
static char *die_output(int which, int *status) {
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        set_program_name("/some/where/prog");
        if (which == 0) {
            Error e;
            error_set(&e, "no model. Looked at:\n  %s", "dir\nfake line");
            die("%s", e.msg);
        }
        die("unknown option '%s' (see --help)", "--x\n\x1b[31mred");
    }
    close(fds[1]);
    char *buf = xcalloc(4096, 1);
    size_t n = 0;
    ssize_t got;
    while ((got = read(fds[0], buf + n, 4095 - n)) > 0) n += (size_t)got;
    close(fds[0]);
    ck_assert_int_eq(waitpid(pid, status, 0), pid);
    return buf;
}

START_TEST(die_escapes_its_arguments) {
    int status;
    char *out = die_output(0, &status);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    ck_assert_str_eq(out, "prog: no model. Looked at:\n  dir\\nfake line\n");
    free(out);
    out = die_output(1, &status);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    ck_assert_str_eq(out, "prog: unknown option '--x\\n\\x1b[31mred' (see --help)\n");
    free(out);
}
END_TEST

int main(void) {
    Suite *s = suite_create("errors");
    TCase *c = tcase_create("escaping");
    tcase_add_test(c, control_characters_in_arguments_are_escaped);
    tcase_add_test(c, utf8_passes_and_broken_bytes_are_escaped);
    tcase_add_test(c, the_format_itself_is_not_escaped);
    tcase_add_test(c, other_conversions_as_printf);
    tcase_add_test(c, long_messages_are_cut_cleanly);
    tcase_add_test(c, escape_text_for_stdout);
    tcase_add_test(c, die_escapes_its_arguments);
    suite_add_tcase(s, c);
    return run_suite(s);
}
