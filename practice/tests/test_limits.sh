#!/bin/sh
# run-tests: together (mk/run-tests.sh): beside the judge's other suites, in a scratch folder of its own
# The judge's limits on compiling and running, tried by hostile submissions (practice/
# tests/hostile/, answers to exercise 231): an #include that never ends, one of an
# endless file, a macro that expands without bound, a flood of output, a constructor
# that never returns, escape sequences in the output. Each must end in a verdict that is
# not 通过 and names the limit it met, within a bound, with nothing changed or left
# (practice/tests/hostilelib.sh) — also on a busy machine, where the wall clock comes
# before the CPU limit: the report then says whether the program was computing or
# waiting. Afterwards a correct answer still passes.
set -u
demo="${BINDIR:-}practice/judge"
. mk/testlib.sh
[ -x "$demo" ] || { echo "FAIL: $demo not built"; exit 1; }
. practice/tests/hostilelib.sh

# ---- limits on compiling ------------------------------------------------------------------------
hostile include_fifo 30 "编译错误" "Permission denied" # Landlock: the FIFO is outside the scratch folder
# without Landlock the compiler opens it and waits, until the wall clock
PRACTICE_WITHOUT=landlock hostile include_fifo "$((20 + 15))" "编译错误" \
    "编译了 20 秒还没结束（wall-clock limit），编译器几乎一直在等：#include 了一个读不完的文件"
hostile include_dev_zero 30 "编译错误" "/dev/zero"
hostile macro_bomb 60 "编译错误"
grep -qE "编译器的 CPU 时间超过 [0-9]+ 秒|编译器用了超过 [0-9]+ MB 内存|其中编译器在算的时间有 [0-9.]+ 秒" "$out" &&
    ok "macro_bomb: the report names the compiler's limit" || fail "macro_bomb: no limit named"
# with a third of a core, 20 s of wall clock come before 10 s of CPU: the report says the
# compiler (cc1, under the driver) was computing, not waiting
on_busy_cpu timeout 300 "$demo" --color=never test 231 "$tmp/macro_bomb.c" >"$out" 2>"$err" </dev/null
grep -qE "编译了 20 秒还没结束（wall-clock limit），其中编译器在算的时间有 [0-9.]+ 秒（机器很忙" "$out" &&
    ok "macro_bomb on a busy machine: the compiler was computing" || fail "macro_bomb on a busy machine"

# ---- limits on running ---------------------------------------------------------------------------
hostile flood 60 "输出太多：超过 16 MB"
hostile spin_ctor 30 "超时"
hostile escapes 30 "答案错误" '第一行「\x1b[2J\x1b[31mred\x07」'
esc=$(printf '\033')
grep -q "$esc" "$out" && fail "escapes: a raw escape sequence reached the report" || ok "escapes: shown escaped"

"$demo" --color=never test 231 $correct >"$out" 2>"$err" </dev/null && grep -q '^通过：7 / 7' "$out" &&
    ok "a correct answer still passes afterwards" || fail "a correct answer after the hostile ones"

finish
