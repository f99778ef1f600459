/* bench_model.h — for the benchmarks only: the synthetic checkpoint they time. */
#ifndef BENCH_MODEL_H
#define BENCH_MODEL_H

#include <stdbool.h>

#include "qwen/model.h"

/* The folder `make synthetic` writes, which a benchmark times unless told otherwise. */
#define BENCH_MODEL_DIR "models/Qwen3.5-0.8B-synthetic"

/* Opens the checkpoint in dir; when there is none, says "SKIP: ..." on stdout and
 * returns false (a benchmark then ends with status 0). Dies on a broken one. */
bool bench_open_model(Model *m, const char *dir);

#endif
