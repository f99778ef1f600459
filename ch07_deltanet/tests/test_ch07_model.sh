#!/bin/sh
# ch07_model's walkthrough (no prompt):
#   - on a checkpoint with the real 0.8B shapes (all-zero weights, a sparse file that
#     takes no disk space): the layer pattern, the parameter count and the memory
#     ledger depend only on config.json, so they are checked character for character
#     against values worked out by hand below;
#   - on the tiny checkpoint: the three ways of reading the sentence give the same
#     logits (max difference 0), the ledger of the tiny config by hand, and a greedy
#     continuation;
#   - --help, the incremental text output with a tokenizer, and the summary line.
demo="${BINDIR:-}ch07_deltanet/ch07_model"
synth="${BINDIR:-}ch01_weights/make_synthetic"
. mk/testlib.sh
set -u

expect_help '^usage: .*--prompt TEXT'

# exact_line NAME PATTERN: a line of $out equals PATTERN (fixed string)
exact_line() {
    if grep -qxF -- "$2" "$out"; then ok "$1"; else fail "$1: no line '$2'"; fi
}

# 1. The real shapes. By hand, from the 0.8B config:
#   embedding 248320 × 1024 = 254,279,680 = 254.3M; a DeltaNet layer 10,543,264 =
#   6144·1024 (qkv) + 2048·1024 (z) + 2·16·1024 (a, b) + 6144·4 (conv) + 16 + 16 + 128
#   + 1024·2048 (out) = 10.54M; an attention layer 4096·1024 + 2·512·1024 + 1024·2048
#   + 2·256 = 7,340,544 = 7.34M; an MLP 3·3584·1024 = 11,010,048 = 11.01M; norms
#   24·2·1024 + 1024 = 50,176 = 0.05M; total 752,393,024 = 752.4M (tied: the
#   embedding counted once); 2 bytes each except the 18 · (16 + 128) F32 values:
#   1,504,791,232 bytes = 1.50 GB, 3.01 GB in float32.
#   State: a KV row is 2 (K, V) × 2 heads × 256 × 4 bytes = 4096 B = 4 KB; a DeltaNet
#   layer 16 × 128 × 128 × 4 = 1 MB of tables + 3 × 6144 × 4 = 73,728 B = 72 KB of
#   conv history = 1,122,304 B = 1.07 MB, 18 layers 19.3 MB. At 100 tokens the 6 KV
#   caches hold 6·4096·100 = 2,457,600 B = 2.3 MB, in all 21.6 MB; 24 attention
#   layers would hold 9,830,400 B = 9.375 MB, printed 9.4. At 1000: 23.4375 → 23.4,
#   42.7, 93.75 → 93.8; at 3000: 70.3125 → 70.3, 89.6, 281.25 → 281.2 (printf rounds
#   the exact binary value, and a tie to even). Cross-over: 1,122,304 / 4096 = 274.
if "$synth" --size full --zeros --out "$tmp/full" >/dev/null 2>&1; then
    "$demo" --model "$tmp/full" -n 0 >"$out" 2>"$err" || fail "full shapes: exit status $?"
    exact_line "full: layer pattern" "零件齐了，拼成完整的 Qwen3.5：24 层，排列 LLLFLLLFLLLFLLLFLLLFLLLF（L = Gated DeltaNet 18 层，F = 全注意力 6 层）"
    exact_line "full: the layer" "  每一层：h = x + 混合层(RMSNorm(x))，out = h + MLP(RMSNorm(h))；24 层之后再过一次 RMSNorm，和词嵌入表的每一行做点积，得到 248320 个 logits"
    exact_line "full: parameters" "参数 752.4M：词嵌入 254.3M（输出层和它共用） + 18 × 线性注意力 10.54M + 6 × 全注意力 7.34M + 24 × MLP 11.01M + 各处 norm 0.05M"
    exact_line "full: weights" "权重 1.50 GB（按文件里存的 bf16 原样使用，不转成 fp32；全转 fp32 要 3.01 GB）"
    exact_line "full: state per layer" "生成时要记住的状态（fp32）：全注意力每层每个 token 加 4 KB；DeltaNet 每层固定 1.07 MB（16 个头的记忆表 1.00 MB + 卷积缓存 72 KB），和长度无关"
    exact_line "full: 100 tokens" "   100 个 token：6 层全注意力的 KV cache 2.3 MB，18 层 DeltaNet 19.3 MB，合计 21.6 MB；要是 24 层全是全注意力：9.4 MB"
    exact_line "full: 1000 tokens" "  1000 个 token：6 层全注意力的 KV cache 23.4 MB，18 层 DeltaNet 19.3 MB，合计 42.7 MB；要是 24 层全是全注意力：93.8 MB"
    exact_line "full: 3000 tokens" "  3000 个 token：6 层全注意力的 KV cache 70.3 MB，18 层 DeltaNet 19.3 MB，合计 89.6 MB；要是 24 层全是全注意力：281.2 MB"
    exact_line "full: cross-over" "  交叉点：274 个 token 时一层全注意力的 KV cache 和一层 DeltaNet 的状态一样大；过了这个长度，全是全注意力的模型就比这个混合结构存得多，而且越来越多"
    grep -qxF "ch07_model: 这个检查点是 make_synthetic 写的，权重全是 0：由权重决定的数和生成的文字都没有意义（只由形状决定的行和真实的模型一样）" "$err" \
        && ok "full: says the weights are all zeros" || fail "full: no word about the zero weights"
    rm -rf "$tmp/full"
