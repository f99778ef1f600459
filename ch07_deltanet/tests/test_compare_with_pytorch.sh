#!/bin/sh
# reference/compare_with_pytorch.py, the way a reader uses it: the demos of chapters
# 3, 4, 6 and 7 write --dump files on the tiny checkpoint, and the script runs "the
# reader's" qwen/ package on the same ids and weights. Here that package is
# reference/book_api/ (the book's interface on top of the project's float64
# reference): every tensor must come out ok, with small differences. Then two
# broken copies of it, as a reader's first attempt might be (RMSNorm scaling by w
# instead of 1 + w; q_proj split as all queries, then all gates), must be reported
# at the tensor where they go wrong, and unusable input must exit 2.
#
# Needs Debian's python3-torch in /usr/bin/python3; without it the test is skipped
# (make test itself never needs Python). Run from the repository root by
# mk/run-tests.sh ($BUILD, $BINDIR, $TINY set).
set -u
py=/usr/bin/python3
if ! [ -x "$py" ] || ! "$py" -c "import torch" 2>/dev/null; then
    echo "SKIP: $py has no torch (Debian: apt-get install python3-torch); compare_with_pytorch.py is not tested"
    exit 77
fi
demo=
. mk/testlib.sh
script=reference/compare_with_pytorch.py
export PYTHONDONTWRITEBYTECODE=1 # no __pycache__ in the tree
bin="${BINDIR:-}"

# ---- the dumps -----------------------------------------------------------------------
"${bin}ch03_norm/ch03_norm" --model "$tiny" --dump "$tmp/ch03.st" >"$out" 2>"$err" || fail "ch03_norm --dump"
"${bin}ch04_mlp/ch04_mlp" --model "$tiny" --dump "$tmp/ch04.st" >"$out" 2>"$err" || fail "ch04_mlp --dump"
"${bin}ch06_attention/ch06_attention" --model "$tiny" --plot=none --dump "$tmp/ch06.st" >"$out" 2>"$err" \
    || fail "ch06_attention --dump"
"${bin}ch07_deltanet/ch07_deltanet" --model "$tiny" --plot=none --dump "$tmp/ch07.st" >"$out" 2>"$err" \
    || fail "ch07_deltanet --dump"
"${bin}ch07_deltanet/ch07_model" --model "$tiny" --ids 3,141,592,7,1000,59,288 -n 0 --dump "$tmp/model.st" \
    >"$out" 2>"$err" || fail "ch07_model --dump"
passed "five demos wrote their --dump files"
dumps="$tmp/ch03.st $tmp/ch04.st $tmp/ch06.st $tmp/ch07.st $tmp/model.st"

# compare BOOK_DIR [OPTIONS] DUMP...: the script's stdout in $out, its stderr in $err
compare() {
    book=$1
    shift
    "$py" "$script" --book "$book" --model "$tiny" "$@" >"$out" 2>"$err"
    rc=$?
}

# A line "  NAME  [shape] ... VERDICT" for each name, and the verdict each one has.
expect_lines() {
    verdict=$1
    shift
    for name in "$@"; do
        grep -qE "^  $name +\[[0-9, ]*\] .* $verdict( |\$)" "$out" || fail "no '$verdict' line for $name"
    done
}

# ---- the stand-in for the reader's code: everything ok ----------------------------------
compare reference/book_api --rtol 1e-4 $dumps
[ "$rc" -eq 0 ] || fail "the reference adapter: exit $rc, expected 0"
expect_lines ok embed layer.0.input_norm layer.0.input_norm.unscaled gated_example.out l2norm_example.out \
    mlp.x mlp.gate mlp.up mlp.act mlp.out \
    layer.3.input_norm layer.3.self_attn.q_raw layer.3.self_attn.q layer.3.self_attn.k layer.3.self_attn.v \
    layer.3.self_attn.gated layer.3.self_attn.out rope.cos rope.sin \
    layer.0.linear_attn.qkv layer.0.linear_attn.conv layer.0.linear_attn.q layer.0.linear_attn.k \
    layer.0.linear_attn.v layer.0.linear_attn.beta layer.0.linear_attn.g layer.0.linear_attn.core \
    layer.0.linear_attn.state layer.0.linear_attn.z layer.0.linear_attn.normed layer.0.linear_attn.out \
    long.layer.0.linear_attn.out layer.0 layer.1 layer.2 layer.3 final_norm logits
