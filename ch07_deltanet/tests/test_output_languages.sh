#!/bin/sh
# One language per channel, the same in every program (common/workbook/demo.h):
#   - every notice a successful run writes on stderr is Chinese, like the book's lines
#     on stdout: the reference ids, a figure written or skipped, a --dump or a state
#     written, how a long text was made, a run's summary, a checkpoint written;
#   - every error line (a failed run: one line, status 1) is English: it names files,
#     flags and tensors.
# A line counts as Chinese when it holds a CJK ideograph (UTF-8 lead byte E4-E9), as
# English when it holds none. Every demo runs from the tiny checkpoints of make test.
set -u
root=$(pwd)
bin() { echo "$root/${BINDIR:-}$1"; }
tiny="${TINY:-${BUILD:-build}/tiny}"
case "$tiny" in /*) ;; *) tiny="$root/$tiny" ;; esac
tiny_tok="$root/ch02_embedding/tests/data/tiny_tokenizer.json"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/languages.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failures=0
cjk=$(printf '[\344-\351]')

ok() { echo "ok   $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# notices NAME MIN CMD...: CMD succeeds, and its stderr has at least MIN lines, all Chinese
notices() {
    name=$1 min=$2
    shift 2
    "$@" >out.txt 2>err.txt
    rc=$?
    if [ $rc -ne 0 ]; then fail "$name: exit status $rc: $(cat err.txt)"; return; fi
    n=$(wc -l <err.txt)
    english=$(LC_ALL=C grep -v -- "$cjk" err.txt)
    if [ "$n" -lt "$min" ]; then fail "$name: $n notice lines, expected at least $min"
    elif [ -n "$english" ]; then fail "$name: a notice that is not Chinese: $english"
    else ok "$name: $n notice(s), all Chinese"; fi
}

# error NAME CMD...: CMD fails with status 1 and one English line on stderr
error() {
    name=$1
    shift
    "$@" >out.txt 2>err.txt
    rc=$?
    if [ $rc -ne 1 ] || [ "$(wc -l <err.txt)" -ne 1 ]; then fail "$name: exit $rc, stderr: $(cat err.txt)"
    elif LC_ALL=C grep -q -- "$cjk" err.txt; then fail "$name: the error is not English: $(cat err.txt)"
    else ok "$name: $(cat err.txt)"; fi
}

mkdir withtok && cp "$tiny"/*.json "$tiny"/*.safetensors withtok/ && cp "$tiny_tok" withtok/tokenizer.json

# ---- notices --------------------------------------------------------------------------
notices "ch01_weights --dump" 1 "$(bin ch01_weights/ch01_weights)" --model "$tiny" --dump d1.st norm.weight
notices "ch01_weights/make_synthetic" 1 "$(bin ch01_weights/make_synthetic)" --size tiny --out synth
notices "make_synthetic --tokenizer" 1 "$(bin ch01_weights/make_synthetic)" --size tiny --tokenizer "$tiny_tok" --out synth2
notices "ch02 without tokenizer.json, --dump" 2 "$(bin ch02_embedding/ch02_embedding)" --model "$tiny" --dump d2.st
notices "ch02 --tokenizer only" 1 "$(bin ch02_embedding/ch02_embedding)" --tokenizer "$tiny_tok"
for d in ch03_norm/ch03_norm ch04_mlp/ch04_mlp; do
    notices "${d#*/} on the reference ids, --dump" 2 "$(bin $d)" --model "$tiny" --dump d3.st
done
# the reference ids, each figure, the dump (ch07_deltanet: and how the long text was
# made, and the timing for the figures); without gnuplot a notice per figure (ch06's
# heatmap is drawn in the terminal without gnuplot, so it runs with PNGs only)
notices "ch05_rope: figures, --dump" 4 "$(bin ch05_rope/ch05_rope)" --model "$tiny" --dump d5.st
notices "ch06_attention: figure, --dump" 3 "$(bin ch06_attention/ch06_attention)" --model "$tiny" --dump d6.st
notices "ch07_deltanet: figures, --dump" 6 "$(bin ch07_deltanet/ch07_deltanet)" --model "$tiny" --dump d7.st
notices "ch05_rope without gnuplot" 2 env PATH=/nonexistent "$(bin ch05_rope/ch05_rope)" --model withtok --plot=ascii
notices "ch06_attention without gnuplot" 1 env PATH=/nonexistent "$(bin ch06_attention/ch06_attention)" --model withtok
notices "ch07_deltanet without gnuplot" 3 env PATH=/nonexistent "$(bin ch07_deltanet/ch07_deltanet)" --model withtok \
    --plot=ascii
notices "ch07_deltanet --ids" 1 "$(bin ch07_deltanet/ch07_deltanet)" --model "$tiny" --ids 1,2 --plot=none
notices "ch07_deltanet --ids --sep" 1 "$(bin ch07_deltanet/ch07_deltanet)" --model "$tiny" --ids 1,2 --sep 3 --plot=none
notices "ch07_toy" 3 "$(bin ch07_deltanet/ch07_toy)"
notices "ch07_toy without gnuplot" 3 env PATH=/nonexistent "$(bin ch07_deltanet/ch07_toy)" --plot=ascii
notices "ch07_model walkthrough" 1 "$(bin ch07_deltanet/ch07_model)" --model "$tiny" -n 2
notices "ch07_model --ids: summary, dump, state" 3 "$(bin ch07_deltanet/ch07_model)" --model "$tiny" --ids 1,2 -n 2 \
    --dump d7.st --save-state s7.st
notices "ch07_model --prompt" 1 "$(bin ch07_deltanet/ch07_model)" --model withtok --prompt abc -n 2

# ---- errors ----------------------------------------------------------------------------
for d in ch01_weights/ch01_weights ch01_weights/make_synthetic ch02_embedding/ch02_embedding ch03_norm/ch03_norm \
    ch04_mlp/ch04_mlp ch05_rope/ch05_rope ch06_attention/ch06_attention ch07_deltanet/ch07_deltanet \
    ch07_deltanet/ch07_toy ch07_deltanet/ch07_model; do
    error "${d#*/} --frobnicate" "$(bin $d)" --frobnicate
done
error "ch02 --encode without tokenizer.json" "$(bin ch02_embedding/ch02_embedding)" --model "$tiny" --encode abc
error "ch03 --ids outside the vocabulary" "$(bin ch03_norm/ch03_norm)" --model "$tiny" --ids 5000
error "ch05 unwritable --dump" "$(bin ch05_rope/ch05_rope)" --model "$tiny" --dump "$tmp/no/such/d.st"
error "ch07_model --dump without a prompt" "$(bin ch07_deltanet/ch07_model)" --model "$tiny" --dump d.st
error "ch07_model --prompt without a tokenizer" "$(bin ch07_deltanet/ch07_model)" --model "$tiny" --prompt abc
error "a model folder that is not there" "$(bin ch06_attention/ch06_attention)" --model "$tmp/nowhere"

[ $failures -eq 0 ] || { echo "$failures check(s) failed"; exit 1; }
