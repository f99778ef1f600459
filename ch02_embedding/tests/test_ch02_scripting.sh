#!/bin/sh
# The demo's scripting flags (--encode, --encode-jsonl, --decode) and its errors,
# on the hand-made tokenizer (tests/data/tiny_tokenizer.json; the ids below are
# worked out from the merges listed in make_tiny_tokenizer.py), then the demo run
# on a tiny synthetic checkpoint carrying that tokenizer. Needs no network.
set -u
demo="${BINDIR:-}ch02_embedding/ch02_embedding"
synth="${BINDIR:-}ch01_weights/make_synthetic"
tiny=ch02_embedding/tests/data/tiny_tokenizer.json
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ch02_test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# expect NAME WANT GOT
expect() { if [ "$2" = "$3" ]; then echo "ok   $1"; else fail "$1: want [$2], got [$3]"; fi; }
# expect_error NAME PATTERN CMD...: CMD must exit non-zero with one stderr line matching PATTERN
expect_error() {
    name=$1 pattern=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -eq 0 ]; then fail "$name: exit 0, expected an error"; return; fi
    if [ $rc -gt 128 ]; then fail "$name: crashed (exit $rc)"; return; fi
    if ! grep -q -- "$pattern" "$tmp/err"; then fail "$name: stderr lacks '$pattern': $(cat "$tmp/err")"; return; fi
    if [ "$(wc -l <"$tmp/err")" -ne 1 ]; then fail "$name: more than one error line: $(cat "$tmp/err")"; return; fi
    echo "ok   $name (error: $(cat "$tmp/err"))"
}

# --encode: one JSON array line; a value starting with '-' is text, not a flag
expect "encode abc" "[257]" "$("$demo" --tokenizer $tiny --encode abc)"
expect "encode -abc" "[45,257]" "$("$demo" --tokenizer $tiny --encode -abc)"
expect "encode --help" "[45,45,104,101,108,112]" "$("$demo" --tokenizer $tiny --encode --help)"
expect "encode empty" "[]" "$("$demo" --tokenizer $tiny --encode '')"
expect "encode newline" "[97,10,98]" "$("$demo" --tokenizer $tiny --encode "$(printf 'a\nb')")"
expect "encode chatml" "[265,117,115,101,114,10,260,266]" \
    "$("$demo" --tokenizer $tiny --encode "$(printf '<|im_start|>user\naa<|im_end|>')")"

# --encode-jsonl: every record, including "", strings starting with '-', newlines
cat >"$tmp/in.jsonl" <<'JSONL'
""
"-abc"
"--help"
"a\nb"
"<|im_start|>x"
"ab c"
"a\u0308bc"
"\t"
JSONL
cat >"$tmp/want.jsonl" <<'JSONL'
[]
[45,257]
[45,45,104,101,108,112]
[97,10,98]
[265,120]
[256,32,99]
[262,258]
[9]
JSONL
"$demo" --tokenizer $tiny --encode-jsonl "$tmp/in.jsonl" >"$tmp/got.jsonl" 2>"$tmp/err" || fail "encode-jsonl FILE exited non-zero: $(cat "$tmp/err")"
if cmp -s "$tmp/want.jsonl" "$tmp/got.jsonl"; then echo "ok   encode-jsonl FILE"; else fail "encode-jsonl FILE:"; diff "$tmp/want.jsonl" "$tmp/got.jsonl"; fi
"$demo" --tokenizer $tiny --encode-jsonl - <"$tmp/in.jsonl" >"$tmp/got2.jsonl" 2>"$tmp/err" || fail "encode-jsonl - exited non-zero"
if cmp -s "$tmp/want.jsonl" "$tmp/got2.jsonl"; then echo "ok   encode-jsonl stdin"; else fail "encode-jsonl stdin differs"; fi
printf '"abc"' | "$demo" --tokenizer $tiny --encode-jsonl - >"$tmp/got3" 2>&1
expect "encode-jsonl without a final newline" "[257]" "$(cat "$tmp/got3")"
: >"$tmp/empty.jsonl"
expect "encode-jsonl empty file" "" "$("$demo" --tokenizer $tiny --encode-jsonl "$tmp/empty.jsonl")"

# --decode
expect "decode 257,258" "abcbc" "$("$demo" --tokenizer $tiny --decode 257,258)"
expect "decode JSON list" "<|im_start|>user" "$("$demo" --tokenizer $tiny --decode '[265, 117, 115, 101, 114]')"
expect "decode newline" "$(printf 'a\nb')" "$("$demo" --tokenizer $tiny --decode 97,10,98)"
expect "decode half a character" "$(printf '\357\277\275')" "$("$demo" --tokenizer $tiny --decode 228,189)"
round=$("$demo" --tokenizer $tiny --decode "$("$demo" --tokenizer $tiny --encode '-x 你 aaaaa')")
expect "encode then decode" "-x 你 aaaaa" "$round"

