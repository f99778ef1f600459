#!/bin/sh
# test_demo_input.sh — what every demo that runs on weights refuses up front, and
# what it never prints raw.
#
#   1. Memory. A demo adds up what a request will allocate before it allocates any
#      of it, and refuses with one line saying how much when that is over the limit
#      (half of the physical memory, or --max-memory SIZE). 65,536 --ids (the most
#      --ids takes; one digit each, to stay within one argument's 128 KB) go into
#      every chapter demo; the limits below are fixed so that nothing depends on
#      this machine's memory. Where the estimate is a short formula its bytes are
#      worked out here by hand (tiny checkpoint: hidden H = 64, MLP I = 128,
#      rotary 8 dims = 4 pairs); elsewhere the largest buffer bounds it from below.
#   2. --dump FILE that cannot be written: found when the flags are read, before
#      the model is even looked for (so the model folder here does not exist).
#   3. --max-memory itself: a size or one clear line.
#   4. ch01's --dump streams: a tensor twice the memory limit is dumped; one the
#      disk has no room for is refused before anything is printed.
#   5. Text from a file printed on stdout: ch06's token labels escape control
#      characters (a byte-level token can decode to ESC).
# Run from the repository root by mk/run-tests.sh ($BUILD, $BINDIR, $TINY set).
set -u
demo=
. mk/testlib.sh
B=${BINDIR:-}
ids=$(yes 1 | head -n 65536 | paste -sd, -)
T=65536

# bytes DEMO ARGS...: the "(N bytes)" of the last error line, without the commas
bytes() { sed -n 's/.*(\([0-9,]*\) bytes).*/\1/p' "$err" | tr -d ,; }

# ---- 1. memory ------------------------------------------------------------------
# ch03: four [T, H] tensors, three [T], two [H]: 4 · (4·T·H + 3·T + 2·H)
demo=${B}ch03_norm/ch03_norm
expect_error "ch03_norm: 65,536 --ids over 64M" \
    "the demo on 65536 tokens would need about 67.9 MB of memory (67,895,808 bytes), more than the limit of 64.0 MB (set by --max-memory)" \
    --model "$tiny" --ids "$ids" --max-memory 64M
[ "$(bytes)" = $((4 * (4 * T * 64 + 3 * T + 2 * 64))) ] && ok "ch03_norm: the estimate is 67,895,808 bytes" ||
    fail "ch03_norm: estimate $(bytes), want $((4 * (4 * T * 64 + 3 * T + 2 * 64)))"
"$demo" --model "$tiny" --ids 3,141,592 --max-memory 64M >"$out" 2>"$err" && [ -s "$out" ] &&
    ok "ch03_norm: three --ids under the same limit run" || fail "ch03_norm: three --ids under 64M"

# ch04: three [T, H] and the ids, and the MLP's gate, up and act [T, I]: 4 · (3·T·H + T) + 3 · 4·T·I
demo=${B}ch04_mlp/ch04_mlp
expect_error "ch04_mlp: 65,536 --ids over 128M" "the demo on 65536 tokens would need about 151.3 MB" \
    --model "$tiny" --ids "$ids" --max-memory 128M
[ "$(bytes)" = $((4 * (3 * T * 64 + T) + 3 * 4 * T * 128)) ] && ok "ch04_mlp: the estimate is 151,257,088 bytes" ||
    fail "ch04_mlp: estimate $(bytes), want $((4 * (3 * T * 64 + T) + 3 * 4 * T * 128))"
"$demo" --model "$tiny" --ids 3,141,592 --max-memory 128M >"$out" 2>"$err" && [ -s "$out" ] &&
    ok "ch04_mlp: three --ids under the same limit run" || fail "ch04_mlp: three --ids under 128M"

# ch05: the cos/sin table for T positions (2 · T · 4 pairs, and 4 doubles), the
# embedding rows [T, H], the dumped cos and sin [T, 4] each and the ids [T]
demo=${B}ch05_rope/ch05_rope
expect_error "ch05_rope: 65,536 --ids over 16M" "the demo on 65536 tokens would need about 21.2 MB" \
    --model "$tiny" --ids "$ids" --max-memory 16M --plot=none
