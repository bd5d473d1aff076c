"""umaph: parametric UMAP (umap.h) from Python.

    from umaph import UMAP
    emb = UMAP(random_state=0).fit_transform(X)     # X: n x d floats

The C library (build/libumap.so, `make python`) is loaded through ctypes;
every call into it releases the GIL. umaph.dask embeds dask arrays and
DataFrames on a cluster with a model fitted on a sample.
"""
from ._lib import METRIC_FN, UmapError, UmapFormatError, UmapValueError, LIBRARY_PATH
from .estimator import UMAP, Progress, knn, quality

__all__ = ["UMAP", "Progress", "knn", "quality", "METRIC_FN", "UmapError", "UmapValueError", "UmapFormatError", "LIBRARY_PATH"]