# bad input: one clear line, non-zero exit, no crash
printf '"abc"\nnot json\n' >"$tmp/bad1.jsonl"
expect_error "jsonl line that is not JSON" "bad1.jsonl:2: not a JSON string" "$demo" --tokenizer $tiny --encode-jsonl "$tmp/bad1.jsonl"
printf '"abc"\n\n' >"$tmp/bad2.jsonl"
expect_error "jsonl empty line" "bad2.jsonl:2: not a JSON string" "$demo" --tokenizer $tiny --encode-jsonl "$tmp/bad2.jsonl"
printf '42\n' >"$tmp/bad3.jsonl"
expect_error "jsonl number" "bad3.jsonl:1: not a JSON string" "$demo" --tokenizer $tiny --encode-jsonl "$tmp/bad3.jsonl"
# U+0000 is a character like any other: it encodes (byte 0 is id 0 in the tiny
# file), and the lines around it too
printf '"x"\n"a\\u0000b"\n"\\u0000"\n"\\u0000\\u0000ab"\n"<|im_start|>\\u0000"\n"y"\n' >"$tmp/nul.jsonl"
printf '[120]\n[97,0,98]\n[0]\n[0,0,256]\n[265,0]\n[121]\n' >"$tmp/nul_want.jsonl"
"$demo" --tokenizer $tiny --encode-jsonl "$tmp/nul.jsonl" >"$tmp/nul_got.jsonl" 2>"$tmp/err" || fail "jsonl U+0000 exited non-zero: $(cat "$tmp/err")"
if cmp -s "$tmp/nul_want.jsonl" "$tmp/nul_got.jsonl"; then echo "ok   jsonl U+0000 encodes, with the lines around it"; else fail "jsonl U+0000:"; diff "$tmp/nul_want.jsonl" "$tmp/nul_got.jsonl"; fi
# --decode prints the NUL too (od shows each byte)
expect "decode U+0000" "$(printf 'a\0b\n' | od -An -c)" "$("$demo" --tokenizer $tiny --decode 97,0,98 | od -An -c)"
# what is not a JSON string, now read without cJSON: raw control characters, lone surrogates, bad escapes
printf '"ok"\n"a\tb"\n' >"$tmp/bad6.jsonl"
expect_error "jsonl raw tab" "bad6.jsonl:2: not a JSON string" "$demo" --tokenizer $tiny --encode-jsonl "$tmp/bad6.jsonl"
printf '"\\ud83d"\n' >"$tmp/bad7.jsonl"
expect_error "jsonl lone surrogate" "bad7.jsonl:1: not a JSON string .*: .uD83D at byte 1 is the first half of a surrogate pair" "$demo" --tokenizer $tiny --encode-jsonl "$tmp/bad7.jsonl"
printf '"\\x41"\n' >"$tmp/bad8.jsonl"
expect_error "jsonl unknown escape" "bad8.jsonl:1: not a JSON string" "$demo" --tokenizer $tiny --encode-jsonl "$tmp/bad8.jsonl"
printf '"a" "b"\n' >"$tmp/bad9.jsonl"
expect_error "jsonl two strings" "more after the closing quote" "$demo" --tokenizer $tiny --encode-jsonl "$tmp/bad9.jsonl"
printf '"ok"\n"bad \377 byte"\n' >"$tmp/bad5.jsonl"
expect_error "jsonl invalid UTF-8" "bad5.jsonl:2: input text is not valid UTF-8: byte 0xFF at offset 4" \
    "$demo" --tokenizer $tiny --encode-jsonl "$tmp/bad5.jsonl"
