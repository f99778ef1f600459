#!/bin/sh
# run-tests: together (mk/run-tests.sh): beside the judge's other suites, in a scratch folder of its own
# The judge's own tests: what a learner sees for every kind of submission, and the
# commands around it. Run from the repository root (make test does).
#
#   - one submission of exercise 231 per kind of outcome (practice/tests/submissions/):
#     correct, wrong, crashing, looping forever, allocating without bound, writing
#     out of bounds, not compiling, printing on stdout and stderr, leaking, undefined
#     behaviour, calling exit(), sleeping — each must get its verdict, a readable report with the
#     values or the first relevant compiler / sanitizer lines (paths relative), and the
#     documented exit status (0 accepted, 1 not accepted, 2 usage or input error);
#   - start / test / list / hint / solution / reset / watch on a scratch workspace,
#     a corrupt progress file, bad command lines, colour on and off.
set -u
demo="${BINDIR:-}practice/judge"
. mk/testlib.sh
[ -x "$demo" ] || { echo "FAIL: $demo not built"; exit 1; }
# the submissions are judged in a workspace of their own; the learner's session below
# starts from an empty one
export PRACTICE_WORKSPACE="$tmp/ws-submissions"
sub=practice/tests/submissions
ws="$tmp/ws/231-rmsnorm.c"

# judge RC ARGS...: runs the judge (no colour, empty stdin); fails unless it exits with RC
judge() {
    want=$1
    shift
    "$demo" --color=never "$@" >"$out" 2>"$err" </dev/null
    rc=$?
    [ "$rc" -eq "$want" ] || fail "judge $*: exit status $rc, expected $want"
}
# says NAME TEXT...: every TEXT is in stdout
says() {
    name=$1
    shift
    for text in "$@"; do grep -qF -- "$text" "$out" || fail "$name: stdout lacks '$text'"; done
    passed "$name"
}
# one_error NAME FRAGMENT: nothing on stdout, exactly one line on stderr containing FRAGMENT
one_error() {
    if [ -s "$out" ]; then fail "$1: printed on stdout"
    elif [ "$(wc -l <"$err")" -ne 1 ]; then fail "$1: $(wc -l <"$err") lines on stderr, expected 1"
    elif ! grep -qF -- "$2" "$err"; then fail "$1: stderr lacks '$2'"
    else ok "$1: $(cat "$err")"; fi
}
no_absolute_paths() {
    if grep -qF "$(pwd)/" "$out"; then fail "$1: an absolute path in the report"; else passed "$1: paths are relative"; fi
}

# ---- one submission of each kind ----------------------------------------------------------
judge 0 test 231 $sub/231_correct.c
says "correct" "通过：7 / 7 个用例通过" "编译 compile"
[ "$(grep -c '^  ✓ ' "$out")" -eq 7 ] && ok "correct: seven ✓ lines" || fail "correct: not seven ✓ lines"
grep -qE '^  ✓ 题目里的例子.* [0-9]+ ms$' "$out" && ok "correct: a case line has its time" || fail "correct: no time"

judge 1 test 231 $sub/231_wrong.c
says "wrong answer" "答案错误：1 / 7 个用例通过" "✗ 题目里的例子" "第一个不一致的位置 first mismatch：y[i=0]" \
    "期望 expected 0.36514834，得到 got 0" "最大绝对误差 max abs diff" "最大相对误差 max rel diff" \
    "容差 tolerance：|got − expected| ≤ 1e-06 + 1e-05 × |expected|" "第一个没通过的：题目里的例子"
grep -qF "./practice/judge hint 231" "$out" || grep -qF "judge hint 231" "$out" || fail "wrong answer: no hint offered"

judge 1 test 231 $sub/231_crash.c
says "crash" "运行错误：0 / 7 个用例通过" "段错误 SEGV" "（写 WRITE）" "在 rmsnorm（practice/tests/submissions/231_crash.c:8）" \
    "多半是空指针 NULL" "（运行错误，和上面一样）"
no_absolute_paths "crash"

start=$(date +%s)
judge 1 test 231 $sub/231_loop.c
says "endless loop" "超时：0 / 7 个用例通过" "是不是有死循环？" "剩下 6 个没有运行"
[ $(($(date +%s) - start)) -lt 30 ] && ok "endless loop: ends within 30 s" || fail "endless loop: took $(($(date +%s) - start)) s"
# the CPU limit, or on a busy machine the wall clock first: then it says it was computing
grep -qE "CPU 时间超过 3 秒（time limit）|其中在算的时间有 [0-9.]+ 秒（机器很忙" "$out" &&
    ok "endless loop: the report names the CPU limit" || fail "endless loop: no CPU limit named"
# with a third of a core, 6 s of wall clock come before 3 s of CPU
on_busy_cpu "$demo" --color=never test 231 $sub/231_loop.c >"$out" 2>"$err" </dev/null
says "endless loop on a busy machine" "超时：0 / 7 个用例通过" "运行了 6 秒还没结束，其中在算的时间有" \
    "（机器很忙，CPU 时间还没到 3 秒的上限）——是不是有死循环？"

