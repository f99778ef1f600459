#!/bin/sh
# run-tests: together (mk/run-tests.sh): beside the judge's other suites, in a scratch folder of its own
# The judge's trust boundary, tried the way a hostile submission would (practice/tests/
# hostile/, answers to exercise 231; @PRACTICE@, @WORKSPACE@ and @FIFO@ are filled in
# here). For each one:
#   - the verdict is not 通过 (and says what happened),
#   - the exercise folders, the judge's build products and the checkout are unchanged,
#   - no process of the case is left,
#   - the judge returns within a bound;
# and afterwards a correct answer still passes. Then: two judges at once (one exercise,
# ten rounds; two exercises, both recorded), a read-only workspace, a pass that stays a
# pass, the statement's header in English, and the judge on a kernel without Landlock
# or seccomp (PRACTICE_WITHOUT).
set -u
demo="${BINDIR:-}practice/judge"
. mk/testlib.sh
[ -x "$demo" ] || { echo "FAIL: $demo not built"; exit 1; }
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
# processes a case may have left: the runner (its path is under $ws) or a process
# named ptx-... by a submission
leftovers() {
    { pgrep -f "$ws/" || true; pgrep '^ptx-' || true; } | grep -v "^$$\$" | wc -l
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

# ---- the verdict outside the code under test ----------------------------------------------
hostile forge_report 30 "程序提前退出了（exit 0）"
hostile forge_end 30 "测试程序没有交回 y"
hostile include_solution 30 "编译错误" ".solution/rmsnorm.c: No such file or directory"
hostile include_absolute 30 "编译错误" "Permission denied"
hostile read_expected 30 "答案错误" "得到 got 0"

# ---- reaching outside the case ------------------------------------------------------------
WHOSE_ANSWER=right hostile vandal 30 # every write failed; then it answered right
grep -q '^# 练习进度' "$ws/progress.txt" && ok "vandal: the progress file is the judge's" ||
    fail "vandal: the progress file was rewritten"
[ "$(cat "$ws/231-rmsnorm.c" 2>/dev/null)" = "" ] || fail "vandal: wrote the workspace file"
hostile escape 60
sleep 3 # the escaped processes would have rewritten progress.txt by now
grep -q '^206' "$ws/progress.txt" && fail "escape: the progress file was rewritten by an escaped process" ||
    ok "escape: no process outlived the run to rewrite the progress file"
hostile kill_judge 30 "答案错误"
hostile stop_judge 30 "答案错误"

# ---- limits on compiling and running --------------------------------------------------------
hostile include_fifo "$((20 + 15))" "编译错误"
hostile include_dev_zero 30 "编译错误" "/dev/zero"
hostile macro_bomb 60 "编译错误"
grep -qE "编译器的 CPU 时间超过 [0-9]+ 秒|编译器用了超过 [0-9]+ MB 内存" "$out" &&
    ok "macro_bomb: the report names the compiler's limit" || fail "macro_bomb: no limit named"
hostile flood 60 "输出太多：超过 16 MB"
hostile spin_ctor 30 "超时"
hostile escapes 30 "答案错误" '第一行「\x1b[2J\x1b[31mred\x07」'
esc=$(printf '\033')
grep -q "$esc" "$out" && fail "escapes: a raw escape sequence reached the report" || ok "escapes: shown escaped"

"$demo" --color=never test 231 $correct >"$out" 2>"$err" </dev/null && grep -q '^通过：7 / 7' "$out" &&
    ok "a correct answer still passes afterwards" || fail "a correct answer after the hostile ones"

# ---- without Landlock, without seccomp ----------------------------------------------------------
PRACTICE_WITHOUT=landlock "$demo" --color=never test 231 $correct >"$out" 2>"$err" </dev/null
rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <"$err")" -eq 1 ] && grep -q "没有 Landlock" "$err" &&
    ok "no Landlock: one line says so, a correct answer passes" || fail "no Landlock: status $rc"
prepare escape
PRACTICE_WITHOUT=seccomp "$demo" --color=never test 231 "$tmp/escape.c" >"$out" 2>"$err" </dev/null
[ "$(leftovers)" -eq 0 ] && ok "no seccomp: 400 forked escapees, none left (the subreaper)" ||
    fail "no seccomp: $(leftovers) process(es) left"

# ---- two judges at once ----------------------------------------------------------------------------
sol=practice/206-delta-rule/.solution/delta_rule.c
bad=0
for round in 1 2 3 4 5 6 7 8 9 10; do
    "$demo" --color=never test 206 $sol >"$tmp/a.out" 2>&1 </dev/null &
    a=$!
    "$demo" --color=never test 206 $sol >"$tmp/b.out" 2>&1 </dev/null
    rb=$?
    wait $a
    ra=$?
    if [ $ra -ne 0 ] || [ $rb -ne 0 ]; then
        bad=$((bad + 1))
        cp "$tmp/a.out" "$out"
    fi
done
[ $bad -eq 0 ] && ok "two judges on one exercise, 10 rounds: both pass every time" ||
    fail "two judges on one exercise: $bad of 10 rounds had a failure"
bad=0
for round in 1 2 3; do
    rm -f "$ws/progress.txt"
    "$demo" --color=never test 206 $sol >"$tmp/a.out" 2>&1 </dev/null &
    a=$!
    "$demo" --color=never test 231 $correct >"$tmp/b.out" 2>&1 </dev/null
    wait $a
    grep -q '^206 passed' "$ws/progress.txt" && grep -q '^231 passed' "$ws/progress.txt" || bad=$((bad + 1))
done
[ $bad -eq 0 ] && ok "two judges on two exercises, 3 rounds: both recorded every time" ||
    fail "two judges on two exercises: $bad of 3 rounds lost an update"

# ---- a pass stays a pass ---------------------------------------------------------------------------
"$demo" --color=never test 231 practice/tests/submissions/231_wrong.c >"$out" 2>"$err" </dev/null
grep -q '^231 passed 0 failed$' "$ws/progress.txt" && ok "progress: a failed test after a pass keeps the pass" ||
    fail "progress after a failed test: $(grep '^231' "$ws/progress.txt")"
"$demo" --color=never list >"$out" 2>"$err" </dev/null
grep -q "✓ 231 .*（最近一次 ✗）" "$out" && ok "list: ✓, and the latest test's ✗ beside it" ||
    fail "list after a pass and a failure"

# ---- the statement's header in English -----------------------------------------------------------
"$demo" --color=never --lang=en start 231 >"$out" 2>"$err" </dev/null
grep -q "^231\. .* (chapter 3 · easy)$" "$out" && ! grep -q "第 3 章" "$out" &&
    ok "--lang=en: the header line in English" || fail "--lang=en: the header line"

# ---- a read-only workspace -----------------------------------------------------------------------
ro_run() { # runs the judge with $ws read-only
    if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
        unshare -m sh -c 'mount --bind -o ro "$1" "$1" && shift && exec "$@"' sh "$ws" \
            "$demo" --color=never test 231 $correct >"$out" 2>"$err" </dev/null
    else
        chmod -R a-w "$ws"
        "$demo" --color=never test 231 $correct >"$out" 2>"$err" </dev/null
        rc=$?
        chmod -R u+w "$ws"
        return $rc
    fi
}
ro_run
rc=$?
[ $rc -eq 2 ] && grep -q "写不进去" "$out" && ! grep -q "编译错误" "$out" &&
    ok "read-only workspace: one clear message, status 2" || fail "read-only workspace: status $rc"

finish
