#!/bin/sh
# ch05_rope's command line: --help, bad flags and plot modes, a missing model, and a
# run on the tiny checkpoint (head_dim 32, partial_rotary_factor 0.25, theta 1e7,
# 4096 positions) whose lines are checked against values worked by hand:
#   8 of 32 dims rotate, 4 pairs (i, i + 4), inv_freq[i] = 1e7^(-2i/8):
#   i = 0: 1        wavelength 2π = 6.28
#   i = 1: 0.0178   wavelength 2π · 1e7^(1/4) = 353
#   i = 2: 0.000316 wavelength 2π · 1e7^(1/2) = 1.99e+04
#   i = 3: 5.62e-06 wavelength 2π · 1e7^(3/4) = 1.12e+06   (two pairs longer than 4096)
set -u
demo="${BINDIR:-}ch05_rope/ch05_rope"
. mk/testlib.sh
dump="$tmp/dump"
work="$tmp/work" && mkdir "$work"

expect_help '^usage: .*--plot=png|ascii|none'

expect_error "unknown flag" "unknown option '--theta'" --theta 5
expect_error "bad plot mode" "--plot is png, ascii or none, got 'svg'" --plot=svg
expect_error "missing model folder" "/nonexistent/model" --model /nonexistent/model --plot=none
expect_error "bad --ids" "expected a token id" --model "$tiny" --ids 1,,2 --plot=none

"$demo" --model "$tiny" --plot=none --dump "$dump" >"$out" 2>"$err" || fail "run on $tiny exits non-zero"
grep -q '^RoPE 只转每个头的一部分：head_dim 32 × partial_rotary_factor 0.25 = 前 8 维转，后 24 维原样不动$' "$out" \
    || fail "which dims rotate"
grep -q '第 i 维和第 i + 4 维是一对' "$out" || fail "rotate-half pairing"
grep -q '^  第  0 对 1         波长 6.28         第  2 对 0.000316  波长 1.99e+04$' "$out" || fail "pairs 0 and 2"
grep -q '^  第  1 对 0.0178    波长 353          第  3 对 5.62e-06  波长 1.12e+06$' "$out" || fail "pairs 1 and 3"
grep -q '波长超过上下文长度 4096 的有 2 对' "$out" || fail "pairs longer than the context"
grep -q '表的形状 (7, 4)，4 个 query 头和 2 个 key 头共用这一张' "$out" || fail "table shape"
# the same distance prints the same score, wherever the pair sits
for dist in 1 5 100; do
    n=$(grep "（距离 $dist）：" "$out" | sed 's/.*）：//' | sort -u | wc -l)
    [ "$n" -eq 1 ] || fail "distance $dist gives $n different scores"
done
[ "$(grep -c '（距离 1）：' "$out")" -eq 4 ] || fail "four placements at distance 1"
# and different distances differ
[ "$(grep '（距离 [0-9]*）：' "$out" | sed 's/.*）：//' | sort -u | wc -l)" -eq 3 ] || fail "three distinct scores"
grep -q '最大相差 [0-9.]*e-0[6-9]，' "$out" || fail "the spread of same-distance scores is not at rounding level"
for name in '"rope.inv_freq"' '"rope.wavelength"' '"rope.cos"' '"rope.sin"' '"rope_check.score"'; do
    head -c 4096 "$dump" | grep -q "$name" || fail "--dump has no $name"
done
[ ! -e plots/ch05_wavelength.png ] || [ plots/ch05_wavelength.png -ot "$dump" ] || fail "--plot=none wrote a plot"
passed "run on the tiny checkpoint, --dump"

# Figures: written under plots/ of the folder the demo runs in; drawn on stderr with ascii.
abs_demo=$(cd "$(dirname "$demo")" && pwd)/$(basename "$demo")
abs_tiny=$(cd "$tiny" && pwd)
(cd "$work" && "$abs_demo" --model "$abs_tiny" --plot=ascii >"$out" 2>"$err") || fail "--plot=ascii run"
if command -v gnuplot >/dev/null 2>&1; then
    [ -s "$work/plots/ch05_wavelength.png" ] && [ -s "$work/plots/ch05_rotation.png" ] || fail "no PNGs written"
    grep -q '第 i 对（第 i 维和第 i + 4 维）' "$err" || fail "no terminal drawing on stderr"
    grep -q '图已保存到 plots/ch05_wavelength.png' "$err" && grep -q '图已保存到 plots/ch05_rotation.png' "$err" ||
        fail "no notice naming each PNG"
    echo "ok   --plot=ascii: two PNGs and terminal drawings"
else
    grep -q '没有找到 gnuplot，跳过了' "$err" || fail "no notice that the plots were skipped"
    echo "ok   --plot=ascii without gnuplot: skipped with a notice"
fi
grep -q '^RoPE 只转' "$out" || fail "stdout changed by --plot=ascii"
finish