else
    fail "make_synthetic --size full --zeros"
fi

# 2. The tiny checkpoint (3 DeltaNet layers of 4 heads × 16 × 16, conv 128 wide; one
#    attention layer of 2 KV heads × 32): a KV row is 2·2·32·4 = 512 B = 0.5 KB; a
#    DeltaNet layer 4·16·16·4 + 3·128·4 = 4096 + 1536 = 5632 B = 0.01 MB (1.5 KB ≈ 2 KB
#    of conv history); cross-over 5632 / 512 = 11 tokens.
"$demo" --model "$tiny" >"$out" 2>"$err" || fail "tiny: exit status $?"
exact_line "tiny: layer pattern" "零件齐了，拼成完整的 Qwen3.5：4 层，排列 LLLF（L = Gated DeltaNet 3 层，F = 全注意力 1 层）"
exact_line "tiny: prefill + decode" "前 4 个 prefill + 后 3 个逐个 decode：与一次 prefill 的 logits 最大差 0"
exact_line "tiny: three segments" "分三段 prefill（2 + 2 + 3 个 token，记忆表和 KV cache 在段与段之间交接）：与一次 prefill 的 logits 最大差 0"
exact_line "tiny: cross-over" "  交叉点：11 个 token 时一层全注意力的 KV cache 和一层 DeltaNet 的状态一样大；过了这个长度，全是全注意力的模型就比这个混合结构存得多，而且越来越多"
grep -q '^贪心续写 20 个 token：\( [0-9]*\)\{20\}$' "$out" && ok "tiny: 20 greedy ids" || fail "tiny: the greedy line"
grep -q "参考脚本的 7 个 token" "$err" && ok "tiny: says it uses the reference ids" || fail "tiny: no notice about the ids"
passed "tiny walkthrough"

# 3. With a tokenizer (the small hand-made one, ids 0..270): text streams out, then
#    one summary line on stderr; a token that is no token of the tokenizer prints U+FFFD.
cp -r "$tiny" "$tmp/tok" && cp ch02_embedding/tests/data/tiny_tokenizer.json "$tmp/tok/tokenizer.json"
"$demo" --model "$tmp/tok" --prompt "abc 你" -n 6 >"$out" 2>"$err" || fail "prompt: exit status $?"
[ "$(wc -l <"$out")" -eq 1 ] && ok "prompt: one line of text" || fail "prompt: $(wc -l <"$out") lines"
head -c 7 "$out" | grep -q '^abc 你' && ok "prompt: starts with the prompt" || fail "prompt: does not start with it"
grep -q '^ch07_model: 提示 3 个 token，生成 6 个；prefill .* tok/s，decode .* tok/s，第一个 token 用了 .* s；权重 .* GB，状态 .* MB，内存峰值 .* MB$' "$err" \
    && ok "prompt: the summary line" || fail "prompt: no summary line"
