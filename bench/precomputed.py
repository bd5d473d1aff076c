#!/usr/bin/env python3
"""metric="precomputed" on Fashion-MNIST, umap.h beside umap-learn, in one
run (make bench-precomputed).

The first --rows test images (pixels / 255) are split 5:1; the training
part's euclidean distance matrix is the input (n x n), and the rest are
placed from their distances to the training rows (n_new x n), which is what
both libraries' transform takes with a precomputed metric. Reported, each
a median over --runs: fit and transform time; the training embedding's
trustworthiness (15 neighbours, against the images' euclidean distances)
and the new rows' 10-NN accuracy (a classifier on the training places).
umap.h's euclidean fit on the images themselves, its encoder alone, is the
reference for what the landmark encoder gives up; umap.h's default places
new rows among the training places by their distances, as umap-learn's
transform does, and "encoder alone" by the encoder. umap-learn runs seeded
(its SGD on one thread) and unseeded (its parallel SGD).

Then a sparse graph of distances, where no n x n matrix fits: the 60,000
training images' --graph-k nearest by euclidean distance, made symmetric
(each pair stored either way, as umap-learn requires), the 10,000 test images placed
from their --graph-k nearest training rows. Scored on the images
(trustworthiness of 10,000 evenly spaced query rows among all, umaph.quality)
and by the test rows' 10-NN accuracy. --graph-rows 0 skips it.

  /usr/bin/python3 bench/precomputed.py --threads 2 --runs 3
"""
import argparse
import os
import statistics
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from fashion_mnist import idx_images, idx_labels  # noqa: E402 (beside this script)