[ "$(bytes)" = $((2 * T * 4 * 4 + 4 * 8 + 4 * (T * 64 + 9 * T))) ] && ok "ch05_rope: the estimate is 21,233,696 bytes" ||
    fail "ch05_rope: estimate $(bytes), want $((2 * T * 4 * 4 + 4 * 8 + 4 * (T * 64 + 9 * T)))"

# ch06: the attention weights alone are 4 heads × T × T floats = 68.7 GB
demo=${B}ch06_attention/ch06_attention
expect_error "ch06_attention: 65,536 --ids over 8G" "the demo on 65536 tokens would need about 69.3 GB" \
    --model "$tiny" --ids "$ids" --max-memory 8G --plot=none
[ "$(bytes)" -ge $((4 * T * T * 4)) ] && ok "ch06_attention: the estimate counts the attention weights" ||
    fail "ch06_attention: estimate $(bytes) is below the weights' $((4 * T * T * 4))"
"$demo" --model "$tiny" --ids 3,141,592 --max-memory 8G --plot=none >"$out" 2>"$err" && [ -s "$out" ] &&
    ok "ch06_attention: three --ids under the same limit run" || fail "ch06_attention: three --ids under 8G"

# ch07: the long text is 20 copies, 1,310,720 tokens; per token at least the
# layer's buffers (2·128 + 2·32 + 4·64 + 2·4 = 584 floats) and its input and output
# (2·64): 1,310,720 · 712 · 4 bytes
demo=${B}ch07_deltanet/ch07_deltanet
expect_error "ch07_deltanet: 65,536 --ids over 2G" \
    "layer 0 on 65536 tokens and on the long text of 1310720 would need about 4.3 GB" \
    --model "$tiny" --ids "$ids" --max-memory 2G --plot=none
[ "$(bytes)" -ge $((1310720 * 712 * 4)) ] && ok "ch07_deltanet: the estimate counts the long text's buffers" ||
    fail "ch07_deltanet: estimate $(bytes) is below $((1310720 * 712 * 4))"
"$demo" --model "$tiny" --ids 3,141,592 --max-memory 2G --plot=none >"$out" 2>"$err" && [ -s "$out" ] &&
    ok "ch07_deltanet: three --ids under the same limit run" || fail "ch07_deltanet: three --ids under 2G"
# On the real shapes (a shape-only checkpoint: holes, no disk space) it is 152 GB.
${B}ch01_weights/make_synthetic --size full --zeros --out "$tmp/full" 2>/dev/null || fail "make_synthetic --size full"
expect_error "ch07_deltanet: 65,536 --ids on the full-size model" "would need about 152.1 GB" \
    --model "$tmp/full" --ids "$ids" --max-memory 8G --plot=none

