#!/bin/sh
# test_ch01_demo.sh — what the chapter-1 demo prints, and its command line.
#
# On the full-size shape-only checkpoint (make_synthetic --size full --zeros: the
# real 0.8B shapes as a sparse 1.5 GB file that costs no disk space) every count
# must be exactly the one docs/checkpoint.md §5 gives; on the tiny checkpoint the total
# worked out by hand below. Then the command line: unknown or incomplete flags, a
# missing or broken model folder — each one line on stderr and a non-zero exit.
# Run from the repository root by mk/run-tests.sh ($BUILD, $BINDIR, $TINY set).
set -u
demo="${BINDIR:-}ch01_weights/ch01_weights"
synth="${BINDIR:-}ch01_weights/make_synthetic"
TINY="${TINY:-${BUILD:-build}/tiny}"
for f in "$demo" "$synth" "$TINY/config.json"; do
    [ -e "$f" ] || { echo "FAIL $f is missing (run the tests through make test)"; exit 1; }
done
tmp=$(mktemp -d "${BUILD:-build}/ch01-demo-XXXXXX") || exit 1
tmp=$(cd "$tmp" && pwd)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
failed=0

ok() { echo "ok   $1"; }
bad() {
    echo "FAIL $1"
    failed=1
}
show() { sed 's/^/    | /' "$1"; }

