#!/bin/sh
# run-tests: together (mk/run-tests.sh): beside the judge's other suites, in a scratch folder of its own
# The judge's trust boundary, tried the way a hostile submission would (practice/tests/
# hostile/, answers to exercise 231, judged by practice/tests/hostilelib.sh). For each:
#   - the verdict is not 通过 (and says what happened),
#   - the exercise folders, the judge's build products and the checkout are unchanged,
#   - no process of the case is left,
#   - the judge returns within a bound;
# and afterwards a correct answer still passes. Then: two judges at once (one exercise,
# ten rounds; two exercises, both recorded), a read-only workspace, a pass that stays a
# pass, the statement's header in English, and the judge on a kernel without Landlock
# or seccomp (PRACTICE_WITHOUT). The limits on compiling and running: test_limits.sh.
set -u
demo="${BINDIR:-}practice/judge"
. mk/testlib.sh
[ -x "$demo" ] || { echo "FAIL: $demo not built"; exit 1; }
. practice/tests/hostilelib.sh
renamed=ptx- # what escape.c names its processes

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