def distances(a, b):
    d = (a * a).sum(1)[:, None] + (b * b).sum(1)[None] - 2.0 * (a.astype(np.float64) @ b.T.astype(np.float64))
    return np.sqrt(np.maximum(d, 0.0)).astype(np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-peer", action="store_true", help="umap.h alone")
    ap.add_argument("--graph-rows", type=int, default=60000, help="training rows of the graph part (0: none)")
    ap.add_argument("--graph-k", type=int, default=30, help="stored distances per row of the graph")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")  # the pixels' constant border column, umap-learn's notes
    from sklearn.manifold import trustworthiness
    from sklearn.neighbors import KNeighborsClassifier
    from umaph import UMAP

    x = idx_images("t10k-images-idx3-ubyte.gz")[: args.rows]
    y = idx_labels("t10k-labels-idx1-ubyte.gz")[: args.rows]
    n = args.rows * 5 // 6
    train, fresh = x[:n], x[n:]
    dm = distances(train, train)
    dm = np.minimum(dm, dm.T)  # the product's rounding, made exactly symmetric
    np.fill_diagonal(dm, 0.0)
    dq = distances(fresh, train)
    print(f"Fashion-MNIST t10k: {n} training rows ({n} x {n} distances), {len(fresh)} new rows, "
          f"{args.threads} threads, medians of {args.runs} runs")

    def run(name, make, fit_x, new_x):
        fit_s, place_s = [], []
        for _ in range(args.runs):
            model = make()
            t = time.perf_counter()
            emb = model.fit_transform(fit_x)
            fit_s.append(time.perf_counter() - t)
            t = time.perf_counter()
            placed = model.transform(new_x)
            place_s.append(time.perf_counter() - t)
        trust = trustworthiness(train, emb, n_neighbors=15)
        acc = KNeighborsClassifier(10).fit(emb, y[:n]).score(placed, y[n:])
        print(f"  {name:36s} fit {statistics.median(fit_s):7.2f} s  transform {statistics.median(place_s):7.3f} s"
              f"  trustworthiness {trust:.4f}  new rows' 10-NN accuracy {acc:.3f}", flush=True)

    run("umap.h precomputed", lambda: UMAP(metric="precomputed", random_state=0, n_jobs=args.threads), dm, dq)
    run("umap.h precomputed, encoder alone", lambda: UMAP(metric="precomputed", random_state=0, n_jobs=args.threads,
                                                           transform_mode="encoder"), dm, dq)
    run("umap.h euclidean, encoder alone", lambda: UMAP(random_state=0, n_jobs=args.threads, keep_data=False),
        train, fresh)
    if not args.no_peer:
        import umap

        run(f"umap-learn {umap.__version__} precomputed, seeded",
            lambda: umap.UMAP(metric="precomputed", random_state=0), dm, dq)
        run(f"umap-learn {umap.__version__} precomputed, unseeded",
            lambda: umap.UMAP(metric="precomputed", n_jobs=args.threads), dm, dq)
    if args.graph_rows:
        graph_part(args)


def graph_part(args):
    import scipy.sparse as sp
    from sklearn.neighbors import NearestNeighbors
    import umaph
    from umaph import UMAP

    train = idx_images("train-images-idx3-ubyte.gz")[: args.graph_rows]
    labels = idx_labels("train-labels-idx1-ubyte.gz")[: args.graph_rows]
    fresh, fresh_labels = idx_images("t10k-images-idx3-ubyte.gz"), idx_labels("t10k-labels-idx1-ubyte.gz")
    n, k = len(train), args.graph_k

    def csr(idx, dist, cols):  # sorted columns per row, explicit zeros kept (a row's own entry)
        order = np.argsort(idx, axis=1, kind="stable")
        idx, dist = np.take_along_axis(idx, order, 1), np.take_along_axis(dist, order, 1)
        return sp.csr_matrix((dist.ravel(), idx.ravel(), np.arange(0, idx.size + 1, idx.shape[1])),
                             shape=(len(idx), cols))

    t = time.perf_counter()
    idx, dist = umaph.knn(train, k=k, method="exact", n_jobs=args.threads)
    own = np.arange(n, dtype=idx.dtype)[:, None]
    graph = csr(np.hstack([own, idx]), np.hstack([np.zeros((n, 1), np.float32), dist]), n)
    graph = graph.maximum(graph.T).tocsr()  # symmetric, as umap-learn requires: each pair either way
    graph.sort_indices()
    qd, qi = NearestNeighbors(n_neighbors=k, algorithm="brute").fit(train).kneighbors(fresh)
    graph_q = csr(qi.astype(np.int32), qd.astype(np.float32), n)
    print(f"\nFashion-MNIST: a graph of distances of {n} training rows, {k} nearest each, "
          f"symmetric: {graph.nnz} entries, made in {time.perf_counter() - t:.1f} s; {len(fresh)} test rows by their {k} "
          f"nearest; {args.threads} threads, medians of {args.runs} runs", flush=True)

    def run(name, make):
        fit_s, place_s, placed = [], [], None
        for _ in range(args.runs):
            model = make()
            t = time.perf_counter()
            emb = model.fit_transform(graph)
            fit_s.append(time.perf_counter() - t)
            try:
                t = time.perf_counter()
                placed = model.transform(graph_q)
                place_s.append(time.perf_counter() - t)
            except Exception as e:  # noqa: BLE001 (a peer's refusal is a result)
                placed = f"{type(e).__name__}: {str(e).splitlines()[0][:60]}"
        q = umaph.quality(train, emb, n_queries=10000, n_jobs=args.threads)
        if isinstance(placed, str):
            tail = f"transform: {placed}"
        else:
            acc = KNeighborsClassifier(10).fit(emb, labels).score(placed, fresh_labels)
            tail = f"transform {statistics.median(place_s):6.2f} s  new rows' 10-NN accuracy {acc:.3f}"
        print(f"  {name:36s} fit {statistics.median(fit_s):7.2f} s  trustworthiness {q['trustworthiness']:.4f}  "
              f"{tail}", flush=True)

    from sklearn.neighbors import KNeighborsClassifier
    run("umap.h precomputed graph", lambda: UMAP(metric="precomputed", random_state=0, n_jobs=args.threads))
    run("umap.h precomputed graph, encoder alone",
        lambda: UMAP(metric="precomputed", random_state=0, n_jobs=args.threads, transform_mode="encoder"))
    if args.no_peer:
        return
    import umap

    run(f"umap-learn {umap.__version__} precomputed graph, seeded",
        lambda: umap.UMAP(metric="precomputed", random_state=0))
    run(f"umap-learn {umap.__version__} precomputed graph, unseeded",
        lambda: umap.UMAP(metric="precomputed", n_jobs=args.threads))


if __name__ == "__main__":
    main()
