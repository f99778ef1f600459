#!/bin/sh
# The demo on the real Qwen3 tokenizer.json: --encode-jsonl over the test corpus
# must print, byte for byte, the ids Hugging Face's tokenizer gave
# (tests/data/tokenizer_ids_*.jsonl), for the file as it is and for a copy with
# the Qwen3.5 split regex; then the demo run on a tiny synthetic checkpoint
# carrying the real tokenizer. SKIPs (exit 77) when the file cannot be fetched.
set -u
demo="${BINDIR:-}ch02_embedding/ch02_embedding"
synth="${BINDIR:-}ch01_weights/make_synthetic"
data=ch02_embedding/tests/data
json=$(sh ch02_embedding/tests/fetch_qwen3_tokenizer.sh) || {
    rc=$?
    if [ $rc -eq 77 ]; then
        echo "SKIP: the real Qwen3 tokenizer.json could not be fetched; the demo is NOT checked against Hugging Face's ids"
        exit 77
    fi
    echo "FAIL: fetch_qwen3_tokenizer.sh exited with $rc"
    exit 1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ch02_qwen3.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The Qwen3.5 regex differs from Qwen3's by two \p{M} (combining marks); the
# file writes each backslash twice (JSON escaping).
sed -e 's/\]?\\\\p{L}+|/]?[\\\\p{L}\\\\p{M}]+|/' \
    -e 's/\[^\\\\s\\\\p{L}\\\\p{N}\]+/[^\\\\s\\\\p{L}\\\\p{M}\\\\p{N}]+/' "$json" >"$tmp/qwen35_regex.json"
want='"Regex": "(?i:'"'"'s|'"'"'t|'"'"'re|'"'"'ve|'"'"'m|'"'"'ll|'"'"'d)|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"'
grep -qF "$want" "$tmp/qwen35_regex.json" || fail "could not swap the Qwen3.5 regex into the copy"

for pair in "$json:tokenizer_ids_qwen3.jsonl" "$tmp/qwen35_regex.json:tokenizer_ids_qwen35_regex.jsonl"; do
    file=${pair%%:*} ids=${pair#*:}
    if "$demo" --tokenizer "$file" --encode-jsonl $data/tokenizer_corpus.jsonl >"$tmp/got.jsonl" 2>"$tmp/err" &&
        cmp -s "$tmp/got.jsonl" "$data/$ids"; then
        echo "ok   --encode-jsonl corpus = $ids ($(wc -l <"$tmp/got.jsonl") lines)"
    else
        fail "--encode-jsonl corpus differs from $ids: $(cat "$tmp/err")"
        diff "$data/$ids" "$tmp/got.jsonl" | head -10
    fi
done
got=$("$demo" --tokenizer "$json" --encode-jsonl - <$data/tokenizer_corpus.jsonl | cmp - $data/tokenizer_ids_qwen3.jsonl && echo same)
[ "$got" = same ] && echo "ok   --encode-jsonl - (stdin)" || fail "--encode-jsonl - differs"

# docs/tokenizer.md §6's reference row for the book's sentence, and the round trip
got=$("$demo" --tokenizer "$json" --encode "今天天气不错，我们去公园")
[ "$got" = "[100644,104307,100832,3837,97639,85336,102077]" ] && echo "ok   --encode the book's sentence" || fail "--encode: $got"
got=$("$demo" --tokenizer "$json" --decode 100644,104307,100832,3837,97639,85336,102077)
[ "$got" = "今天天气不错，我们去公园" ] && echo "ok   --decode the book's sentence" || fail "--decode: $got"

# --chat: docs/tokenizer.md §6's ChatML row followed by the empty thinking block <think> \n\n </think> \n\n
"$demo" --tokenizer "$json" --chat --text hi >"$tmp/chat.out" 2>&1 || fail "--chat: $(cat "$tmp/chat.out")"
grep -qF "共 13 个 token：[151644, 872, 198, 6023, 151645, 198, 151644, 77091, 198, 151667, 271, 151668, 271]" "$tmp/chat.out" \
    && echo "ok   --chat ids" || fail "--chat ids: $(cat "$tmp/chat.out")"

# the demo run: a tiny synthetic checkpoint whose table has room for Qwen3's ids
if "$synth" --size tiny --vocab 151936 --tokenizer "$json" --out "$tmp/ckpt" 2>"$tmp/err"; then
    "$demo" --model "$tmp/ckpt" >"$tmp/demo.out" 2>"$tmp/err" || fail "demo: $(cat "$tmp/err")"
    for line in '词表：151,643 个 BPE token + 26 个附加 token = 151,669 个 id；合并规则 151,387 条' \
                '"今天天气不错，我们去公园"：12 个字，36 个 UTF-8 字节 → 7 个 token' \
                '  100644  ä»Ĭå¤©  今天' \
                'ids = [100644, 104307, 100832, 3837, 97639, 85336, 102077]' \
                '解码回去："今天天气不错，我们去公园"，和原文一模一样' \
                '第 7 章的长输入（这句话用「。」连 20 遍，259 个字）：159 个 token' \
                '查表：7 个 id → 形状 (1, 7, 64) 的 float32'; do
        grep -qF -- "$line" "$tmp/demo.out" && echo "ok   demo prints: $line" || fail "demo output lacks: $line"
    done
else
    fail "make_synthetic: $(cat "$tmp/err")"
fi

[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
