#!/usr/bin/env python3
"""Sparse rows: a TF-IDF corpus of this machine's manual pages, umap.h
beside umap-learn (fit) and pynndescent / scikit-learn (k-NN), in one run
(make bench-sparse).

The corpus: every manual page under /usr/share/man (then text files under
/usr/share/doc, if fewer than --docs), in path order, each a document;
words of 3 or more letters, TF-IDF (scikit-learn's TfidfVectorizer,
min_df 2, max_df 0.5, float32). Its rows are given to every library as
the same scipy.sparse CSR matrix, never densified.

Fit: umap.h (umaph.UMAP, its defaults, and with n_epochs=300, the
refinement's epochs past its auto 200), and umap-learn, seeded (its SGD on one thread)
and unseeded (its parallel SGD), with cosine and hellinger; each fit runs
in its own process, which reports its time and what it added to the
process's resident memory at its peak (VmHWM, reset after the libraries
are imported, numba's compilation is done and the matrix is loaded).
Trustworthiness (15 neighbours) on an evenly spaced --trust-rows subset,
in the fit's metric (hellinger's as euclidean on the rows' square-rooted
shares, the same ranking). Medians over --runs.

k-NN (15 neighbours, cosine): umap.h's exact search (umaph.knn),
pynndescent's NNDescent, and scikit-learn's brute force, with each one's
recall against the exact lists.

  /usr/bin/python3 bench/sparse.py --threads 2 --runs 3
"""
import argparse
import gzip
import json
import os
import statistics
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)
from child import arguments, reset_peak, rss_kb, run_child  # noqa: E402 (beside this script)


def documents(limit):
    """up to limit (path, text) documents: manual pages, then /usr/share/doc"""
    paths = []
    for root in ("/usr/share/man", "/usr/share/doc"):
        for top, _dirs, files in os.walk(root):
            paths += [os.path.join(top, f) for f in files]
        if len(paths) >= limit:
            break
    docs = []
    for p in sorted(paths):
        if len(docs) == limit:
            break
        try:
            if os.path.islink(p) or os.path.getsize(p) > 4 << 20:
                continue
            raw = gzip.open(p).read() if p.endswith(".gz") else open(p, "rb").read()
        except (OSError, EOFError, gzip.BadGzipFile):
            continue
        if b"\0" in raw[:4096]:
            continue  # not text
        docs.append(raw.decode("latin-1"))
    return docs


def child(args):
    """one fit in this process: its time and the memory it added as JSON"""
    import scipy.sparse
    lib, metric, seeded, refine = (args.child + ":").split(":")[:4]
    import umaph  # both libraries and what they import, before the baseline
    if lib == "umap":
        import umap
    X = scipy.sparse.load_npz(args.child_matrix).tocsr()
    if lib == "umap":  # numba compiles on the first call: a fit of a few rows first
        umap.UMAP(metric=metric, n_epochs=5, n_neighbors=5).fit(X[:200])
    base = reset_peak()
    out = {"base_kb": base}
    if lib != "none":
        if lib == "umaph":
            model = umaph.UMAP(metric=metric, random_state=0, n_jobs=args.threads,
                               n_epochs=int(refine) if refine else None)
        else:
            model = umap.UMAP(metric=metric, random_state=0) if seeded == "1" else \
                umap.UMAP(metric=metric, n_jobs=args.threads)
        t = time.perf_counter()
        emb = model.fit_transform(X)
        out["fit_s"] = time.perf_counter() - t
        np.save(args.child_out, np.asarray(emb, np.float32))
    out["peak_kb"] = rss_kb("VmHWM") - base
    print(json.dumps(out))