# run CMD...: stdout to $tmp/out, stderr to $tmp/err, exit status in $rc
run() {
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

# expect_lines LABEL LINE...: the last run succeeded and printed each LINE exactly
expect_lines() {
    label=$1
    shift
    if [ "$rc" -ne 0 ]; then
        bad "$label: exit status $rc"
        show "$tmp/err"
        return
    fi
    for line; do
        if ! grep -qxF -- "$line" "$tmp/out"; then
            bad "$label: no line"
            echo "    $line"
            echo "  in:"
            show "$tmp/out"
            return
        fi
    done
    ok "$label"
}

# expect_error LABEL FRAGMENT...: the last run failed with nothing on stdout and
# exactly one line on stderr that contains every FRAGMENT
expect_error() {
    label=$1
    shift
    if [ "$rc" -eq 0 ]; then
        bad "$label: exit status 0"
        return
    fi
    if [ -s "$tmp/out" ]; then
        bad "$label: printed on stdout"
        show "$tmp/out"
        return
    fi
    n=$(wc -l <"$tmp/err")
    if [ "$n" -ne 1 ]; then
        bad "$label: $n lines on stderr, want 1"
        show "$tmp/err"
        return
    fi
    for frag; do
        if ! grep -qF -- "$frag" "$tmp/err"; then
            bad "$label: stderr does not say '$frag'"
            show "$tmp/err"
            return
        fi
    done
    ok "$label"
}

# header_len FILE: the safetensors header length, the first 8 bytes little-endian
header_len() { od -An -v -t u1 -N 8 "$1" | awk '{ for (i = NF; i >= 1; i--) n = n * 256 + $i } END { print n }'; }
# kb BYTES: as the demo prints a size under 1 MB
kb() { awk -v b="$1" 'BEGIN { printf "%.2f KB", b / 1e3 }'; }

# ---- the full-size checkpoint ------------------------------------------------------
# Counts by hand from docs/checkpoint.md §4 (hidden 1024, vocab 248320, MLP 3584):
#   embed_tokens 248320·1024 = 254,279,680                          -> 254.3M
#   DeltaNet layer: in_proj_qkv 6144·1024 = 6,291,456 (6.3M), in_proj_z 2048·1024 =
#     2,097,152 (2.1M), in_proj_b and in_proj_a 16·1024 = 16,384 each, conv1d
#     6144·1·4 = 24,576, dt_bias 16, A_log 16, norm 128, out_proj 1024·2048 =
#     2,097,152 (2.1M)                                    total 10,543,264 -> 10.5M
#   attention layer: q_proj 4096·1024 = 4,194,304 (4.2M; query and gate halves
#     2,097,152 = 2.1M each), k_proj and v_proj 512·1024 = 524,288 (0.5M) each,
#     o_proj 1024·2048 = 2,097,152 (2.1M), q_norm and k_norm 256 each
#                                                          total 7,340,544 -> 7.3M
#   MLP 3·3584·1024 = 11,010,048 (11.0M), 3,670,016 (3.7M) per projection
#   two RMSNorm weights per layer 2·1024, the final norm 1024
#   text total = 254,279,680 + 1,024 + 18·(10,543,264 + 11,010,048 + 2,048)
#                + 6·(7,340,544 + 11,010,048 + 2,048)
#              = 254,280,704 + 387,996,480 + 110,115,840 = 752,393,024 -> 752.4M
#   tensors: 2 + 18·(2 + 9 + 3) + 6·(2 + 6 + 3) = 320, of which F32: 18·2 = 36
#   bytes: 36 F32 tensors 18·(16 + 128)·4 = 10,368, the rest in bf16
#     (752,393,024 − 2,592)·2 = 1,504,780,864: 1,504,791,232 B = 1.50 GB of text
#     weights; all fp32 752,393,024·4 = 3,009,572,096 B = 3.01 GB
#   the file: the text weights, the 4 stand-ins for the vision tower and mtp
#     (common/workbook/synthetic.c: patch_embed 16·3·2·4·4 = 1,536 and norm1 16 values;
#     mtp.fc 1024·2048 = 2,097,152 and mtp.norm 1024), all bf16: 2·2,099,728 =
#     4,199,456 B, so a data area of 1,508,990,688 B; with the 8-byte length and the
#     JSON header (tens of KB) 1.51 GB
run "$synth" --size full --zeros --out "$tmp/full"
if [ "$rc" -ne 0 ]; then
    bad "make_synthetic --size full --zeros: exit status $rc"
    show "$tmp/err"
else
    run "$demo" --model "$tmp/full"
    expect_lines "full-size checkpoint: config and layer pattern" \
        "找到模型：$tmp/full（来自 --model）" \
        "文本配置：隐藏维度 1024，24 层，词表 248320 行，MLP 中间维度 3584，RMSNorm eps = 1e-06" \
        "  全注意力：8 个 query 头共用 2 个 KV 头，每头 256 维；RoPE 只转前 64 维，theta = 10000000" \
        "  线性注意力（Gated DeltaNet）：16 个 key 头、16 个 value 头，每头 128 / 128 维，短卷积窗口 4" \
        "层的排列（L = 线性注意力，F = 全注意力）：LLLFLLLFLLLFLLLFLLLFLLLF"
    expect_lines "full-size checkpoint: parameter counts" \
        "参数量（只看形状就能算出来）：" \
        "  词嵌入 embed_tokens [248320, 1024]：254.3M（输出层和它共用同一个矩阵，不另算）" \
        "  一层线性注意力 10.5M：in_proj_qkv 6.3M，in_proj_z 2.1M，out_proj 2.1M，conv1d 只有 24576 个" \
        "  一层全注意力 7.3M：q_proj 4.2M（query 和 gate 各占一半，各 2.1M），k_proj、v_proj 各 0.5M，o_proj 2.1M" \
        "  一层 MLP 11.0M：gate_proj、up_proj、down_proj 各 3.7M" \
        "  文本部分合计 752.4M（752,393,024 个）：18 层线性注意力 + 6 层全注意力 + 24 个 MLP + 词嵌入 + 各处 norm"
    expect_lines "full-size checkpoint: dtypes and memory" \
        "数据类型：BF16 284 个张量，F32 36 个，F16 0 个（F32 的是 linear_attn.A_log、linear_attn.norm.weight：精度要紧的少数几个）" \
        "内存：分片文件共 1.51 GB（视觉塔和 mtp 也在里面），其中文本权重 1.50 GB；文本权重全换成 fp32 要 3.01 GB"
    shard="$tmp/full/model.safetensors-00001-of-00001.safetensors"
    [ "$(wc -c <"$shard")" -eq $((8 + $(header_len "$shard") + 1508990688)) ] &&
        ok "full-size checkpoint: the file is the length, the header and 1,508,990,688 data bytes" ||
        bad "full-size checkpoint: $(wc -c <"$shard") bytes in $shard"
    if grep -qE '^打开 1 个分片用了 [0-9]+ ms（mmap 只读文件头，权重用到时才从磁盘读）：文本部分 320 个张量，跳过视觉塔和 mtp 的 4 个$' "$tmp/out"; then
        ok "full-size checkpoint: 320 text tensors, 4 skipped"
    else
        bad "full-size checkpoint: no line with 320 text tensors and 4 skipped"
        show "$tmp/out"
    fi
    [ "$(wc -l <"$tmp/out")" -eq 14 ] && ok "full-size checkpoint: 14 lines" ||
        bad "full-size checkpoint: $(wc -l <"$tmp/out") lines, want 14"
fi

# ---- the tiny checkpoint ------------------------------------------------------------
# Total by hand from synth_config_tiny (common/workbook/synthetic.c): vocab 1024, hidden 64,
# MLP 128, layers L L L F, attention 4 heads / 2 kv heads of 32, DeltaNet 2 key /
# 4 value heads of 16, kernel 4 (conv width 2·32 + 64 = 128):
#   embed 1024·64 = 65,536; final norm 64
#   DeltaNet: qkv 128·64 = 8,192, z 64·64 = 4,096, b and a 4·64 = 256 each,
#     conv1d 128·4 = 512, dt_bias 4, A_log 4, norm 16, out 64·64 = 4,096 -> 17,432
#   attention: q 256·64 = 16,384, k and v 64·64 = 4,096 each, o 64·128 = 8,192,
#     q_norm and k_norm 32 each                                          -> 32,832
#   MLP 3·128·64 = 24,576; two norms 128 per layer
#   total = 65,536 + 64 + 3·(17,432 + 24,576 + 128) + (32,832 + 24,576 + 128)
#         = 65,600 + 126,408 + 57,536 = 249,544 (0.2M); 55 tensors, 6 of them F32
#   bytes: the F32 ones 3·(4 + 16)·4 = 240, the rest (249,544 − 60)·2 = 498,968:
#     499,208 B = 499.21 KB; all fp32 249,544·4 = 998,176 B = 998.18 KB
#   the file: those, and the stand-ins 1,536 + 16 (vision) + 64·128 + 64 (mtp) values
#     in bf16 = 19,616 B: a data area of 518,824 B, after the 8-byte length and the
#     header, whose length the file's first 8 bytes give
run "$demo" --model "$TINY"
tiny_shard="$TINY/model.safetensors-00001-of-00001.safetensors"
tiny_file=$((8 + $(header_len "$tiny_shard") + 518824))
expect_lines "tiny checkpoint: total 249,544" \
    "层的排列（L = 线性注意力，F = 全注意力）：LLLF" \
    "  词嵌入 embed_tokens [1024, 64]：0.1M（输出层和它共用同一个矩阵，不另算）" \
    "  一层线性注意力 0.0M：in_proj_qkv 0.0M，in_proj_z 0.0M，out_proj 0.0M，conv1d 只有 512 个" \
    "  文本部分合计 0.2M（249,544 个）：3 层线性注意力 + 1 层全注意力 + 4 个 MLP + 词嵌入 + 各处 norm" \
    "数据类型：BF16 49 个张量，F32 6 个，F16 0 个（F32 的是 linear_attn.A_log、linear_attn.norm.weight：精度要紧的少数几个）" \
    "内存：分片文件共 $(kb $tiny_file)（视觉塔和 mtp 也在里面），其中文本权重 499.21 KB；文本权重全换成 fp32 要 998.18 KB"
[ "$(wc -c <"$tiny_shard")" -eq "$tiny_file" ] && ok "tiny checkpoint: the file is the length, the header and 518,824 data bytes" ||
    bad "tiny checkpoint: $(wc -c <"$tiny_shard") bytes in $tiny_shard, want $tiny_file"

# An untied output head adds its own 1024·64 = 65,536: 315,080 (0.3M).
run "$synth" --size tiny --lm-head --out "$tmp/untied"
run "$demo" --model "$tmp/untied"
expect_lines "tiny checkpoint with lm_head: counted apart" \
    "  词嵌入 embed_tokens [1024, 64]：0.1M" \
    "  输出层 lm_head：0.1M" \
    "  文本部分合计 0.3M（315,080 个）：3 层线性注意力 + 1 层全注意力 + 4 个 MLP + 词嵌入 + 各处 norm"

# Split over two shards: the same model; the file size is both shards', each with its
# own length and header around its part of the 518,824 data bytes.
run "$synth" --size tiny --shards 2 --out "$tmp/two"
two_file=518824
for f in "$tmp"/two/*.safetensors; do two_file=$((two_file + 8 + $(header_len "$f"))); done
run "$demo" --model "$tmp/two"
expect_lines "tiny checkpoint in two shards: same total, both files counted" \
    "  文本部分合计 0.2M（249,544 个）：3 层线性注意力 + 1 层全注意力 + 4 个 MLP + 词嵌入 + 各处 norm" \
    "内存：分片文件共 $(kb $two_file)（视觉塔和 mtp 也在里面），其中文本权重 499.21 KB；文本权重全换成 fp32 要 998.18 KB"
[ "$(cat "$tmp"/two/*.safetensors | wc -c)" -eq "$two_file" ] &&
    ok "tiny checkpoint in two shards: the two files are their lengths, headers and the data bytes" ||
    bad "tiny checkpoint in two shards: $(cat "$tmp"/two/*.safetensors | wc -c) bytes, want $two_file"
grep -q '^打开 2 个分片用了' "$tmp/out" && ok "tiny checkpoint in two shards: 2 shards opened" ||
    bad "tiny checkpoint in two shards: no line saying 2 shards"

# Found through $QWEN35_MODEL when there is no --model.
QWEN35_MODEL="$TINY" run "$demo"
expect_lines "found through \$QWEN35_MODEL" "找到模型：$TINY（来自 \$QWEN35_MODEL）"

# Nothing anywhere: the message lists where it looked and how to download. Only
# when the repository holds no download of its own (it is never created here).
if [ -e "models/Qwen3.5-0.8B/config.json" ]; then
    echo "note: models/Qwen3.5-0.8B exists, so the 'nothing found' message cannot be checked here"
else
    mkdir -p "$tmp/home"
    run env -u QWEN35_MODEL -u HF_HOME HF_HUB_CACHE="$tmp/nohub" HOME="$tmp/home" "$demo"
    if [ "$rc" -ne 0 ] && [ ! -s "$tmp/out" ] && grep -qF "$(pwd)/models/Qwen3.5-0.8B" "$tmp/err" &&
        grep -qF "$tmp/nohub/models--Qwen--Qwen3.5-0.8B/snapshots/*" "$tmp/err" &&
        grep -qF "hf download Qwen/Qwen3.5-0.8B --local-dir models/Qwen3.5-0.8B" "$tmp/err" &&
        grep -qF "modelscope download --model Qwen/Qwen3.5-0.8B" "$tmp/err" &&
        grep -qF "make synthetic" "$tmp/err"; then
        ok "no model anywhere: says where it looked and how to download"
    else
        bad "no model anywhere (exit $rc)"
        show "$tmp/err"
    fi
fi

# ---- the command line ------------------------------------------------------------------
run "$demo" --help
if [ "$rc" -eq 0 ] && grep -qF -- "--dump FILE TENSOR" "$tmp/out" && [ "$(wc -l <"$tmp/out")" -le 24 ] &&
    [ ! -s "$tmp/err" ]; then
    ok "ch01_weights --help: usage in one screen"
else
    bad "ch01_weights --help (exit $rc)"
    show "$tmp/out"
fi

run "$demo" --bogus
expect_error "ch01_weights --bogus" "--bogus"
run "$demo" --model "$TINY" -x
expect_error "ch01_weights -x" "'-x'"
run "$demo" --model
expect_error "ch01_weights --model without a folder" "--model"
run "$demo" --model "$TINY" --dump "$tmp/d.safetensors"
expect_error "ch01_weights --dump without tensor names" "--dump"
run "$demo" --dump "$tmp/d.safetensors" --model "$TINY"
expect_error "ch01_weights --dump FILE followed by another flag" "--dump"
[ -e "$tmp/d.safetensors" ] && bad "ch01_weights --dump without tensor names wrote a file"

run "$demo" --model "$tmp/no-such-folder"
expect_error "ch01_weights --model on a missing folder" "$tmp/no-such-folder" "no config.json"
run "$demo" --model ""
expect_error "ch01_weights --model \"\" (not the current folder)" "--model" "empty folder name"

# A name with a newline and a terminal escape comes back escaped, on one line.
run "$demo" --model "$TINY" --dump "$tmp/e.safetensors" "$(printf 'evil\033[2J\nname')"
expect_error "ch01_weights --dump of a name with control characters" 'no tensor named evil\x1b[2J\nname'

# A download cut short, and a config.json with a wrong type: the file is named.
mkdir -p "$tmp/broken"
cp "$TINY"/* "$tmp/broken/"
shard="$tmp/broken/model.safetensors-00001-of-00001.safetensors"
head -c 100000 "$shard" >"$tmp/cut" && mv "$tmp/cut" "$shard"
run "$demo" --model "$tmp/broken"
expect_error "ch01_weights on a truncated shard" "$shard" "beyond the"
cp "$TINY"/* "$tmp/broken/"
sed 's/"hidden_size":[^,]*,/"hidden_size": "64",/' "$TINY/config.json" >"$tmp/broken/config.json"
run "$demo" --model "$tmp/broken"
expect_error "ch01_weights on a config.json with a wrong type" "$tmp/broken/config.json" \
    "text_config.hidden_size must be an integer"

run "$synth" --help
[ "$rc" -eq 0 ] && grep -qF -- "--out DIR" "$tmp/out" && ok "make_synthetic --help" || bad "make_synthetic --help"
run "$synth" --bogus --out "$tmp/x"
expect_error "make_synthetic --bogus" "--bogus"
run "$synth" --size tiny
expect_error "make_synthetic without --out" "--out"
run "$synth" --size medium --out "$tmp/x"
expect_error "make_synthetic --size medium" "--size" "medium"
run "$synth" --size tiny --shards 0 --out "$tmp/x"
expect_error "make_synthetic --shards 0" "--shards"
run "$synth" --out
expect_error "make_synthetic --out without a folder" "--out"
run "$synth" --size tiny --out ""
expect_error "make_synthetic --out \"\"" "empty name"
[ -e "$tmp/x" ] && bad "make_synthetic wrote $tmp/x after a bad command line"

exit $failed
