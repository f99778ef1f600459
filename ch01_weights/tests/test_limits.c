/* test_limits.c — sizes checked before they are allocated, and numbers from the
 * command line (workbook/util.h).
 *
 * The memory limit is half of the physical memory unless mem_set_limit() (the
 * demos' --max-memory) sets another; every x*alloc() refuses a block above it, and
 * mem_check() is what a demo asks with its estimate of a whole request. A growing
 * block (xblock_grow) keeps what it holds. The number parsers return an error instead
 * of exiting, so every case is a plain call here.
 */
#include <errno.h>
#include <stdint.h>

#include "helpers.h"

/* ---- memory ------------------------------------------------------------------- */

START_TEST(the_default_limit_is_half_of_the_physical_memory) {
    uint64_t phys = mem_physical();
    ck_assert_msg(phys > (UINT64_C(64) << 20), "physical memory %llu bytes?", (unsigned long long)phys);
    mem_set_limit(0);
    ck_assert_uint_eq(mem_limit(), phys / 2);
    mem_set_limit(12345);
    ck_assert_uint_eq(mem_limit(), 12345);
    mem_set_limit(0);
    ck_assert_uint_eq(mem_limit(), phys / 2);
}
END_TEST

START_TEST(mem_check_says_how_much) {
    mem_set_limit(UINT64_C(1000000000)); /* 1 GB */
    Error err = {{0}};
    ck_assert(mem_check(UINT64_C(1000000000), "at the limit", &err));
    ck_assert(!mem_check(UINT64_C(5234567890), "65536 tokens", &err));
    ck_assert_error(err, "65536 tokens would need about 5.2 GB of memory (5,234,567,890 bytes)",
                    "more than the limit of 1.0 GB (set by --max-memory)");
    ck_assert(!mem_check(UINT64_MAX, "an overflowing estimate", &err)); /* saturated: still refused */
    ck_assert_error(err, "more than 18 EB");
    mem_set_limit(0);
    ck_assert(!mem_check(UINT64_MAX, "x", &err));
    ck_assert_error(err, "half of this machine's", "--max-memory SIZE sets another");
}
END_TEST

START_TEST(saturating_sizes) {
    ck_assert_uint_eq(size_mul(UINT64_C(1) << 32, UINT64_C(1) << 31), UINT64_C(1) << 63);
    ck_assert_uint_eq(size_mul(UINT64_C(1) << 32, UINT64_C(1) << 32), UINT64_MAX);
    ck_assert_uint_eq(size_mul(0, UINT64_MAX), 0);
    ck_assert_uint_eq(size_add(UINT64_MAX - 1, 1), UINT64_MAX);
    ck_assert_uint_eq(size_add(UINT64_MAX, 5), UINT64_MAX);
    ck_assert_uint_eq(size_add(40, 2), 42);
    char buf[32];
    ck_assert_str_eq(format_bytes(17, buf, sizeof buf), "17 bytes");
    ck_assert_str_eq(format_bytes(4096, buf, sizeof buf), "4.1 KB");
    ck_assert_str_eq(format_bytes(999949, buf, sizeof buf), "999.9 KB");
    ck_assert_str_eq(format_bytes(999950, buf, sizeof buf), "1.0 MB"); /* never "1000.0 KB" */
    ck_assert_str_eq(format_bytes(UINT64_C(549755813888), buf, sizeof buf), "549.8 GB");
    ck_assert_str_eq(format_bytes(UINT64_C(17592186044416), buf, sizeof buf), "17.6 TB");
    ck_assert_str_eq(format_grouped(UINT64_C(752393024), buf, sizeof buf), "752,393,024");
    ck_assert_str_eq(format_grouped(999, buf, sizeof buf), "999");
    ck_assert_str_eq(format_grouped(1000, buf, sizeof buf), "1,000");
}
END_TEST

