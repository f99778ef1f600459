#!/bin/sh
# run-tests: together (mk/run-tests.sh): beside the judge's other suites, in a scratch folder of its own
# `judge check` over every exercise must pass: every reference solution accepted,
# every untouched starter rejected, every typical wrong answer caught by the cases
# it names, the worked example first, front matter and files complete.
#
# And check itself must notice a broken exercise: copies of exercise 231, each
# broken in one way, in a scratch practice folder (PRACTICE_DIR), must each get a ✗
# with the right reason, while an unbroken copy gets its ✓.
set -u
demo="${BINDIR:-}practice/judge"
. mk/testlib.sh
[ -x "$demo" ] || { echo "FAIL: $demo not built"; exit 1; }

# ---- the real exercises (the build is kept under $BUILD between runs) --------------------------
PRACTICE_WORKSPACE="${BUILD:-build}/practice-check" "$demo" --color=never check >"$out" 2>"$err"
rc=$?
tail -n 1 "$out"
if [ $rc -eq 0 ] && grep -q "^check 通过：21 道练习" "$out"; then ok "judge check: every exercise"
else
    fail "judge check: exit status $rc"
    grep -A4 "✗" "$out" | head -n 40
fi

# ---- check catches what is broken ----------------------------------------------------------------
p="$tmp/practice"
mkdir -p "$p"
cp -r practice/lib "$p/lib"
# copy NUMBER: exercise 231 as exercise NUMBER
copy() {
    d="$p/$1-rmsnorm"
    cp -r practice/231-rmsnorm "$d"
    sed -i "s/^number: 231$/number: $1/" "$d/problem.md"
    echo "$d"
}
d=$(copy 901) # left alone, but for trailing spaces an editor strips: a blank context line of a diff
sed -i 's/^ $//' "$d"/.solution/wrong/*.diff # becomes empty, and must still count as one
d=$(copy 902)
cp "$d/.solution/rmsnorm.c" "$d/rmsnorm.c" # the starter gives the answer away
d=$(copy 903)
sed -i "s/^number: 903$/number: 930/" "$d/problem.md"
d=$(copy 904)
sed -i 's/{"worked_example", /{"hand_example", /' "$d/tests/check.c" "$d/tests/run.c"
d=$(copy 905)
printf 'Changes nothing.\nfails: worked_example\n' >"$d/.solution/wrong/not_wrong.diff"
d=$(copy 906)
printf '## 提示 1：only one\n\nOne tier is not enough for anybody.\n' >"$d/hints.md"
d=$(copy 907)
sed -i 's/(1.0f + w\[i\])/w[i]/' "$d/.solution/rmsnorm.c" # the reference is wrong
d=$(copy 908)
awk 'BEGIN { n = 0 } /^---$/ { n++; if (n == 3) next } { print }' "$d/problem.md" >"$d/p" && mv "$d/p" "$d/problem.md"
d=$(copy 909)
sed -i "s|^fails: zero_vector nearly_zero$|fails: in_place|" "$d/.solution/wrong/no_eps.diff"
d=$(copy 910)
sed -i 's/sum = 0; \/\* Σ x²/sum = 1; \/* Σ x²/' "$d/.solution/wrong/no_eps.diff" # no longer the solution's line
d=$(copy 911)
sed -i '$d' "$d/.solution/wrong/no_eps.diff" # the last line of its hunk cut off
d=$(copy 912)
printf '+    /* one line more than its @@ counts */\n' >>"$d/.solution/wrong/no_eps.diff"
d=$(copy 913) # unbroken, with a problem.md saved with CRLF line ends
sed -i 's/$/\r/' "$d/problem.md"
PRACTICE_DIR="$p" PRACTICE_WORKSPACE="$tmp/ws" "$demo" --color=never check 901 902 903 904 905 906 907 908 909 910 911 912 913 \
    >"$out" 2>"$err"
rc=$?
[ $rc -eq 1 ] && ok "broken exercises: check exits 1" || fail "broken exercises: exit status $rc"
# reason NUMBER TEXT: exercise NUMBER has a ✗ and TEXT among its problems
reason() {
    awk -v n="$1" '/^  (✓|✗) [0-9][0-9][0-9] / { on = ($1 == "✗" && $2 == n) } on' "$out" | grep -qF -- "$2" &&
        ok "check catches $1: $2" || fail "check misses $1: $2"
}
grep -q "^  ✓ 901 " "$out" && ok "check passes an unbroken copy" || fail "check fails an unbroken copy"
grep -q "^  ✓ 913 " "$out" && ok "check passes a problem.md with CRLF line ends" ||
    fail "check fails a problem.md with CRLF line ends"
reason 902 "没动过的起始代码居然通过了"
reason 903 "number 930 和文件夹的编号不一样"
reason 904 "第一个用例应该是 worked_example"
reason 905 "典型错误 not_wrong.diff 通过了本该抓住它的用例 worked_example"
reason 906 "hints.md 要有两到三条提示"
reason 907 "参考答案没有通过"
reason 908 "没有分开中文和英文的 --- 行"
reason 909 "典型错误 no_eps.diff 通过了本该抓住它的用例 in_place"
reason 910 "典型错误 no_eps.diff 对不上参考答案：第 11 行和参考答案的第 10 行不一样"
reason 911 "典型错误 no_eps.diff 对不上参考答案：第 6 行的 @@ 之后少了几行"
reason 912 "典型错误 no_eps.diff 对不上参考答案：第 21 行超出了它的 @@ 算的行数"
# 904 has no worked_example at all: its starter is not run, so it cannot be said to pass
awk '/^  (✓|✗) [0-9][0-9][0-9] / { on = ($2 == 904) } on' "$out" | grep -q "居然通过了" &&
    fail "check says 904's starter passed: it has no worked example to run" ||
    ok "check does not claim a starter passed a worked example it lacks"
finish
