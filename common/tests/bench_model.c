/* bench_model.c — see bench_model.h. */
#include "bench_model.h"

#include <stdio.h>

#include "workbook/util.h"

bool bench_open_model(Model *m, const char *dir) {
    if (!is_dir(dir)) {
        printf("SKIP: no checkpoint at %s (`make synthetic` writes it once, 1.5 GB)\n", dir);
        return false;
    }
    Error err;
    if (!model_open(m, dir, &err)) die("%s", err.msg);
    return true;
}