/* A block above the limit: one line and status 1, before the system is asked. */
START_TEST(xmalloc_refuses_a_block_above_the_limit) {
    mem_set_limit(4000);
    free(xmalloc(4000)); /* at the limit: fine */
    set_program_name("test_limits");
    switch (_i) {
    case 0:
        xmalloc(5000);
        break;
    case 1:
        xcalloc(SIZE_MAX / 2, 4);
        break; /* the product overflows: refused, not wrapped */
    case 2:
        free(xrealloc(NULL, 4001));
        break;
    case 3:
        xaligned_alloc((size_t)1 << 40);
        break;
    case 4:
        xblock_grow(xblock_grow(NULL, 0, 4000), 4000, 4001);
        break;
    }
    ck_abort_msg("allocation %d above the limit was granted", _i);
}
END_TEST

/* A growing block (the KV cache's) keeps every byte it held, from one byte to many
 * pages, aligned for the SIMD loops at every size; a size it already has keeps it. */
START_TEST(a_growing_block_keeps_what_it_holds) {
    mem_set_limit(0);
    const size_t sizes[] = {1, 64, 4095, 4096, 4097, 3 * 4096 + 17, 1 << 20, (1 << 20) + 1, 5 << 20};
    const size_t most = 5 << 20;
    unsigned char *want = xmalloc(most); /* what byte j holds */
    for (size_t j = 0; j < most; j++) want[j] = (unsigned char)(j * 7 + j / 251);
    unsigned char *b = NULL;
    size_t size = 0;
    for (size_t i = 0; i < ARRAY_LEN(sizes); i++) {
        b = xblock_grow(b, size, sizes[i]);
        ck_assert_msg((uintptr_t)b % 64 == 0, "a block of %zu bytes at %p", sizes[i], (void *)b);
        ck_assert_msg(memcmp(b, want, size) == 0, "bytes lost growing from %zu to %zu", size, sizes[i]);
        memcpy(b + size, want + size, sizes[i] - size); /* the new bytes, all of them written */
        size = sizes[i];
    }
    ck_assert_ptr_eq(xblock_grow(b, size, size), b);
    ck_assert_ptr_eq(xblock_grow(b, size, 100), b); /* smaller: the same block */
    ck_assert(memcmp(b, want, size) == 0);
    xblock_free(b, size);
    xblock_free(NULL, 0);
    free(want);
}
END_TEST

/* read_file: a file larger than the limit is refused before it is read. */
START_TEST(read_file_refuses_a_file_above_the_limit) {
    char *dir = scratch_dir(), *path = in_dir(dir, "big.json");
    char *text = xmalloc(10000);
    memset(text, ' ', 10000);
    write_bytes(path, text, 10000);
    mem_set_limit(5000);
    Error err = {{0}};
    ck_assert_ptr_null(read_file(path, NULL, &err));
    ck_assert_error(err, "reading", path, "would need about 10.0 KB");
    mem_set_limit(0);
    size_t len;
    char *back = read_file(path, &len, &err);
    ck_assert_msg(back != NULL, "%s", err.msg);
    ck_assert_uint_eq(len, 10000);
    free(back), free(text), free(path);
    scratch_remove(dir);
    free(dir);
}
END_TEST

/* ---- files that will be written ---------------------------------------------- */