expect_error "jsonl missing file" "no-such.jsonl" "$demo" --tokenizer $tiny --encode-jsonl "$tmp/no-such.jsonl"
expect_error "encode invalid UTF-8" "not valid UTF-8" "$demo" --tokenizer $tiny --encode "$(printf 'x\300\257')"
expect_error "decode unknown id" "id 271 is not a token" "$demo" --tokenizer $tiny --decode 1,271
expect_error "decode not ids" "is not a list of ids" "$demo" --tokenizer $tiny --decode 1,x
# --decode reads ids with the one parser the other demos' --ids use (workbook/sentence.h)
expect_error "decode empty item" "--decode: expected a token id at ',2' in '1,,2'" "$demo" --tokenizer $tiny --decode 1,,2
expect_error "decode nothing" "--decode: expected a token id at the end of ''" "$demo" --tokenizer $tiny --decode ""
expect_error "decode trailing comma" "--decode: expected a token id at the end of '1,'" "$demo" --tokenizer $tiny --decode 1,
expect_error "decode spaces only between" "--decode: expected ',' or the end at '2'" "$demo" --tokenizer $tiny --decode "1 2"
expect_error "decode signed" "--decode: expected a token id at '+5'" "$demo" --tokenizer $tiny --decode "1,+5"
expect_error "decode negative" "--decode: token id -1 is negative" "$demo" --tokenizer $tiny --decode "-1"
expect_error "decode huge" "--decode: token id 99999999999 is too large" "$demo" --tokenizer $tiny --decode 99999999999
expect_error "decode empty list" "--decode: no token ids in" "$demo" --tokenizer $tiny --decode "[]"
expect_error "decode unclosed list" "--decode: expected ',' or the end of the list" "$demo" --tokenizer $tiny --decode "[97, 98"
expect "decode spaces around" "ab" "$("$demo" --tokenizer $tiny --decode " [ 97 , 98 ] ")"
expect_error "unknown flag" "unknown option '--frobnicate'" "$demo" --frobnicate
expect_error "flag without value" "--encode needs a value" "$demo" --tokenizer $tiny --encode
expect_error "two modes" "one at a time" "$demo" --tokenizer $tiny --encode a --decode 1
expect_error "missing tokenizer" "cannot open $tmp/none.json" "$demo" --tokenizer "$tmp/none.json" --encode a
# not a regular file: named as what it is, and a FIFO is never waited on (timeout: exit 124 if it hangs)
mkfifo "$tmp/fifo.json"
expect_error "FIFO as tokenizer" "$tmp/fifo.json is a named pipe (FIFO), not a tokenizer.json file" timeout 10 "$demo" --tokenizer "$tmp/fifo.json" --encode a
expect_error "directory as tokenizer" "$tmp is a directory, not a tokenizer.json file" "$demo" --tokenizer "$tmp" --encode a
expect_error "device as tokenizer" "/dev/null is a character device" "$demo" --tokenizer /dev/null --encode a
ln -s "$tmp/loop.json" "$tmp/loop.json"
expect_error "symlink loop as tokenizer" "cannot open $tmp/loop.json for reading: Too many levels of symbolic links" "$demo" --tokenizer "$tmp/loop.json" --encode a
echo '{"architectures": ["Qwen3_5ForConditionalGeneration"]}' >"$tmp/config.json"
expect_error "config.json as tokenizer" "not a tokenizer.json" "$demo" --tokenizer "$tmp/config.json" --encode a
expect_error "no model anywhere" "QWEN35_MODEL" env QWEN35_MODEL="$tmp/nowhere" "$demo"
"$demo" --help >"$tmp/help" 2>&1 && grep -q "^usage:" "$tmp/help" && echo "ok   --help" || fail "--help"