# make_synthetic wrote the weights: said once, after the summary (the text above it means nothing)
notice="ch07_model: 这个检查点是 make_synthetic 写的，权重是随机数：由权重决定的数和生成的文字都没有意义（只由形状决定的行和真实的模型一样）"
[ "$(wc -l <"$err")" -eq 2 ] && [ "$(tail -n 1 "$err")" = "$notice" ] && ok "prompt: the summary, then the random weights said once" \
    || fail "prompt: $(wc -l <"$err") lines on stderr"
# a checkpoint without the mark (the same shard, the key renamed): nothing said
cp -r "$tmp/tok" "$tmp/unmarked" && perl -pi -e 's/workbook\.synthetic/workbook.xynthetic/' "$tmp/unmarked"/model.safetensors-*.safetensors
"$demo" --model "$tmp/unmarked" --prompt "abc" -n 2 >"$out" 2>"$err" || fail "unmarked: exit status $?"
[ "$(wc -l <"$err")" -eq 1 ] && ! grep -q make_synthetic "$err" && ok "unmarked: nothing said about the weights" \
    || fail "unmarked: $(wc -l <"$err") lines on stderr"
"$demo" --model "$tmp/tok" --prompt "abc" --chat -n 3 >"$out" 2>"$err" || fail "chat: exit status $?"
grep -q 'chat template\|<|im_start|>' "$err" && fail "chat: the template leaked" || ok "chat: runs"

# 4. --interactive: two turns from stdin, then end of input. Each turn reads only its
#    own tokens (the second fewer than the whole conversation so far); the DeltaNet
#    state stays the same size while the KV cache grows.
printf 'abc\nxyz\n' | "$demo" --model "$tmp/tok" --interactive -n 4 >"$out" 2>"$err"
[ $? -eq 0 ] && ok "interactive: end of input ends it, status 0" || fail "interactive: exit status"
[ "$(grep -c make_synthetic "$err")" -eq 1 ] && [ "$(head -n 1 "$err")" = "$notice" ] \
    && ok "interactive: the random weights said once, before the chat" || fail "interactive: the notice"
