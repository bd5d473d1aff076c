"""Transform at cluster scale: rows/s of umaph.dask.transform on a
LocalCluster (N worker processes x 1 thread, loopback) against one process,
on a raw .f32 file of 784-column rows (e.g. the 1,050,000-row enlarged
Fashion-MNIST: build/bench_umap --write-data 1050000 /tmp/f1050k.f32 /tmp/f1050k.u8).

Every side reads its blocks from the file itself (the page cache is warmed
first) and embeds them with the same model; the cluster's blocks are read
by the worker that embeds them (dask.delayed reads), so only the model
bytes and the embeddings cross processes. Cluster start-up is not counted. OpenBLAS runs one thread a process on
every side (as in Dask's workers), so the results compare bit for bit.

usage: dask_transform.py MODEL ROWS.f32 [--rows N] [--chunk C] [--workers W]
"""
import argparse
import os
import sys
import time

# Dask's workers run OpenBLAS with one thread (distributed sets
# OPENBLAS_NUM_THREADS=1 in them), and OpenBLAS's own thread count changes
# the last bits of a product: one thread here too, so that the sides can be
# compared bit for bit. (umap's n_threads never changes a bit.)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import umaph  # noqa: E402
import umaph.dask  # noqa: E402

D = 784


def read_rows(path, start, stop):
    return np.fromfile(path, dtype=np.float32, count=(stop - start) * D, offset=start * D * 4).reshape(-1, D)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("rows")
    ap.add_argument("--rows", dest="n", type=int, default=0)
    ap.add_argument("--chunk", type=int, default=50000)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    import dask
    import dask.array as da
    import distributed
    n = a.n or os.path.getsize(a.rows) // (4 * D)
    bounds = [(s, min(s + a.chunk, n)) for s in range(0, n, a.chunk)]
    model = umaph.UMAP.load(a.model)
    for s, e in bounds:  # warm the page cache: every side reads from memory
        read_rows(a.rows, s, e)

    results = {}
    for threads in (1, a.workers):
        m = umaph.UMAP.load(a.model).set_params(n_jobs=threads)
        t0 = time.perf_counter()
        out = np.concatenate([m.transform(read_rows(a.rows, s, e)) for s, e in bounds])
        dt = time.perf_counter() - t0
        results[threads] = out
        print("one process, %d thread(s): %d rows in %.2f s: %.0f rows/s" % (threads, n, dt, n / dt))

    cluster = distributed.LocalCluster(n_workers=a.workers, processes=True, threads_per_worker=1,
                                       host="127.0.0.1", dashboard_address=None, silence_logs=50)
    client = distributed.Client(cluster)
    try:
        for run in range(2):  # the first run also imports umaph and loads the model on each worker
            blocks = [da.from_delayed(dask.delayed(read_rows)(a.rows, s, e), shape=(e - s, D), dtype=np.float32)
                      for s, e in bounds]
            X = da.concatenate(blocks)
            t0 = time.perf_counter()
            out = umaph.dask.transform(model, X, n_threads=1).compute()
            dt = time.perf_counter() - t0
            print("LocalCluster, %d workers x 1 thread (run %d): %d rows in %.2f s: %.0f rows/s; "
                  "equal to one process: %s" % (a.workers, run + 1, n, dt, n / dt,
                                                np.array_equal(out, results[1])))
    finally:
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
