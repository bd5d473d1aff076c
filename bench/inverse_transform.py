#!/usr/bin/env python3
"""inverse_transform on Fashion-MNIST, umap.h's decoder beside umap-learn's
interpolation, in one run (make bench-inverse).

Both fit on the 60,000 training images (pixels / 255), embed the 10,000
test images with their own transform, and map those places back to images.
Scored the same way for both:
  mse       mean squared error to the real test image, per pixel
  knn_acc   a 10-NN classifier on the real training images, applied to the
            reconstructions: do they still look like their class?
  ref       the same scores for the column means (a decoder that learnt
            nothing) and for the test images' projection on their top 2
            principal axes (the best any linear map from 2 numbers does)
umap-learn's inverse_transform interpolates between training rows: it is
timed on the first --peer-rows places (it takes minutes per few thousand),
and scored on those; umap.h is scored on all 10,000 and on the same subset.
umap.h's times are medians over --runs; umap-learn runs once (its fit is
the benchmark of bench_umap.c, not this one) with random_state unset, its
fastest setting.

  /usr/bin/python3 bench/inverse_transform.py --threads 2 --runs 3
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from fashion_mnist import idx_images, idx_labels  # noqa: E402 (beside this script)



def knn_accuracy(clf, rec, y):
    return float((clf.predict(rec) == y).mean())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--decoder-epochs", type=int, default=20)
    ap.add_argument("--peer-rows", type=int, default=1000)
    ap.add_argument("--no-peer", action="store_true")
    a = ap.parse_args()
    from sklearn.neighbors import KNeighborsClassifier
    import umaph

    X, y = idx_images("train-images-idx3-ubyte.gz"), idx_labels("train-labels-idx1-ubyte.gz")
    T, ty = idx_images("t10k-images-idx3-ubyte.gz"), idx_labels("t10k-labels-idx1-ubyte.gz")
    P = a.peer_rows
    clf = KNeighborsClassifier(n_neighbors=10, n_jobs=a.threads).fit(X, y)

    def report(tool, rec, rows, secs, extra=""):
        mse = float(((rec - T[:rows]) ** 2).mean())
        print("%-22s rows %5d  mse %.5f  knn_acc %.3f  %s%s" % (tool, rows, mse, knn_accuracy(clf, rec, ty[:rows]),
                                                             secs, extra), flush=True)

    mean = X.mean(0)
    report("column means", np.broadcast_to(mean, T.shape), len(T), "")
    Tc = T - T.mean(0)
    vt = np.linalg.svd(Tc, full_matrices=False)[2][:2]
    report("PCA-2 of the test rows", Tc @ vt.T @ vt + T.mean(0), len(T), "")

    fit_s, inv_s, model = [], [], None
    for run in range(a.runs):
        t0 = time.perf_counter()
        m = umaph.UMAP(random_state=run, n_jobs=a.threads, decoder_epochs=a.decoder_epochs).fit(X)
        fit_s.append(time.perf_counter() - t0)
        emb = m.transform(T)
        t0 = time.perf_counter()
        rec = m.inverse_transform(emb)
        inv_s.append(time.perf_counter() - t0)
        if model is None:
            model, rec0 = m, rec
    info = model.fit_info_
    report("umap.h decoder", rec0, len(T),
           "inverse %.3f s (median of %d), fit %.1f s of which decoder %.2f s" %
           (statistics.median(inv_s), a.runs, statistics.median(fit_s), info["decoder_s"]))
    report("umap.h decoder", rec0[:P], P, "(the peer's subset)")
    if a.no_peer:
        return
    import umap
    import warnings
    warnings.filterwarnings("ignore")
    t0 = time.perf_counter()
    peer = umap.UMAP(n_neighbors=15, min_dist=0.1, n_jobs=a.threads).fit(X)
    peer_fit = time.perf_counter() - t0
    pemb = peer.transform(T[:P])
    t0 = time.perf_counter()
    prec = peer.inverse_transform(pemb)
    peer_inv = time.perf_counter() - t0
    report("umap-learn " + umap.__version__, np.asarray(prec, np.float32), P,
           "inverse %.1f s, fit %.1f s" % (peer_inv, peer_fit))
    print("ratio: umap-learn's inverse_transform per row / umap.h's: %.0fx" %
          ((peer_inv / P) / (statistics.median(inv_s) / len(T))))


if __name__ == "__main__":
    main()
