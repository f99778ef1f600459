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
# A script whose first lines hold "run-tests: together" runs at the same time as the
# other scripts that say so too (the judge's suites: they mostly wait for compilers,
# limits and sleeping submissions, each in a scratch folder of its own), all of them
# started first and beside the other tests, which run one at a time meanwhile (most of
# them keep one core busy, so the two together take less time than one after the
# other); their words are shown in list order at the end, once the last has ended.
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

# account N TEST: counts a test that has ended (its exit status in $logs/N.rc)
account() {
    rc=$(cat "$logs/$1.rc")
    if [ $rc -eq 0 ]; then passed=$((passed + 1)); rm -f "$logs/$1.log"
    elif [ $rc -eq 77 ]; then skipped=$((skipped + 1)); echo "-- SKIPPED: $2"
    else failed=$((failed + 1)); failed_names="$failed_names $2"; echo "-- FAILED (exit $rc): $2"
        mv "$logs/$1.log" "$logs/failed.$1.log"
        echo "$2 (exit $rc)" >"$logs/failed.$1.name"
    fi
}
# run N TEST: runs one test, its exit status into $logs/N.rc
run() {
    case "$2" in
        *.sh) sh "$2" ;;
        *) "./$2" ;;
    esac
    echo $? >"$logs/$1.rc"
}
together() { case "$1" in *.sh) head -n 5 "$1" | grep -q "run-tests: together" ;; *) false ;; esac; }
# The scripts running together, as "N TEST" lines, each writing into $logs/N.log; shown
# and counted once they have all ended.
group=""
end_group() {
    [ -n "$group" ] || return 0
    wait
    while read -r n t; do
        echo "== $t"
        cat "$logs/$n.log"
        account "$n" "$t"
    done <<EOF
$group
EOF
    group=""
}
start_group() {
    i=0
    for t in "$@"; do
        i=$((i + 1)) n=$(printf %03d $i) # the logs sort in the order the tests are listed
        together "$t" || continue
        { t0=$(date +%s)
          run "$n" "$t" 2>&1
          echo "-- $t: $(($(date +%s) - t0)) s"; } >"$logs/$n.log" &
        group="${group:+$group
}$n $t"
    done
}
# With FAIL_FAST the group starts only once the others have passed: a failure then
# ends the run at once.
fail_fast=${FAIL_FAST:-0}
[ "$fail_fast" = 1 ] || start_group "$@"
i=0
for t in "$@"; do
    i=$((i + 1)) n=$(printf %03d $i)
    together "$t" && continue
    [ "$fail_fast" = 1 ] && [ $failed -gt 0 ] && break
    echo "== $t"
    t0=$(date +%s)
    run "$n" "$t" 2>&1 | tee "$logs/$n.log"
    echo "-- $t: $(($(date +%s) - t0)) s"
    account "$n" "$t"
done
[ "$fail_fast" = 1 ] && [ $failed -eq 0 ] && start_group "$@"
end_group

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
