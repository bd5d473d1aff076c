"""Transform at cluster scale: fit on a sample, embed everything on Dask.

    model = umaph.UMAP(random_state=0).fit(sample)
    emb = umaph.dask.transform(model, X)       # X: a dask array (n x d) or
    emb.compute()                               # a dask DataFrame of features

The model travels once: its file bytes (the .safetensors serialisation, as
UMAP.save writes) and the fitted places of its training rows (so that a
training row gets its fitted place, as model.transform gives it) are one
object in the task graph that every block task
depends on, so the scheduler ships it to each worker once; each worker
process loads it once (a cache keyed by the bytes' digest) and embeds the
blocks where they live (map_blocks / map_partitions). The result is that of
model.transform on the whole array, row for row (the encoder's output of a
row depends on the row alone, and so does the place of a row among the kept
training rows of a 2-component model, the default's; a model of other
dimensions places its rows by sampled epochs that depend on the block: use
transform_mode="encoder" there),
bit for bit where OpenBLAS runs as many threads as in the client:
distributed starts workers with OPENBLAS_NUM_THREADS=1, and OpenBLAS's
thread count changes the last bits of a large product (umap's own thread
count never does), so set OPENBLAS_NUM_THREADS=1 in the client too where
bit-equality matters.
"""
import hashlib
import pickle
import threading

import numpy as np

from .estimator import UMAP

_cache = {}
_CACHE_MODELS = 4
_cache_lock = threading.Lock()


def _model(blob, digest, params):
    # one loaded model per worker process and parameter set (never changed
    # after: worker threads share it, transform is thread-safe)
    key = (digest, tuple(sorted(params.items())))
    with _cache_lock:
        m = _cache.pop(key, None)
        if m is None:
            metric = params.get("metric")  # a custom metric's function, which the bytes do not hold
            model_bytes, fitted = pickle.loads(blob)
            m = UMAP.from_bytes(model_bytes).set_params(**{k: v for k, v in params.items() if k != "metric"})
            m.__dict__.update(fitted)
            if metric is not None:
                m.set_metric_function(metric)
        _cache[key] = m  # most recent last
        while len(_cache) > _CACHE_MODELS:  # a long-lived worker sees many models: keep a few
            _cache.pop(next(iter(_cache)))
        return m


def _embed_block(block, blob, digest, params):
    return _model(blob, digest, params).transform(block)


def _embed_frame(frame, blob, digest, params, columns):
    import pandas as pd
    out = _embed_block(frame.to_numpy(dtype=np.float32), blob, digest, params)
    return pd.DataFrame(out, index=frame.index, columns=columns)


def _broadcast(model):
    import dask
    fitted = {k: model.__dict__[k] for k in ("embedding_", "_fitted_rows") if k in model.__dict__}
    blob = pickle.dumps((model.to_bytes(), fitted), protocol=pickle.HIGHEST_PROTOCOL)
    digest = hashlib.sha256(blob).hexdigest()
    # one key for the bytes: each worker receives them once, however many blocks
    return dask.delayed(blob, pure=True, name="umaph-model-" + digest[:16]), digest


def transform(model, data, n_threads=1):
    """model.transform on every block of a dask array (n x d, chunked by rows
    only; a chunked column axis is joined first) or partition of a dask
    DataFrame of feature columns (the result: a DataFrame of the columns
    model.get_feature_names_out() names, umap0.., with the partitions'
    index). n_threads: threads per block
    (1: one per dask worker thread; 0 = all cores)."""
    if model.transform_mode == "graph":
        raise ValueError("umaph.dask.transform: transform_mode='graph' gives sparse rows of memberships, not places: "
                         "give the model transform_mode='embedding'")
    blob, digest = _broadcast(model)
    params = {"n_jobs": n_threads or None, "transform_mode": model.transform_mode,
              "transform_epochs": model.transform_epochs, "transform_exact": model.transform_exact}
    if not isinstance(model.metric, str):  # a custom metric: its function goes along (pickled)
        params["metric"] = model.metric
    nc = model.n_components_
    if hasattr(data, "map_partitions") and hasattr(data, "columns"):
        import pandas as pd
        columns = list(model.get_feature_names_out())
        meta = pd.DataFrame({c: pd.Series(dtype=np.float32) for c in columns})
        return data.map_partitions(_embed_frame, blob, digest, params, columns, meta=meta)
    if data.ndim != 2:
        raise ValueError("umaph.dask.transform: a 2-D dask array (n x d), got %d-D" % data.ndim)
    if data.shape[1] != model.n_features_in_:
        raise ValueError("umaph.dask.transform: %d features, the model expects %d" %
                         (data.shape[1], model.n_features_in_))
    if len(data.chunks[1]) > 1:
        data = data.rechunk({1: -1})
    return data.map_blocks(_embed_block, blob, digest, params, dtype=np.float32,
                           chunks=(data.chunks[0], (nc,)), meta=np.empty((0, nc), np.float32))
