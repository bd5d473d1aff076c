#!/bin/sh
# Writes the seed corpus of fuzz/fuzz_readers.c into fuzz/corpus-readers:
# a few tiny valid files per format. Each seed starts with two selector
# bytes (the name the rest is read under, and a raw .f32 row width), see
# fuzz_readers.c. Needs printf and gzip.
set -eu
out=$(dirname "$0")/corpus-readers
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# seed NAME SELECTOR WIDTH: the selector bytes, then stdin
seed() { { printf "\\$(printf %03o "$2")\\$(printf %03o "$3")"; cat; } > "$out/$1"; }

# .npy v1: 2 x 3 <f4, then (4,) <i4 labels
npy_f4() {
  h="{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
  while [ $(( (10 + ${#h} + 1) % 64 )) -ne 0 ]; do h="$h "; done
  printf '\223NUMPY\001\000'; printf "\\$(printf %03o $(( ${#h} + 1 )))\\000"; printf '%s\n' "$h"
  printf '\000\000\200\077\000\000\000\100\000\000\100\100\000\000\200\100\000\000\240\100\000\000\300\100'
}
npy_i4() {
  h="{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }"
  while [ $(( (10 + ${#h} + 1) % 64 )) -ne 0 ]; do h="$h "; done
  printf '\223NUMPY\001\000'; printf "\\$(printf %03o $(( ${#h} + 1 )))\\000"; printf '%s\n' "$h"
  printf '\000\000\000\000\001\000\000\000\002\000\000\000\001\000\000\000'
}
# IDX: 3 images of 2 x 2 u8, and 3 u8 labels
idx_images() { printf '\000\000\010\003\000\000\000\003\000\000\000\002\000\000\000\002'; printf '\001\002\003\004\005\006\007\010\011\012\013\014'; }
idx_labels() { printf '\000\000\010\001\000\000\000\003'; printf '\000\001\002'; }
csv_data() { printf 'a,b,c\n1,2,3\n4.5,-6,7e2\n'; }
csv_labels() { printf '0\n1\n2\n1\n'; }
f32_data() { printf '\000\000\200\077\000\000\000\100\000\000\100\100\000\000\200\100'; }

npy_f4 | seed npy-f4 0 0
npy_i4 | seed npy-i4 0 0
csv_data | seed csv-data 1 0
csv_labels | seed csv-labels 1 0
idx_images | seed idx-images 2 0
idx_labels | seed idx-labels 2 0
f32_data | seed f32-2 4 1
printf '\000\001\002\001' | seed u8-labels 5 0
npy_f4 | gzip -9n | seed npy-f4-gz 6 0
csv_data | gzip -9n | seed csv-gz 7 0
idx_images | gzip -9n | seed idx-images-gz 8 0
idx_labels | gzip -1n | seed idx-labels-gz 3 0
f32_data | gzip -9n | seed f32-gz 9 3
printf '\000\001\002\001' | gzip -9n | seed u8-gz 10 0
# two gzip members
{ csv_data | gzip -n; printf '8,9,10\n' | gzip -n; } | seed csv-2-members 7 0
# svmlight text (selector 13: f.svm; 14: f.svm.gz)
printf '1 qid:2 1:0.5 3:2 # c\n-1\n0 2:1e3\n' | seed svm 13 0
printf '1 0:1 2:2\n2 1:4\n' | gzip -9n | seed svm-gz 14 5
# scipy's save_npz, stored and deflated (selector 12: f.npz), when python3
# with numpy is here: csr with int32 indices, coo with int64 ones
if command -v python3 > /dev/null && python3 -c 'import numpy' 2> /dev/null; then
  python3 - "$tmp" <<'PY'
import sys, zipfile, io, numpy as np
def npz(path, members, method):
    with zipfile.ZipFile(path, 'w', method) as z:
        for name, arr in members.items():
            b = io.BytesIO(); np.lib.format.write_array(b, np.asarray(arr)); z.writestr(name + '.npy', b.getvalue())
csr = {'indices': np.array([1, 3, 0, 2], np.int32), 'indptr': np.array([0, 2, 2, 4], np.int32),
       'format': np.array(b'csr'), 'shape': np.array([3, 4]), 'data': np.array([1., 2, 3, 4])}
coo = {'row': np.array([2, 0, 2], np.int64), 'col': np.array([0, 3, 0], np.int64),
       'format': np.array(b'coo'), 'shape': np.array([3, 4]), 'data': np.array([1, 2, 3], np.float32)}
npz(sys.argv[1] + '/csr.npz', csr, zipfile.ZIP_STORED)
npz(sys.argv[1] + '/csr-deflated.npz', csr, zipfile.ZIP_DEFLATED)
npz(sys.argv[1] + '/coo.npz', coo, zipfile.ZIP_DEFLATED)
PY
  seed npz-csr 12 0 < "$tmp/csr.npz"
  seed npz-csr-deflated 12 0 < "$tmp/csr-deflated.npz"
  seed npz-coo 12 0 < "$tmp/coo.npz"
fi
