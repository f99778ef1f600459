#!/bin/sh
# ch06_attention's command line: --help, every kind of bad input (one clear line
# on stderr and exit status 1, never a crash), and a good run on the tiny
# checkpoint with --ids, --plot=none and --dump.
set -u
demo="${BINDIR:-}ch06_attention/ch06_attention"
. mk/testlib.sh
expect_help '^usage:'

expect_error "unknown flag" "unknown option '--bogus'" --model "$tiny" --bogus
expect_error "flag without its value" "--ids needs a value" --model "$tiny" --ids
expect_error "bad --plot" "--plot is png, ascii or none" --model "$tiny" --plot=svg
expect_error "no such model folder" "--model $tmp/nowhere" --model "$tmp/nowhere" --ids 1,2
expect_error "ids not numbers" "--ids: expected a token id at 'x,3'" --model "$tiny" --ids 1,x,3
expect_error "ids with a trailing comma" "expected a token id" --model "$tiny" --ids 1,2,
expect_error "negative id" "token id -2 is outside the vocabulary" --model "$tiny" --ids 1,-2
expect_error "empty ids" "expected a token id" --model "$tiny" --ids ""
expect_error "id beyond the vocabulary" "token id 1024 is outside the vocabulary (0 .. 1023)" --model "$tiny" --ids 5,1024
expect_error "id too long for a number" "--ids: expected a token id at '99999999999999999999'" --model "$tiny" \
    --ids 99999999999999999999

# A folder whose config.json is broken.
mkdir -p "$tmp/broken" && cp "$tiny"/* "$tmp/broken/" && printf '{"text_config": ' >"$tmp/broken/config.json"
expect_error "broken config.json" "config.json" --model "$tmp/broken" --ids 1,2

# A dump that cannot be written: exit 1 and one line naming the file (the book's
# lines are already on stdout by then, which is fine).
"$demo" --model "$tiny" --ids 1,2 --plot=none --dump "$tmp/no/such/dir/d.safetensors" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "$tmp/no/such/dir/d.safetensors" "$tmp/err"; then
    echo "ok   unwritable --dump: $(cat "$tmp/err")"
else
    fail "unwritable --dump: exit $rc, stderr: $(cat "$tmp/err")"
fi

# No tokenizer.json and no --ids: the reference script's ids, with a notice on stderr.
if "$demo" --model "$tiny" --plot=none >"$tmp/out" 2>"$tmp/err" &&
    grep -q "^输入：参考脚本的 7 个 token \[3, 141, 592, 7, 1000, 59, 288\]" "$tmp/out" &&
    grep -q "没有 tokenizer.json" "$tmp/err"; then
    echo "ok   no tokenizer: the reference ids"
else
    fail "no tokenizer: $(head -c 300 "$tmp/out") / $(cat "$tmp/err")"
fi

# With a tokenizer.json (the small test tokenizer of chapter 2, byte-level pieces
# only): the book's sentence is encoded, and a token that is part of a character
# is labelled by its bytes.
mkdir -p "$tmp/with_tok" && cp "$tiny"/* "$tmp/with_tok/" &&
    cp ch02_embedding/tests/data/tiny_tokenizer.json "$tmp/with_tok/tokenizer.json"
if "$demo" --model "$tmp/with_tok" --plot=none >"$tmp/out" 2>"$tmp/err" &&
    grep -q "^输入：「今天天气不错，我们去公园」的 [0-9]* 个 token \[228, 187, 138, " "$tmp/out" &&
    grep -q "：<e4> | <bb> | <8a> | " "$tmp/out"; then
    echo "ok   with a tokenizer: the sentence, byte pieces labelled by their bytes"
else
    fail "with a tokenizer: $(head -c 400 "$tmp/out") / $(cat "$tmp/err")"
fi

# The figure, drawn from inside the scratch folder so that plots/ lands there.
root=$PWD
case "$demo" in /*) demo_abs=$demo ;; *) demo_abs=$root/$demo ;; esac
case "$tiny" in /*) tiny_abs=$tiny ;; *) tiny_abs=$root/$tiny ;; esac
mkdir -p "$tmp/run" &&
    (cd "$tmp/run" && "$demo_abs" --model "$tiny_abs" --ids 3,141,592 --plot=ascii >out 2>err)
rc=$?
if [ $rc -ne 0 ]; then
    fail "--plot=ascii run (exit $rc)"
elif ! grep -q "#592 |" "$tmp/run/err"; then
    fail "--plot=ascii: no terminal heatmap on stderr"
elif command -v gnuplot >/dev/null 2>&1 && [ ! -s "$tmp/run/plots/ch06_attention.png" ]; then
    fail "--plot=ascii: no plots/ch06_attention.png although gnuplot is installed"
elif grep -q "#592 |" "$tmp/run/out"; then
    fail "--plot=ascii: the drawing went to stdout (stdout is the book's lines only)"
else
    echo "ok   --plot=ascii: heatmap on stderr, $(ls "$tmp/run/plots" | tr '\n' ' ')"
fi

# A good run: the golden's ids, no plot, a dump.
ids=3,141,592,7,1000,59,288
if "$demo" --model "$tiny" --ids $ids --plot=none --dump "$tmp/dump.safetensors" >"$tmp/out" 2>"$tmp/err"; then
    echo "ok   run on the tiny checkpoint"
else
    fail "run on the tiny checkpoint (exit $?)"
    cat "$tmp/err"
fi
# The cache check must report an exact match, and the GQA line the tiny grouping.
grep -q "和整段一起算的输出最大差 0$" "$tmp/out" || fail "decode check line missing or not exact: $(grep 逐 "$tmp/out")"
grep -q "头 0–1 读 KV 头 0，头 2–3 读 KV 头 1" "$tmp/out" || fail "GQA line: $(grep GQA "$tmp/out")"
grep -q "^  头 3（KV 头 1）：" "$tmp/out" || fail "no weights line for head 3"
# Every dumped tensor is named in the file's JSON header.
for name in ids embed layer.3.input_norm layer.3.self_attn.q_raw layer.3.self_attn.gate layer.3.self_attn.q \
    layer.3.self_attn.k layer.3.self_attn.v layer.3.self_attn.probs layer.3.self_attn.attn \
    layer.3.self_attn.gated layer.3.self_attn.out rope.cos rope.sin; do
    head -c 4096 "$tmp/dump.safetensors" | grep -aq "\"$name\":{\"dtype\":\"F32\"" || fail "dump lacks $name"
done
head -c 4096 "$tmp/dump.safetensors" | grep -aq '"layer.3.self_attn.probs":{"dtype":"F32","shape":\[4,7,7\]' ||
    fail "probs is not [4, 7, 7] in the dump"

finish