# ---- 2. --dump FILE that cannot be written: before the model is looked for --------
mkfifo "$tmp/pipe"
for d in ch01_weights/ch01_weights ch03_norm/ch03_norm ch04_mlp/ch04_mlp ch05_rope/ch05_rope \
    ch06_attention/ch06_attention ch07_deltanet/ch07_deltanet; do
    demo=$B$d
    prog=${d##*/}
    extra=
    [ "$prog" = ch01_weights ] && extra=norm.weight
    expect_error "$prog --dump into a missing folder" \
        "--dump: cannot write $tmp/no-such-folder/x.safetensors: No such file or directory" \
        --model "$tmp/no-such-model" --dump "$tmp/no-such-folder/x.safetensors" $extra
    expect_error "$prog --dump onto a folder" "--dump: cannot write $tmp: it is a folder, not a regular file" \
        --model "$tmp/no-such-model" --dump "$tmp" $extra
    expect_error "$prog --dump into a named pipe" "--dump: cannot write $tmp/pipe: it is a named pipe (FIFO)" \
        --model "$tmp/no-such-model" --dump "$tmp/pipe" $extra
    # ---- 3. --max-memory
    expect_error "$prog --max-memory 12x" "--max-memory needs a size such as 8G, 512M or 1.5GiB" \
        --max-memory 12x --model "$tiny"
    expect_error "$prog --max-memory 0" "--max-memory needs a size" --model "$tiny" --max-memory 0
done

# ---- 4. ch01 --dump streams, and checks the disk first -----------------------------
# The tiny checkpoint plus a shard of two all-zero tensors (holes: no disk space):
#   layers.0.extra.huge  BF16 [2^32, 1024]  8 TiB, 16 TiB as float32
#   layers.0.extra.mid   BF16 [8192, 1024]  16 MiB, 32 MiB as float32
demo=${B}ch01_weights/ch01_weights
mkdir -p "$tmp/big"
cp "$tiny"/* "$tmp/big/"
huge=$((4294967296 * 1024 * 2)) mid=$((8192 * 1024 * 2))
hdr="{\"model.language_model.layers.0.extra.huge\":{\"dtype\":\"BF16\",\"shape\":[4294967296,1024],\"data_offsets\":[0,$huge]},\"model.language_model.layers.0.extra.mid\":{\"dtype\":\"BF16\",\"shape\":[8192,1024],\"data_offsets\":[$huge,$((huge + mid))]}}"
while [ $((${#hdr} % 8)) -ne 0 ]; do hdr="$hdr "; done
n=${#hdr} i=0 le=
while [ $i -lt 8 ]; do le="$le\\$(printf %o $(((n >> (8 * i)) & 255)))" i=$((i + 1)); done
{ printf "$le"; printf '%s' "$hdr"; } >"$tmp/big/extra.safetensors"
truncate -s $((8 + n + huge + mid)) "$tmp/big/extra.safetensors"
sed 's/"weight_map":[[:space:]]*{/&"model.language_model.layers.0.extra.huge": "extra.safetensors", "model.language_model.layers.0.extra.mid": "extra.safetensors", /' \
    "$tiny/model.safetensors.index.json" >"$tmp/big/model.safetensors.index.json"
expect_error "ch01_weights --dump of a 16 TiB tensor: the disk is checked first" \
    "--dump: $tmp/huge.safetensors would be 17.6 TB (17,592,186,044,416 bytes), but its file system has only" \
    --model "$tmp/big" --dump "$tmp/huge.safetensors" layers.0.extra.huge
[ -e "$tmp/huge.safetensors" ] && fail "ch01_weights: the refused dump left a file"
# 32 MB as float32 under a 24 MB limit: chunk by chunk, never held whole
"$demo" --model "$tmp/big" --max-memory 24M --dump "$tmp/mid.safetensors" layers.0.extra.mid >"$out" 2>"$err"
if [ $? -eq 0 ] && [ "$(wc -c <"$tmp/mid.safetensors")" -ge $((2 * mid)) ]; then
    ok "ch01_weights --dump of a tensor larger than the memory limit: streamed"
else
    fail "ch01_weights --dump of a 32 MB tensor under --max-memory 24M"
fi
rm -f "$tmp/mid.safetensors"

# ---- 5. token labels from tokenizer.json -------------------------------------------
# In the byte-level vocabulary of the test tokenizer, id 27 is byte 0x1b (ESC) and
# id 10 a newline; as labels they are \x1b and \n, never the bytes themselves.
mkdir -p "$tmp/tok"
cp "$tiny"/* "$tmp/tok/"
cp ch02_embedding/tests/data/tiny_tokenizer.json "$tmp/tok/tokenizer.json"
${B}ch06_attention/ch06_attention --model "$tmp/tok" --ids 65,27,10 --plot=none >"$out" 2>"$err"
if [ $? -ne 0 ]; then
    fail "ch06_attention with a tokenizer: exit status"
elif LC_ALL=C grep -q "$(printf '\033')" "$out"; then
    fail "ch06_attention: a raw ESC byte on stdout"
elif ! grep -qF 'A | \x1b | \n' "$out"; then
    fail "ch06_attention: the labels are not A | \x1b | \n"
else
    ok "ch06_attention: control characters in token labels are escaped"
fi
finish
