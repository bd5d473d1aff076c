#!/usr/bin/env python3
"""umap-learn UMAP: the Python reference for bench/bench_umap.c, which runs
it as a child process (one process per task, so its peak memory is its own).

Reads n x d float32 rows (raw, row-major, native-endian) from --data and fits
umap.UMAP(n_neighbors=15, min_dist=0.1, n_jobs=T, random_state=SEED),
umap-learn's defaults otherwise (NN-Descent k-NN above 4,095 rows, spectral
init, 500 epochs up to 10,000 rows and 200 above). With --test (m x d rows)
the fitted model embeds them with .transform, timed apart. With --target
(n int32 labels, raw, native-endian; -1 = unknown) the fit is supervised:
UMAP.fit(X, y) with umap-learn's default target_metric 'categorical' and
target_weight 0.5 (the warm-up fit then takes random labels, so that the
supervised path is compiled too).

Note: umap-learn runs its SGD on one thread when random_state is set (it
passes parallel = random_state is None); --seed -1 leaves random_state None,
so the SGD runs on n_jobs threads and the result is not reproducible.

Numba is warmed up first by a fit (and a transform) on small random data of
the same width, so JIT compilation is not timed; its time is printed as
warmup_s. Phases are timed by wrapping umap-learn's module-level functions
(looked up at call time by UMAP.fit):
  knn_s     nearest_neighbors (pynndescent NNDescent)
  graph_s   fuzzy_simplicial_set
  init_s    spectral_layout
  sgd_s     optimize_layout_euclidean
fit_s is the whole UMAP.fit call.

Output: one "RESULT key=value" line per measurement (fit_s, knn_s, graph_s,
init_s, sgd_s, transform_s, warmup_s, peak_rss_kb = VmHWM of this process,
n, d, n_epochs), the embeddings as raw float32 (n x 2) in --out and (m x 2) in
--out-test. Other lines are progress and may be ignored.

    OMP_NUM_THREADS=2 NUMBA_NUM_THREADS=2 /usr/bin/python3 bench/umaplearn_umap.py
        --data X.f32 --n N --d D [--test T.f32 --n-test M --out-test E_test.f32]
        [--out E.f32] [--threads 2] [--seed 1] [--n-neighbors 15] [--min-dist 0.1]
        [--target Y.i32] [--no-warmup]
"""
import argparse
import os
import sys
import time


def vmhwm_kb():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--n", type=int, required=True)
    ap.add_argument("--d", type=int, required=True)
    ap.add_argument("--test")
    ap.add_argument("--n-test", type=int)
    ap.add_argument("--out")
    ap.add_argument("--out-test")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n-neighbors", type=int, default=15)
    ap.add_argument("--min-dist", type=float, default=0.1)
    ap.add_argument("--target")
    ap.add_argument("--no-warmup", action="store_true")
    args = ap.parse_args()
    if args.test and not args.n_test:
        ap.error("--test needs --n-test")

    try:
        import numba
        import numpy as np
        import umap
        import umap.umap_ as uu
    except ImportError as e:
        print(f"umap-learn is not available: {e}")
        return 3

    def read_f32(path, rows, cols):
        x = np.fromfile(path, dtype=np.float32)
        if x.size != rows * cols:
            print(f"{path}: {x.size} floats, expected {rows} x {cols}")
            sys.exit(1)
        return x.reshape(rows, cols)

    x = read_f32(args.data, args.n, args.d)
    y = None
    if args.target:
        y = np.fromfile(args.target, dtype=np.int32)
        if y.size != args.n:
            print(f"{args.target}: {y.size} labels, expected {args.n}")
            return 1
        print(f"supervised: {int((y >= 0).sum())} of {args.n} rows labelled", flush=True)
    seed = None if args.seed < 0 else args.seed
    print(f"umap-learn {getattr(umap, '__version__', '?')}, numba {numba.__version__}, n_jobs {args.threads}, "
          f"random_state {seed} (SGD {'1 thread' if seed is not None else 'parallel'}), "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '(unset)')}, "
          f"NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', '(unset)')}, data {args.n} x {args.d}",
          flush=True)

    # phase timers around the functions UMAP.fit calls through module globals;
    # exclusive: a phase called inside another (fuzzy_simplicial_set runs
    # nearest_neighbors itself when it gets no k-NN) is not counted twice
    phases = {}
    stack = []

    def timed(name, fn):
        def wrapper(*a, **k):
            stack.append(0.0)
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                dt = time.perf_counter() - t0
                inner = stack.pop()
                phases[name] = phases.get(name, 0.0) + dt - inner
                if stack:
                    stack[-1] += dt
        return wrapper

    for name, attr in (("knn", "nearest_neighbors"), ("graph", "fuzzy_simplicial_set"),
                       ("init", "spectral_layout"), ("sgd", "optimize_layout_euclidean")):
        if hasattr(uu, attr):
            setattr(uu, attr, timed(name, getattr(uu, attr)))

    def make():
        return umap.UMAP(n_neighbors=args.n_neighbors, min_dist=args.min_dist, n_jobs=args.threads,
                         random_state=seed)

    if not args.no_warmup:
        # 4,500 rows: above umap-learn's 4,096 so that the NN-Descent path compiles too
        t0 = time.perf_counter()
        rng = np.random.default_rng(0)
        w = rng.random((4500, args.d), dtype=np.float32)
        m = make().fit(w, None if y is None else rng.integers(-1, 3, size=len(w)).astype(np.int32))
        if args.test:
            m.transform(w[:500])
        print(f"RESULT warmup_s={time.perf_counter() - t0:.3f}", flush=True)
        del m, w
    phases.clear()

    model = make()
    t0 = time.perf_counter()
    model.fit(x, y)
    fit_s = time.perf_counter() - t0
    emb = np.ascontiguousarray(model.embedding_, dtype=np.float32)
    n_epochs = model.n_epochs if model.n_epochs is not None else (500 if args.n <= 10000 else 200)
    print(f"RESULT n={args.n}\nRESULT d={args.d}\nRESULT n_epochs={n_epochs}")
    print(f"RESULT fit_s={fit_s:.3f}")
    for name in ("knn", "graph", "init", "sgd"):
        if name in phases:
            print(f"RESULT {name}_s={phases[name]:.3f}")
    if args.out:
        emb.tofile(args.out)
    sys.stdout.flush()

    if args.test:
        xt = read_f32(args.test, args.n_test, args.d)
        t0 = time.perf_counter()
        et = model.transform(xt)
        tr_s = time.perf_counter() - t0
        print(f"RESULT n_test={args.n_test}\nRESULT transform_s={tr_s:.3f}")
        if args.out_test:
            np.ascontiguousarray(et, dtype=np.float32).tofile(args.out_test)
    print(f"RESULT peak_rss_kb={vmhwm_kb()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
