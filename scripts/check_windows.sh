#!/bin/sh
# Windows x86-64 through mingw-w64 and Wine: the demo and the umap program
# built with the Win32 threads (UMAP_NO_BLAS), run under wine: the demo's
# fit, then a fit saved to a model that a second process loads to place new
# rows, over an output that already exists (the staged rename replaces it).
#
#   scripts/check_windows.sh      (make check-windows)
#
# Skips, saying so, where x86_64-w64-mingw32-gcc or wine is missing (Debian:
# gcc-mingw-w64-x86-64 wine64). Exit status 1 when a step fails.
set -eu
BUILD=${BUILD:-build}
out=$BUILD/windows
cc=x86_64-w64-mingw32-gcc
for tool in $cc wine; do
    if ! command -v $tool > /dev/null 2>&1; then
        echo "check_windows: $tool not installed: skipped (Debian: gcc-mingw-w64-x86-64 wine64)"
        exit 0
    fi
done
rm -rf "$out"
mkdir -p "$out"
flags="-std=c99 -O2 -Wall -Wextra -Werror -DUMAP_NO_BLAS -I."
$cc $flags examples/umap_demo.c -o "$out/umap_demo.exe" -lm
$cc $flags cli/umap.c -o "$out/umap.exe" -lm
# no Mono or Gecko: a fresh prefix would ask to download them
export WINEDEBUG=-all WINEPREFIX="$PWD/$out/wineprefix" WINEDLLOVERRIDES="mscoree,mshtml="
fail() { echo "check_windows: FAILED: $*"; exit 1; }
(cd "$out" && wine ./umap_demo.exe > demo.log 2>&1) || fail "the demo (see $out/demo.log)"
grep -q "trustworthiness 0.98" "$out/demo.log" || fail "the demo's quality (see $out/demo.log)"
(cd "$out" && wine ./umap.exe fit --synthetic 2000 --threads 2 --save m.safetensors --embedding e.npy --quiet) ||
    fail "umap fit"
(cd "$out" && wine ./umap.exe fit --synthetic 2000 --threads 2 --save m.safetensors --embedding e.npy --quiet) ||
    fail "umap fit over its own outputs"
(cd "$out" && wine ./umap.exe transform --model m.safetensors --input e.npy --output t.npy --quiet 2> t.log) &&
    fail "transform of 2-column rows by a 256-column model was accepted"
grep -q "256" "$out/t.log" || fail "transform's refusal does not name the model's width (see $out/t.log)"
ls "$out"/.*.tmp > /dev/null 2>&1 && fail "a staged temporary was left behind"
echo "check_windows: the demo, fit (twice, over its outputs) and a refused transform ran under wine"
