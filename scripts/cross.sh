#!/bin/bash
# The cross-platform matrix (make cross): each row builds the library for one
# platform with Debian's cross tools and runs it there, under an emulator
# where the platform is not this machine. Rows whose tools are missing are
# skipped, saying which package brings them; a row that fails fails the run.
#
#   scripts/cross.sh [ROW...]     (default: every row)
#
# Rows (the longest first, as they run in parallel): s390x windows riscv64
# armhf aarch64 tcc wasm web mcu
# Each row's output goes to build/cross/ROW.log; rows run CROSS_JOBS at a
# time (default: the number of cores). CROSS_REQUIRE_ALL=1 (CI) makes a
# skipped row a failure.
set -u
BUILD=${BUILD:-build}
OUT=$BUILD/cross
JOBS=${CROSS_JOBS:-$(nproc 2>/dev/null || echo 2)}
ALL_ROWS="s390x windows riscv64 armhf aarch64 tcc wasm web mcu"
ROWS=${*:-$ALL_ROWS}
GTEST_SRC=/usr/src/googletest/googletest
mkdir -p "$OUT"

# The part of the gtest suite the emulated rows run: the files (every test
# in them) and the suites left out of them for time (qemu runs the
# vectorised kernels some tens of times slower than the machine).
EMULATED_TEST_FILES="test_base test_grad test_higher test_forward test_passes test_vmap test_op_table
    test_modelfile test_knn_ops test_sizes test_atomic_io test_cli_io test_run"
EMULATED_FILTER="-Sizes.Gzip*:CliIoGzip.*"
# s390x is there for its byte order: the files that read, write, hash and
# draw bits (the graph's arithmetic is the other rows' to run)
BIG_ENDIAN_TEST_FILES="test_base test_modelfile test_knn_ops test_sizes test_atomic_io test_cli_io test_run"

have() { command -v "$1" > /dev/null 2>&1; }

# need TOOL... PACKAGES: exits the row with status 77 (skipped) when a tool is missing
need() {
    pkgs=$1
    shift
    for t in "$@"; do
        if ! have "$t"; then
            echo "skipped: $t not installed (Debian: $pkgs)"
            exit 77
        fi
    done
}

# gtest_lib CXX DIR: gtest and gtest_main built from Debian's sources for a target
gtest_lib() {
    if [ ! -f "$GTEST_SRC/src/gtest-all.cc" ]; then
        echo "skipped: $GTEST_SRC not there (Debian: libgtest-dev)"
        exit 77
    fi
    [ -f "$2/libgtest.a" ] && return 0
    mkdir -p "$2"
    $1 -O1 -g0 -I"$GTEST_SRC" -I"$GTEST_SRC/include" -c "$GTEST_SRC/src/gtest-all.cc" -o "$2/gtest-all.o" &&
        $1 -O1 -g0 -I"$GTEST_SRC/include" -c "$GTEST_SRC/src/gtest_main.cc" -o "$2/gtest_main.o" &&
        ar rcs "$2/libgtest.a" "$2/gtest-all.o" "$2/gtest_main.o"
}

# test_suite CC CXX DIR "FILES" CFLAGS LIBS: part of the gtest suite for a
# target, built with its cross compilers (UMAP_NO_BLAS)
test_suite() {
    cc=$1 cxx=$2 dir=$3
    gtest_lib "$cxx" "$dir/gtest" || return 1
    libs="impl"
    case " $(echo $4) " in *" test_umap "*) libs="$libs impl_scalar" ;; esac # its SIMD-against-scalar checks
    objs=
    for f in $libs; do
        $cc -std=c99 -O2 -g0 -Wall -Wextra -Werror -DUMAP_NO_BLAS $5 -I. -c tests/$f.c -o "$dir/$f.o" || return 1
        objs="$objs $dir/$f.o"
    done
    $cc -std=c99 -O1 -g0 -Wall -Wextra -Werror $5 -I. -c tests/c_smoke.c -o "$dir/c_smoke.o" || return 1
    objs="$objs $dir/c_smoke.o"
    case " $(echo $4) " in
    *" test_cli_io "*) ;;
    *) # the file readers' implementation, which test_cli_io.cc holds otherwise
        printf '#include "umap.h"\n#define UMAP_IO_IMPLEMENTATION\n#include "cli/umap_io.h"\n' > "$dir/io.c"
        $cc -std=c99 -O1 -g0 -Wall -Wextra -Werror $5 -I. -c "$dir/io.c" -o "$dir/io.o" || return 1
        objs="$objs $dir/io.o" ;;
    esac
    for f in $4; do
        $cxx -std=c++14 -O0 -g0 -Wall -Wextra -Wno-psabi $5 -I. -isystem "$GTEST_SRC/include" -c tests/$f.cc -o "$dir/$f.o" || return 1
        objs="$objs $dir/$f.o"
    done
    $cxx $5 $objs -o "$dir/tests${7:-}" "$dir/gtest/libgtest.a" $6
}

