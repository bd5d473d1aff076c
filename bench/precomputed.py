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
reference for what the landmark encoder gives up. umap-learn runs seeded
(its SGD on one thread) and unseeded (its parallel SGD).

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
    run("umap.h euclidean, encoder alone", lambda: UMAP(random_state=0, n_jobs=args.threads, keep_data=False),
        train, fresh)
    if args.no_peer:
        return
    import umap

    run(f"umap-learn {umap.__version__} precomputed, seeded", lambda: umap.UMAP(metric="precomputed", random_state=0),
        dm, dq)
    run(f"umap-learn {umap.__version__} precomputed, unseeded",
        lambda: umap.UMAP(metric="precomputed", n_jobs=args.threads), dm, dq)


if __name__ == "__main__":
    main()
