"""umaph: parametric UMAP (umap.h) from Python.

    from umaph import UMAP                          # in place of: from umap import UMAP
    emb = UMAP(random_state=0).fit_transform(X)     # X: n x d floats

Installed by `pip install --no-build-isolation .` from the checkout, which
builds the C library (the headers) beside the package; it is loaded through
ctypes and every call into it releases the GIL. umaph.dask embeds dask arrays and
DataFrames on a cluster with a model fitted on a sample.
"""
from ._lib import METRIC_FN, UmapError, UmapFormatError, UmapValueError, LIBRARY_PATH, VERSION as __version__
from .estimator import UMAP, Progress, knn, quality

__all__ = ["UMAP", "Progress", "knn", "quality", "METRIC_FN", "UmapError", "UmapValueError", "UmapFormatError", "LIBRARY_PATH",
           "__version__"]