row_linux() { # ARCH TRIPLET QEMU EXTRA_CFLAGS [TEST_FILES]
    arch=$1 triplet=$2 qemu=$3
    need "gcc-$triplet g++-$triplet qemu-user" "$triplet-gcc" "$triplet-g++" "$qemu"
    dir=$OUT/$arch
    mkdir -p "$dir"
    test_suite "$triplet-gcc" "$triplet-g++" "$dir" "${5:-$EMULATED_TEST_FILES}" "$4" "-lpthread -lm" || return 1
    export QEMU_LD_PREFIX=/usr/$triplet
    $qemu "$dir/tests" --gtest_filter="$EMULATED_FILTER" --gtest_brief=1 || return 1
    if [ "$arch" = s390x ]; then model_round_trip "$dir" "$qemu" "$triplet" || return 1; fi
}

# rows for the model files' round trips: six clusters in d columns, as CSV
# (text, so no machine's byte order is in it)
clusters_csv() {
    awk -v n="$1" -v d=32 'BEGIN { srand(1); for (i = 0; i < n; i++) { c = i % 6; line = "";
        for (j = 0; j < d; j++) line = line (j ? "," : "") sprintf("%.5f", (j % 6 == c ? 3 : 0) + rand() - 0.5);
        print line } }'
}

# Models and embeddings cross between this machine and the emulated one, in
# both directions: a model this machine saved (safetensors) places rows
# there, and one saved there (GGUF) places rows here; the encoder's
# coordinates agree to float rounding (the sums' order may differ with the
# vector width), the placement among kept rows to within a looser bound
# (its optimisation may amplify that rounding). The .npy files each side
# writes are read by the other.
model_round_trip() { # DIR QEMU TRIPLET
    dir=$1 qemu=$2
    host=$BUILD/umap close=$BUILD/npy_close
    for p in "$host" "$close"; do
        [ -x "$p" ] || { echo "$p not built (make $p)"; return 1; }
    done
    $3-gcc -std=c99 -O2 -g0 -Wall -Wextra -Werror -DUMAP_NO_BLAS -I. cli/umap.c -o "$dir/umap" -lpthread -lm || return 1
    clusters_csv 600 > "$dir/rows.csv"
    there() { $qemu "$dir/umap" "$@"; }
    q="--quiet --threads 2"
    set -e
    $host fit --input "$dir/rows.csv" --save "$dir/here.safetensors" --epochs 5 $q
    there fit --input "$dir/rows.csv" --save "$dir/there.gguf" --epochs 5 $q
    for m in here.safetensors there.gguf; do
        for side in host there; do
            run=$host
            [ $side = there ] && run=there
            $run transform --model "$dir/$m" --input "$dir/rows.csv" --rows 100 --output "$dir/$m.$side.enc.npy" --encoder-only $q
            $run transform --model "$dir/$m" --input "$dir/rows.csv" --rows 100 --output "$dir/$m.$side.place.npy" $q
        done
        $close "$dir/$m.host.enc.npy" "$dir/$m.there.enc.npy" 1e-5
        $close "$dir/$m.host.place.npy" "$dir/$m.there.place.npy" 1e-4
    done
    set +e
}

# Windows x86-64: mingw-w64 (its POSIX-threads g++ for gtest, which needs
# std::thread; the library itself uses Win32's threads) and Wine. The
# demo and the umap program (scripts/check_windows.sh), then the gtest
# files that need no POSIX file API (FIFOs, fork, file-size limits; the
# staged outputs' POSIX-only tests are left out inside test_atomic_io.cc).
WINDOWS_TEST_FILES="test_base test_grad test_higher test_forward test_passes test_vmap test_op_table
    test_knn_ops test_sizes test_modelfile test_knn test_transform test_limits test_progress test_autodiff
    test_fuzz test_umap test_init test_supervised test_atomic_io"