START_TEST(writable_paths_are_checked_without_leaving_anything) {
    char *dir = scratch_dir(), *fresh = in_dir(dir, "new.safetensors"), *old = in_dir(dir, "old.txt");
    Error err = {{0}};
    ck_assert_msg(check_writable(fresh, &err), "%s", err.msg);
    ck_assert_msg(!is_file(fresh), "the check left %s behind", fresh);
    write_bytes(old, "keep me", 7);
    ck_assert_msg(check_writable(old, &err), "%s", err.msg);
    size_t len;
    char *kept = slurp(old, &len); /* not truncated */
    ck_assert_uint_eq(len, 7);
    free(kept);

    char *nowhere = in_dir(dir, "no-such-folder/x.safetensors");
    ck_assert(!check_writable(nowhere, &err));
    ck_assert_error(err, nowhere, "No such file or directory");
    ck_assert(!check_writable(dir, &err)); /* a folder */
    ck_assert_error(err, dir, "is a folder, not a regular file");
    char *fifo = in_dir(dir, "pipe");
    ck_assert_int_eq(mkfifo(fifo, 0644), 0);
    ck_assert(!check_writable(fifo, &err)); /* writing there would block at the end of the run */
    ck_assert_error(err, fifo, "named pipe");
    ck_assert(!check_writable("", &err));
    ck_assert_error(err, "empty file name");
    /* the file is replaced through a new file beside it: a folder that takes none is
     * refused, also when the file itself exists (in /proc even root makes no file) */
    ck_assert(!check_writable("/proc/self/new.safetensors", &err));
    ck_assert_error(err, "cannot write /proc/self/new.safetensors");
    ck_assert(!check_writable("/proc/self/status", &err));
    ck_assert_error(err, "cannot write /proc/self/status");
    char *dirs_files = str_printf("ls -A '%s' | grep -qv '^old.txt$\\|^pipe$'", dir);
    ck_assert_msg(system(dirs_files) != 0, "a check left a file in %s", dir);
    free(dirs_files);

    ck_assert(check_disk_space(fresh, 1000, &err));
    ck_assert(!check_disk_space(fresh, UINT64_C(1) << 62, &err));
    ck_assert_error(err, fresh, "would be 4.6 EB (4,611,686,018,427,387,904 bytes)", "file system has only");
    free(fresh), free(old), free(nowhere), free(fifo);
    scratch_remove(dir);
    free(dir);
}
END_TEST

/* ---- numbers on the command line ---------------------------------------------- */

START_TEST(parse_count_takes_digits_only) {
    static const struct {
        const char *text;
        uint64_t min, max, want; /* want 0 with ok false: refused */
        bool ok;
    } cases[] = {
        {"0", 0, 10, 0, true},
        {"10", 0, 10, 10, true},
        {"007", 0, 10, 7, true},
        {"18446744073709551615", 0, UINT64_MAX, UINT64_MAX, true},
        {"18446744073709551616", 0, UINT64_MAX, 0, false}, /* one past 2^64 − 1: refused, not wrapped */
        {"99999999999999999999999", 0, UINT64_MAX, 0, false},
        {"11", 0, 10, 0, false},
        {"0", 1, 10, 0, false},
        {"", 0, 10, 0, false},
        {"-1", 0, 10, 0, false},
        {"+1", 0, 10, 0, false},
        {" 1", 0, 10, 0, false},
        {"1 ", 0, 10, 0, false},
        {"2x", 0, 10, 0, false},
        {"1e3", 0, 10000, 0, false},
        {"0x10", 0, 100, 0, false},
        {"1.0", 0, 10, 0, false},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        uint64_t v = 12345;
        Error err = {{0}};
        bool ok = parse_count("--n", cases[i].text, cases[i].min, cases[i].max, &v, &err);
        ck_assert_msg(ok == cases[i].ok, "'%s': %s", cases[i].text, ok ? "accepted" : err.msg);
        if (ok)
            ck_assert_msg(v == cases[i].want, "'%s' read as %llu", cases[i].text, (unsigned long long)v);
        else {
            ck_assert_uint_eq(v, 12345); /* untouched */
            ck_assert_error(err, "--n needs a whole number from", "got '");
        }
    }
}
END_TEST

