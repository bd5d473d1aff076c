#!/bin/sh
# The WebAssembly row of the cross-platform matrix (scripts/cross.sh wasm):
# the C smoke test (scripts/c_smoke_main.c) and the demo
# (examples/umap_demo.c) built with Emscripten, single-threaded and without
# BLAS, and run under node. The demo must keep its "trustworthiness 0.98"
# and write umap_demo.svg (NODERAWFS: the program sees the real files).
#
#   scripts/cross_wasm.sh      (from the repository root; writes build/cross/wasm/)
#
# Exit status 77 with a "skipped: " line when emcc or node is missing
# (Debian: emscripten nodejs node-acorn), 1 when a step fails.
# shellcheck disable=SC2086 # $EMFLAGS splits into its flags on purpose
set -eu
BUILD=${BUILD:-build}
out=$BUILD/cross/wasm
# shellcheck source=scripts/emcc_env.sh
. scripts/emcc_env.sh
fail() { echo "cross_wasm: FAILED: $*"; exit 1; }
rm -rf "$out"
mkdir -p "$out"

t0=$(now)
emcc $EMFLAGS scripts/c_smoke_main.c -o "$out/c_smoke.js" || fail "emcc scripts/c_smoke_main.c"
t1=$(now)
limit 60 node "$out/c_smoke.js" > "$out/c_smoke.log" 2>&1 ||
    fail "the C smoke test: $(tail -n 2 "$out/c_smoke.log" | cut -c 1-200)"
grep -q "c_smoke: passed" "$out/c_smoke.log" || fail "the C smoke test (see $out/c_smoke.log)"
echo "cross_wasm: c_smoke passed (built in $((t1 - t0)) s)"

t0=$(now)
emcc $EMFLAGS -sNODERAWFS=1 examples/umap_demo.c -o "$out/umap_demo.js" || fail "emcc examples/umap_demo.c"
t1=$(now)
(cd "$out" && limit 300 node umap_demo.js > demo.log 2>&1) || fail "the demo (see $out/demo.log)"
t2=$(now)
grep -q "trustworthiness 0.98" "$out/demo.log" || fail "the demo's quality (see $out/demo.log)"
grep -q "<svg" "$out/umap_demo.svg" || fail "the demo's umap_demo.svg"
echo "cross_wasm: the demo passed (built in $((t1 - t0)) s, ran in $((t2 - t1)) s under node $(node --version)):"
grep -E "^  total|^quality" "$out/demo.log"