judge 1 test 231 $sub/231_sleep.c
says "sleeping" "超时：0 / 7 个用例通过" "运行了 6 秒还没结束，几乎一直在等（sleep、读 stdin？）" "剩下 6 个没有运行"

judge 1 test 231 $sub/231_alloc.c
says "unbounded allocation" "运行错误" "内存超限：用了超过 256 MB（memory limit）"

judge 1 test 231 $sub/231_oob.c
says "out of bounds" "运行错误" "越界访问 heap-buffer-overflow" "在 rmsnorm（practice/tests/submissions/231_oob.c:11）" \
    "紧挨在一块 16 字节的内存末尾之后" "这块内存分配在 worked_example（practice/231-rmsnorm/tests/run.c:"
no_absolute_paths "out of bounds"

judge 1 test 231 $sub/231_syntax.c
says "compile error" "编译错误：practice/tests/submissions/231_syntax.c 没有编译通过" \
    "practice/tests/submissions/231_syntax.c:7:77: error: expected ‘;’ before ‘}’ token"
grep -q '✓\|✗' "$out" && fail "compile error: case lines printed" || ok "compile error: no case was run"
no_absolute_paths "compile error"

judge 0 test 231 $sub/231_prints.c
says "prints on stdout" "通过：7 / 7 个用例通过" "ⓘ 你的代码往 stdout 打印了 21 字节" "第一行「PASS row 0: sum = 30」" \
    "ⓘ 你的代码往 stderr 打印了"
grep -q '^PASS\|^FAIL\|not really' "$out" && fail "prints on stdout: the learner's output leaked into the report" ||
    ok "prints on stdout: the report is not garbled"
[ "$(grep -c '^  ✓ ' "$out")" -eq 7 ] && ok "prints on stdout: seven ✓ lines" || fail "prints on stdout: case lines"

judge 1 test 231 $sub/231_leak.c
says "memory leak" "运行错误" "内存泄漏 memory leak：16 字节 malloc 了没有 free" "231_leak.c:8"

judge 1 test 231 $sub/231_overflow.c
says "undefined behaviour" "未定义行为 undefined behavior：signed integer overflow" "231_overflow.c:9"

judge 1 test 231 $sub/231_exit.c
says "exit()" "运行错误" "程序提前退出了（exit 3）"

# ---- the command line ---------------------------------------------------------------------
judge 2
grep -q "用法 usage" "$err" && ok "no command: usage on stderr, status 2" || fail "no command: no usage"
judge 0 --help
says "--help" "用法 usage" "退出码 exit status: 0 通过"
[ "$(wc -l <"$out")" -le 25 ] && ok "--help: one screen" || fail "--help: longer than one screen"
judge 2 frobnicate
one_error "unknown command" "不认识的命令 frobnicate"
judge 2 --frob list
one_error "unknown option" "不认识的选项 --frob"
judge 2 test 999
one_error "unknown exercise" "没有第 999 题"
judge 2 test 231 "$tmp/nowhere.c"
one_error "missing file" "没有这个文件"
judge 2 test
one_error "missing argument" "test 的参数不对"
judge 2 test 231
one_error "not started" "还没有开始第 231 题：先运行"

# ---- a learner's session --------------------------------------------------------------------
export PRACTICE_WORKSPACE="$tmp/ws"
judge 0 list
says "list" "手写 Transformer · C 练习" "0 / 21 通过" "第 1 章 权重 weights" "第 7 章 Gated DeltaNet" \
    "· 206  Gated DeltaNet 的逐 token 递推" "下一题 next：" "start 211"
judge 0 start 231
says "start" "231. 零中心的 RMSNorm" "## 要写的函数" "void rmsnorm(" "起始代码已经复制到" "judge test 231"
cmp -s "$ws" practice/231-rmsnorm/rmsnorm.c && ok "start: the starter is in the workspace" || fail "start: workspace file"
judge 1 test 231
says "the untouched starter" "答案错误：0 / 7 个用例通过" "个值全是 NaN"
echo "/* my work */" >>"$ws"
judge 0 start 231
says "start again" "你的文件已经在了，没有覆盖"
grep -q "my work" "$ws" && ok "start again: the learner's work is kept" || fail "start again: work overwritten"
judge 0 list
says "list after a failure" "✗ 231" "0 / 21 通过"
cp $sub/231_correct.c "$ws"
judge 0 test 231
says "accepted in the workspace" "通过：7 / 7 个用例通过" "下一题 next："
judge 0 list
says "list after a pass" "✓ 231" "1 / 21 通过" "第 3 章 归一化 norm" "1 / 3"
grep -q "^231 passed" "$PRACTICE_WORKSPACE/progress.txt" && ok "progress: 231 passed" || fail "progress file"

judge 0 hint 231
says "hint 1" "提示 1 / 3 · 提示 1：一点方向（nudge）"
judge 0 hint 231
says "hint 2" "提示 2 / 3 · 提示 2：公式（formula）"
judge 0 hint 231
says "hint 3" "提示 3 / 3 · 提示 3：容易错的地方（pitfall）" "solution 231"
judge 0 hint 231
says "hint 4" "提示已经全部给过了（3 / 3）"

