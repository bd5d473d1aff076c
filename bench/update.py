#!/usr/bin/env python3
"""Continued training on Fashion-MNIST, umap.h's update beside umap-learn's,
in one run (make bench-update).

Each tool, in its own process, fits the first 50,000 training images
(pixels / 255), then updates the model with the next 10,000, and, apart,
refits all 60,000 from scratch. Reported:

- the update's time and the memory it added to its process at its peak,
  against the refit's time;
- how far the 50,000 earlier rows moved in the embedding (median and 99th
  percentile of each row's move, in units of the earlier embedding's
  spread: the root mean square distance of its rows from their centre);
  for umap.h also how far its encoder's placement of them moved (the model
  places new rows by it);
- the 10,000 new rows' trustworthiness (their neighbourhoods among each
  other, on every second row), after the update and in the refit.

umap.h's times are medians over --runs; umap-learn runs --peer-runs times,
unseeded (its SGD on every thread, its fastest setting) and seeded (its SGD
on one thread).

  /usr/bin/python3 bench/update.py --threads 2 --runs 3
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

WORK = "/tmp/umaph_bench_update"
N_OLD, N_NEW = 50000, 10000






def moved(before, after):
    """each row's move, in units of before's spread: (median, 99th percentile)"""
    spread = np.sqrt(((before - before.mean(0)) ** 2).sum(1).mean())
    d = np.sqrt(((after - before) ** 2).sum(1)) / spread
    return float(np.median(d)), float(np.percentile(d, 99))


def child(args):
    """one tool's update or refit in this process: times, memory, moves as JSON"""
    lib, seeded, task = args.child.split(":")
    import umaph  # noqa: F401 (both libraries and what they import, before the baseline)
    import umap
    X = np.load(os.path.join(WORK, "train.npy"))
    old, new = X[:N_OLD], X[N_OLD:N_OLD + N_NEW]
    if lib == "umap":  # numba compiles on the first call: a small fit and update first
        warm = umap.UMAP(n_epochs=5).fit(X[:300])
        warm.update(X[300:400])

    def make():
        if lib == "umaph":
            return umaph.UMAP(random_state=0, n_jobs=args.threads)
        return umap.UMAP(random_state=0) if seeded == "1" else umap.UMAP(n_jobs=args.threads)

    res = {}
    if task == "refit":
        base = reset_peak()
        t = time.perf_counter()
        emb = make().fit_transform(np.vstack([old, new]))
        res["fit_s"] = time.perf_counter() - t
        res["peak_kb"] = rss_kb("VmHWM") - base
        np.save(args.child_out, np.asarray(emb, np.float32))
        print(json.dumps(res))
        return
    model = make()
    t = time.perf_counter()
    model.fit(old)
    res["fit_s"] = time.perf_counter() - t
    before = np.array(model.embedding_, np.float32)
    if lib == "umaph":
        model.transform_mode = "encoder"
        enc_before = model.transform(old)
    base = reset_peak()
    t = time.perf_counter()
    model.update(new)
    res["update_s"] = time.perf_counter() - t
    res["peak_kb"] = rss_kb("VmHWM") - base
    after = np.array(model.embedding_, np.float32)
    res["moved"] = moved(before, after[:N_OLD])
    if lib == "umaph":
        res["encoder_moved"] = moved(enc_before, model.transform(old))
    np.save(args.child_out, after)
    print(json.dumps(res))


def main():
    ap = arguments(__doc__)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    if args.child:
        return child(args)
    import umap
    from sklearn.manifold import trustworthiness

    os.makedirs(WORK, exist_ok=True)
    X = idx_images("train-images-idx3-ubyte.gz")
    np.save(os.path.join(WORK, "train.npy"), X)
    new = X[N_OLD:N_OLD + N_NEW]
    out = os.path.join(WORK, "emb.npy")


    def new_trust(emb):
        return trustworthiness(new[::2], emb[N_OLD:N_OLD + N_NEW:2], n_neighbors=15)

    runners = [("umap.h", "umaph:1", args.runs)]
    if not args.no_peer:
        runners += [("umap-learn %s, unseeded" % umap.__version__, "umap:0", args.peer_runs),
                    ("umap-learn %s, seeded" % umap.__version__, "umap:1", args.peer_runs)]
    print("fit of %d rows, update with %d more, against a refit of all %d: %d threads, medians of the runs; "
          "memory: what the update (the refit) added to its process at its peak; moved: the earlier rows' moves "
          "in units of their embedding's spread (median / 99th percentile); trust: the new rows' "
          "trustworthiness among each other" % (N_OLD, N_NEW, N_OLD + N_NEW, args.threads), flush=True)
    for name, spec, runs in runners:
        up = [run_child(__file__, spec + ":update", args.threads, out) for _ in range(runs)]
        re = [run_child(__file__, spec + ":refit", args.threads, out) for _ in range(runs)]
        med = lambda rs, k: statistics.median(r[k] for r in rs)  # noqa: E731
        mv = up[-1]["moved"]
        line = ("  %-28s update %7.2f s  memory %5.0f MiB  moved %.4f / %.4f  trust %.4f | refit %7.2f s  "
                "memory %5.0f MiB  trust %.4f | %.1fx faster" % (
                    name, med(up, "update_s"), med(up, "peak_kb") / 1024, mv[0], mv[1], new_trust(up[-1]["emb"]),
                    med(re, "fit_s"), med(re, "peak_kb") / 1024, new_trust(re[-1]["emb"]),
                    med(re, "fit_s") / med(up, "update_s")))
        print(line, flush=True)
        if "encoder_moved" in up[-1]:
            print("  %-28s the encoder's placement of the earlier rows moved %.4f / %.4f" % (
                "", up[-1]["encoder_moved"][0], up[-1]["encoder_moved"][1]), flush=True)


if __name__ == "__main__":
    main()
