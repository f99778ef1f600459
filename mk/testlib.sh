# mk/testlib.sh — what the demos' shell tests share. Source it from a test script
# (run from the repository root) after setting $demo, the program under test:
#
#     demo="${BINDIR:-}ch04_mlp/ch04_mlp"
#     . mk/testlib.sh
#     expect_help '^usage: .*--model DIR'
#     expect_error "unknown flag" "unknown option '-x'" -x
#     "$demo" --model "$tiny" >"$out" 2>"$err" || fail "run exits non-zero"
#     grep -q 'some line' "$out" || fail "some line"
#     finish
#
# It provides $tmp (a scratch folder removed on exit; $out and $err inside it),
# $tiny (the tiny checkpoint of `make test`), and:
#   ok NAME                        "ok   NAME"
#   passed NAME                    "ok   NAME" if no check failed since the last passed
#   fail NAME                      "FAIL: NAME" with the last stdout/stderr; counted
#   expect_help PATTERN            --help: status 0, a line matching PATTERN, one screen
#   expect_error NAME FRAGMENT ARGS...
#                                  "$demo" ARGS exits with status 1, prints nothing on
#                                  stdout and exactly one line on stderr containing FRAGMENT
#   on_busy_cpu CMD ARGS...        runs CMD on one CPU (the first this shell may use)
#                                  beside two busy processes pinned there, so that it gets
#                                  a third of that core at most, as on a machine busy with
#                                  other work; CMD's exit status
#   finish                         exit 1 if anything failed, else 0

tiny="${TINY:-${BUILD:-build}/tiny}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/demo-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
out="$tmp/out" err="$tmp/err"
: >"$out"
: >"$err"
failures=0

ok() { echo "ok   $*"; }

mark=0
passed() {
    [ "$failures" -eq "$mark" ] && ok "$*"
    mark=$failures
}

fail() {
    echo "FAIL: $*"
    echo "--- stdout"; head -n 20 "$out"
    echo "--- stderr"; head -n 20 "$err"
    failures=$((failures + 1))
}

expect_help() {
    if ! "$demo" --help >"$out" 2>"$err"; then fail "--help exits non-zero"
    elif ! grep -q -- "$1" "$out"; then fail "--help prints no line matching '$1'"
    elif [ "$(wc -l <"$out")" -gt 25 ]; then fail "--help is longer than one screen"
    else ok "--help"; fi
}

expect_error() {
    name=$1 fragment=$2
    shift 2
    "$demo" "$@" >"$out" 2>"$err"
    rc=$?
    if [ $rc -ne 1 ]; then fail "$name: exit status $rc, expected 1"
    elif [ -s "$out" ]; then fail "$name: printed on stdout"
    elif [ "$(wc -l <"$err")" -ne 1 ]; then fail "$name: $(wc -l <"$err") lines on stderr, expected 1"
    elif ! grep -qF -- "$fragment" "$err"; then fail "$name: stderr lacks '$fragment'"
    else ok "$name: $(cat "$err")"; fi
}

on_busy_cpu() {
    cpu=$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')
    taskset -c "$cpu" yes >/dev/null &
    busy1=$!
    taskset -c "$cpu" yes >/dev/null &
    busy2=$!
    taskset -c "$cpu" "$@"
    busy_rc=$?
    kill $busy1 $busy2
    wait $busy1 $busy2 2>/dev/null
    return $busy_rc
}

finish() {
    if [ "$failures" -ne 0 ]; then
        echo "$failures check(s) failed"
        exit 1
    fi
    exit 0
}
