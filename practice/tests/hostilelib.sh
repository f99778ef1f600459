# practice/tests/hostilelib.sh — what the judge's hostile suites share (test_hostile.sh,
# test_limits.sh). Source it after mk/testlib.sh, from the repository root, with $demo
# set to the judge. It judges in a workspace of its own ($ws), fills in the hostile
# submissions' placeholders (@PRACTICE@, @WORKSPACE@, @FIFO@), judges a correct answer
# first, and provides:
#   prepare NAME                   practice/tests/hostile/NAME.c, filled in, as $tmp/NAME.c
#   state                          a digest of everything a submission must not change
#   leftovers                      how many processes the last case left behind
#   hostile NAME SECONDS TEXT...   judges NAME: not accepted (or, with WHOSE_ANSWER=right,
#                                  accepted), within SECONDS, every TEXT in the report,
#                                  nothing changed, nothing left
ws="$tmp/ws"
export PRACTICE_WORKSPACE="$ws"
correct=practice/tests/submissions/231_correct.c
mkfifo "$tmp/fifo"

# the submission NAME with its placeholders filled in, as $tmp/NAME.c
prepare() {
    sed "s|@PRACTICE@|$PWD/practice|g; s|@WORKSPACE@|$ws|g; s|@FIFO@|$tmp/fifo|g" \
        "practice/tests/hostile/$1.c" >"$tmp/$1.c"
}
# a digest of everything a submission must not change
state() {
    {
        find practice/231-rmsnorm practice/206-delta-rule practice/lib "$ws/.build/231-rmsnorm/checker" \
            "$ws/.build/231-rmsnorm/runner" -type f | sort | xargs sha256sum
        git status --porcelain practice 2>/dev/null
    } | sha256sum
}
# processes a case may have left: the runner or the compiler (their paths are under
# $ws), or, when $renamed is set, a process a submission named $renamed...
leftovers() {
    { pgrep -f "$ws/" || true; [ -z "${renamed:-}" ] || pgrep "^$renamed" || true; } | grep -v "^$$\$" | wc -l
}

"$demo" --color=never test 231 $correct >"$out" 2>"$err" </dev/null || fail "a correct answer first"
before=$(state)

# hostile NAME SECONDS TEXT...: the submission is not accepted, within SECONDS, its
# report holds every TEXT, and nothing is changed or left behind. (With WHOSE_ANSWER=right
# the submission's numbers are right: it passes, and what matters is the rest.)
hostile() {
    name=$1 bound=$2
    shift 2
    prepare "$name"
    t0=$(date +%s)
    timeout 300 "$demo" --color=never test 231 "$tmp/$name.c" >"$out" 2>"$err" </dev/null
    rc=$?
    took=$(($(date +%s) - t0))
    if [ "${WHOSE_ANSWER:-}" = right ]; then
        [ $rc -eq 0 ] && grep -q '^通过：7 / 7' "$out" || fail "$name: its right answer did not pass ($rc)"
    else
        [ $rc -eq 1 ] || fail "$name: exit status $rc, expected 1 (not accepted)"
        grep -q '^通过：' "$out" && fail "$name: accepted"
    fi
    [ "$took" -le "$bound" ] || fail "$name: the judge took $took s (bound $bound s)"
    for text in "$@"; do grep -qF -- "$text" "$out" || fail "$name: the report lacks '$text'"; done
    [ "$(state)" = "$before" ] || fail "$name: the exercise, the build products or the checkout changed"
    [ "$(leftovers)" -eq 0 ] || fail "$name: $(leftovers) process(es) left behind"
    verdict="not accepted"
    [ "${WHOSE_ANSWER:-}" = right ] && verdict="its right answer passed"
    passed "$name: $verdict, in $took s, nothing changed or left"
}
