#!/bin/sh
# ch07_toy prints the book's block byte for byte (tests/data/ch07_toy_book_output.txt,
# copied from the book's 输出 block after ch07_toy.py), whatever happens to the plots:
# with gnuplot, without it, drawn in the terminal, with the other randn variant.
# Also: --seed, --help and bad options.
set -u
root=$(pwd)
bin="$root/${BINDIR:-}ch07_deltanet/ch07_toy"
golden="$root/ch07_deltanet/tests/data/ch07_toy_book_output.txt"
[ -x "$bin" ] || { echo "FAIL: $bin not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failed=0

ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; failed=1; }
# same_as_book NAME FILE: FILE is the book's block exactly
same_as_book() {
    if cmp -s "$golden" "$2"; then ok "$1: stdout is the book's block"
    else bad "$1: stdout differs from the book's block:"; diff "$golden" "$2" | head -20; fi
}
has_gnuplot=no
command -v gnuplot >/dev/null 2>&1 && has_gnuplot=yes

# 1. The default run: the block on stdout, three PNGs under plots/, notices on stderr.
"$bin" > out.txt 2> err.txt; rc=$?
[ $rc -eq 0 ] && ok "default run exits 0" || bad "default run exit status $rc"
same_as_book "default run" out.txt
if [ $has_gnuplot = yes ]; then
    for f in ch07_decay ch07_capacity ch07_position; do
        if [ "$(head -c 8 "plots/$f.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
            ok "plots/$f.png is a PNG"
        else bad "plots/$f.png missing or not a PNG"; fi
        [ -s "plots/$f.dat" ] && [ -s "plots/$f.gp" ] && ok "plots/$f.dat and .gp written" || bad "plots/$f.dat/.gp missing"
        grep -q "图已保存到 plots/$f.png" err.txt && ok "stderr says it wrote $f.png" || bad "no notice for $f.png on stderr"
    done
else
    echo "note: gnuplot not installed here, PNG checks skipped"
fi

# 2. No gnuplot on the PATH: the same block, exit 0, and stderr says the plots were skipped.
mkdir nognuplot && cd nognuplot || exit 1
PATH=/nonexistent "$bin" > out.txt 2> err.txt; rc=$?
[ $rc -eq 0 ] && ok "without gnuplot: exits 0" || bad "without gnuplot: exit status $rc"
same_as_book "without gnuplot" out.txt
[ "$(grep -c '没有找到 gnuplot，跳过了 plots/ch07_.*png' err.txt)" -eq 3 ] \
    && ok "without gnuplot: stderr says each plot was skipped" || { bad "without gnuplot: no skip notices"; cat err.txt; }
[ ! -e plots/ch07_decay.png ] && ok "without gnuplot: no PNG" || bad "without gnuplot: a PNG appeared"
cd .. || exit 1

# 3. --plot=none draws nothing; --plot=ascii draws in the terminal, on stderr only.
mkdir none && cd none || exit 1
"$bin" --plot=none > out.txt 2> err.txt
same_as_book "--plot=none" out.txt
[ ! -e plots ] && [ ! -s err.txt ] && ok "--plot=none: no plots folder, nothing on stderr" || bad "--plot=none wrote something"
cd .. || exit 1
if [ $has_gnuplot = yes ]; then
    "$bin" --plot ascii > out.txt 2> err.txt
    same_as_book "--plot ascii" out.txt
    grep -q "上次写入之后过了多少步" err.txt && grep -q "第几个写进去的（1 = 最早写的" err.txt \
        && ok "--plot=ascii: figures drawn on stderr" || bad "--plot=ascii: no terminal drawing on stderr"
fi

# 4. The libm variant of PyTorch's randn prints the same lines.
"$bin" --rng=libm --plot=none > out.txt 2> err.txt
same_as_book "--rng=libm" out.txt

# 5. --seed: 0 is the book's; another seed keeps parts 1-3 and changes part 4.
"$bin" --seed 0 --plot=none > out.txt 2> err.txt
same_as_book "--seed 0" out.txt
"$bin" --seed=1 --plot=none > seed1.txt 2> err.txt; rc=$?
[ $rc -eq 0 ] && ok "--seed=1 exits 0" || bad "--seed=1 exit status $rc"
head -n 11 "$golden" > want_head.txt
head -n 11 seed1.txt > got_head.txt
cmp -s want_head.txt got_head.txt && ok "--seed=1: parts 1-3 and the orthogonal line unchanged" || bad "--seed=1 changed parts 1-3"
if [ "$(wc -l < seed1.txt)" -eq 13 ] && ! cmp -s "$golden" seed1.txt; then ok "--seed=1: part 4 moves"
else bad "--seed=1: expected 13 lines with different part-4 numbers"; fi

# 6. --help, and bad input: one clear line on stderr, nothing on stdout, non-zero exit.
"$bin" --help > out.txt 2> err.txt; rc=$?
[ $rc -eq 0 ] && head -n 1 out.txt | grep -q '^usage: ch07_toy' && [ "$(wc -l < out.txt)" -le 24 ] \
    && ok "--help: usage on stdout, one screen" || bad "--help (exit $rc)"
for args in "--frobnicate" "--seed abc" "--seed=-1" "--seed=18446744073709551616" "--seed" "--plot=svg" "--rng=avx"; do
    # shellcheck disable=SC2086
    "$bin" $args > out.txt 2> err.txt; rc=$?
    if [ $rc -ne 0 ] && [ ! -s out.txt ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q '^ch07_toy: ' err.txt; then
        ok "'$args' rejected: $(cat err.txt)"
    else bad "'$args': exit $rc, stdout $(wc -c < out.txt) bytes, stderr: $(cat err.txt)"; fi
done

exit $failed