grep -q "DIFF" "$out" && fail "the reference adapter: a DIFF line"
[ "$(grep -c '^== ' "$out")" -eq 5 ] || fail "not five dumps reported"
grep -q "^7 tensors compared: 7 ok, 0 differ" "$out" || fail "no summary line for ch03 / ch07_model"
# the differences themselves: float32 C against float64 PyTorch, below 1e-4 everywhere
big=$(awk '/ abs / { for (i = 1; i < NF; i++) if ($i == "abs" && $(i + 1) + 0 >= 1e-4) print $1, $(i + 1) }' "$out")
[ -z "$big" ] || fail "differences of 1e-4 or more: $big"
grep -q "not compared (your code does not expose them): layer.3.self_attn.gate, layer.3.self_attn.probs" "$out" \
    || fail "the tensors it cannot get are not listed"
passed "reference/book_api against five dumps: every tensor ok, every difference < 1e-4"

compare reference/book_api --isolate "$tmp/model.st" "$tmp/ch07.st"
[ "$rc" -eq 0 ] || fail "--isolate: exit $rc"
grep -q "(each block on the C input)" "$out" || fail "--isolate does not say so"
expect_lines ok layer.0 layer.3 final_norm logits layer.0.linear_attn.out
passed "--isolate"

# ---- a reader's RMSNorm without the 1 + ---------------------------------------------------
cp -R reference/book_api "$tmp/no_one_plus"
sed -i 's/ref\.rms_norm(x, self\.weight, self\.eps)/ref.rms_norm(x, self.weight - 1.0, self.eps)/' \
    "$tmp/no_one_plus/qwen/norm.py"
grep -q "self.weight - 1.0" "$tmp/no_one_plus/qwen/norm.py" || fail "could not break norm.py (test out of date)"
rm -rf "$tmp/no_one_plus/qwen/__pycache__"
compare "$tmp/no_one_plus" "$tmp/ch03.st" "$tmp/model.st"
[ "$rc" -eq 1 ] || fail "RMSNorm without 1 +: exit $rc, expected 1"
expect_lines ok embed gated_example.out l2norm_example.out
expect_lines DIFF layer.0.input_norm layer.0 final_norm logits
grep -q "layer.0.input_norm .*DIFF  matches the demo's layer.0.input_norm.without_one_plus" "$out" \
    || fail "RMSNorm without 1 +: no hint"
grep -q "the first one that differs: layer.0.input_norm (start looking there)" "$out" \
    || fail "RMSNorm without 1 +: not named as the first difference"
passed "an RMSNorm that scales by w is reported at layer.0.input_norm"

# ---- a reader's q_proj split as [all queries | all gates] ---------------------------------
cp -R reference/book_api "$tmp/split"
sed -i 's/self\.q_proj(x)\.view(B, T, self\.n_heads, 2 \* d)/self.q_proj(x).view(B, T, 2, self.n_heads, d).transpose(2, 3).reshape(B, T, self.n_heads, 2 * d)/' \
    "$tmp/split/qwen/attention.py"
grep -q "view(B, T, 2, self.n_heads, d)" "$tmp/split/qwen/attention.py" || fail "could not break attention.py"
rm -rf "$tmp/split/qwen/__pycache__"
compare "$tmp/split" "$tmp/ch06.st"
[ "$rc" -eq 1 ] || fail "q/gate split: exit $rc, expected 1"
expect_lines ok layer.3.input_norm layer.3.self_attn.k layer.3.self_attn.v
expect_lines DIFF layer.3.self_attn.q_raw layer.3.self_attn.out
grep -q "the first one that differs: layer.3.self_attn.q_raw" "$out" || fail "q/gate split: not found at q_raw"
passed "a query/gate split across heads is reported at q_raw"

# ---- input it cannot use ---------------------------------------------------------------------
compare "$tmp/nowhere" "$tmp/ch03.st"
{ [ "$rc" -eq 2 ] && grep -q "no qwen/ package" "$err"; } || fail "--book without qwen/: exit $rc"
compare reference/book_api mk/testlib.sh
{ [ "$rc" -eq 2 ] && grep -q "not a safetensors file" "$err"; } || fail "a file that is no dump: exit $rc"
passed "unusable input: exit 2 and one line"

finish
