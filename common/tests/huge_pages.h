/* huge_pages.h — whether Linux offers this process transparent huge pages, read by the
 * tests themselves (not through the library, whose own reading they check): the
 * setting in /sys/kernel/mm/transparent_hugepage/enabled is "always" or "madvise". */
#ifndef TESTS_HUGE_PAGES_H
#define TESTS_HUGE_PAGES_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static inline bool thp_offered(void) {
    char line[128] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f) {
        if (!fgets(line, sizeof line, f)) line[0] = 0;
        fclose(f);
    }
    return strstr(line, "[always]") || strstr(line, "[madvise]");
}

#endif