START_TEST(parse_size_takes_a_number_and_a_unit) {
    static const struct {
        const char *text;
        uint64_t want; /* 0: refused */
    } cases[] = {
        {"1", 1},
        {"123456", 123456},
        {"512B", 512},
        {"8G", UINT64_C(8000000000)},
        {"8gb", UINT64_C(8000000000)},
        {"8GiB", UINT64_C(8589934592)},
        {"1.5G", UINT64_C(1500000000)},
        {"1.5gib", UINT64_C(1610612736)},
        {"0.5K", 500},
        {"512M", UINT64_C(512000000)},
        {"2T", UINT64_C(2000000000000)},
        {"3TiB", UINT64_C(3298534883328)},
        {"1KiB", 1024},
        {".5K", 500},
        {"1.", 1},
        {"0.0015K", 2}, /* 1.5 bytes: to the nearest byte */
        {"18446744073709551615", UINT64_MAX},
        {"18446744073709551616", 0}, /* beyond 2^64 − 1 */
        {"18446745T", 0},            /* 1.8446745e19 bytes: beyond */
        {"0", 0},
        {"0.0001K", 0}, /* rounds to nothing */
        {"", 0},
        {"G", 0},
        {".", 0},
        {"-1G", 0},
        {"1GG", 0},
        {"1 G", 0},
        {"1e9", 0},
        {"12x", 0},
        {"1.2.3", 0},
        {"1KB ", 0},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        uint64_t v = 7;
        Error err = {{0}};
        bool ok = parse_size("--max-memory", cases[i].text, &v, &err);
        ck_assert_msg(ok == (cases[i].want != 0), "'%s': %s", cases[i].text, ok ? "accepted" : err.msg);
        if (ok)
            ck_assert_msg(v == cases[i].want, "'%s' read as %llu, want %llu", cases[i].text,
                          (unsigned long long)v, (unsigned long long)cases[i].want);
        else
            ck_assert_error(err, "--max-memory needs a size such as 8G", cases[i].text);
    }
}
END_TEST

START_TEST(parse_real_takes_decimals_only) {
    static const struct {
        const char *text;
        double want;
        bool ok;
    } cases[] = {
        {"0", 0, true},
        {"2", 2, true},
        {"0.7", 0.7, true},
        {".5", 0.5, true},
        {"5.", 5, true},
        {"1e-6", 1e-6, true},
        {"1E7", 1e7, true},
        {"3.5e+2", 350, true},
        {"007.25", 7.25, true},
        {"1e-999", 0, true}, /* below the smallest double: 0 */
        {"1e999", 0, false}, /* beyond the largest: refused, not infinity */
        {"0x10", 0, false},  /* strtod would read 16 */
        {"0X1p3", 0, false},
        {"inf", 0, false},
        {"nan", 0, false},
        {"infinity", 0, false},
        {"-0.5", 0, false},
        {"+1", 0, false},
        {" 1", 0, false},
        {"1 ", 0, false},
        {"", 0, false},
        {".", 0, false},
        {"e5", 0, false},
        {".e5", 0, false},
        {"1e", 0, false},
        {"1e+", 0, false},
        {"1.2.3", 0, false},
        {"1,5", 0, false},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        double v = 42;
        Error err = {{0}};
        bool ok = parse_real("--temp", cases[i].text, &v, &err);
        ck_assert_msg(ok == cases[i].ok, "'%s': %s", cases[i].text, ok ? "accepted" : err.msg);
        if (ok)
            ck_assert_msg(v == cases[i].want, "'%s' read as %.17g", cases[i].text, v);
        else {
            ck_assert(v == 42); /* untouched */
            ck_assert_error(err, "--temp needs a decimal number such as 0.7", cases[i].text);
        }
    }
}
END_TEST

/* ---- lines of typed text ----------------------------------------------------------- */

/* A stream of endless NUL bytes (/dev/zero), or one that fails at once (a read error). */
static ssize_t read_zeros(void *cookie, char *buf, size_t size) {
    (void)cookie;
    memset(buf, 0, size);
    return (ssize_t)size;
}
static ssize_t read_fails(void *cookie, char *buf, size_t size) {
    (void)cookie, (void)buf, (void)size;
    errno = EIO;
    return -1;
}

