#!/usr/bin/env python3
"""Approximate self k-NN with pynndescent: the NN-Descent reference for
`bench_knn --compare` (bench/bench_knn.c runs it as a subprocess).

Reads n x d float32 rows (raw, row-major) from --data, builds
pynndescent.NNDescent(n_neighbors=k+1, metric, n_jobs=threads, random_state)
with pynndescent's defaults otherwise (the graph umap-learn asks for, self
included), and drops self by the rule of knn_data_drop_self in
bench/knn_data.h: the first occurrence of the row itself, else the last
candidate; equal distances ordered by index. Numba is warmed up first on a
small random array with the same metric and k, so JIT compilation is not
timed. Each timed run is the NNDescent constructor (which builds the graph)
plus reading neighbor_graph. Prints median_ms=, min_ms= and runs= lines;
--out writes the n*k neighbour indices as int32.

--serve (how bench_knn runs it): after the warm-up print "ready", then answer
each "run" line on stdin with one timed run ("ms=T"); on "quit" (or end of
input) write --out from the last run and print "done". No runs of its own.

    OMP_NUM_THREADS=2 /usr/bin/python3 bench/pynndescent_knn.py --data X.f32 --n N --d D
        [--k 15] [--metric NAME] [--metric-p P] [--runs 5] [--threads 2] [--seed 1] [--out idx.i32]
        [--serve]
"""
import argparse
import os
import statistics
import sys
import time


def drop_self(idx, dist, k):
    import numpy as np

    n = idx.shape[0]
    out = np.empty((n, k), dtype=np.int32)
    for i in range(n):
        row, d = list(idx[i]), list(dist[i])
        j = row.index(i) if i in row else k
        del row[j]
        del d[j]
        # only equal distances change order: (distance, index)
        order = sorted(range(k), key=lambda m: (d[m], row[m]))
        out[i] = [row[m] for m in order]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--d", type=int, required=True)
    ap.add_argument("--k", type=int, default=15)
    ap.add_argument("--metric", default="euclidean",
                    choices=["euclidean", "cosine", "manhattan", "chebyshev", "minkowski", "correlation",
                             "hamming", "jaccard", "hellinger", "canberra", "braycurtis", "dice", "russellrao"])
    ap.add_argument("--metric-p", type=float, default=2.0, help="minkowski's p")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out")
    ap.add_argument("--serve", action="store_true")
    args = ap.parse_args()

    try:
        import numba
        import numpy as np
        import pynndescent
        from pynndescent import NNDescent
    except ImportError as e:
        print(f"pynndescent is not available: {e}")
        return 3

    x = np.fromfile(args.data, dtype=np.float32)
    if x.size != args.n * args.d:
        print(f"{args.data}: {x.size} floats, expected {args.n} x {args.d}")
        return 1
    x = x.reshape(args.n, args.d)
    print(f"pynndescent {getattr(pynndescent, '__version__', '?')}, numba {numba.__version__}, "
          f"n_jobs {args.threads}, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '(unset)')}, "
          f"NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', '(unset)')}")
    sys.stdout.flush()

    def build(data, seed):
        kwds = {"p": args.metric_p} if args.metric == "minkowski" else None
        index = NNDescent(data, n_neighbors=args.k + 1, metric=args.metric, metric_kwds=kwds,
                          n_jobs=args.threads, random_state=seed)
        return index.neighbor_graph

    # warm up numba (JIT compilation is cached per process, not timed)
    t0 = time.perf_counter()
    rng = np.random.default_rng(0)
    build(rng.standard_normal((max(2 * (args.k + 1), 2000), args.d)).astype(np.float32), 0)
    print(f"numba warm-up {time.perf_counter() - t0:.1f} s (not timed)")
    sys.stdout.flush()

    times = []
    idx = dist = None
    if args.serve:
        print("ready", flush=True)
        r = 0
        for line in sys.stdin:
            if line.startswith("quit"):
                break
            if not line.startswith("run"):
                continue
            t0 = time.perf_counter()
            idx, dist = build(x, args.seed + r)
            print(f"ms={(time.perf_counter() - t0) * 1e3:.3f}", flush=True)
            r += 1
    else:
        for r in range(args.runs):
            t0 = time.perf_counter()
            idx, dist = build(x, args.seed + r)
            times.append((time.perf_counter() - t0) * 1e3)
    if args.out and idx is not None:
        drop_self(idx, dist, args.k).tofile(args.out)
    if args.serve:
        print("done", flush=True)
        return 0
    print(f"median_ms={statistics.median(times):.3f}")
    print(f"min_ms={min(times):.3f}")
    print(f"runs={args.runs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
