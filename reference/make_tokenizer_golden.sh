#!/bin/sh
# Remakes the tokenizer test data in ch02_embedding/tests/data/ from scratch:
# the corpus, then the ids Hugging Face's JavaScript tokenizer (pinned in
# reference/package.json) gives for it, with the real Qwen3 tokenizer.json and
# with the same file carrying the Qwen3.5 split regex; then the ids of the long
# runs described in tokenizer_runs.jsonl (hand-written; about a minute, the
# reference's BPE is slow on a piece of a million spaces).
#
#   sh reference/make_tokenizer_golden.sh
set -eu
cd "$(dirname "$0")/.."
data=ch02_embedding/tests/data
(cd reference && npm ci --no-audit --no-fund)
json=$(sh ch02_embedding/tests/fetch_qwen3_tokenizer.sh)
node reference/tokenizer_corpus.mjs > $data/tokenizer_corpus.jsonl
node reference/tokenizer_ids.mjs "$json" $data/tokenizer_corpus.jsonl > $data/tokenizer_ids_qwen3.jsonl
node reference/tokenizer_ids.mjs "$json" $data/tokenizer_corpus.jsonl --qwen35-regex > $data/tokenizer_ids_qwen35_regex.jsonl
node reference/tokenizer_runs.mjs "$json" $data/tokenizer_runs.jsonl > $data/tokenizer_runs_ids_qwen3.jsonl
wc -l $data/tokenizer_corpus.jsonl $data/tokenizer_ids_qwen3.jsonl $data/tokenizer_ids_qwen35_regex.jsonl \
    $data/tokenizer_runs.jsonl $data/tokenizer_runs_ids_qwen3.jsonl
