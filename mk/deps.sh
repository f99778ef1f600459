#!/bin/sh
# Finds the system libraries the workbook needs and installs the missing ones,
# then writes the compiler flags for them into the file named by $1 (included by
# the Makefile). Everything comes from Debian's packages:
#
#   pkg-config name   Debian package     what for
#   libcjson          libcjson-dev       every JSON file (config, index, tokenizer)
#   check             check              unit tests
#   oniguruma         libonig-dev        the tokenizer's split regex
#   libutf8proc       libutf8proc-dev    NFC normalization
#   (command) gnuplot gnuplot-nox        plots (demos still run without it)
#   (a CJK font)      fonts-droid-fallback  Chinese labels in the plots
set -eu
out=${1:?usage: deps.sh OUTPUT.mk}

libs="libcjson:libcjson-dev check:check oniguruma:libonig-dev libutf8proc:libutf8proc-dev"
missing=""
command -v pkg-config >/dev/null 2>&1 || missing="pkg-config"
for pair in $libs; do
    pc=${pair%%:*} deb=${pair#*:}
    if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$pc"; then
        missing="$missing $deb"
    fi
done
command -v gnuplot >/dev/null 2>&1 || missing="$missing gnuplot-nox"
# Plot titles and axis labels are Chinese, like the book: a font that has CJK glyphs.
if ! command -v fc-list >/dev/null 2>&1 || [ -z "$(fc-list :lang=zh 2>/dev/null | head -n 1)" ]; then
    missing="$missing fonts-droid-fallback"
fi

if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ]; then sudo=""
    elif command -v sudo >/dev/null 2>&1; then sudo="sudo"
    else
        echo "deps: not root and no sudo; please run: apt-get install$missing" >&2
        exit 1
    fi
    echo "deps: the build needs Debian packages this machine lacks (JSON, unit tests, the tokenizer's regex" \
         "and NFC, plots: see mk/deps.sh); installing them now with ${sudo:+sudo }apt-get:$missing"
    export DEBIAN_FRONTEND=noninteractive
    # Try with the package lists we have; refresh them only when that fails.
    # shellcheck disable=SC2086
    if ! $sudo apt-get install -y -q --no-install-recommends $missing; then
        $sudo apt-get update -q
        $sudo apt-get install -y -q --no-install-recommends $missing
    fi
fi

for pair in $libs; do
    pc=${pair%%:*}
    pkg-config --exists "$pc" || { echo "deps: $pc still missing after install" >&2; exit 1; }
done

{
    echo "# written by mk/deps.sh — delete it to re-run the dependency check"
    echo "PKG_CFLAGS := $(pkg-config --cflags libcjson oniguruma libutf8proc)"
    echo "PKG_LIBS := $(pkg-config --libs libcjson oniguruma libutf8proc)"
    echo "CHECK_LIBS := $(pkg-config --libs check)"
} > "$out"