# the demo run on a tiny synthetic checkpoint with this tokenizer
if "$synth" --size tiny --tokenizer $tiny --out "$tmp/ckpt" 2>"$tmp/err"; then
    "$demo" --model "$tmp/ckpt" --text "abc 你" --dump "$tmp/dump.safetensors" >"$tmp/demo.out" 2>"$tmp/err" \
        || fail "demo on the tiny checkpoint: $(cat "$tmp/err")"
    for line in '"abc 你"：5 个字，7 个 UTF-8 字节 → 3 个 token' \
                'ids = [257, 32, 264]' \
                '解码回去："abc 你"，和原文一模一样' \
                '嵌入表 embed_tokens：[1024, 64]，BF16，0.1M 个参数，0.1 MB' \
                '1,024 行 = 271 个 id 向上补到 1024 的倍数，多出的 753 行没有 token 会用到' \
                '查表：3 个 id → 形状 (1, 3, 64) 的 float32'; do
        grep -qF -- "$line" "$tmp/demo.out" && echo "ok   demo prints: $line" || fail "demo output lacks: $line"
    done
    [ -s "$tmp/dump.safetensors" ] && echo "ok   --dump wrote a file" || fail "--dump wrote nothing"
    grep -q '^分词器：' "$tmp/demo.out" && ! grep -q '没有 tokenizer.json' "$tmp/err" &&
        echo "ok   with a tokenizer: both halves, no notice about a missing one" || fail "with a tokenizer: $(cat "$tmp/err")"
    # with the model, the scripting flags use the folder's tokenizer.json
    expect "encode via --model" "[257]" "$("$demo" --model "$tmp/ckpt" --encode abc)"
    # --dump that cannot be written, and a run that does not fit the memory limit:
    # refused before anything is printed (30,000 x's are 30,000 tokens in the tiny
    # file: 30,000 · (64 + 1) · 4 = 7,800,000 bytes of rows and ids)
    expect_error "unwritable --dump" "no/such/dir/d.safetensors" "$demo" --model "$tmp/ckpt" --dump "$tmp/no/such/dir/d.safetensors"
    many_x=$(head -c 30000 /dev/zero | tr '\0' x)
    expect_error "more memory than --max-memory" "the demo on 30000 tokens would need about 7.8 MB of memory (7,800,000 bytes)" \
        "$demo" --model "$tmp/ckpt" --text "$many_x" --max-memory 4M
    "$demo" --model "$tmp/ckpt" --text "$many_x" --max-memory 16M >/dev/null 2>"$tmp/err" &&
        echo "ok   the same run within --max-memory 16M" || fail "--max-memory 16M: $(cat "$tmp/err")"

    # A model folder without tokenizer.json: the embedding half on the reference
    # script's 7 ids (3, 141, 592, 7, 1000, 59, 288), one notice that says what is
    # skipped and how to get a tokenizer; what needs the tokenizer is an error. (The
    # third line: make_synthetic wrote the weights, so the rows are random.)
    rm "$tmp/ckpt/tokenizer.json"
    "$demo" --model "$tmp/ckpt" --dump "$tmp/ref.safetensors" >"$tmp/demo.out" 2>"$tmp/err" \
        || fail "model without tokenizer.json: exit status $?: $(cat "$tmp/err")"
    [ "$(wc -l <"$tmp/err")" -eq 3 ] && grep -q '^ch02_embedding: 这个检查点是 make_synthetic 写的，权重是随机数' "$tmp/err" && grep -q '^ch02_embedding: 模型目录里没有 tokenizer.json，分词这一半跳过了，查表用参考脚本的 7 个 token id（要看分词：把 Qwen3.5-0.8B 下载里的 tokenizer.json 复制进来，或者用 --tokenizer FILE）$' "$tmp/err" &&
        grep -q "^ch02_embedding: 2 个张量（float32）已写到 $tmp/ref.safetensors$" "$tmp/err" &&
        echo "ok   model without tokenizer.json: the notice, and the dump's" || fail "model without tokenizer.json: stderr: $(cat "$tmp/err")"
    grep -q '^分词器：\|^ids = \|^解码回去' "$tmp/demo.out" && fail "model without tokenizer.json: the tokenizer half printed"
    for line in '嵌入表 embed_tokens：[1024, 64]，BF16，0.1M 个参数，0.1 MB' \
                '查表：7 个 id → 形状 (1, 7, 64) 的 float32，只读了这 7 行（896 字节），整张表一个数也没转换' \
                '输出层：没有 lm_head.weight（tie_word_embeddings = true），最后的 h 和这张表的每一行做点积得到 1,024 个 logits'; do
        grep -qxF -- "$line" "$tmp/demo.out" && echo "ok   without tokenizer.json: $line" || fail "without tokenizer.json, no line: $line"
    done
    [ "$(grep -c '^ *[0-9]*  \[.*, \.\.\.\]  范数 [0-9.]*$' "$tmp/demo.out")" -eq 7 ] &&
        [ "$(sed -n 's/^ *\([0-9]*\)  \[.*/\1/p' "$tmp/demo.out" | tr '\n' ,)" = "3,141,592,7,1000,59,288," ] &&
        echo "ok   without tokenizer.json: the 7 reference ids' rows, no token text" || fail "without tokenizer.json: the rows"
    head -c 200 "$tmp/ref.safetensors" | grep -q '"ids":{"dtype":"F32","shape":\[7\]' &&
        head -c 200 "$tmp/ref.safetensors" | grep -q '"embed":{"dtype":"F32","shape":\[7,64\]' &&
        echo "ok   without tokenizer.json: --dump holds embed [7, 64] and ids [7]" || fail "without tokenizer.json: the dump's header"
    for mode in "--encode abc" "--decode 1,2" "--encode-jsonl $tmp/in.jsonl" "--chat" "--text abc"; do
        flag=${mode%% *}
        # shellcheck disable=SC2086
        expect_error "model without tokenizer.json: $flag" "$tmp/ckpt/tokenizer.json: no tokenizer.json in the model folder, and $flag needs one" \
            "$demo" --model "$tmp/ckpt" $mode
    done
    mkfifo "$tmp/ckpt/tokenizer.json"
    expect_error "model with a FIFO for tokenizer.json" "tokenizer.json is a named pipe (FIFO)" timeout 10 "$demo" --model "$tmp/ckpt"
    rm "$tmp/ckpt/tokenizer.json"
else
    fail "make_synthetic: $(cat "$tmp/err")"
fi

[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
