#!/bin/sh
# ch03_norm's command line: --help, bad flags, a missing model, bad --ids, and a run on
# the tiny checkpoint whose weight-independent lines are checked against hand values.
set -u
demo="${BINDIR:-}ch03_norm/ch03_norm"
. mk/testlib.sh
dump="$tmp/dump"

expect_help '^usage: .*--model DIR'

expect_error "unknown flag" "unknown option '--frobnicate'" --frobnicate
expect_error "--model without a value" "--model needs a value" --model
expect_error "missing model folder" "/nonexistent/model" --model /nonexistent/model
expect_error "id outside the vocabulary" "token id 1024 is outside the vocabulary (0 .. 1023)" --model "$tiny" --ids 1,1024
expect_error "id that is not a number" "expected a token id at 'x'" --model "$tiny" --ids 1,x
expect_error "empty --ids" "no token ids" --model "$tiny" --ids "[]"

# A run on the tiny checkpoint (hidden size 64) with the reference's ids.
"$demo" --model "$tiny" --dump "$dump" >"$out" 2>"$err" || fail "run on $tiny exits non-zero"
grep -q '参考脚本的 7 个 token \[3, 141, 592, 7, 1000, 59, 288\]，查词向量得到形状 (7, 64)' "$out" || fail "first line"
grep -q 'tokenizer.json' "$err" || fail "no notice that the ids are not the tokenizer's"
# dividing by the RMS leaves every token at RMS 1
[ "$(grep -c '除以 RMS 之后 1.0000，' "$out")" -eq 7 ] || fail "not every token has RMS 1 after the division"
# hand values: x = (2, -4, 4, -8) has RMS 5 and x / 5 = (0.4, -0.8, 0.8, -1.6);
# silu(-4) = -0.0719, silu(-1) = -0.2689, silu(4) = 3.9281; (3, 4) / 5 = (0.6, 0.8)
grep -q '除以 RMS（5.0）后 \[0.4, -0.8, 0.8, -1.6\]' "$out" || fail "RMSNorm of the small example"
grep -q 'silu(z) = \[-0.072, -0.269, 0.0, 3.928\]' "$out" || fail "silu of the small example"
grep -q '\[3.0, 4.0\] → \[0.6, 0.8\]，长度 1.0000' "$out" || fail "l2norm of (3, 4)"
grep -q '\[0.0, 0.0\] → \[0.0, 0.0\]，长度 0.0000' "$out" || fail "l2norm of zeros"
grep -q 'RMSNorm（w = 0）之后长度 2.0000 = sqrt(4)，l2norm 之后长度 1.0000' "$out" || fail "RMSNorm vs l2norm length"
for name in '"ids"' '"embed"' '"layer.0.input_norm"' '"gated_example.out"' '"l2norm_example.out"'; do
    head -c 4096 "$dump" | grep -q "$name" || fail "--dump has no $name"
done
passed "run on the tiny checkpoint, --dump"

# --ids gives the same numbers as the reference ids they name (all but the first line)
"$demo" --model "$tiny" --ids 3,141,592,7,1000,59,288 >"$dump" 2>/dev/null || fail "--ids run"
sed 1d "$out" >"$err"
sed 1d "$dump" | cmp -s - "$err" || fail "--ids with the same ids prints different numbers"
grep -q '^第 0 层的输入：--ids 给的 7 个 token' "$dump" || fail "--ids first line"
passed "--ids"

# With a tokenizer.json in the folder the book's sentence is tokenized. The test
# tokenizer (ch02_embedding/tests/data) has no merges for these characters, so the
# ids are the sentence's 36 UTF-8 bytes: 今 = E4 BB 8A = 228, 187, 138, ...
withtok=$(mktemp -d)
trap 'rm -f "$out" "$err" "$dump"; rm -rf "$withtok"' EXIT
"${BINDIR:-}ch01_weights/make_synthetic" --size tiny --tokenizer ch02_embedding/tests/data/tiny_tokenizer.json \
    --out "$withtok" >/dev/null 2>&1 || fail "make_synthetic with a tokenizer"
"$demo" --model "$withtok" >"$out" 2>"$err" || fail "run with a tokenizer"
grep -q '^第 0 层的输入：「今天天气不错，我们去公园」的 36 个 token \[228, 187, 138, 229, 164, 169, 229, 164, 169, 230,' "$out" \
    || fail "the sentence is not tokenized"
! grep -q "tokenizer.json" "$err" || fail "a notice on stderr although the tokenizer is there"
[ "$(grep -c "make_synthetic 写的，权重是随机数" "$err")" -eq 1 ] && [ "$(wc -l <"$err")" -eq 1 ] \
    || fail "the random weights are not said once (and only they)"
passed "the book's sentence through tokenizer.json"
finish
