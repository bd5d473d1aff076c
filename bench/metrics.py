#!/usr/bin/env python3
"""metric="haversine" and metric="seuclidean", umap.h beside umap-learn, in
one run (make bench-metrics).

haversine: --places points on the sphere (latitude, longitude in radians)
in 24 clusters of uneven size and spread, two of them across the
antimeridian and one on the north pole, split 5:1 into training rows and
new rows. seuclidean: the first --rows Fashion-MNIST test images (pixels /
255) split 5:1, with V the training rows' column variances (1 for the
constant border pixels, where a variance of 0 would divide by zero in
umap-learn), given to both libraries as metric_kwds={"V": V}.

Reported, each a median over --runs: fit and transform time; the training
embedding's trustworthiness (15 neighbours; haversine: on an evenly spaced
--trust-rows subset, in haversine; seuclidean: all rows, as euclidean on
the columns divided by sqrt V, which is the same ranking); the new rows'
10-NN accuracy (a classifier on the training places; haversine's classes
are the clusters). umap.h runs as its defaults (the encoder places new
rows: these metrics keep no rows by default) and with keep_data=True
(new rows placed among the kept training rows, as umap-learn's transform
does). umap-learn runs seeded (its SGD on one thread) and unseeded (its
parallel SGD).

  /usr/bin/python3 bench/metrics.py --threads 2 --runs 3
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



def places(n, seed=0):
    """n (latitude, longitude) rows in 24 clusters; the cluster of each"""
    rng = np.random.default_rng(seed)
    centres = np.stack([rng.uniform(-1.3, 1.3, 24), rng.uniform(-np.pi, np.pi, 24)], 1)
    centres[0] = (0.2, np.pi - 0.01)
    centres[1] = (-0.6, -np.pi + 0.02)  # across the antimeridian
    centres[2] = (np.pi / 2 - 0.02, 0.0)  # on the pole
    weight = rng.uniform(0.5, 2.0, 24)
    label = rng.choice(24, n, p=weight / weight.sum())
    spread = rng.uniform(0.02, 0.12, 24)[label]
    lat = centres[label, 0] + rng.normal(size=n) * spread
    lon = centres[label, 1] + rng.normal(size=n) * spread / np.maximum(np.cos(centres[label, 0]), 0.2)
    over = np.abs(lat) > np.pi / 2  # over a pole: the other side
    lat[over] = np.sign(lat[over]) * np.pi - lat[over]
    lon[over] += np.pi
    lon = (lon + np.pi) % (2 * np.pi) - np.pi
    return np.stack([lat, lon], 1).astype(np.float32), label


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--places", type=int, default=24000)
    ap.add_argument("--rows", type=int, default=10000)
    ap.add_argument("--trust-rows", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--no-peer", action="store_true", help="umap.h alone")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")  # umap-learn's notes on seeds and threads
    from sklearn.manifold import trustworthiness
    from sklearn.neighbors import KNeighborsClassifier
    from umaph import UMAP

    def run(name, make, train, fresh, y, trust_of):
        fit_s, place_s = [], []
        for _ in range(args.runs):
            model = make()
            t = time.perf_counter()
            emb = model.fit_transform(train)
            fit_s.append(time.perf_counter() - t)
            t = time.perf_counter()
            placed = model.transform(fresh)
            place_s.append(time.perf_counter() - t)
        n = len(train)
        acc = KNeighborsClassifier(10).fit(emb, y[:n]).score(placed, y[n:])
        print(f"  {name:34s} fit {statistics.median(fit_s):7.2f} s  transform {statistics.median(place_s):7.3f} s"
              f"  trustworthiness {trust_of(emb):.4f}  new rows' 10-NN accuracy {acc:.3f}", flush=True)

    peer = None
    if not args.no_peer:
        import umap as peer

    # haversine
    x, y = places(args.places)
    n = args.places * 5 // 6
    step = max(1, n // args.trust_rows)
    sub = np.arange(0, n, step)
    trust_h = lambda emb: trustworthiness(x[sub].astype(np.float64), emb[sub], n_neighbors=15, metric="haversine")
    print(f"haversine: {n} training places, {args.places - n} new, 24 clusters; {args.threads} threads, "
          f"medians of {args.runs} runs")
    run("umap.h", lambda: UMAP(metric="haversine", random_state=0, n_jobs=args.threads), x[:n], x[n:], y, trust_h)
    run("umap.h, kept rows", lambda: UMAP(metric="haversine", keep_data=True, random_state=0, n_jobs=args.threads),
        x[:n], x[n:], y, trust_h)
    if peer:
        run(f"umap-learn {peer.__version__}, seeded", lambda: peer.UMAP(metric="haversine", random_state=0),
            x[:n], x[n:], y, trust_h)
        run(f"umap-learn {peer.__version__}, unseeded", lambda: peer.UMAP(metric="haversine", n_jobs=args.threads),
            x[:n], x[n:], y, trust_h)

    # seuclidean
    x = idx_images("t10k-images-idx3-ubyte.gz")[: args.rows]
    y = idx_labels("t10k-labels-idx1-ubyte.gz")[: args.rows]
    n = args.rows * 5 // 6
    v = x[:n].astype(np.float64).var(0, ddof=1)
    v[v == 0] = 1.0
    divided = (x[:n] / np.sqrt(v)).astype(np.float32)
    trust_s = lambda emb: trustworthiness(divided, emb, n_neighbors=15)
    kw = {"V": v}
    print(f"seuclidean: Fashion-MNIST t10k, {n} training rows, {args.rows - n} new, V the columns' variances; "
          f"{args.threads} threads, medians of {args.runs} runs")
    run("umap.h", lambda: UMAP(metric="seuclidean", metric_kwds=kw, random_state=0, n_jobs=args.threads),
        x[:n], x[n:], y, trust_s)
    run("umap.h, kept rows",
        lambda: UMAP(metric="seuclidean", metric_kwds=kw, keep_data=True, random_state=0, n_jobs=args.threads),
        x[:n], x[n:], y, trust_s)
    if peer:
        run(f"umap-learn {peer.__version__}, seeded",
            lambda: peer.UMAP(metric="seuclidean", metric_kwds=kw, random_state=0), x[:n], x[n:], y, trust_s)
        run(f"umap-learn {peer.__version__}, unseeded",
            lambda: peer.UMAP(metric="seuclidean", metric_kwds=kw, n_jobs=args.threads), x[:n], x[n:], y, trust_s)


if __name__ == "__main__":
    main()
