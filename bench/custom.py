#!/usr/bin/env python3
"""A custom metric on Fashion-MNIST, umap.h beside umap-learn, in one run
(make bench-custom).

The metric is manhattan written by hand as umap-learn takes one, a
numba.njit function f(x, y): umap-learn (pynndescent) compiles it into its
search; umaph compiles it into a C function the library calls through
umap_metric_fn. Each tool also fits with its built-in manhattan, so that the
function's own cost shows. All 70,000 images (pixels / 255), each fit in its
own process after a small fit that lets numba compile: its time, the memory it added to its process at its peak, and trustworthiness in
manhattan (umaph.quality, scikit-learn's definition, on every tenth row).

umap.h's times are medians over --runs; umap-learn runs --peer-runs times,
unseeded (its SGD on every thread, its fastest setting) and, with the custom
metric, seeded (its SGD on one thread).

  /usr/bin/python3 bench/custom.py --threads 2 --runs 3
"""
import json
import os
import statistics
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from child import arguments, reset_peak, rss_kb, run_child  # noqa: E402 (beside this script)
from fashion_mnist import idx_images  # noqa: E402

WORK = "/tmp/umaph_bench_custom"


def hand_manhattan():
    import numba

    @numba.njit(fastmath=False)
    def manhattan_by_hand(x, y):
        s = 0.0
        for j in range(x.shape[0]):
            s += abs(x[j] - y[j])
        return s

    return manhattan_by_hand


def child(args):
    """one fit in this process: its time and the memory it added, as JSON"""
    lib, metric, seeded = args.child.split(":")
    import umaph  # noqa: F401 (both libraries and what they import, before the baseline)
    import umap
    X = np.load(os.path.join(WORK, "all.npy"))
    m = hand_manhattan() if metric == "custom" else "manhattan"

    def make():
        if lib == "umaph":
            return umaph.UMAP(metric=m, random_state=0, n_jobs=args.threads)
        return umap.UMAP(metric=m, random_state=0) if seeded == "1" else umap.UMAP(metric=m, n_jobs=args.threads)

    make().fit(X[:300])  # numba compiles on the first call (both tools' with the custom metric): not timed
    base = reset_peak()
    t = time.perf_counter()
    emb = make().fit_transform(X)
    res = {"fit_s": time.perf_counter() - t, "peak_kb": rss_kb("VmHWM") - base}
    np.save(args.child_out, np.asarray(emb, np.float32))
    print(json.dumps(res))


def main():
    ap = arguments(__doc__)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    if args.child:
        return child(args)
    import umaph

    os.makedirs(WORK, exist_ok=True)
    X = np.vstack([idx_images("train-images-idx3-ubyte.gz"), idx_images("t10k-images-idx3-ubyte.gz")])
    np.save(os.path.join(WORK, "all.npy"), X)
    out = os.path.join(WORK, "emb.npy")
    runners = [("umap.h, manhattan", "umaph:manhattan:1", args.runs),
               ("umap.h, custom", "umaph:custom:1", args.runs)]
    if not args.no_peer:
        import umap
        v = umap.__version__
        runners += [("umap-learn %s, manhattan, unseeded" % v, "umap:manhattan:0", args.peer_runs),
                    ("umap-learn %s, custom, unseeded" % v, "umap:custom:0", args.peer_runs),
                    ("umap-learn %s, custom, seeded" % v, "umap:custom:1", args.peer_runs)]
    print("fit of %d rows: %d threads, medians of the runs; custom: manhattan as a numba.njit f(x, y); memory: what "
          "the fit added to its process at its peak; trust: trustworthiness in manhattan on every tenth "
          "row" % (len(X), args.threads), flush=True)
    times = {}
    for name, spec, runs in runners:
        rs = [run_child(__file__, spec, args.threads, out) for _ in range(runs)]
        fit_s = statistics.median(r["fit_s"] for r in rs)
        times[spec] = fit_s
        q = umaph.quality(X[::10], rs[-1]["emb"][::10], metric="manhattan", n_jobs=args.threads)
        print("  %-40s fit %7.2f s  memory %6.0f MiB  trust %.4f" % (
            name, fit_s, statistics.median(r["peak_kb"] for r in rs) / 1024, q["trustworthiness"]), flush=True)
    print("custom against built-in manhattan: umap.h %.2fx the time" % (
        times["umaph:custom:1"] / times["umaph:manhattan:1"]), end="")
    if not args.no_peer:
        print(", umap-learn %.2fx; umap.h's custom fit %.1fx faster than umap-learn's unseeded, %.1fx than its seeded" % (
            times["umap:custom:0"] / times["umap:manhattan:0"], times["umap:custom:0"] / times["umaph:custom:1"],
            times["umap:custom:1"] / times["umaph:custom:1"]), end="")
    print()


if __name__ == "__main__":
    main()
