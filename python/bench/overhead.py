"""make bench-python: the Python layer's cost over the C call.

UMAP.transform (umaph, through ctypes) against umap_transform called from C
(build/transform_time, linked against the same build/libumap.so) on the
10,000 Fashion-MNIST test rows, with a model fitted on the training rows
(--train N of them, default 60,000; cached in build/bench_python/), the
same thread count on both sides, the two sides alternating round by round;
medians of the runs. Also the fixed cost of one call on a single row.
"""
import argparse
import gzip
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
import umaph  # noqa: E402

FMNIST = "/usr/share/datasets/fashion-mnist"


def idx_images(name):
    raw = gzip.open(os.path.join(FMNIST, name)).read()
    return (np.frombuffer(raw, np.uint8, offset=16).reshape(-1, 784) / np.float32(255)).astype(np.float32)


def python_side(model, x, runs):
    for _ in range(3):  # untimed, as on the C side
        model.transform(x)
    t = []
    for _ in range(runs):
        t0 = time.perf_counter()
        model.transform(x)
        t.append(time.perf_counter() - t0)
    t.sort()
    return t[len(t) // 2], t[0]


def c_side(tool, model_path, rows_path, n, runs, threads):
    out = subprocess.run([tool, model_path, rows_path, str(n), str(runs), str(threads)], check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", type=int, default=60000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--tool", default=os.path.join(ROOT, "build", "transform_time"))
    a = ap.parse_args()
    work = os.path.join(ROOT, "build", "bench_python")
    os.makedirs(work, exist_ok=True)
    model_path = os.path.join(work, "fmnist%d.safetensors" % a.train)
    rows_path = os.path.join(work, "fmnist_test.f32")
    test = idx_images("t10k-images-idx3-ubyte.gz")
    test.tofile(rows_path)
    if not os.path.exists(model_path):
        t0 = time.perf_counter()
        umaph.UMAP(random_state=0, n_jobs=a.threads).fit(idx_images("train-images-idx3-ubyte.gz")[:a.train]) \
            .save(model_path)
        print("fit on %d training rows: %.1f s (saved %s)" % (a.train, time.perf_counter() - t0, model_path))
    model = umaph.UMAP.load(model_path).set_params(n_jobs=a.threads)
    for n, runs in ((len(test), a.runs), (1, 2001)):
        x = test[:n]
        cs, ps = [], []
        for _ in range(a.rounds):
            cs.append(c_side(a.tool, model_path, rows_path, n, runs, a.threads)[0])
            ps.append(python_side(model, x, runs)[0])
        c, p = float(np.median(cs)), float(np.median(ps))
        print("transform %5d rows, %d threads: C %.3f ms, Python %.3f ms, overhead %+.1f %% (%+.1f us); "
              "medians of %d rounds x %d runs" % (n, a.threads, 1e3 * c, 1e3 * p, 100 * (p - c) / c, 1e6 * (p - c),
                                                  a.rounds, runs))


if __name__ == "__main__":
    main()
