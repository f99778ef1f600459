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
# A failing test's own words are repeated under the summary (its lines that do not
# start with OK or ok, the last 40), so that the reason stays in sight at the end
# of a long log.
set -u
export BUILD="${BUILD:-build}" BINDIR="${BINDIR:-}"
export TINY="${TINY:-$BUILD/tiny}" MID="${MID:-$BUILD/mid}"
# Two worker threads unless the caller says otherwise (common/kernels/pool.c reads
# OMP_NUM_THREADS, as OpenMP programs do): the tests check results, not speed, and stay
# quick and quiet on a machine that is busy with other work.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
export CK_VERBOSITY="${CK_VERBOSITY:-normal}"

logs=$(mktemp -d "${TMPDIR:-/tmp}/run-tests.XXXXXX") || exit 1
trap 'rm -rf "$logs"' EXIT
passed=0 failed=0 skipped=0 failed_names="" i=0
for t in "$@"; do
    echo "== $t"
    t0=$(date +%s)
    i=$((i + 1)) n=$(printf %03d $i) # the logs sort in the order the tests ran
    { case "$t" in
          *.sh) sh "$t" ;;
          *) "./$t" ;;
      esac
      echo $? >"$logs/$n.rc"; } 2>&1 | tee "$logs/$n.log"
    rc=$(cat "$logs/$n.rc")
    echo "-- $t: $(($(date +%s) - t0)) s"
    if [ $rc -eq 0 ]; then passed=$((passed + 1)); rm -f "$logs/$n.log"
    elif [ $rc -eq 77 ]; then skipped=$((skipped + 1)); echo "-- SKIPPED: $t"
    else failed=$((failed + 1)); failed_names="$failed_names $t"; echo "-- FAILED (exit $rc): $t"
        mv "$logs/$n.log" "$logs/failed.$n.log"
        echo "$t (exit $rc)" >"$logs/failed.$n.name"
        [ "${FAIL_FAST:-0}" = 1 ] && break
    fi
done

echo
for name in "$logs"/failed.*.name; do
    [ -f "$name" ] || continue
    echo "== what $(cat "$name") said:"
    grep -Eav '^(OK|ok) ' "${name%.name}.log" | tail -n 40
    echo
done
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
