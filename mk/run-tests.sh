#!/bin/sh
# Runs every test program and test script given on the command line, from the
# repository root, and ends with one summary line: "N passed, N failed, N skipped".
#
# A test passes with exit status 0 and is skipped with 77 (the automake
# convention: it says SKIP and why on its own output). Anything else fails.
# Environment handed to the tests:
#   BUILD   build folder of this run (build or build-san)
#   BINDIR  prefix of the demo binaries ("" or "build-san/"), e.g. ${BINDIR}ch07_deltanet/ch07_toy
#   TINY    the tiny synthetic checkpoint folder ($BUILD/tiny), which
#           reference/golden/tiny_forward.safetensors was computed from
#   MID     the mid-size one ($BUILD/mid: the real layer widths, four layers), which
#           reference/golden/mid_forward.safetensors was computed from
# With FAIL_FAST=1 it stops at the first failure (make mutants: one is enough).
set -u
export BUILD="${BUILD:-build}" BINDIR="${BINDIR:-}"
export TINY="${TINY:-$BUILD/tiny}" MID="${MID:-$BUILD/mid}"
# Two worker threads unless the caller says otherwise (common/kernels/pool.c reads
# OMP_NUM_THREADS, as OpenMP programs do): the tests check results, not speed, and stay
# quick and quiet on a machine that is busy with other work.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
export CK_VERBOSITY="${CK_VERBOSITY:-normal}"

passed=0 failed=0 skipped=0 failed_names=""
for t in "$@"; do
    echo "== $t"
    t0=$(date +%s)
    case "$t" in
        *.sh) sh "$t" ;;
        *) "./$t" ;;
    esac
    rc=$?
    echo "-- $t: $(($(date +%s) - t0)) s"
    if [ $rc -eq 0 ]; then passed=$((passed + 1))
    elif [ $rc -eq 77 ]; then skipped=$((skipped + 1)); echo "-- SKIPPED: $t"
    else failed=$((failed + 1)); failed_names="$failed_names $t"; echo "-- FAILED (exit $rc): $t"
        [ "${FAIL_FAST:-0}" = 1 ] && break
    fi
done

echo
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