# left out for time: the quality on Fashion-MNIST, which is the platform's
# only through the C library's exp (the demo's quality is checked above)
WINDOWS_FILTER="-SupervisedQuality.*:TransformQuality.*"
row_windows() {
    need "gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 wine wine64" x86_64-w64-mingw32-gcc-posix x86_64-w64-mingw32-g++-posix wine
    BUILD=$BUILD sh scripts/check_windows.sh || return 1
    dir=$OUT/windows
    mkdir -p "$dir"
    for f in examples/*.c; do # the other examples build too
        [ "$f" = examples/umap_demo.c ] && continue # check_windows.sh built it
        x86_64-w64-mingw32-gcc -std=c99 -O1 -g0 -Wall -Wextra -Werror -DUMAP_NO_BLAS -I. "$f" \
            -o "$dir/$(basename "$f" .c).exe" -lm || return 1
    done
    test_suite x86_64-w64-mingw32-gcc-posix x86_64-w64-mingw32-g++-posix "$dir" "$WINDOWS_TEST_FILES" "" "-static -lm" .exe ||
        return 1
    WINEDEBUG=-all WINEPREFIX="$PWD/$BUILD/windows/wineprefix" WINEDLLOVERRIDES="mscoree,mshtml=" wine "$dir/tests.exe" --gtest_filter="$WINDOWS_FILTER" --gtest_brief=1
}

# tcc, a C99 compiler that is neither GCC nor Clang: the portable paths
# (no vector types, no target attributes, the pool's counters under a lock)
row_tcc() {
    need tcc tcc
    dir=$OUT/tcc
    mkdir -p "$dir"
    tcc -DUMAP_NO_BLAS -I. scripts/c_smoke_main.c -o "$dir/c_smoke" -lpthread -lm || return 1
    "$dir/c_smoke" || return 1
    tcc -DUMAP_NO_BLAS -I. examples/umap_demo.c -o "$dir/umap_demo" -lpthread -lm || return 1
    (cd "$dir" && ./umap_demo) > "$dir/demo.out" || { cat "$dir/demo.out"; return 1; }
    cat "$dir/demo.out"
    grep -q "trustworthiness 0.98" "$dir/demo.out" || return 1
    # every program and the tests' implementation file (umap_vk.h's
    # stand-ins included) build too; the umap program fits and places rows
    for f in cli/umap.c examples/*.c scripts/*.c; do
        tcc -DUMAP_NO_BLAS -I. "$f" -o "$dir/$(basename "$f" .c)" -lpthread -lm || return 1
    done
    tcc -DUMAP_NO_BLAS -I. -c tests/impl.c -o "$dir/impl.o" || return 1
    # a model tcc's build fitted places rows as gcc's build does: its
    # portable loops against the vector kernels and BLAS
    clusters_csv 600 > "$dir/rows.csv"
    set -e
    "$dir/umap" fit --input "$dir/rows.csv" --save "$dir/m.safetensors" --epochs 5 --quiet --threads 2
    for side in tcc gcc; do
        run=$dir/umap
        [ $side = gcc ] && run=$BUILD/umap
        $run transform --model "$dir/m.safetensors" --input "$dir/rows.csv" --rows 100 --encoder-only --quiet \
            --output "$dir/$side.npy"
    done
    "$BUILD/npy_close" "$dir/tcc.npy" "$dir/gcc.npy" 1e-5
    set +e
}

row() {
    case $1 in
    windows) row_windows ;;
    tcc) row_tcc ;;
    aarch64) row_linux aarch64 aarch64-linux-gnu qemu-aarch64 "" ;;
    # 64-bit file offsets, as a 32-bit program reading large files needs (and
    # qemu, on a 64-bit host, hands out 64-bit directory offsets)
    armhf) row_linux armhf arm-linux-gnueabihf qemu-arm "-D_FILE_OFFSET_BITS=64" ;;
    riscv64) row_linux riscv64 riscv64-linux-gnu qemu-riscv64 "" ;;
    s390x) row_linux s390x s390x-linux-gnu qemu-s390x "" "$BIG_ENDIAN_TEST_FILES" ;;
    wasm | web | mcu) BUILD=$BUILD sh "scripts/cross_$1.sh" ;;
    *) echo "no row named $1 (rows: $ALL_ROWS)"; return 2 ;;
    esac
}

# runs the rows, JOBS at a time, and prints one line each
for r in $ROWS; do
    rm -f "$OUT/$r.status"
    (start=$(date +%s); (row "$r") > "$OUT/$r.log" 2>&1; rc=$?; echo "$rc $(( $(date +%s) - start ))" > "$OUT/$r.status") &
    while [ "$(jobs -pr | wc -l)" -ge "$JOBS" ]; do sleep 1; done
done
wait
failed=0
for r in $ROWS; do
    rc=1 secs=?
    [ -f "$OUT/$r.status" ] && read -r rc secs < "$OUT/$r.status"
    case $rc in
    0) echo "cross: $r passed (${secs} s)" ;;
    77)
        echo "cross: $r $(grep '^skipped' "$OUT/$r.log" | tail -1)"
        # CI installs every tool: there a skipped row is a failure
        if [ -n "${CROSS_REQUIRE_ALL:-}" ]; then failed=1; fi ;;
    *) echo "cross: $r FAILED (exit $rc, ${secs} s); the end of $OUT/$r.log:"; tail -20 "$OUT/$r.log"; failed=1 ;;
    esac
done
exit $failed
