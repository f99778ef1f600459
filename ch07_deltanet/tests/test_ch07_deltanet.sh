#!/bin/sh
# ch07_deltanet prints the book's lines (tests/data/ch07_deltanet_book_output.txt,
# copied from the book's 输出 block after ch07_deltanet.py):
#   - on a checkpoint with the real 0.8B shapes (all-zero weights, a sparse file that
#     takes no disk space): every line that depends only on shapes and on PyTorch's
#     random stream equals the book's, character for character; the timings are
#     masked; the two weight lines are checked against what zero weights must give
#     by hand (A_log = 0: exp = 1; a = b = 0: e^g = e^−softplus(0) = 1/2, β = 1/2);
#   - on the tiny checkpoint, with --ids, without any ids (the reference script's),
#     with a tokenizer file, and with a tokenizer.json in the model folder (token
#     counts cross-checked with ch02_embedding --encode);
#   - the figures, with and without gnuplot; --help; and bad input of every kind:
#     one error line, a non-zero exit, never a crash.
set -u
root=$(pwd)
bin="$root/${BINDIR:-}ch07_deltanet/ch07_deltanet"
synth="$root/${BINDIR:-}ch01_weights/make_synthetic"
encoder="$root/${BINDIR:-}ch02_embedding/ch02_embedding"
book="$root/ch07_deltanet/tests/data/ch07_deltanet_book_output.txt"
tiny="${TINY:-${BUILD:-build}/tiny}"
case "$tiny" in /*) ;; *) tiny="$root/$tiny" ;; esac
tiny_tok="$root/ch02_embedding/tests/data/tiny_tokenizer.json"
[ -x "$bin" ] || { echo "FAIL: $bin not built"; exit 1; }
[ -f "$tiny/config.json" ] || { echo "FAIL: no tiny checkpoint in $tiny (make test writes it)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failed=0

ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; failed=1; }
line() { sed -n "${1}p" "$2"; }
# same_line NAME N FILE: line N of FILE is line N of the book
same_line() {
    if [ "$(line "$2" "$3")" = "$(line "$2" "$book")" ]; then ok "$1: line $2 is the book's"
    else bad "$1: line $2 differs from the book's"; echo "     got:  $(line "$2" "$3")"; echo "     book: $(line "$2" "$book")"; fi
}
# matches NAME N FILE REGEX
matches() {
    if line "$2" "$3" | grep -Eq "$4"; then ok "$1: line $2 reads as expected"
    else bad "$1: line $2 is '$(line "$2" "$3")', expected /$4/"; fi
}
# The six lines of the rewrite experiment (book lines 7-12), on any checkpoint.
six_lines() {
    for n in 7 8 9 10 11 12; do same_line "$1" $n "$2"; done
}
clean_stderr() { # no sanitizer report, no crash message
    if grep -Eq 'AddressSanitizer|runtime error|LeakSanitizer|Segmentation' "$2"; then bad "$1: sanitizer report"; cat "$2"; fi
}

# 1. The real shapes: a full-size checkpoint of zeros, the book's 6-token count
#    (ids 1..6, joined with id 7: 6 × 20 + 19 = 139 tokens, the book's long count).
if "$synth" --size full --zeros --out full > /dev/null 2>&1; then
    "$bin" --model full --ids 1,2,3,4,5,6 --sep 7 --plot=none > out.txt 2> err.txt; rc=$?
    [ $rc -eq 0 ] && ok "full shapes: exits 0" || { bad "full shapes: exit status $rc"; cat err.txt; }
    [ "$(wc -l < out.txt)" -eq 12 ] && ok "full shapes: 12 lines, as the book" || bad "full shapes: $(wc -l < out.txt) lines"
    same_line "full shapes" 1 out.txt
    matches "full shapes (A_log = 0)" 2 out.txt '^每个头固定的遗忘速度 exp\(A_log\)：最小 1\.00，最大 1\.00（越大忘得越快）$'
    for n in 3 4; do
        # the same as the book's line with the time masked (the time depends on the machine)
        got=$(line $n out.txt | sed 's/，[0-9]* ms$/，N ms/'); want=$(line $n "$book" | sed 's/，[0-9]* ms$/，N ms/')
        [ "$got" = "$want" ] && ok "full shapes: line $n is the book's but for the time" \
            || bad "full shapes: line $n is '$(line $n out.txt)', book '$(line $n "$book")'"
    done
    same_line "full shapes" 5 out.txt
    matches "full shapes (zero weights: e^-softplus(0) = 1/2, sigmoid(0) = 1/2)" 6 out.txt \
        '^第 0 层对这 6 个 token：衰减 exp\(g\) 的范围 \[0\.50, 0\.50\]，β 的范围 \[0\.50, 0\.50\]$'
    six_lines "full shapes" out.txt
    clean_stderr "full shapes" err.txt
    rm -rf full
else
    bad "could not write the full-size zero checkpoint with $synth"
fi

# 2. The tiny checkpoint with --ids (the reference's 7 ids; joined with 5: 159 tokens).
"$bin" --model "$tiny" --ids 3,141,592,7,1000,59,288 --sep 5 --plot=none > out.txt 2> err.txt; rc=$?
[ $rc -eq 0 ] && ok "tiny --ids: exits 0" || { bad "tiny --ids: exit status $rc"; cat err.txt; }
matches "tiny --ids" 3 out.txt '^    7 个 token：输出 \(1, 7, 64\)，[0-9]+ ms$'
matches "tiny --ids" 4 out.txt '^  159 个 token：输出 \(1, 159, 64\)，[0-9]+ ms$'
matches "tiny --ids" 5 out.txt '^记忆表：每个头 \[16, 16\]，4 个头共 0\.0 MB，和 token 数无关；全注意力的 KV cache 每个 token 要加 0 KB$'
matches "tiny --ids" 6 out.txt '^第 0 层对这 7 个 token：衰减 exp\(g\) 的范围 \[[01]\.[0-9][0-9], [01]\.[0-9][0-9]\]，β 的范围 \[[01]\.[0-9][0-9], [01]\.[0-9][0-9]\]$'
six_lines "tiny --ids" out.txt
grep -q '长文本是 --ids 重复 20 遍，中间用 --sep 的 id 连起来' err.txt && ok "tiny --ids: stderr says how the long text was made" || bad "tiny --ids: no notice"
"$bin" --model "$tiny" --ids 3,141,592 --plot=none > out2.txt 2> err2.txt
matches "tiny --ids without --sep" 4 out2.txt '^   60 个 token：输出 \(1, 60, 64\)，[0-9]+ ms$'
grep -q '中间不加「。」' err2.txt && ok "without --sep: stderr says the copies are not joined" || bad "without --sep: no notice"

# 2b. Neither --ids nor a tokenizer (the tiny checkpoint has none): the reference
#     script's 7 ids, as every chapter's demo does, with a notice; 20 copies of them.
"$bin" --model "$tiny" --plot=none > out.txt 2> err.txt; rc=$?
[ $rc -eq 0 ] && ok "no tokenizer, no --ids: exits 0" || { bad "no tokenizer, no --ids: exit status $rc"; cat err.txt; }
grep -q '参考脚本的 7 个 token id' err.txt && ok "no tokenizer, no --ids: stderr says the reference ids are used" \
    || { bad "no tokenizer, no --ids: no notice"; cat err.txt; }
grep -q '长文本是这 7 个 id 重复 20 遍' err.txt && ok "no tokenizer, no --ids: stderr says how the long text was made" \
    || { bad "no tokenizer, no --ids: no notice about the long text"; cat err.txt; }
matches "reference ids" 3 out.txt '^    7 个 token：输出 \(1, 7, 64\)，[0-9]+ ms$'
matches "reference ids" 4 out.txt '^  140 个 token：输出 \(1, 140, 64\)，[0-9]+ ms$'
six_lines "reference ids" out.txt

# 3. Tokenizing: --tokenizer FILE, and tokenizer.json in the model folder. The counts
#    are those of ch02_embedding --encode on the same texts.
if [ -f "$tiny_tok" ]; then
    sentence="今天天气不错，我们去公园"
    long="$sentence"; i=1; while [ $i -lt 20 ]; do long="$long。$sentence"; i=$((i + 1)); done
    count() { "$encoder" --tokenizer "$tiny_tok" --encode "$1" | tr ',' '\n' | grep -c '[0-9]'; }
    n_short=$(count "$sentence"); n_long=$(count "$long")
    "$bin" --model "$tiny" --tokenizer "$tiny_tok" --plot=none > out.txt 2> err.txt; rc=$?
    [ $rc -eq 0 ] && ok "--tokenizer: exits 0" || { bad "--tokenizer: exit status $rc"; cat err.txt; }
    matches "--tokenizer ($n_short tokens, as ch02 encodes it)" 3 out.txt "^ *$n_short 个 token：输出 \\(1, $n_short, 64\\)"
    matches "--tokenizer ($n_long tokens, as ch02 encodes it)" 4 out.txt "^ *$n_long 个 token：输出 \\(1, $n_long, 64\\)"
    matches "--tokenizer" 6 out.txt "^第 0 层对这 $n_short 个 token："
    six_lines "--tokenizer" out.txt
    mkdir withtok && cp "$tiny"/*.json "$tiny"/*.safetensors withtok/ && cp "$tiny_tok" withtok/tokenizer.json
    "$bin" --model withtok --plot=none > out3.txt 2> err3.txt; rc=$?
    [ $rc -eq 0 ] && ok "tokenizer.json in the model folder: exits 0" || { bad "model's tokenizer: exit $rc"; cat err3.txt; }
    [ "$(sed 's/，[0-9]* ms$//' out3.txt)" = "$(sed 's/，[0-9]* ms$//' out.txt)" ] \
        && ok "the model folder's tokenizer.json gives the same lines as --tokenizer" || bad "model's tokenizer differs"
else
    bad "no tiny tokenizer at $tiny_tok"
fi

# 4. Figures: two PNGs (with gnuplot), a notice without it; stdout unchanged.
if command -v gnuplot > /dev/null 2>&1; then
    "$bin" --model "$tiny" --ids 3,141,592,7 > out.txt 2> err.txt; rc=$?
    [ $rc -eq 0 ] && ok "--plot=png: exits 0" || bad "--plot=png: exit status $rc"
    for f in ch07_deltanet_time ch07_deltanet_memory; do
        if [ "$(head -c 8 "plots/$f.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
            ok "plots/$f.png is a PNG"
        else bad "plots/$f.png missing or not a PNG"; fi
        grep -q "图已保存到 plots/$f.png" err.txt && ok "stderr names plots/$f.png" || bad "no notice for $f.png"
    done
    [ "$(wc -l < out.txt)" -eq 12 ] && ok "--plot=png: stdout is still the 12 lines" || bad "--plot=png changed stdout"
    # the memory figure's data: the DeltaNet state is flat, the KV cache grows
    awk 'NF == 2 && $1 == 1024 { print $2 }' plots/ch07_deltanet_memory.dat > kv.txt
    [ "$(sed -n 2p kv.txt)" = "$(awk 'BEGIN { print 1024 * 2 * 2 * 32 * 4 / 1048576 }')" ] \
        && ok "memory figure: the KV cache at 1024 tokens is 1024 × 2 × heads × head_dim × 4 bytes" \
        || bad "memory figure: KV cache at 1024 tokens is '$(sed -n 2p kv.txt)'"
fi
mkdir nognuplot && cd nognuplot || exit 1
PATH=/nonexistent "$bin" --model "$tiny" --ids 3,141 > out.txt 2> err.txt; rc=$?
[ $rc -eq 0 ] && ok "without gnuplot: exits 0" || bad "without gnuplot: exit status $rc"
[ "$(grep -c '没有找到 gnuplot，跳过了 plots/ch07_deltanet_.*png' err.txt)" -eq 2 ] \
    && ok "without gnuplot: stderr says both plots were skipped" || { bad "without gnuplot: no skip notices"; cat err.txt; }
six_lines "without gnuplot" out.txt
cd .. || exit 1

# 5. --help
"$bin" --help > help.txt 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q '^usage: ' help.txt && grep -q -- '--ids' help.txt && ok "--help: usage, exit 0" || bad "--help"

# 6. Bad input: one line on stderr that names the problem, non-zero exit, no crash.
mkdir cut && cp "$tiny"/*.json cut/ && head -c 5000 "$tiny"/model.safetensors-00001-of-00001.safetensors \
    > cut/model.safetensors-00001-of-00001.safetensors
refuses() { # NAME PATTERN ARGS...: exit non-zero, exactly one stderr line matching PATTERN
    name=$1 pattern=$2; shift 2
    "$bin" "$@" > /dev/null 2> err.txt; rc=$?
    if [ $rc -ne 0 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -Eq -- "$pattern" err.txt; then
        ok "$name refused ($(cat err.txt))"
    else bad "$name: exit $rc, stderr:"; cat err.txt; fi
    clean_stderr "$name" err.txt
}
refuses "unknown flag" "unknown option '--frobnicate'" --frobnicate
refuses "flag without a value" "--ids needs a value" --model "$tiny" --ids
refuses "ids that are not numbers" "--ids: .*'1,x'" --model "$tiny" --ids 1,x
refuses "empty id list" "--ids: expected a token id" --model "$tiny" --ids ''
refuses "id outside the vocabulary" "id 5000 is outside the vocabulary \\(0 \\.\\. 1023\\)" --model "$tiny" --ids 1,5000 --plot=none
refuses "bad --sep" "--sep needs one token id" --model "$tiny" --ids 1 --sep x
refuses "--sep without --ids" "--sep goes with --ids" --model "$tiny" --sep 5
refuses "--ids with --tokenizer" "one at a time" --model "$tiny" --ids 1 --tokenizer "$tiny_tok"
refuses "bad --plot" "--plot is png, ascii or none" --plot=svg
refuses "missing model folder" "nowhere" --model "$tmp/nowhere"
refuses "missing tokenizer file" "none.json" --model "$tiny" --tokenizer "$tmp/none.json"
refuses "truncated shard" "model.safetensors-00001-of-00001.safetensors" --model cut --ids 1
"$bin" --model "$tiny" --ids 1,2 --plot=none --dump "$tmp/no/such/dir/x.safetensors" > out.txt 2> err.txt; rc=$?
[ $rc -ne 0 ] && grep -q "no/such/dir/x.safetensors" err.txt && ok "unwritable --dump refused ($(tail -1 err.txt))" \
    || { bad "unwritable --dump: exit $rc"; cat err.txt; }

exit $failed
