#!/bin/sh
# ch04_mlp's command line: --help, bad flags, a missing model, bad --ids, and a run on
# the tiny checkpoint whose shape lines are checked against the tiny config
# (hidden 64, intermediate 128: 3 × 64 × 128 = 24,576 parameters).
set -u
demo="${BINDIR:-}ch04_mlp/ch04_mlp"
. mk/testlib.sh
dump="$tmp/dump"

expect_help '^usage: .*--model DIR'

expect_error "unknown flag" "unknown option '-x'" -x
expect_error "--dump without a value" "--dump needs a value" --model "$tiny" --dump
expect_error "missing model folder" "/nonexistent/model" --model /nonexistent/model
expect_error "id outside the vocabulary" "token id 99999 is outside the vocabulary" --model "$tiny" --ids 99999

"$demo" --model "$tiny" --dump "$dump" >"$out" 2>"$err" || fail "run on $tiny exits non-zero"
grep -q 'gate_proj \[128, 64\]、up_proj \[128, 64\]、down_proj \[64, 128\]：64 → 128 → 64，中间宽 2.0 倍' "$out" \
    || fail "shape line"
grep -q '参数 0.0M（24,576 个，没有偏置）' "$out" || fail "parameter count"
grep -q '形状 (7, 64)$' "$out" || fail "input shape"
grep -q 'silu(gate) = gate · sigmoid(gate)：896 个 gate 里' "$out" || fail "gate count (7 × 128 = 896)"
for name in '"ids"' '"mlp.x"' '"mlp.gate"' '"mlp.up"' '"mlp.act"' '"mlp.out"'; do
    head -c 4096 "$dump" | grep -q "$name" || fail "--dump has no $name"
done
passed "run on the tiny checkpoint, --dump"
finish
