#!/bin/sh
# The compile matrix behind `make check-headers` and `make check-programs`.
#
#   scripts/check_build.sh headers    every header alone, C99 and C++11,
#                                   declarations and implementation, per
#                                   option set, per compiler, per CBLAS header
#   scripts/check_build.sh programs   every program (cli/, examples/, bench/,
#                                   scripts/) compiled and linked
#                                   per compiler, with CBLAS (each compiler
#                                   the next header) and with UMAP_NO_BLAS
#
# What is compiled once is not compiled again: umap_vk.h's implementation
# holds umap.h's, which holds umap_knn.h's (the same code, whichever header
# asked for it), so the option sets (UMAP_NO_BLAS, UMAP_STATIC,
# UMAP_NO_THREADS, UMAP_NO_SIMD) compile umap_vk.h's implementation, and the
# two smaller headers' implementations are compiled plainly, alone (their
# declarations under every option set). A program's own code does not
# depend on the CBLAS header; the headers are checked against each.
#
# Everything is compiled with -Wall -Wextra -Werror. The CBLAS headers are
# the ones a Debian user can have: netlib's (libblas-dev) and OpenBLAS's
# (libopenblas-dev, which also makes itself the default cblas.h and pulls
# in <complex.h>, whose macro I must never collide with our names). Each is
# chosen explicitly through a one-line cblas.h in a directory of our own, so
# the check does not depend on which one the system's alternatives point at.
#
# Environment (the Makefile passes these):
#   BUILD          output directory (default build)
#   COMPILERS      "cc:c++ ..." pairs (default "gcc:g++ clang:clang++"; a pair
#                  whose C compiler is missing is skipped with a line saying so)
#   CHK_OPT        optimisation for the header checks (default -O2: it turns on
#                  the warnings that need data-flow analysis)
#   VK_DEFS        -DUMAP_VULKAN when the Vulkan headers are installed
#   LDLIBS         libraries for the programs (default -lblas -lpthread -lm -ldl)
#   REQUIRE_BOTH_BLAS=1   fail instead of skipping when a CBLAS header is absent
#   JOBS           compiles at a time (default: the number of processors)
#
# Each compile is queued as a small script, the queue runs JOBS at a time,
# and the results are printed in queue order.
set -eu

mode=${1:?usage: scripts/check_build.sh headers|programs}
BUILD=${BUILD:-build}
COMPILERS=${COMPILERS:-gcc:g++ clang:clang++}
CHK_OPT=${CHK_OPT:--O2}
VK_DEFS=${VK_DEFS:-}
LDLIBS=${LDLIBS:--lblas -lpthread -lm -ldl}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
out=$BUILD/chk
queue=$out/queue
rm -rf "$queue"
mkdir -p "$out" "$queue"

# ---- the CBLAS headers: name=directory holding a cblas.h that selects it
blas_sets=""
add_blas() { # name, the header's path
    mkdir -p "$out/cblas-$1"
    printf '/* selects %s for the compile matrix */\n#include "%s"\n' "$2" "$2" > "$out/cblas-$1/cblas.h"
    blas_sets="$blas_sets $1"
}
find_first() { for f in "$@"; do [ -f "$f" ] && { echo "$f"; return; }; done; echo ""; }
netlib=$(find_first /usr/include/*/cblas-netlib.h /usr/include/cblas-netlib.h)
openblas=$(find_first /usr/include/*/openblas-pthread/cblas.h /usr/include/*/openblas-openmp/cblas.h \
                      /usr/include/*/openblas-serial/cblas.h /usr/include/openblas/cblas.h)
