#!/bin/sh
# Proves that umap_vk.h's push-constant checks (>>layouts) fail the build.
# Copies of the headers whose umap_vk__pc_refine.a drifts from
# shaders/refine.comp's `float a` (widened to double; retyped to uint32_t,
# the same size) must not compile, as C99 or as C++11, and must fail on that
# member's assertion; the unchanged copy must compile, so the failure is
# the check's. `make check-shaders` runs it. Needs the Vulkan headers.
#
#   BUILD     output directory (default build)
#   CC, CXX   compilers (default cc, c++)
set -eu
BUILD=${BUILD:-build}
CC=${CC:-cc}
CXX=${CXX:-c++}
dir=$BUILD/pc_layout
rm -rf "$dir"
mkdir -p "$dir/good" "$dir/widened" "$dir/retyped"
printf '#define UMAP_VULKAN\n#define UMAP_VK_IMPLEMENTATION\n#include "umap_vk.h"\n' > "$dir/impl.c"
cp "$dir/impl.c" "$dir/impl.cc"
for d in good widened retyped; do cp umap.h umap_knn.h umap_vk.h "$dir/$d/"; done
# the members after a stay as they are
sed 's/^    float a, b, gamma, \(.*\);$/    double a; float b, gamma, \1;/' umap_vk.h > "$dir/widened/umap_vk.h"
sed 's/^    float a, b, gamma, \(.*\);$/    uint32_t a; float b, gamma, \1;/' umap_vk.h > "$dir/retyped/umap_vk.h"
if cmp -s umap_vk.h "$dir/widened/umap_vk.h"; then
    echo "check_pc_layout: umap_vk__pc_refine's 'float a, b, gamma, ...;' is gone: update this script" >&2
    exit 1
fi
# one compile: $1 = compiler and flags, $2 = source, $3 = header copy; its messages in $dir/log
compile() { $1 -fsyntax-only -Wall -Wextra -Werror -I"$3" "$2" > "$dir/log" 2>&1; }
for c in "$CC -std=c99:impl.c:umap_vk__check_pc_refine_a" "$CXX -std=c++11:impl.cc:umap_vk__pc_refine.a: not where"; do
    cmd=${c%%:*}; rest=${c#*:}; src=${rest%%:*}; want=${rest#*:}
    if ! compile "$cmd" "$dir/$src" "$dir/good"; then
        cat "$dir/log" >&2
        echo "check_pc_layout: $cmd: the unchanged header does not compile" >&2
        exit 1
    fi
    for bad in widened retyped; do
        if compile "$cmd" "$dir/$src" "$dir/$bad"; then
            echo "check_pc_layout: $cmd: umap_vk__pc_refine.a $bad, and it compiled" >&2
            exit 1
        fi
        if ! grep -q "$want" "$dir/log"; then
            cat "$dir/log" >&2
            echo "check_pc_layout: $cmd: umap_vk__pc_refine.a $bad failed, but not on its assertion" >&2
            exit 1
        fi
        echo "check_pc_layout: $cmd: umap_vk__pc_refine.a $bad fails the build: $(grep -m1 "$want" "$dir/log")"
    done
done