printf 'n\n' | "$demo" --color=never solution 231 >"$out" 2>"$err"
[ $? -eq 1 ] && ! grep -q "void rmsnorm" "$out" && ok "solution, answered no: nothing shown, status 1" ||
    fail "solution, answered no"
printf 'y\n' | "$demo" --color=never solution 231 >"$out" 2>"$err"
[ $? -eq 0 ] && grep -q "── 参考答案 rmsnorm.c ──" "$out" && grep -q "void rmsnorm" "$out" && grep -q "── 讲解 ──" "$out" &&
    ok "solution, answered yes: the reference and its explanation" || fail "solution, answered yes"
"$demo" solution 231 >"$out" 2>"$err" </dev/null
[ $? -eq 1 ] && ok "solution with no answer at all: treated as no" || fail "solution with stdin closed"

printf 'n\n' | "$demo" --color=never reset 231 >"$out" 2>"$err"
[ $? -eq 1 ] && cmp -s "$ws" $sub/231_correct.c && ok "reset, answered no: the file is kept" || fail "reset, no"
printf 'y\n' | "$demo" --color=never reset 231 >"$out" 2>"$err"
[ $? -eq 0 ] && cmp -s "$ws" practice/231-rmsnorm/rmsnorm.c && cmp -s "$ws.bak" $sub/231_correct.c &&
    ok "reset, answered yes: the starter is back, the old file in .bak" || fail "reset, yes"
judge 0 reset 231
says "reset of an untouched file" "已经是起始代码了"

# ---- colour ---------------------------------------------------------------------------------
esc=$(printf '\033')
"$demo" --color=always list >"$out" 2>"$err"
grep -q "$esc\[" "$out" && ok "--color=always: escape sequences" || fail "--color=always: no colour"
"$demo" list >"$out" 2>"$err"
grep -q "$esc" "$out" && fail "not a terminal: colour anyway" || ok "not a terminal: no colour"
"$demo" --color=never test 231 $sub/231_wrong.c >"$out" 2>"$err"
grep -q "$esc" "$out" && fail "--color=never: colour anyway" || ok "--color=never: no colour"

# ---- a corrupt progress file ------------------------------------------------------------------
cp "$PRACTICE_WORKSPACE/progress.txt" "$tmp/progress.good"
printf '231 passed 0\nthis is not progress\n' >"$PRACTICE_WORKSPACE/progress.txt"
judge 2 list
one_error "corrupt progress file" "progress.txt 第 2 行看不懂"
printf '231 passed 0\n999999 passed 1\n' >"$PRACTICE_WORKSPACE/progress.txt"
judge 2 test 231 $sub/231_correct.c
one_error "progress file with a bad number" "第 2 行看不懂"
# binary bytes, fixed (random ones would now and then form a line that starts with
# '#', a comment, and be accepted)
printf '\377\376\001\002binary\200\n\033[2J\177' >"$PRACTICE_WORKSPACE/progress.txt"
judge 2 hint 231
grep -q "progress.txt" "$err" && [ "$(wc -l <"$err")" -eq 1 ] && ok "binary progress file: one error line" ||
    fail "binary progress file"
cp "$tmp/progress.good" "$PRACTICE_WORKSPACE/progress.txt"

# ---- watch: re-tests on every save, q leaves ---------------------------------------------------
fifo="$tmp/keys"
mkfifo "$fifo"
"$demo" --color=never watch 231 <"$fifo" >"$tmp/watch.out" 2>&1 &
watcher=$!
exec 9>"$fifo" # keep the fifo open: the watcher reads keys from it
wait_for() {   # wait_for TEXT COUNT: until TEXT appears COUNT times in the watch output (at most 60 s)
    for _ in $(seq 1 600); do
        [ "$(grep -cF -- "$1" "$tmp/watch.out")" -ge "$2" ] && return 0
        sleep 0.1
    done
    return 1
}
wait_for "个用例通过" 1 && ok "watch: the first round" || fail "watch: no first round"
cp $sub/231_wrong.c "$ws.new" && mv "$ws.new" "$ws" # how many editors save: a new file renamed over the old
wait_for "答案错误：1 / 7" 1 && ok "watch: re-tested after a save" || fail "watch: no second round"
cp $sub/231_correct.c "$ws"
wait_for "通过：7 / 7" 1 && ok "watch: re-tested after writing in place" || fail "watch: no third round"
printf 'q' >&9
for _ in $(seq 1 100); do kill -0 $watcher 2>/dev/null || break; sleep 0.1; done
if kill -0 $watcher 2>/dev/null; then
    fail "watch: still running after q"
    kill $watcher
else
    wait $watcher
    [ $? -eq 0 ] && ok "watch: q leaves with status 0" || fail "watch: exit status after q"
fi
exec 9>&-
grep -q "退出 watch 模式" "$tmp/watch.out" && ok "watch: says goodbye" || fail "watch: no goodbye"

finish