for pair in "netlib:$netlib:libblas-dev" "openblas:$openblas:libopenblas-dev"; do
    name=${pair%%:*}; rest=${pair#*:}; path=${rest%%:*}; pkg=${rest#*:}
    if [ -n "$path" ]; then add_blas "$name" "$path"
    elif [ "${REQUIRE_BOTH_BLAS:-0}" = 1 ]; then echo "check_build: no $name cblas.h (Debian: $pkg)" >&2; exit 1
    else echo "  ($name cblas.h not installed: its column is skipped; Debian: $pkg)"; fi
done

n_queued=0
say() { n_queued=$((n_queued + 1)); printf '%s\n' "$*" > "$queue/$(printf %05d $n_queued).say"; }
chk() { # label, log stem, command...: queued, run by run_queue
    label=$1; stem=$2; shift 2
    n_queued=$((n_queued + 1))
    job=$queue/$(printf %05d $n_queued)
    printf '%s\n' "$label" > "$job.label"
    printf '%s\n' "$*" > "$job.cmd"
    { printf 'if %s > "%s.log" 2>&1; then : > "%s.ok"; fi\n' "$*" "$stem" "$job"; printf '%s\n' "$stem" > "$job.stem"; } > "$job.sh"
}
run_queue() {
    failed=0
    ls "$queue"/*.sh 2>/dev/null | xargs -r -n 1 -P "$JOBS" sh
    for f in "$queue"/*.say "$queue"/*.label; do [ -e "$f" ] && echo "$f"; done | sort | while read -r f; do
        job=${f%.*}
        case $f in
            *.say) cat "$f" ;;
            *) printf '  %-52s ' "$(cat "$f")"
               if [ -e "$job.ok" ]; then echo ok
               else echo FAILED; sed 's/^/    /' "$job.cmd"; sed 's/^/    /' "$(cat "$job.stem").log" | head -40
                    : > "$queue/failed"; fi ;;
        esac
    done
    [ ! -e "$queue/failed" ]
}
stem_of() { echo "$out/$(echo "$*" | tr -cs 'A-Za-z0-9+.\n' '_')"; }

have() { command -v "$1" > /dev/null 2>&1; }

headers() { # cc, cxx
    cc=$1; cxx=$2
    cflags="-std=c99 -Wall -Wextra -Werror -pedantic $CHK_OPT -I."
    cxxflags="-std=c++11 -Wall -Wextra -Werror $CHK_OPT -I."
    for h in umap_knn.h umap.h umap_vk.h; do
        case $h in
            umap_knn.h) guard=UMAP_KNN_IMPLEMENTATION; extra= ;;
            umap.h)     guard=UMAP_IMPLEMENTATION;     extra= ;;
            umap_vk.h)  guard=UMAP_VK_IMPLEMENTATION;  extra=$VK_DEFS ;;
        esac
        b=$out/${h%.h}
        printf '#include "%s"\ntypedef int umap_chk_decl_only;\n' $h > "$b-decl.c"
        printf '#define %s\n#include "%s"\n' $guard $h > "$b-impl.c"
        printf '#include "%s"\n#include "%s"\n#define %s\n#include "%s"\n' $h $h $guard $h > "$b-twice.c"
        # what OpenBLAS's cblas.h does to the translation unit, without OpenBLAS
        printf '#include <complex.h>\n#define %s\n#include "%s"\n' $guard $h > "$b-complex.c"
        for f in decl impl twice; do cp "$b-$f.c" "$b-$f.cpp"; done
        say "$h with $cc / $cxx ($guard${extra:+ $extra})"
        for kind in decl impl; do
            for opt in "" -DUMAP_NO_BLAS "-DUMAP_STATIC -Wno-unused-function"; do
                if [ $kind = impl ] && [ -n "$opt" ] && [ $h != umap_vk.h ]; then continue; fi
                chk "c99   $kind $opt" "$(stem_of $cc $h c $kind $opt)" $cc $cflags $extra $opt -c "$b-$kind.c" -o /dev/null
                chk "c++11 $kind $opt" "$(stem_of $cxx $h cxx $kind $opt)" $cxx $cxxflags $extra $opt -c "$b-$kind.cpp" -o /dev/null
            done
        done
        if [ $h = umap_vk.h ]; then
            chk "c99   impl -DUMAP_NO_THREADS" "$(stem_of $cc $h nothreads)" $cc $cflags $extra -DUMAP_NO_THREADS -c "$b-impl.c" -o /dev/null
            chk "c++11 impl -DUMAP_NO_THREADS" "$(stem_of $cxx $h nothreads)" $cxx $cxxflags $extra -DUMAP_NO_THREADS -c "$b-impl.cpp" -o /dev/null
            chk "c99   impl -DUMAP_NO_SIMD" "$(stem_of $cc $h nosimd)" $cc $cflags $extra -DUMAP_NO_SIMD -c "$b-impl.c" -o /dev/null
            chk "c++11 impl -DUMAP_NO_SIMD" "$(stem_of $cxx $h nosimd)" $cxx $cxxflags $extra -DUMAP_NO_SIMD -c "$b-impl.cpp" -o /dev/null
        fi
        if [ $h = umap.h ]; then
            # the compiler half alone: it needs nothing of UMAP's, and declares
            # none of it (names UMAP declares would clash with these)
            printf '#define UMAP_IMPLEMENTATION\n#define UMAP_COMPILER_ONLY\n#include "umap.h"\n%s\n' \
                'typedef int umap_config, umap_model, umap_refiner, umap_fit;' > "$b-compiler.c"
            cp "$b-compiler.c" "$b-compiler.cpp"
            chk "c99   impl -DUMAP_COMPILER_ONLY" "$(stem_of $cc $h compiler)" $cc $cflags -c "$b-compiler.c" -o /dev/null
            chk "c++11 impl -DUMAP_COMPILER_ONLY" "$(stem_of $cxx $h compiler)" $cxx $cxxflags -c "$b-compiler.cpp" -o /dev/null
        fi
        chk "c99   decl twice, then impl" "$(stem_of $cc $h twice)" $cc $cflags $extra -c "$b-twice.c" -o /dev/null
        chk "c++11 decl twice, then impl" "$(stem_of $cxx $h twice)" $cxx $cxxflags $extra -c "$b-twice.cpp" -o /dev/null
        chk "c99   impl after <complex.h>" "$(stem_of $cc $h complex)" $cc $cflags $extra -c "$b-complex.c" -o /dev/null
        if [ "$h" = umap_vk.h ] && [ -n "$VK_DEFS" ]; then
            chk "c99   impl without UMAP_VULKAN" "$(stem_of $cc $h novk)" $cc $cflags -c "$b-impl.c" -o /dev/null
            chk "c++11 impl without UMAP_VULKAN" "$(stem_of $cxx $h novk)" $cxx $cxxflags -c "$b-impl.cpp" -o /dev/null
        fi
        # umap_vk.h's implementation brings the other two along: one per CBLAS header
        if [ "$h" = umap_vk.h ]; then
            for blas in $blas_sets; do
                chk "c99   impl, $blas cblas.h" "$(stem_of $cc $h $blas)" $cc $cflags $extra -I"$out/cblas-$blas" -c "$b-impl.c" -o /dev/null
                chk "c++11 impl, $blas cblas.h" "$(stem_of $cxx $h $blas cxx)" $cxx $cxxflags $extra -I"$out/cblas-$blas" -c "$b-impl.cpp" -o /dev/null
            done
        fi
    done
    for h in cli/umap_io.h cli/umap_svg.h cli/umap_digits.h; do
        g=$(basename $h | tr a-z. A-Z_ | sed 's/_H$/_IMPLEMENTATION/')
        b=$out/$(basename $h .h)
        printf '#include "umap.h"\n#define %s\n#include "%s"\n' $g $h > "$b-impl.c"; cp "$b-impl.c" "$b-impl.cpp"
        say "$h with $cc / $cxx ($g)"
        chk "c99   impl" "$(stem_of $cc $h c)" $cc $cflags -c "$b-impl.c" -o /dev/null
        chk "c++11 impl" "$(stem_of $cxx $h cxx)" $cxx $cxxflags -c "$b-impl.cpp" -o /dev/null
    done
}

programs() { # cc, the CBLAS header its programs take
    cc=$1
    for blas in $2 noblas; do
        if [ $blas = noblas ]; then sel=-DUMAP_NO_BLAS; libs=$(echo " $LDLIBS " | sed 's/ -lblas / /')
        else sel=-I$out/cblas-$blas; libs=$LDLIBS; fi
        say "programs (cli, examples, bench, scripts) with $cc, ${blas} (${sel})"
        for src in cli/*.c examples/*.c bench/*.c scripts/*.c; do
            name=$(basename "$src" .c)
            # -O1: fast to compile, and it still runs the data-flow warnings
            chk "$name" "$(stem_of prog $cc $blas $name)" \
                $cc -std=c99 -O1 -Wall -Wextra -Werror -I. $VK_DEFS $sel "$src" -o "$out/prog-$cc-$blas-$name" $libs
        done
    done
}

blas_turn=$blas_sets # programs: each compiler takes the next CBLAS header
for pair in $COMPILERS; do
    cc=${pair%%:*}; cxx=${pair#*:}
    if ! have "$cc" || ! have "$cxx"; then echo "  ($cc / $cxx not installed: skipped)"; continue; fi
    set -- $blas_turn
    blas_now=${1:-}
    if [ $# -gt 0 ]; then shift; blas_turn="$* $blas_now"; fi
    case $mode in
        headers) headers "$cc" "$cxx" ;;
        programs) programs "$cc" "$blas_now" ;;
        *) echo "usage: scripts/check_build.sh headers|programs" >&2; exit 2 ;;
    esac
done
if ! run_queue; then echo "check_build $mode: FAILED (see above)"; exit 1; fi
echo "check_build $mode: every variant compiled cleanly ($n_queued steps, $JOBS at a time)"