t1=$(sed -n 's/.*第 1 轮：读入 \([0-9]*\) 个新 token.*至今 \([0-9]*\) 个 token.*DeltaNet 状态 \([0-9.]*\) MB.*/\1 \2 \3/p' "$err")
t2=$(sed -n 's/.*第 2 轮：读入 \([0-9]*\) 个新 token.*至今 \([0-9]*\) 个 token.*DeltaNet 状态 \([0-9.]*\) MB.*/\1 \2 \3/p' "$err")
set -- $t1 $t2
if [ $# -eq 6 ] && [ "$4" -lt "$5" ] && [ "$5" -gt "$2" ] && [ "$3" = "$6" ] && [ $(($2 + $4)) -le "$5" ]; then
    ok "interactive: turn 2 reads $4 new tokens of $5; the DeltaNet state stays $3 MB"
else
    fail "interactive: turn lines '$t1' / '$t2'"
fi
[ "$(grep -c . "$out")" -eq 2 ] && ok "interactive: one answer line per turn" || fail "interactive: $(grep -c . "$out") answer lines"

# 5. A chat that goes on. Each bad line gets one line on stderr with the offset in the
#    line as typed, and the next prompt; the good line after it is turn 1; end of input
#    ends the chat normally and --save-state is written.
count() { grep -c -- "$1" "$err"; }
printf 'ab\377c\nx\0y\n\nabc\n' | "$demo" --model "$tmp/tok" --interactive -n 2 --save-state "$tmp/chat.st" >"$out" 2>"$err"
[ $? -eq 0 ] && ok "bad lines: the chat goes on to the end, status 0" || fail "bad lines: exit status"
[ "$(count 'ch07_model: the line is not valid UTF-8: byte 0xFF at offset 2; nothing of it was read, the chat goes on')" -eq 1 ] \
    && ok "bad lines: invalid UTF-8, at its offset in the line" || fail "bad lines: the UTF-8 line"
[ "$(count 'ch07_model: the line holds a NUL byte at offset 1;')" -eq 1 ] && ok "bad lines: a NUL byte" || fail "bad lines: the NUL line"
[ "$(count '第 1 轮')" -eq 1 ] && [ "$(count '第 2 轮')" -eq 0 ] && ok "bad lines: the good line is turn 1" || fail "bad lines: turns"
grep -q "状态.*已写到 $tmp/chat.st" "$err" && [ -s "$tmp/chat.st" ] && ok "bad lines: the state saved at the end" \
    || fail "bad lines: no state saved"

# a line beyond the 1 MiB a line may take, then a good one
{ head -c 1100000 /dev/zero | tr '\0' a; printf '\nabc\n'; } | "$demo" --model "$tmp/tok" --interactive -n 2 >"$out" 2>"$err"
[ $? -eq 0 ] && [ "$(count 'the line is longer than the 1048576 bytes a line may take')" -eq 1 ] && [ "$(count '第 1 轮')" -eq 1 ] \
    && ok "a line of 1.1 MB: refused, the chat goes on" || fail "a line of 1.1 MB"

# a context of 40 positions: a line that does not fit is refused; an answer that
# fills the context ends with a notice; the chat is saved, and the state loads
cp -r "$tmp/tok" "$tmp/short" && sed -i 's/"max_position_embeddings":[[:space:]]*4096/"max_position_embeddings": 40/' "$tmp/short/config.json"
long=$(i=0; while [ $i -lt 60 ]; do printf 'a '; i=$((i + 1)); done)
printf '%s\nabc\nabc\n' "$long" | "$demo" --model "$tmp/short" --interactive -n 100 --save-state "$tmp/full.st" >"$out" 2>"$err"
[ $? -eq 0 ] && ok "short context: status 0" || fail "short context: exit status"
[ "$(count 'positions left, with room for an answer; nothing of it was read')" -eq 2 ] \
    && ok "short context: the long line and the line after the full answer are refused" || fail "short context: refusals"
[ "$(count '上下文满了：40 个 token 都用完了，这一轮的回答停在这里')" -eq 1 ] && [ "$(count '至今 40 个 token')" -eq 1 ] \
    && ok "short context: the answer that fills it ends with a notice" || fail "short context: no notice"
"$demo" --model "$tmp/short" --load-state "$tmp/full.st" -n 1 >"$out" 2>"$err" && [ "$(grep -c . "$out")" -eq 1 ] \
    && ok "short context: the saved state loads" || fail "short context: the saved state"

# no line break at all (/dev/zero): one line, status 1, within the memory limit
"$demo" --model "$tmp/tok" --interactive --max-memory 500M </dev/zero >"$out" 2>"$err"
[ $? -eq 1 ] && [ "$(count 'ch07_model: stdin: no line break in 65 MiB, which is not lines of text')" -eq 1 ] \
    && ok "/dev/zero: one error line, status 1" || fail "/dev/zero"
if [ -x /usr/bin/time ]; then
    kb=$(/usr/bin/time -f %M "$demo" --model "$tmp/tok" --interactive --max-memory 500M </dev/zero 2>&1 >/dev/null | tail -n 1)
    [ "$kb" -lt 300000 ] && ok "/dev/zero: peak memory $kb KB" || fail "/dev/zero: peak memory $kb KB"
fi

# a read error is an error, not the end of input; the chat so far is saved first
"$demo" --model "$tmp/tok" --interactive --save-state "$tmp/err.st" </ >"$out" 2>"$err"
[ $? -eq 1 ] && grep -q '^ch07_model: cannot read stdin: Is a directory$' "$err" && [ -s "$tmp/err.st" ] \
    && ok "a read error on stdin: status 1, the state saved" || fail "a read error on stdin"

finish
