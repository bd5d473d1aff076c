#!/bin/sh
# Does a change keep every result? Builds the umap program at REV (in a git
# worktree under $BUILD/same_bits) and in this checkout, runs the same jobs
# with both (fit in every keep mode, several metrics, supervised, unique, transform
# by the kept rows and by the encoder, knn exact and NN-Descent, eval; and a
# fit on Vulkan where the program has it, on whatever driver is there) and
# compares every output byte for byte.
#
#   scripts/same_bits.sh REV        e.g. scripts/same_bits.sh HEAD~3
#
# Exit status 0 when every output is the same, 1 when one differs (the
# table says which), 2 on a usage or build error. The data are drawn here
# by a fixed formula (awk), so the jobs need no data set.
set -eu
rev=${1:?usage: scripts/same_bits.sh REV}
BUILD=${BUILD:-build}
out=$BUILD/same_bits
base=$out/base
rm -rf "$out"
mkdir -p "$out/a" "$out/b"
git worktree remove --force "$base" 2>/dev/null || true
git worktree add --detach --force "$base" "$rev" >/dev/null || exit 2
(cd "$base" && make -s build/umap >/dev/null) || exit 2
make -s "$BUILD/umap" >/dev/null || exit 2

# 1,500 rows of 16 columns in 5 clusters, and their labels
awk 'BEGIN { print "c0,c1,c2,c3,c4,c5,c6,c7,c8,c9,c10,c11,c12,c13,c14,c15";
             for (i = 0; i < 1500; i++) { c = i % 5; line = "";
               for (j = 0; j < 16; j++) line = line (j ? "," : "") sprintf("%.6f", 3 * (j % 5 == c) + sin(i * 12.9898 + j * 78.233) * 0.8);
               print line } }' > "$out/x.csv"
awk 'BEGIN { print "label"; for (i = 0; i < 1500; i++) print i % 5 }' > "$out/y.csv"
# the same rows with the first 200 again at the end (unique merges them)
{ cat "$out/x.csv"; sed -n 2,201p "$out/x.csv"; } > "$out/xd.csv"

quick="--epochs 2 --refine-epochs 30 --seed 3 --threads 2 --quiet"
# name|arguments (fit's output files are named after the job)
jobs="default|fit --input X $quick
none|fit --input X $quick --keep-none
rows|fit --input X $quick --keep-data
sketch|fit --input X $quick --keep-sketch --keep-sample 500
cosine|fit --input X $quick --metric cosine --keep-data
manhattan|fit --input X $quick --metric manhattan
correlation|fit --input X $quick --metric correlation --keep-data
supervised|fit --input X $quick --target Y
spectral|fit --input X $quick --init spectral --n-components 3
unique|fit --input Z $quick --unique"
vk=""
if "$BUILD/umap" --version 2>/dev/null | grep -q "^vulkan *built in"; then vk=yes; fi

compare() { # label file
    if [ ! -e "$out/a/$2" ] && [ ! -e "$out/b/$2" ]; then return; fi
    if cmp -s "$out/a/$2" "$out/b/$2"; then printf '  %-28s same\n' "$1 $2"
    else printf '  %-28s DIFFERS\n' "$1 $2"; fi
}
run() { # side (a: the base, b: here), a name for its log, the program's arguments
    r_side=$1; r_log=$2; shift 2
    r_prog=$BUILD/umap
    [ "$r_side" = a ] && r_prog=$base/build/umap
    "$r_prog" "$@" > "$out/$r_side/$r_log.txt" 2>&1 || echo "exit $?" >> "$out/$r_side/$r_log.txt"
}
echo "scripts/same_bits.sh: $rev against the working tree"
echo "$jobs" | while IFS='|' read -r name args; do
    for side in a b; do
        set -- $(echo "$args" | sed "s#X#$out/x.csv#; s#Y#$out/y.csv#; s#Z#$out/xd.csv#")
        run $side "$name-fit" "$@" --save "$out/$side/$name.gguf" --embedding "$out/$side/$name.npy"
        run $side "$name-transform" transform --model "$out/$side/$name.gguf" --input "$out/x.csv" --rows 300 \
            --output "$out/$side/$name-t.npy" --quiet --threads 2
        run $side "$name-encoder" transform --model "$out/$side/$name.gguf" --input "$out/x.csv" --rows 300 \
            --output "$out/$side/$name-e.npy" --encoder-only --quiet --threads 2
    done
    for f in "$name.npy" "$name.gguf" "$name-t.npy" "$name-e.npy"; do compare "$name" "$f"; done
done > "$out/table.txt"
for side in a b; do
    run $side knn-exact knn --input "$out/x.csv" --k 10 --method exact --output "$out/$side/knn-exact.npy" \
        --distances "$out/$side/knn-exact-d.npy" --quiet --threads 2
    run $side knn-nnd knn --input "$out/x.csv" --k 10 --method nndescent --output "$out/$side/knn-nnd.npy" \
        --distances "$out/$side/knn-nnd-d.npy" --quiet --threads 2
    run $side eval eval --input "$out/x.csv" --embedding "$out/$side/default.npy" --labels "$out/y.csv" --threads 2
    sed -i 's/, [0-9.]* s)/)/' "$out/$side/eval.txt" # the time it took
    if [ -n "$vk" ]; then
        UMAP_VK_ALLOW_CPU=1 run $side vulkan fit --input "$out/x.csv" $quick --device vulkan \
            --embedding "$out/$side/vulkan.npy"
    fi
done
{
    for f in knn-exact.npy knn-exact-d.npy knn-nnd.npy knn-nnd-d.npy eval.txt vulkan.npy; do compare "other" "$f"; done
} >> "$out/table.txt"
cat "$out/table.txt"
git worktree remove --force "$base" >/dev/null 2>&1 || true
if grep -q DIFFERS "$out/table.txt"; then echo "same_bits: some outputs differ"; exit 1; fi
echo "same_bits: every output is the same"