def main():
    ap = arguments(__doc__, peer_runs=False)
    ap.add_argument("--docs", type=int, default=20000)
    ap.add_argument("--trust-rows", type=int, default=4000)
    ap.add_argument("--child-matrix", help=argparse.SUPPRESS)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    if args.child:
        return child(args)
    import scipy.sparse
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.manifold import trustworthiness

    t = time.perf_counter()
    docs = documents(args.docs)
    X = TfidfVectorizer(min_df=2, max_df=0.5, token_pattern=r"(?u)\b[a-zA-Z]{3,}\b", dtype=np.float32) \
        .fit_transform(docs).tocsr()
    keep = np.flatnonzero(np.diff(X.indptr) > 0)  # documents with a word left
    X = X[keep]
    n, d = X.shape
    print(f"corpus: {n} documents (manual pages first), {d} words, {X.nnz} nonzeros "
          f"({X.nnz / n:.0f} a row; dense it would be {n * d * 4 / 2**30:.1f} GiB), "
          f"built in {time.perf_counter() - t:.0f} s", flush=True)
    work = "/tmp/umaph_bench_sparse"
    os.makedirs(work, exist_ok=True)
    matrix = os.path.join(work, "tfidf.npz")
    scipy.sparse.save_npz(matrix, X)
    emb_out = os.path.join(work, "emb.npy")

    sub = np.arange(0, n, max(1, n // args.trust_rows))
    shares = X[sub].multiply(1.0 / np.maximum(X[sub].sum(1), 1e-30)).tocsr()
    shares.data = np.sqrt(shares.data)
    for metric in ("cosine", "hellinger"):
        print(f"fit, metric={metric}: {args.threads} threads, medians of {args.runs} runs; memory: what the fit "
              f"added to its process's resident set at its peak", flush=True)
        runners = [("umap.h", "umaph:%s:1" % metric), ("umap.h, n_epochs=300", "umaph:%s:1:300" % metric)]
        if not args.no_peer:
            import umap
            runners += [(f"umap-learn {umap.__version__}, seeded", "umap:%s:1" % metric),
                        (f"umap-learn {umap.__version__}, unseeded", "umap:%s:0" % metric)]
        for name, spec in runners:
            results = [run_child(__file__, spec, args.threads, emb_out, "--child-matrix", matrix)
                       for _ in range(args.runs)]
            emb = results[-1]["emb"]
            trust = (trustworthiness(X[sub], emb[sub], n_neighbors=15, metric="cosine") if metric == "cosine"
                     else trustworthiness(shares, emb[sub], n_neighbors=15))
            fit_s = statistics.median(r["fit_s"] for r in results)
            peak = statistics.median(r["peak_kb"] for r in results)
            print(f"  {name:32s} fit {fit_s:7.2f} s  memory {peak / 1024:7.0f} MiB  trustworthiness {trust:.4f}",
                  flush=True)

    # the k-NN alone
    import umaph
    k = 15
    print(f"k-NN, cosine, k={k}: {args.threads} threads, medians of {args.runs} runs", flush=True)

    def timed(search):  # the median time of --runs calls, and the last call's result
        times = []
        for _ in range(args.runs):
            t = time.perf_counter()
            out = search()
            times.append(time.perf_counter() - t)
        return statistics.median(times), out

    t_exact, (idx, dist) = timed(lambda: umaph.knn(X, k=k, metric="cosine", method="exact", n_jobs=args.threads))
    kth = dist[:, -1]

    def recall(dists):  # a neighbour counts when it is at most the exact k-th distance away
        return float(np.mean(dists <= kth[:, None] + 1e-6))

    print(f"  {'umap.h exact':32s} {t_exact:7.2f} s  recall {recall(dist):.4f}", flush=True)
    t_nnd, (idx2, dist2) = timed(lambda: umaph.knn(X, k=k, metric="cosine", method="nndescent", n_jobs=args.threads))
    print(f"  {'umap.h NN-Descent':32s} {t_nnd:7.2f} s  recall {recall(dist2):.4f}", flush=True)
    if not args.no_peer:
        import pynndescent
        from sklearn.neighbors import NearestNeighbors
        pynndescent.NNDescent(X[:300], metric="cosine", n_neighbors=k + 1)  # numba's compilation
        t_pynn, (i3, d3) = timed(lambda: pynndescent.NNDescent(
            X, metric="cosine", n_neighbors=k + 1, random_state=0, n_jobs=args.threads).neighbor_graph)
        print(f"  {'pynndescent ' + pynndescent.__version__:32s} {t_pynn:7.2f} s  "
              f"recall {recall(d3[:, 1:]):.4f}", flush=True)
        t = time.perf_counter()
        d4, i4 = NearestNeighbors(n_neighbors=k + 1, metric="cosine", algorithm="brute",
                                  n_jobs=args.threads).fit(X).kneighbors(X)
        print(f"  {'scikit-learn brute force':32s} {time.perf_counter() - t:7.2f} s  recall {recall(d4[:, 1:]):.4f}"
              f" (one run)", flush=True)


if __name__ == "__main__":
    main()
