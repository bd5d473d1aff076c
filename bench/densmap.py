#!/usr/bin/env python3
"""densMAP on Fashion-MNIST, umap.h beside umap-learn's densMAP, in one run
(make bench-densmap).

fit: all 70,000 images (pixels / 255), densmap=True and output_dens=True,
each tool in its own process: the fit's time, the memory it added to its
process at its peak, and the correlation between each row's log local
radius in the data and in the embedding (rad_orig_ and rad_emb_, umap-learn's
output_dens measure, each tool's own output by the same definition), beside
the same tools without densMAP. Plus trustworthiness on a fixed sample.

transform: fit on the 60,000 training images, place the 10,000 test images
with transform (umap-learn refuses densMAP there: its issue 834), and score
the test rows alone: the same radius correlation, both radii measured among
the test rows by one function (exact k-NN, umap-learn's fuzzy_simplicial_set
and its formula) for every tool, so that the numbers compare.

umap.h's times are medians over --runs; umap-learn runs --peer-runs times,
unseeded (its SGD on every thread, its fastest setting) and seeded (its SGD
on one thread).

  /usr/bin/python3 bench/densmap.py --threads 2 --runs 3
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

WORK = "/tmp/umaph_bench_densmap"




def corr(a, b):
    ok = np.isfinite(a) & np.isfinite(b)
    return float(np.corrcoef(a[ok], b[ok])[0, 1])


def radii(X, squared, k=15):
    """umap-learn's log local radii of X's rows (umap_.py, output_dens):
    exact k-NN, its fuzzy graph, log(1e-8 + sum mu D / sum mu), D the
    distance (squared for the data, as umap-learn squares rad_orig's)"""
    from sklearn.neighbors import NearestNeighbors
    from umap.umap_ import fuzzy_simplicial_set
    d, i = NearestNeighbors(n_neighbors=k).fit(X).kneighbors(X)
    d[:, 0] = 0.0  # each row itself, as umap-learn's search gives it (not sklearn's rounding)
    g, _, _, dists = fuzzy_simplicial_set(X, k, np.random.RandomState(0), "euclidean", knn_indices=i,
                                          knn_dists=d.astype(np.float32), return_dists=True)
    g = g.tocoo()
    D = np.asarray(dists.tocsr()[g.row, g.col]).ravel()
    D = D * D if squared else D
    n = X.shape[0]
    s = np.bincount(g.row, g.data * D, n) + np.bincount(g.col, g.data * D, n)
    m = np.bincount(g.row, g.data, n) + np.bincount(g.col, g.data, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(1e-8 + s / m)


def child(args):
    """one fit (and transform) in this process: times, memory, radii as JSON"""
    lib, densmap, seeded, task = args.child.split(":")
    import umaph  # noqa: F401 (both libraries and what they import, before the baseline)
    import umap
    X = np.load(os.path.join(WORK, "train.npy" if task == "transform" else "all.npy"))
    if lib == "umap":  # numba compiles on the first call: a small densMAP fit first
        umap.UMAP(densmap=True, n_epochs=5, output_dens=True).fit(X[:300])
    base = reset_peak()
    kw = dict(densmap=densmap == "1", output_dens=densmap == "1")
    if lib == "umaph":
        model = umaph.UMAP(random_state=0, n_jobs=args.threads, **kw)
    else:
        model = umap.UMAP(random_state=0, **kw) if seeded == "1" else umap.UMAP(n_jobs=args.threads, **kw)
    t = time.perf_counter()
    out = model.fit_transform(X)
    res = {"fit_s": time.perf_counter() - t}
    emb = out[0] if isinstance(out, tuple) else out
    if densmap == "1":
        res["own_corr"] = corr(np.asarray(out[1]), np.asarray(out[2]))
    if task == "transform":
        T = np.load(os.path.join(WORK, "test.npy"))
        t = time.perf_counter()
        emb = model.transform(T)
        res["transform_s"] = time.perf_counter() - t
    res["peak_kb"] = rss_kb("VmHWM") - base
    np.save(args.child_out, np.asarray(emb, np.float32))
    print(json.dumps(res))


def main():
    ap = arguments(__doc__)
    ap.add_argument("--trust-rows", type=int, default=5000)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    if args.child:
        return child(args)
    import umap
    from sklearn.manifold import trustworthiness

    os.makedirs(WORK, exist_ok=True)
    X = idx_images("train-images-idx3-ubyte.gz")
    T = idx_images("t10k-images-idx3-ubyte.gz")
    A = np.vstack([X, T])
    np.save(os.path.join(WORK, "train.npy"), X)
    np.save(os.path.join(WORK, "test.npy"), T)
    np.save(os.path.join(WORK, "all.npy"), A)
    emb_out = os.path.join(WORK, "emb.npy")


    runners = [("umap.h", "umaph:%s:1", args.runs)]
    if not args.no_peer:
        runners += [("umap-learn %s, unseeded" % umap.__version__, "umap:%s:0", args.peer_runs),
                    ("umap-learn %s, seeded" % umap.__version__, "umap:%s:1", args.peer_runs)]
    sub = np.arange(0, len(A), max(1, len(A) // args.trust_rows))
    print("fit of %d rows: %d threads, medians of the runs; memory: what the fit added to its process's resident "
          "set at its peak; corr: rad_orig_ against rad_emb_ (each tool's output_dens)" % (len(A), args.threads),
          flush=True)
    for densmap in ("1", "0"):
        for name, spec, runs in runners:
            results = [run_child(__file__, spec % densmap + ":fit", args.threads, emb_out) for _ in range(runs)]
            emb = results[-1]["emb"]
            line = "  %-30s %-8s fit %7.2f s  memory %6.0f MiB  trustworthiness %.4f" % (
                name, "densMAP" if densmap == "1" else "UMAP", statistics.median(r["fit_s"] for r in results),
                statistics.median(r["peak_kb"] for r in results) / 1024,
                trustworthiness(A[sub], emb[sub], n_neighbors=15))
            if densmap == "1":
                line += "  corr %.4f" % statistics.median(r["own_corr"] for r in results)
            print(line, flush=True)

    # new rows: only umap.h places them under densMAP; its plain model beside it
    print("transform of the %d test rows after a fit of the %d training rows; corr: the test rows' radii in the "
          "data against in their embedding, both measured among the test rows" % (len(T), len(X)), flush=True)
    ro = radii(T, squared=True)
    for densmap in ("1", "0"):
        results = [run_child(__file__, "umaph:%s:1:transform" % densmap, args.threads, emb_out) for _ in range(args.runs)]
        emb = results[-1]["emb"]
        print("  %-30s %-8s fit %7.2f s  transform %6.3f s  corr %.4f  trustworthiness %.4f" % (
            "umap.h", "densMAP" if densmap == "1" else "UMAP", statistics.median(r["fit_s"] for r in results),
            statistics.median(r["transform_s"] for r in results), corr(ro, radii(emb, squared=False)),
            trustworthiness(T[::2], emb[::2], n_neighbors=15)), flush=True)
    if not args.no_peer:
        print("  umap-learn %s densMAP: transform refused (NotImplementedError, its issue 834)" % umap.__version__)


if __name__ == "__main__":
    main()