START_TEST(read_line_keeps_at_most_max_bytes) {
    static const char text[] = "hi\n\nab\0c\r\n0123456789abcdef\nxyz\nlast";
    FILE *in = fmemopen((void *)text, sizeof text - 1, "r");
    char *buf = NULL;
    size_t cap = 0, len = 0;
    ck_assert_int_eq(read_line(in, 10, &buf, &cap, &len), LINE_OK);
    ck_assert(len == 2 && strcmp(buf, "hi") == 0);
    ck_assert_int_eq(read_line(in, 10, &buf, &cap, &len), LINE_OK); /* an empty line */
    ck_assert(len == 0 && buf[0] == '\0');
    ck_assert_int_eq(read_line(in, 10, &buf, &cap, &len), LINE_OK); /* a NUL is a byte of the line */
    ck_assert(len == 5 && memcmp(buf, "ab\0c\r", 5) == 0);
    ck_assert_int_eq(read_line(in, 10, &buf, &cap, &len), LINE_TOO_LONG); /* 16 bytes */
    ck_assert_msg(cap <= 11, "the buffer grew to %zu bytes for a limit of 10", cap);
    ck_assert_int_eq(read_line(in, 10, &buf, &cap, &len), LINE_OK); /* the next line, whole */
    ck_assert(len == 3 && strcmp(buf, "xyz") == 0);
    ck_assert_int_eq(read_line(in, 10, &buf, &cap, &len), LINE_OK); /* no '\n' at the end */
    ck_assert(len == 4 && strcmp(buf, "last") == 0);
    ck_assert_int_eq(read_line(in, 10, &buf, &cap, &len), LINE_EOF);
    fclose(in);
    /* exactly max bytes is a line; max + 1 is not */
    in = fmemopen((void *)"0123456789\n0123456789a\n", 23, "r");
    ck_assert_int_eq(read_line(in, 10, &buf, &cap, &len), LINE_OK);
    ck_assert_int_eq(len, 10);
    ck_assert_int_eq(read_line(in, 10, &buf, &cap, &len), LINE_TOO_LONG);
    ck_assert_int_eq(read_line(in, 10, &buf, &cap, &len), LINE_EOF);
    fclose(in);
    free(buf);
}
END_TEST

START_TEST(read_line_stops_on_endless_input_and_errors) {
    char *buf = NULL;
    size_t cap = 0, len = 0;
    FILE *zeros = fopencookie(NULL, "r", (cookie_io_functions_t){.read = read_zeros});
    ck_assert_int_eq(read_line(zeros, 1000, &buf, &cap, &len), LINE_ENDLESS);
    ck_assert_msg(cap <= 1001, "the buffer grew to %zu bytes", cap);
    fclose(zeros);
    FILE *bad = fopencookie(NULL, "r", (cookie_io_functions_t){.read = read_fails});
    ck_assert_int_eq(read_line(bad, 1000, &buf, &cap, &len), LINE_ERROR);
    fclose(bad);
    free(buf);
}
END_TEST

int main(void) {
    Suite *s = suite_create("limits");
    TCase *mem = tcase_with_scratch("memory");
    tcase_add_test(mem, the_default_limit_is_half_of_the_physical_memory);
    tcase_add_test(mem, mem_check_says_how_much);
    tcase_add_test(mem, saturating_sizes);
    tcase_add_loop_exit_test(mem, xmalloc_refuses_a_block_above_the_limit, 1, 0, 5);
    tcase_add_test(mem, a_growing_block_keeps_what_it_holds);
    tcase_add_test(mem, read_file_refuses_a_file_above_the_limit);
    tcase_add_test(mem, writable_paths_are_checked_without_leaving_anything);
    suite_add_tcase(s, mem);
    TCase *num = tcase_create("numbers");
    tcase_add_test(num, parse_count_takes_digits_only);
    tcase_add_test(num, parse_size_takes_a_number_and_a_unit);
    tcase_add_test(num, parse_real_takes_decimals_only);
    suite_add_tcase(s, num);
    TCase *lines = tcase_create("lines");
    tcase_set_timeout(lines, 60); /* 64 MiB of zeros under the sanitizers */
    tcase_add_test(lines, read_line_keeps_at_most_max_bytes);
    tcase_add_test(lines, read_line_stops_on_endless_input_and_errors);
    suite_add_tcase(s, lines);
    return run_suite(s);
}
