"""umaph.UMAP: scikit-learn's estimator shape over umap_fit/umap_transform."""
import ctypes
import logging
import numbers
import os
import re
import signal
import struct
import sys
import tempfile
import threading
import warnings

import numpy as np

from . import _lib
from ._lib import Struct, UmapError, as_rows, check

try:  # scikit-learn is optional: with it the estimator is a BaseEstimator (clone, Pipeline, repr)
    from sklearn.base import BaseEstimator as _Base, TransformerMixin as _Mixin
except ImportError:  # pragma: no cover - exercised only without scikit-learn
    class _Base:
        @classmethod
        def _get_param_names(cls):
            import inspect
            return sorted(p for p in inspect.signature(cls.__init__).parameters if p != "self")

        def get_params(self, deep=True):
            return {k: getattr(self, k) for k in self._get_param_names()}

        def set_params(self, **params):
            for k, v in params.items():
                if k not in self._get_param_names():
                    raise ValueError("invalid parameter %r for %s" % (k, type(self).__name__))
                setattr(self, k, v)
            return self

    class _Mixin:
        pass

_KNN_METHODS = ["auto", "exact", "nndescent"]
_LOG = logging.getLogger("umaph")
_LOG.addHandler(logging.NullHandler())  # a library's logger: silent unless the application configures logging
_LOG_LEVELS = [logging.ERROR, logging.WARNING, logging.INFO, logging.DEBUG]  # umap_log_level's order
# umap_transform_mode's order; umap-learn's "embedding" is the library's
# AUTO (among the kept rows, else the encoder); umap-learn's "graph" is the
# neighbours mode's graph (umap_transform_desc.graph_indices) instead of
# the places
_TRANSFORM_MODES = ["embedding", "encoder", "neighbors"]
_GRAPH = "graph"

# The parameters for umap_config's scalar fields come from umap.h's table of
# them (umap_config_fields, in _lib.CONFIG_ROWS): a row is a parameter of its
# own name and kind, "auto" for UMAP_AUTO where the row has UMAP_FIELD_AUTO.
# A row takes another name where umap-learn has the meaning under another
# name (refine_epochs is umap-learn's n_epochs, refine_rate its
# learning_rate), which moves the encoder's own epochs and Adam step to
# names that cannot be taken for them (_PARAM). These rows are mapped by
# hand (_config_to_params and _config below): by name (metric, knn_method,
# init), flags (unique, densmap, output_dens: bools; standardize: a bool or
# "auto"), what to keep (keep_data), the widths (n_hidden: the parameter
# hidden, a tuple), metric_p (from metric_kwds, as umap-learn takes it) and
# a, b (None: fitted, umap-learn's default; the library's 0).
_FLAGS = ("unique", "densmap", "output_dens")
_MAPPED = ("metric", "knn_method", "init", "keep_data", "n_hidden", "standardize", "metric_p", "a", "b") + _FLAGS
_PARAM = {"n_hidden": "hidden", "refine_epochs": "n_epochs", "refine_rate": "learning_rate",
          "n_epochs": "encoder_epochs", "learning_rate": "encoder_learning_rate"}
_NONE_IS_AUTO = ("refine_epochs", "disconnection_distance")  # umap-learn's None for "auto"
_lib.AUTO_WORD.update((_PARAM.get(name, name), "None") for name in _NONE_IS_AUTO)


_RENAMED = re.compile(r"\b(%s)\b" % "|".join(_PARAM))  # one pass: refine_epochs -> n_epochs stays


def _param(row_name):
    return _PARAM.get(row_name, row_name)


def _stack(parts):
    """sets of rows (DenseRows or SparseRows, one form) as one matrix"""
    if isinstance(parts[0], _lib.DenseRows):
        return np.vstack([p.matrix for p in parts])
    import scipy.sparse
    return scipy.sparse.vstack([scipy.sparse.csr_matrix((r.values, r.indices, r.indptr), shape=r.shape)
                                for r in parts], format="csr")


def _split_rows(rows):
    """(plain, auto): the rows passed through as they are (ints, floats,
    doubles), and those that take "auto" for UMAP_AUTO; every row is in one
    of them or in _MAPPED."""
    auto_flag = _lib.field_flag("AUTO")
    plain = [r.name for r in rows if r.name not in _MAPPED and not r.flags & auto_flag]
    auto = [r.name for r in rows if r.name not in _MAPPED and r.flags & auto_flag]
    return plain, auto


_PLAIN, _AUTO = _split_rows(_lib.CONFIG_ROWS)


def _short(cfg, name):
    # a float32 field's value as the decimal the header wrote (0.1, not
    # 0.10000000149011612); a double's (timeout_s) as it is
    v = cfg[name]
    return float(repr(np.float32(v))) if cfg.layout[name][2] == b"f" else v


# umap_config.keep_data: UMAP_KEEP_NONE, UMAP_KEEP_ROWS, UMAP_KEEP_SKETCH; UMAP_AUTO is "auto"
_KEEP = [False, True, "sketch"]


def _keep_data(v):
    if isinstance(v, str):
        if v not in ("sketch", "auto"):
            raise ValueError("keep_data: True (the rows), 'sketch' (the rows on their leading principal axes), 'auto' "
                             "(the sketch of a sample, euclidean only) or False; got %r" % (v,))
        return 2 if v == "sketch" else _lib.AUTO
    return int(bool(v))


def _standardize(v):
    """umap_config.standardize: any true or false value, or "auto" (UMAP_AUTO:
    yes for dense rows, no for sparse ones)"""
    if isinstance(v, str):
        if v != "auto":
            raise ValueError("standardize: True, False or 'auto' (dense rows z-scored, sparse ones not); got %r" % (v,))
        return _lib.AUTO
    return int(bool(v))


def _auto_value(name, v):
    """a UMAP_FIELD_AUTO row's parameter: "auto" (or None where umap-learn
    says None) for UMAP_AUTO, else the value"""
    if v is None and name in _NONE_IS_AUTO or isinstance(v, str) and v == "auto":
        return _lib.AUTO
    return v


def _config_to_params(cfg):
    """The estimator's parameters a umap_config holds."""
    p = {_param(name): _short(cfg, name) for name in _PLAIN}
    p["metric"] = _lib.METRICS[cfg["metric"]]
    p["metric_kwds"] = {"p": _short(cfg, "metric_p")} if p["metric"] == "minkowski" else None
    p["knn_method"] = _KNN_METHODS[cfg["knn_method"]]
    p["hidden"] = tuple(cfg["hidden"][:cfg["n_hidden"]])
    for name in _FLAGS:
        p[name] = bool(cfg[name])
    p["keep_data"] = "auto" if cfg["keep_data"] == _lib.AUTO else _KEEP[cfg["keep_data"]]  # fit holds it to these
    p["standardize"] = "auto" if cfg["standardize"] == _lib.AUTO else bool(cfg["standardize"])
    p["init"] = _lib.INITS[cfg["init"]]
    for name in ("a", "b"):
        p[name] = _short(cfg, name) or None
    for name in _AUTO:
        p[_param(name)] = ((None if name in _NONE_IS_AUTO else "auto") if cfg[name] == _lib.AUTO
                           else _short(cfg, name))
    return p


# umap-learn 0.5's parameters that have no effect here, and why (accepted
# with any value of the type umap-learn takes, as umap-learn's own code
# would: a script written for it runs unchanged)
_NO_EFFECT = {
    "low_memory": "NN-Descent's memory here does not depend on it",
    "transform_queue_size": "transform's neighbour search here is a walk on the kept k-NN graph",
    "angular_rp_forest": "NN-Descent here starts without random-projection trees",
    "transform_seed": "transform here draws nothing: a row's place depends on the row and the model",
    "tqdm_kwds": "verbose=True draws the library's own progress bar",
}


def _library_defaults():
    cfg = Struct("umap_config")
    _lib.config_default(cfg.ptr)
    p = _config_to_params(cfg)
    p["metric_kwds"] = None
    p["target_metric"] = "categorical"  # umap-learn's: y as labels, whatever its dtype
    p["target_metric_kwds"] = None
    p["target_n_neighbors"] = -1        # umap-learn's: n_neighbors
    return p


# The signature: umap-learn 0.5's parameters first, in its order, then the
# rest of umap_config in its table's order, then the estimator's own;
# defaults read from umap_config_default() here where the library has the
# field, umap-learn's elsewhere.
_HEAD = ["n_neighbors", "n_components", "metric", "metric_kwds", "output_metric", "output_metric_kwds", "n_epochs",
         "learning_rate", "init", "min_dist", "spread", "low_memory", "n_jobs", "set_op_mix_ratio",
         "local_connectivity", "repulsion_strength", "negative_sample_rate", "transform_queue_size", "a", "b",
         "random_state", "angular_rp_forest", "target_n_neighbors", "target_metric", "target_metric_kwds",
         "target_weight", "transform_seed", "transform_mode", "force_approximation_algorithm", "verbose",
         "tqdm_kwds", "unique", "densmap", "dens_lambda", "dens_frac", "dens_var_shift", "output_dens",
         "disconnection_distance", "precomputed_knn"]
_TAIL = ["device", "transform_epochs", "transform_exact", "callback"]


def _order(rows):
    params = [_param(r.name) for r in rows if r.name != "metric_p"]
    return _HEAD + [p for p in params if p not in _HEAD] + _TAIL


_ORDER = _order(_lib.CONFIG_ROWS)
_DEFAULTS = dict(_library_defaults(), random_state=None, n_jobs=-1, output_metric="euclidean",
                 output_metric_kwds=None, low_memory=True, transform_queue_size=4.0, angular_rp_forest=False,
                 transform_seed=42, transform_mode="embedding", force_approximation_algorithm=False, verbose=False,
                 tqdm_kwds=None, precomputed_knn=(None, None, None), device="cpu", transform_epochs=0,
                 transform_exact=False, callback=None)
assert sorted(_ORDER) == sorted(_DEFAULTS), set(_ORDER) ^ set(_DEFAULTS)


def _metric_kwds(metric, metric_p, kwds, d, what="metric_kwds"):
    """umap-learn's metric_kwds for the metrics that take arguments:
    minkowski {"p": p} (over metric_p), seuclidean {"V": the d variances}
    (umap-learn passes the values by position, so its "sigma" is the same);
    returns (metric_p, V as float32 or None)."""
    if not kwds:
        return metric_p, None
    if not isinstance(kwds, dict):
        raise ValueError("%s: a dict (or None), got %r" % (what, kwds))
    kwds = dict(kwds)
    if metric == "minkowski" and set(kwds) == {"p"}:
        p = kwds["p"]
        if isinstance(p, bool) or not isinstance(p, numbers.Real) or not p >= 1:
            raise ValueError("%s: minkowski's p must be a number >= 1, got %r" % (what, p))
        return float(p), None
    if metric == "seuclidean" and len(kwds) == 1 and set(kwds) <= {"V", "sigma"}:
        v = np.ascontiguousarray(np.asarray(next(iter(kwds.values())), dtype=np.float64).reshape(-1), dtype=np.float32)
        if v.shape != (d,):
            raise ValueError("%s: seuclidean's V holds one variance per column: %d, got %d" % (what, d, v.size))
        return metric_p, v
    raise ValueError("%s %r: minkowski takes {'p': p}, seuclidean {'V': variances}; %s takes none"
                     % (what, sorted(kwds), metric))


def _make_init():
    # scikit-learn reads the parameters from __init__'s signature and wants
    # __init__ to store them untouched; the defaults are the library's.
    args = ", ".join("%s=%r" % (k, _DEFAULTS[k]) for k in _ORDER)
    body = "".join("    self.%s = %s\n" % (k, k) for k in _ORDER)
    ns = {}
    exec("def __init__(self, *, %s):\n%s" % (args, body), ns)
    return ns["__init__"]


def _say_params(text):
    """the library's message about a config field in the parameter's words:
    its name here ("refine_rate = -1: ..." is learning_rate's) and how it
    says UMAP_AUTO"""
    field = text.split(" ", 1)[0]
    text = text.replace("UMAP_AUTO (-1)", _lib.AUTO_WORD.get(_param(field), "'auto'"))
    return _RENAMED.sub(lambda m: _PARAM[m.group(0)], text)


class _FittedRows:
    """The rows an estimator was fitted on (and update added) by their
    fingerprints (umaph_row_fingerprints), so that transform finds a
    training row in O(log n) and gives it its fitted place, embedding_'s
    row (equal rows: the first one's). A coarse fingerprint over about
    _COARSE_COLUMNS spread columns rules most new rows out at a fraction of
    the whole one's cost; the whole one decides."""

    def __init__(self, rows):
        self.stride = max(1, rows.shape[1] // _COARSE_COLUMNS)
        self.coarse = np.sort(_lib.fingerprints(rows, self.stride))
        self._set(_lib.fingerprints(rows))

    def _set(self, whole):
        self.order = np.argsort(whole, kind="stable")
        self.whole = whole[self.order]

    def __len__(self):
        return len(self.whole)

    def add(self, rows):
        earlier = np.empty_like(self.whole)
        earlier[self.order] = self.whole
        self._set(np.concatenate([earlier, _lib.fingerprints(rows)]))
        self.coarse = np.sort(np.concatenate([self.coarse, _lib.fingerprints(rows, self.stride)]))

    def find(self, rows):
        """(the positions in rows of training rows, their training indices)"""
        coarse = _lib.fingerprints(rows, self.stride)
        maybe = np.flatnonzero(self.coarse[np.minimum(np.searchsorted(self.coarse, coarse), len(self.coarse) - 1)]
                               == coarse)
        if not len(maybe):
            return maybe, maybe
        whole = _lib.fingerprints(_lib.take_rows(rows, maybe))
        at = np.minimum(np.searchsorted(self.whole, whole), len(self.whole) - 1)
        seen = self.whole[at] == whole
        return maybe[seen], self.order[at[seen]]


_COARSE_COLUMNS = 32


def _graph_matrix(edges):
    """a umap_edge_list the library filled as a symmetric scipy CSR matrix
    (None without scipy or without a graph)"""
    try:
        import scipy.sparse
    except ImportError:
        return None
    n, m = edges["n_nodes"], edges["n_edges"]
    if not edges["head"]:
        return None

    def column(field, ctype, dtype):
        return np.ctypeslib.as_array(ctypes.cast(edges[field], ctypes.POINTER(ctype)), shape=(m,)).astype(dtype)

    head, tail = column("head", ctypes.c_int32, np.int32), column("tail", ctypes.c_int32, np.int32)
    weight = column("weight", ctypes.c_float, np.float32)
    both = scipy.sparse.coo_matrix((np.concatenate([weight, weight]), (np.concatenate([head, tail]),
                                                                      np.concatenate([tail, head]))), shape=(n, n))
    return both.tocsr()


def _feature_names(X):
    """A frame's column names as scikit-learn keeps them (an object array),
    None for an array or a frame without string names; names of mixed
    types are refused, as scikit-learn refuses them."""
    columns = getattr(X, "columns", None)
    if columns is None or not hasattr(X, "iloc"):
        return None
    names = np.asarray(columns, dtype=object)
    strings = [isinstance(c, str) for c in names]
    if all(strings) and len(names):
        return names
    if any(strings):
        raise TypeError("Feature names are only supported if all input features have string names, but your input "
                        "has %s as feature name / column name types. Convert them all to str (X.columns = "
                        "X.columns.astype(str)) or none of them" % sorted({type(c).__name__ for c in names}))
    return None


def _seed(random_state):
    # None: a fresh seed (scikit-learn's meaning); an int: that seed; a
    # RandomState/Generator: a seed drawn from it
    if random_state is None:
        return int(np.random.randint(0, 2**63 - 1, dtype=np.int64))
    if isinstance(random_state, (int, np.integer)):
        if random_state < 0:
            raise ValueError("random_state must be >= 0, got %d" % random_state)
        return int(random_state) & (2**64 - 1)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**63 - 1, dtype=np.int64))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2**63 - 1))
    raise ValueError("random_state must be None, an int or a numpy RandomState/Generator, got %r" % (random_state,))


def _threads(n_jobs):
    """joblib's n_jobs as the library's thread count (0: all cores): -1 all
    cores, -2 all but one, ...; None as -1 (umap-learn's default); 0 has no
    meaning (joblib refuses it too). The count never changes the result."""
    if n_jobs is None:
        return 0
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, numbers.Real) or \
            not float(n_jobs).is_integer():
        raise ValueError("n_jobs: an integer (-1: all cores, -2: all but one, ...) or None, got %r" % (n_jobs,))
    n_jobs = int(n_jobs)
    if n_jobs == 0:
        raise ValueError("n_jobs=0 has no meaning: a positive count of threads, or -1 for all cores "
                         "(-2 all but one, ...)")
    if n_jobs == -1:
        return 0
    if n_jobs < -1:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return min(n_jobs, 2**31 - 1)


def _name_to_index(names, value, what):
    if value not in names:
        raise ValueError("%s: %r is not one of %s" % (what, value, ", ".join(names)))
    return names.index(value)


class Progress:
    """What a progress callback receives: the phase, the epoch of n_epochs,
    the loss so far and the time since fit started."""
    __slots__ = ("phase", "epoch", "n_epochs", "loss", "best_loss", "elapsed_s")

    def __init__(self, ptr):
        lay = _lib.LAYOUTS["umap_progress"]
        raw = ctypes.string_at(ptr, lay[""][1])
        phase = struct.unpack_from("=Q", raw, lay["phase"][0])[0]
        self.phase = ctypes.string_at(phase).decode() if phase else ""
        for name, fmt in (("epoch", "=i"), ("n_epochs", "=i"), ("loss", "=f"), ("best_loss", "=f"),
                          ("elapsed_s", "=d")):
            setattr(self, name, struct.unpack_from(fmt, raw, lay[name][0])[0])

    def __repr__(self):
        return "Progress(phase=%r, epoch=%d, n_epochs=%d, loss=%.4g, elapsed_s=%.2f)" % (
            self.phase, self.epoch, self.n_epochs, self.loss, self.elapsed_s)


def _text_bar(p, stream=None):
    """verbose=True: a one-line bar on a terminal, a line per phase elsewhere."""
    stream = stream or sys.stderr
    if p.n_epochs > 0 and stream.isatty():
        width = 30
        done = int(width * min(p.epoch, p.n_epochs) / p.n_epochs)
        stream.write("\rumaph: %-10s [%s%s] %d/%d loss %.4f %.1fs " % (
            p.phase, "#" * done, "-" * (width - done), p.epoch, p.n_epochs, p.loss, p.elapsed_s))
        if p.epoch >= p.n_epochs:
            stream.write("\n")
    elif p.epoch == 0:
        stream.write("umaph: %s (%.1fs)\n" % (p.phase, p.elapsed_s))
    stream.flush()


class _Interrupt:
    """Ctrl-C during fit: a SIGINT handler (main thread only) sets a flag,
    and the wakeup fd catches a SIGINT that arrives while the main thread is
    inside the C call (Python runs its handlers only between bytecodes, the
    progress callback may run on another thread); the progress callback
    reads both and asks the library to cancel."""

    def __init__(self):
        self.flag = False
        self.installed = False

    def __enter__(self):
        if threading.current_thread() is not threading.main_thread():
            return self
        try:
            self.old_handler = signal.signal(signal.SIGINT, self._handler)
        except (ValueError, OSError):  # not the main interpreter, or no signals here
            return self
        self.installed = True
        self.pipe = None
        try:
            r, w = os.pipe()
            os.set_blocking(r, False)
            os.set_blocking(w, False)
            old_fd = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
            if old_fd != -1:  # someone else's (asyncio): give it back, the flag alone serves
                signal.set_wakeup_fd(old_fd)
                os.close(r)
                os.close(w)
            else:
                self.pipe = (r, w)
        except (ValueError, OSError):
            pass
        return self

    def _handler(self, signum, frame):
        self.flag = True

    def pending(self):
        if not self.flag and self.pipe is not None:
            try:
                if signal.SIGINT in os.read(self.pipe[0], 64):
                    self.flag = True
            except BlockingIOError:
                pass
        return self.flag

    def __exit__(self, *exc):
        if self.installed:
            if self.pipe is not None:
                signal.set_wakeup_fd(-1)
                self.pending()
                os.close(self.pipe[0])
                os.close(self.pipe[1])
            signal.signal(signal.SIGINT, self.old_handler)
        return False


class UMAP(_Mixin, _Base):
    """Parametric UMAP (umap.h) that passes for umap-learn's UMAP: its
    parameters, with umap-learn's names and meanings, come first in the
    signature; the library's own follow (docs/python.md has the table).

    umap-learn's parameters: n_neighbors (more than the rows: warned and
    cut to n_samples - 1, as umap-learn does), n_components, metric (a name,
    or a function: umap-learn's numba.njit f(x, y) -> float, compiled to C;
    a numba cfunc or ctypes pointer of umap_metric_fn's signature,
    umaph.METRIC_FN; any Python callable over two float32 rows, slow),
    metric_kwds (minkowski's p, seuclidean's V), n_epochs (the refinement's
    epochs of classic UMAP on the embedding; None: by the data's size),
    learning_rate (the refinement's first SGD step: it starts from the
    encoder's layout, so the default is smaller than umap-learn's 1.0), init
    ("pca", "random", "spectral" or an (n, n_components) array), min_dist,
    spread, n_jobs (joblib's: -1 all cores, -2 all but one; never changes
    the result), set_op_mix_ratio, local_connectivity, repulsion_strength,
    negative_sample_rate, a, b (None: fitted from min_dist and spread),
    random_state (None: a fresh seed; the seed alone decides the result),
    target_* (fit(X, y): target_metric "categorical" takes y as labels, -1
    unknown; another metric takes y's values), transform_mode ("embedding":
    among the kept training rows, else by the encoder; "graph": the new
    rows' memberships to the training rows, a scipy.sparse matrix; fit then
    keeps every training row),
    force_approximation_algorithm (NN-Descent whatever the size), verbose (a
    progress bar on stderr), unique, densmap, dens_*, output_dens,
    disconnection_distance (None: the metric's default), precomputed_knn
    ((indices, distances[, index]) of X's k-NN, each row first in its own
    list as umap-learn gives them). output_metric takes "euclidean" alone.
    low_memory, transform_queue_size, angular_rp_forest, transform_seed and
    tqdm_kwds are accepted and have no effect here (umaph.UMAP.NO_EFFECT
    says why for each).

    The library's own: the encoder (hidden widths, input_dims, standardize,
    encoder_epochs, encoder_learning_rate: Adam's step, batch_size, ...),
    what the model keeps for transform (keep_data: True the training rows,
    "sketch" the rows on their leading principal axes, False neither,
    "auto" the sketch of keep_sample rows for the euclidean metric and 2
    components), distill_epochs, refine_attraction, device ("cpu", "vulkan"
    or "auto": the GPU when a calibration says it is faster),
    transform_epochs, transform_exact, transform_mode's "encoder" (one
    forward pass) and "neighbors" (among the kept rows, even for the
    training rows), knn_method, and callback(progress) -> True, which
    cancels fit: during training the best weights so far are kept and fit
    warns (cancelled_ is True); before training there is no model and fit
    raises UmapError (result "CANCELLED"). Ctrl-C cancels the same way and
    raises KeyboardInterrupt after.

    transform with transform_mode "embedding" gives a row the estimator
    was fitted on (the same values) its fitted place, embedding_'s row, as
    umap-learn's transform of the training data does; every other row is
    placed by itself (the same bits alone or among others). graph_ is the
    fuzzy graph the fit trained on (scipy.sparse, n x n; over the distinct
    rows with unique), as umap-learn's; a model file does not keep it.
    """

    __init__ = _make_init()
    NO_EFFECT = _NO_EFFECT

    # (python -OO strips docstrings: __doc__ is None there)
    __doc__ = (__doc__ or "") + "\n    The parameters of umap_config's fields (name=default: what it is):\n\n" + "".join(
        "    %s=%r: %s\n" % (_param(r.name), _DEFAULTS[_param(r.name)], r.doc)
        for r in _lib.CONFIG_ROWS if r.name != "metric_p")

    # ---- scikit-learn's tags: _more_tags up to scikit-learn 1.5, __sklearn_tags__ from 1.6
    def _more_tags(self):
        return {"preserves_dtype": [np.float32]}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float32"]  # every output is float32
        tags.input_tags.sparse = True
        return tags

    # ---- scikit-learn's feature names (feature_names_in_, get_feature_names_out)
    def _check_feature_names(self, X, reset):
        """Sets (reset) or checks feature_names_in_ as scikit-learn's
        estimators do: a frame whose columns differ from fit's, or come in
        another order, is refused (never read by position)."""
        names = _feature_names(X)
        if reset:
            if names is not None:
                self.feature_names_in_ = names
            else:
                self.__dict__.pop("feature_names_in_", None)
            return
        fitted = self.__dict__.get("feature_names_in_")
        if fitted is None and names is None:
            return
        if fitted is None:
            warnings.warn("X has feature names, but %s was fitted without feature names" % type(self).__name__)
            return
        if names is None:
            warnings.warn("X does not have valid feature names, but %s was fitted with feature names"
                          % type(self).__name__)
            return
        if len(fitted) == len(names) and np.all(fitted == names):
            return
        unseen, missing = sorted(set(names) - set(fitted)), sorted(set(fitted) - set(names))

        def listed(title, items):
            return title + "".join("- %s\n" % x for x in items[:5]) + ("- ...\n" if len(items) > 5 else "")

        message = "The feature names should match those that were passed during fit.\n"
        message += listed("Feature names unseen at fit time:\n", unseen) if unseen else ""
        message += listed("Feature names seen at fit time, yet now missing:\n", missing) if missing else ""
        if not unseen and not missing:
            message += "Feature names must be in the same order as they were in fit.\n"
        raise ValueError(message)

    def get_feature_names_out(self, input_features=None):
        """The embedding's column names: umap0, umap1, ... (scikit-learn's
        names for a transformer's new features; set_output's frame columns)."""
        self._check_fitted()
        if input_features is not None:
            input_features = np.asarray(input_features, dtype=object)
            fitted = self.__dict__.get("feature_names_in_")
            if len(input_features) != self.n_features_in_ or \
                    fitted is not None and not np.array_equal(input_features, fitted):
                raise ValueError("input_features is not equal to feature_names_in_ (or has not n_features_in_ "
                                 "names)")
        return np.asarray(["umap%d" % i for i in range(self.n_components_)], dtype=object)

    # ---- fit
    def _check_params(self, n):
        """umap-learn's parameters that the library's table does not check,
        checked at fit as umap-learn's own checks run: ValueError naming the
        parameter. Returns n_neighbors for n rows (more than the rows: cut
        to n - 1 with umap-learn's warning)."""
        if self.output_metric != "euclidean":
            raise ValueError("output_metric=%r: umaph embeds in euclidean space only ('euclidean')"
                             % (self.output_metric,))
        if self.output_metric_kwds:
            raise ValueError("output_metric_kwds: euclidean takes none, got %r" % (self.output_metric_kwds,))
        if self.transform_mode not in _TRANSFORM_MODES + [_GRAPH]:
            raise ValueError("transform_mode: %r is not one of %s" % (self.transform_mode,
                                                                     ", ".join(_TRANSFORM_MODES + [_GRAPH])))
        if self.tqdm_kwds is not None and not isinstance(self.tqdm_kwds, dict):
            raise ValueError("tqdm_kwds: a dict or None, got %r" % (self.tqdm_kwds,))
        for name in ("low_memory", "angular_rp_forest", "force_approximation_algorithm"):
            if not isinstance(getattr(self, name), (bool, np.bool_, int)):
                raise ValueError("%s: True or False, got %r" % (name, getattr(self, name)))
        for name in ("transform_queue_size", "transform_seed"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not v >= 0:
                raise ValueError("%s: a number >= 0, got %r" % (name, v))
        if self.force_approximation_algorithm and self.knn_method == "exact":
            raise ValueError("force_approximation_algorithm=True asks for NN-Descent, knn_method='exact' for the "
                             "exact search: give one")
        if self.target_metric != "categorical" and self.target_metric not in _lib.METRICS:
            raise ValueError("target_metric: %r is not 'categorical' or one of %s" %
                             (self.target_metric, ", ".join(m for m in _lib.METRICS if m != "custom")))
        k = self.n_neighbors  # its type and range: the table's check, in _config
        if isinstance(k, numbers.Real) and not isinstance(k, (bool, np.bool_)) and k > n - 1 and n > 2:
            warnings.warn("n_neighbors is larger than the dataset size; truncating to X.shape[0] - 1", UserWarning,
                          stacklevel=3)
            return n - 1
        return k

    def _config(self, n, d, n_neighbors):
        cfg = Struct("umap_config")
        _lib.config_default(cfg.ptr)
        for name in _PLAIN:
            cfg.set(name, getattr(self, _param(name)), _param(name))
        cfg.set("n_neighbors", n_neighbors, "n_neighbors")
        cfg["metric"], custom = _lib.metric_of(self.metric)
        metric_p, metric_v = _metric_kwds(self.metric, 2.0, self.metric_kwds, d)
        cfg["metric_p"] = metric_p
        cfg["knn_method"] = _name_to_index(_KNN_METHODS, self.knn_method, "knn_method")
        if self.force_approximation_algorithm:
            cfg["knn_method"] = _KNN_METHODS.index("nndescent")
        try:
            hidden = tuple(int(h) for h in self.hidden)
        except (TypeError, ValueError):
            raise ValueError("hidden: the hidden layers' widths as a tuple of integers, got %r" % (self.hidden,))
        if len(hidden) > len(cfg["hidden"]):
            raise ValueError("hidden: at most %d layers, got %d" % (len(cfg["hidden"]), len(hidden)))
        cfg["n_hidden"] = len(hidden)
        cfg["hidden"] = hidden
        for name in _FLAGS:
            cfg[name] = int(bool(getattr(self, name)))
        cfg["keep_data"] = _keep_data(self.keep_data)
        if self.transform_mode == _GRAPH and cfg["keep_data"] == _lib.AUTO:
            # the graph links new rows to every training row: keep them all
            cfg["keep_data"] = _KEEP.index(True)
            if isinstance(self.keep_sample, str) and self.keep_sample == "auto":
                cfg["keep_sample"] = 0
        cfg["standardize"] = _standardize(self.standardize)
        for name in ("a", "b"):
            cfg.set(name, 0 if getattr(self, name) is None else getattr(self, name), name)
        for name in _AUTO:
            cfg.set(name, _auto_value(name, getattr(self, _param(name))), _param(name))
        cfg["seed"] = _seed(self.random_state)
        cfg["n_threads"] = _threads(self.n_jobs)
        keep = []  # arrays the config points at, alive until fit returns
        if metric_v is not None:
            cfg["metric_v"] = metric_v.ctypes.data
            keep.append(metric_v)
        if custom is not None:  # the model calls it as long as it lives: fit keeps it beside the model
            cfg["metric_fn"] = custom.address
            keep.append(custom)
        if isinstance(self.init, str):
            init = _name_to_index(_lib.INITS, self.init, "init")
            if _lib.INITS[init] == "coords":
                raise ValueError("init: pass the coordinates themselves as an array for init='coords'")
            cfg["init"] = init
        else:
            coords = as_rows(self.init, "init")
            if coords.shape != (n, self.n_components):
                raise ValueError("init: an array of shape (n_samples, n_components) = (%d, %d), got %s" %
                                 (n, self.n_components, coords.shape))
            cfg["init"] = _lib.INITS.index("coords")
            cfg["init_coords"] = coords.ctypes.data
            keep.append(coords)
        return cfg, keep

    def _target(self, y, n, cfg, keep):
        """umap-learn's fit(X, y): target_metric "categorical" takes y as
        labels whatever its dtype (-1 unknown: semi-supervised); another
        metric takes y's values (n or n x m numbers)."""
        y = np.asarray(y)
        if y.shape[:1] != (n,):
            raise ValueError("y has %d rows, X has %d" % (y.shape[0] if y.ndim else 1, n))
        tgt = Struct("umap_target")
        if self.target_metric == "categorical":
            if y.ndim != 1:
                raise ValueError("y: labels must be 1-D, got shape %s (a target of values takes a target_metric)"
                                 % (y.shape,))
            if y.dtype.kind in "biu" and (not y.size or y.min() >= -1 and y.max() <= np.iinfo(np.int32).max):
                labels = np.ascontiguousarray(y, dtype=np.int32)
            else:  # class names or values: codes 0..C-1 by value, -1 still unknown
                unknown = (y == -1) if y.dtype.kind in "biuf" else np.zeros(n, dtype=bool)
                if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
                    raise ValueError("y: labels hold NaN or Inf")
                codes = np.unique(y[~unknown].astype(str if y.dtype.kind in "OUS" else y.dtype),
                                  return_inverse=True)[1]
                labels = np.full(n, -1, dtype=np.int32)
                labels[~unknown] = codes
            tgt["labels"] = labels.ctypes.data
            keep.append(labels)
        else:
            if y.dtype.kind not in "biuf":
                raise ValueError("y: target_metric=%r measures numbers, got dtype %s (labels take "
                                 "target_metric='categorical')" % (self.target_metric, y.dtype))
            values = as_rows(y.reshape(n, -1), "y")
            tgt["values"] = values.ctypes.data
            tgt["values_dim"] = values.shape[1]
            tgt["metric"] = _lib.METRICS.index(self.target_metric)
            tgt.set("metric_p", _metric_kwds(self.target_metric, 2.0, self.target_metric_kwds, values.shape[1],
                                             "target_metric_kwds")[0], "target_metric_kwds")
            k = self.target_n_neighbors  # -1: n_neighbors (umap-learn's); more than the rows: all of them
            k = 0 if k == -1 else min(k, n) if isinstance(k, numbers.Real) else k
            tgt.set("n_neighbors", k, "target_n_neighbors")
            keep.append(values)
        keep.append(tgt)
        cfg["target"] = tgt.ptr

    def _precomputed_knn(self, n, n_neighbors):
        """precomputed_knn as umap_fit_knn takes it: each row's
        n_neighbors - 1 nearest others (umap-learn's lists start with the
        row itself)"""
        if not isinstance(self.precomputed_knn, (tuple, list)) or len(self.precomputed_knn) not in (2, 3):
            raise ValueError("precomputed_knn: (knn_indices, knn_dists[, knn_search_index]), got %r"
                             % (self.precomputed_knn,))
        indices, dists = self.precomputed_knn[0], self.precomputed_knn[1]
        if indices is None and dists is None:
            return None
        indices, dists = np.asarray(indices), np.asarray(dists)
        if indices.ndim != 2 or indices.shape != dists.shape or indices.shape[0] != n or \
                indices.shape[1] < n_neighbors or indices.dtype.kind not in "iu":
            raise ValueError("precomputed_knn: knn_indices (integers) and knn_dists of shape (n_samples, k >= "
                             "n_neighbors) = (%d, >= %d), got %s and %s" % (n, n_neighbors, indices.shape,
                                                                            dists.shape))
        first = indices[:, 0] == np.arange(n)
        if not np.all(first):
            raise ValueError("precomputed_knn: row %d does not list itself first, as umap-learn's k-NN does"
                             % int(np.argmin(first)))
        return (np.ascontiguousarray(indices[:, 1:n_neighbors], dtype=np.int32),
                np.ascontiguousarray(dists[:, 1:n_neighbors], dtype=np.float32))

    def fit(self, X, y=None):
        """Fits on X (n_samples x n_features); y (optional): a label per row
        (integers, -1 = unknown: semi-supervised) or target values (floats),
        as umap-learn's fit(X, y). X may be scipy.sparse (CSR, or any
        format, converted once): fitted without densifying (the C library's
        umap_fit_rows), on the CPU."""
        frame = X
        sparse = _lib.SparseRows(X) if _lib.is_sparse(X) else None
        X = as_rows(X) if sparse is None else None
        n, d = X.shape if sparse is None else sparse.shape
        if n < 2:
            raise ValueError("n_samples=%d: UMAP needs at least 2 samples" % n)
        n_neighbors = self._check_params(n)
        cfg, keep = self._config(n, d, n_neighbors)
        if y is not None:
            self._target(y, n, cfg, keep)
        knn = self._precomputed_knn(n, n_neighbors)
        if knn is not None and (sparse is not None or self.unique):
            raise ValueError("precomputed_knn: takes dense rows without unique here")
        if self.transform_mode == _GRAPH and sparse is not None and self.metric != "precomputed":
            raise ValueError("transform_mode='graph': a fit on sparse rows keeps no training rows to link new rows "
                             "to (transform_mode='embedding' places them by the encoder)")
        info = Struct("umap_fit_info")
        cfg["info"] = info.ptr
        graph = Struct("umap_edge_list")  # graph_: the fuzzy graph the fit trains on
        cfg["graph"] = graph.ptr
        user_error = []
        user_cancel = [False]
        verbose, callback = self.verbose, self.callback

        with _Interrupt() as interrupt:
            def on_progress(ptr, _user_data):
                # called by the library with the GIL taken again (ctypes does
                # that for a CFUNCTYPE), from the thread running fit
                try:
                    if interrupt.pending():
                        return 1
                    if verbose or callback is not None:
                        p = Progress(ptr)
                        if verbose:
                            _text_bar(p)
                        if callback is not None and callback(p):
                            user_cancel[0] = True
                            return 1
                    return 0
                except BaseException as e:  # an exception cannot cross the C frames: cancel, raise after
                    user_error.append(e)
                    return 1

            # the library's log: to logging's "umaph" logger; its warnings
            # (a constant column, a spectral init that fell back to PCA) also
            # as Python warnings once fit returns, on the caller's thread
            library_warnings = []

            def on_log(level, message, _user_data):
                try:
                    text = _say_params(message.decode("utf-8", "replace"))
                    _LOG.log(_LOG_LEVELS[level] if 0 <= level < 4 else logging.INFO, "%s", text)
                    if level == 1:
                        library_warnings.append(text)
                except BaseException:  # never let an exception reach the C frames
                    pass

            log_fn = _lib.LOG_FN(on_log)  # kept alive until fit returns
            cfg["logger.log_fn"] = ctypes.cast(log_fn, ctypes.c_void_p).value

            # no progress callback where nothing would listen (a fit on another
            # thread, quiet, without a user callback): then no Python runs
            # during that fit but for the rare log message
            if interrupt.installed or verbose or callback is not None:
                progress = _lib.PROGRESS_FN(on_progress)  # kept alive until fit returns
                cfg["progress"] = ctypes.cast(progress, ctypes.c_void_p).value
            model = ctypes.c_void_p()
            vk = ctypes.c_void_p()
            detail = ctypes.create_string_buffer(512)
            if sparse is None or str(self.device) != "auto":
                check(_lib.device_open(str(self.device).encode(), n, d, ctypes.byref(vk), detail, len(detail)),
                      _lib.text(detail), "device %r" % (self.device,))
            if sparse is not None and vk.value:
                _lib.vk_free(vk)
                raise ValueError("device=%r: sparse input is fitted on the CPU (device='cpu' or 'auto')" %
                                 (self.device,))
            try:
                if knn is not None:
                    r = _lib.fit_knn(cfg.ptr, X.ctypes.data, n, d, knn[0].ctypes.data, knn[1].ctypes.data,
                                     knn[0].shape[1], ctypes.byref(model))
                elif sparse is not None:
                    r = _lib.fit_rows(cfg.ptr, sparse.rows.ptr, ctypes.byref(model))
                elif vk.value:
                    r = _lib.vk_fit(vk, cfg.ptr, X.ctypes.data, n, d, ctypes.byref(model))
                else:
                    r = _lib.fit(cfg.ptr, X.ctypes.data, n, d, ctypes.byref(model))
            finally:
                if vk.value:
                    _lib.vk_free(vk)
                edges = _graph_matrix(graph) if model.value else None
                _lib.edge_list_free(graph.ptr)
            self.device_used_ = "vulkan" if vk.value else "cpu"
            interrupted = interrupt.flag
        custom = next((k for k in keep if isinstance(k, _lib.CustomMetric)), None)
        del keep
        # the rows fit was given, by reference (umap-learn's _raw_data): what
        # update grows on when the model keeps no copy of its own
        self._fit_rows = sparse if sparse is not None else _lib.DenseRows(X)
        for text in library_warnings:
            warnings.warn("umaph: " + text, UserWarning, stacklevel=2)
        cancelled = r == _lib.result_code("CANCELLED")
        if custom is not None:
            custom.raise_pending()  # the Python metric's own exception, over the error it caused
        if model.value:  # OK, cancelled or diverged: a usable model (the best weights)
            self._set_model(model.value, custom)
            self.fit_info_ = {k: info[k] for k in _lib.LAYOUTS["umap_fit_info"] if k}
            self.fit_info_["init_used"] = _lib.INITS[self.fit_info_["init_used"]]
            self.cancelled_ = cancelled
            self._check_feature_names(frame, reset=True)
            self._remember_rows(self._fit_rows, reset=True)
            self._set_graph(edges)
        if user_error:
            raise user_error[0]
        if cancelled and interrupted:
            raise KeyboardInterrupt("umaph: fit cancelled by Ctrl-C" +
                                    (" (the model so far is kept)" if model.value else ""))
        if cancelled and user_cancel[0] and model.value:  # cancelled while training: a usable model
            warnings.warn("umaph: fit cancelled by the callback; the best weights so far are kept", RuntimeWarning)
            return self
        if r != 0 and model.value and r == _lib.result_code("NON_FINITE"):
            warnings.warn("umaph: the loss diverged; the best weights are kept: %s" % info["error_detail"],
                          RuntimeWarning)
            return self
        check(r, _say_params(info["error_detail"]), "fit")
        return self

    def fit_transform(self, X, y=None):
        """fit, then the training rows' embedding (embedding_); with
        output_dens, umap-learn's (embedding_, rad_orig_, rad_emb_)."""
        self.fit(X, y)
        if self.output_dens:
            return self.embedding_, self.rad_orig_, self.rad_emb_
        return self.embedding_

    def update(self, X, X_old=None):
        """umap-learn's update: the fitted model grows by the rows X
        (continued training, the C library's umap_update): the k-NN and the
        fuzzy graph of all rows, the old rows staying where they are, the new
        ones placed among them by the refinement, the encoder (and decoder)
        trained on from their weights over all rows. embedding_ grows by X's
        rows. The rows the model was fitted on come from X_old, else from the
        model (keep_data=True), else from those fit was given (kept by
        reference, as umap-learn keeps _raw_data; not pickled). Returns self."""
        self._check_fitted()
        self._need_metric_function("update")
        self._check_feature_names(X, reset=False)
        new = _lib.rows_of(X, "X", self.n_features_in_)
        cfg = Struct("umap_config")
        _lib.model_config(self._model, cfg.ptr)
        keeps_all = cfg["keep_data"] == 1 and cfg["keep_sample"] == 0
        if X_old is not None:
            self._check_feature_names(X_old, reset=False)
            old = _lib.rows_of(X_old, "X_old", self.n_features_in_)
        else:
            old = None if keeps_all else self.__dict__.get("_fit_rows")
            if isinstance(old, list):  # an earlier update's parts, stacked when first needed
                old = self._fit_rows = _lib.rows_of(_stack(old))
            if old is None and not keeps_all:
                raise ValueError("update: the model keeps no copy of the rows it was fitted on (keep_data=True "
                                 "keeps them) and this estimator was not fitted here: pass them as X_old")
        info = Struct("umap_fit_info")
        desc = Struct("umap_update_desc")
        desc["old_rows"] = old.rows.ptr if old is not None else 0
        desc.set("n_threads", _threads(self.n_jobs), "n_jobs")
        desc["info"] = info.ptr
        graph = Struct("umap_edge_list")
        desc["graph"] = graph.ptr
        try:
            r = _lib.update(self._model, desc.ptr, new.rows.ptr)
            edges = _graph_matrix(graph) if r == 0 else None
        finally:
            _lib.edge_list_free(graph.ptr)
        self._raise_metric_error()
        check(r, info["error_detail"], "update")
        self._set_graph(edges)
        self._read_model(self._model)
        self.fit_info_ = {k: info[k] for k in _lib.LAYOUTS["umap_fit_info"] if k}
        self.fit_info_["init_used"] = _lib.INITS[self.fit_info_["init_used"]]
        if old is not None:  # all rows, for the next update (stacked by it, if it comes)
            self._fit_rows = [old, new]
        self._remember_rows(new, reset=False)
        return self

    # ---- the rows fit was given: each one's place is embedding_'s row
    def _remember_rows(self, rows, reset):
        """Keeps the fingerprints of the rows fitted on (reset) or added by
        update (a loaded model has none of the earlier rows: it keeps none)"""
        if reset:
            self._fitted_rows = _FittedRows(rows)
        elif "_fitted_rows" in self.__dict__:
            self._fitted_rows.add(rows)

    def _fitted_places(self, rows, out):
        """out's rows that are training rows get embedding_'s rows"""
        fitted = self.__dict__.get("_fitted_rows")
        if fitted is None or self.embedding_ is None or len(fitted) != len(self.embedding_):
            return
        where, train = fitted.find(rows)
        out[where] = self.embedding_[train]

    def _set_graph(self, edges):
        """graph_: the fuzzy graph the fit (or the update) trained on, as
        umap-learn keeps it (scipy.sparse, both directions of every edge;
        over the distinct rows with unique); absent without scipy"""
        if edges is None:
            self.__dict__.pop("graph_", None)
        else:
            self.graph_ = edges

    # ---- the model handle
    def _set_model(self, handle, custom=None):
        self._free_model()
        self._model = handle
        # a custom metric's function: the model calls it (transform among
        # the kept rows, update), so it lives as long as the model
        if custom is not None:
            self._custom_metric = custom
        self._read_model(handle)

    def _need_metric_function(self, what):
        """a loaded custom model measures rows only once it has the function again"""
        if "_custom_metric" not in self.__dict__ and _lib.METRICS[self._metric_index()] == "custom":
            raise ValueError("%s: this model's custom metric is a function, which its file does not keep: "
                             "give it with set_metric_function(f)" % what)

    def _raise_metric_error(self):
        custom = self.__dict__.get("_custom_metric")
        if custom is not None:
            custom.raise_pending()

    def set_metric_function(self, metric):
        """A custom metric's function for a model that was loaded (a file
        keeps the metric's name, not its function): the same function the
        model was fitted with (a C pointer, a numba function or a Python
        callable, as `metric` takes). Transform among the kept rows and
        update need it; the encoder alone does not. Returns self."""
        self._check_fitted()
        index, custom = _lib.metric_of(metric)
        if custom is None:
            raise ValueError("set_metric_function: a function, not a metric's name")
        check(_lib.model_set_metric_fn(self._model, custom.address, None),
              "the model's metric is %s, not custom" % _lib.METRICS[self._metric_index()], "set_metric_function")
        self._custom_metric = custom
        self.metric = metric
        return self

    def _metric_index(self):
        cfg = Struct("umap_config")
        _lib.model_config(self._model, cfg.ptr)
        return cfg["metric"]

    def _read_model(self, handle):
        self.n_features_in_ = int(_lib.model_n_features(handle))
        self.n_components_ = int(_lib.model_n_components(handle))
        emb = _lib.model_embedding(handle)
        n = int(_lib.model_n_train(handle))
        self.embedding_ = (np.ctypeslib.as_array(ctypes.cast(emb, ctypes.POINTER(ctypes.c_float)),
                                                 shape=(n, self.n_components_)).copy() if emb else None)
        # the rows disconnection_distance left without any edge (umap-learn:
        # umap.utils.disconnected_vertices); the encoder places them
        count = ctypes.c_int64(0)
        rows = _lib.model_disconnected(handle, ctypes.byref(count))
        self.disconnected_vertices_ = (np.ctypeslib.as_array(ctypes.cast(rows, ctypes.POINTER(ctypes.c_int64)),
                                                             shape=(count.value,)).copy()
                                       if rows else np.zeros(0, dtype=np.int64))
        # output_dens: each row's log local radius in the data and in the
        # embedding (umap-learn's rad_orig_, rad_emb_); a fit's, not a file's
        orig, emb_r = ctypes.c_void_p(), ctypes.c_void_p()
        count = int(_lib.model_local_radii(handle, ctypes.byref(orig), ctypes.byref(emb_r)))
        for name, ptr in (("rad_orig_", orig), ("rad_emb_", emb_r)):
            if count:
                setattr(self, name, np.ctypeslib.as_array(ctypes.cast(ptr, ctypes.POINTER(ctypes.c_float)),
                                                          shape=(count,)).copy())
            else:
                self.__dict__.pop(name, None)

    def _free_model(self):
        handle = self.__dict__.pop("_model", None)
        if handle:
            _lib.model_free(handle)

    def __del__(self):
        try:
            self._free_model()
        except Exception:
            pass

    def _check_fitted(self):
        if not self.__dict__.get("_model"):
            try:
                from sklearn.exceptions import NotFittedError
            except ImportError:
                NotFittedError = AttributeError
            raise NotFittedError("This %s instance is not fitted yet. Call 'fit' with appropriate arguments "
                                 "before using this estimator." % type(self).__name__)

    # ---- transform
    def transform(self, X):
        """Embeds new rows (transform_mode "embedding": among the nearest
        kept training rows for a model that keeps them, else by the
        encoder; a row the estimator was fitted on gets its fitted place).
        transform_mode "graph" gives umap-learn's graph instead: each row's
        memberships to its nearest training rows, a scipy.sparse CSR matrix
        (n x n_train; a model that keeps every training row). X may be
        scipy.sparse; a DataFrame's columns must be fit's."""
        self._check_fitted()
        self._check_feature_names(X, reset=False)
        rows = _lib.rows_of(X, "X", self.n_features_in_)
        n = rows.shape[0]
        out = np.empty((n, self.n_components_), dtype=np.float32)
        desc = Struct("umap_transform_desc")
        graph = self.transform_mode == _GRAPH
        if graph:
            k, n_train = _lib.model_transform_k(self._model), int(_lib.model_n_train(self._model))
            if _lib.model_n_kept(self._model) != n_train:
                raise ValueError("transform_mode='graph' links new rows to every training row, and this model keeps "
                                 "%s of its %d: fit with keep_data=True and keep_sample=0 (fit with "
                                 "transform_mode='graph' keeps them)"
                                 % ("none" if not k else "a sample", n_train))
            idx, weights = np.empty((n, k), dtype=np.int32), np.empty((n, k), dtype=np.float32)
            desc["graph_indices"], desc["graph_weights"] = idx.ctypes.data, weights.ctypes.data
        desc["mode"] = _TRANSFORM_MODES.index("neighbors") if graph else \
            _name_to_index(_TRANSFORM_MODES, self.transform_mode, "transform_mode")
        desc.set("epochs", self.transform_epochs, "transform_epochs")
        desc["exact_neighbors"] = int(bool(self.transform_exact))
        desc["n_threads"] = _threads(self.n_jobs)
        detail = ctypes.create_string_buffer(256)
        desc["detail"] = ctypes.addressof(detail)
        desc["detail_size"] = len(detail)
        r = _lib.transform_rows(self._model, desc.ptr, rows.rows.ptr, out.ctypes.data)
        self._raise_metric_error()
        if r != 0:  # among the kept rows of a loaded custom model: the function is missing
            self._need_metric_function("transform")
        check(r, _lib.text(detail), "transform")
        if graph:
            import scipy.sparse
            return scipy.sparse.csr_matrix((weights.ravel(), idx.ravel(), np.arange(0, n * k + 1, k)),
                                           shape=(n, n_train))
        if self.transform_mode == "embedding":
            self._fitted_places(rows, out)
        return out

    def inverse_transform(self, X):
        """Maps places in the embedding (n x n_components) back to rows in
        data space (n x n_features) through the decoder a fit with
        decoder_epochs > 0 trained (ParametricUMAP's decoder; umap-learn's
        UMAP interpolates between training rows instead)."""
        self._check_fitted()
        X = as_rows(X, n_features=self.n_components_)
        out = np.empty((X.shape[0], self.n_features_in_), dtype=np.float32)
        detail = ctypes.create_string_buffer(256)
        check(_lib.inverse_transform(self._model, X.ctypes.data, X.shape[0], X.shape[1], out.ctypes.data,
                                     _threads(self.n_jobs), detail, len(detail)), _lib.text(detail), "inverse_transform")
        return out

    # ---- model files
    def save(self, path):
        """Writes the model: .safetensors or .gguf by the extension (the
        files `umap fit --save` writes and `umap transform` reads)."""
        self._check_fitted()
        path = os.fspath(path)
        detail = ctypes.create_string_buffer(1024)
        check(_lib.save(self._model, os.fsencode(path), detail, len(detail)), _lib.text(detail), "save %s" % path)

    @classmethod
    def _from_handle(cls, handle):
        cfg = Struct("umap_config")
        _lib.model_config(handle, cfg.ptr)
        params = _config_to_params(cfg)
        params["random_state"] = cfg["seed"]
        est = cls(**params)
        est._set_model(handle)
        return est

    @classmethod
    def load(cls, path):
        """A model file (.safetensors or .gguf, either written by save or by
        the CLI) as a fitted estimator, its parameters those it was fitted
        with (embedding_ is None unless it was fitted with keep_data)."""
        path = os.fspath(path)
        model = ctypes.c_void_p()
        detail = ctypes.create_string_buffer(512)
        check(_lib.load(os.fsencode(path), ctypes.byref(model), detail, len(detail)), _lib.text(detail),
              "load %s" % path)
        return cls._from_handle(model.value)

    def to_bytes(self, format="safetensors"):
        """The model file's bytes (the serialisation pickling and the dask
        integration use)."""
        self._check_fitted()
        fd, path = tempfile.mkstemp(suffix="." + format)
        os.close(fd)
        try:
            self.save(path)
            with open(path, "rb") as f:
                return f.read()
        finally:
            os.unlink(path)

    @classmethod
    def from_bytes(cls, data):
        model = ctypes.c_void_p()
        detail = ctypes.create_string_buffer(512)
        data = bytes(data)
        check(_lib.load_memory(data, len(data), None, ctypes.byref(model), detail, len(detail)),
              _lib.text(detail), "load")
        return cls._from_handle(model.value)

    # ---- pickling: the model file is the serialisation
    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_fit_rows", None)  # a reference to the caller's rows, as umap-learn's _raw_data, not a copy
        state.pop("_custom_metric", None)  # a function's address: set again from `metric` on unpickling
        handle = state.pop("_model", None)
        if handle:
            state["_model_bytes"] = self.to_bytes()
        return state

    def __setstate__(self, state):
        state = dict(state)
        blob = state.pop("_model_bytes", None)
        embedding = state.get("embedding_")
        disconnected = state.get("disconnected_vertices_")
        radii = {name: state[name] for name in ("rad_orig_", "rad_emb_") if name in state}
        self.__dict__.update(state)
        if blob is not None:
            other = type(self).from_bytes(blob)
            self._set_model(other.__dict__.pop("_model"))
            self.embedding_ = embedding  # the fitted embedding, also where the file keeps none
            if disconnected is not None:  # the fit's, which files do not keep
                self.disconnected_vertices_ = disconnected
            self.__dict__.update(radii)  # the fit's, which files do not keep either
            if not isinstance(self.metric, str):  # a custom metric: the file keeps its name only
                self.set_metric_function(self.metric)


def knn(X, k=15, metric="euclidean", metric_p=2.0, method="auto", n_jobs=None, random_state=0, metric_kwds=None):
    """umap_knn: each row's k nearest other rows (1 <= k < n), nearest first.
    Returns (indices int32 n x k, distances float32 n x k). metric_kwds:
    as UMAP's (minkowski's p, seuclidean's V). X may be scipy.sparse: it is
    searched as CSR (exactly, never densified; every metric but haversine
    and custom; precomputed's is a graph of distances, each row's stored
    entries its candidates)."""
    sparse = _lib.SparseRows(X) if _lib.is_sparse(X) else None
    X = as_rows(X) if sparse is None else None
    n, d = X.shape if sparse is None else sparse.shape
    desc = Struct("umap_knn_desc")
    desc["k"] = int(k)
    desc["metric"], custom = _lib.metric_of(metric)
    metric_p, metric_v = _metric_kwds(metric, metric_p, metric_kwds, d)
    desc["metric_p"] = metric_p
    if metric_v is not None:
        desc["metric_v"] = metric_v.ctypes.data
    if custom is not None:
        desc["metric_fn"] = custom.address
    desc["method"] = _name_to_index(_KNN_METHODS, method, "method")
    desc["n_threads"] = _threads(n_jobs)
    desc["seed"] = _seed(random_state)
    info = Struct("umap_knn_info")
    desc["info"] = info.ptr
    if not 1 <= int(k) < n:
        raise ValueError("k=%d: need 1 <= k < n_samples=%d" % (k, n))
    indices = np.empty((n, int(k)), dtype=np.int32)
    distances = np.empty((n, int(k)), dtype=np.float32)
    if sparse is None:
        r = _lib.knn(desc.ptr, X.ctypes.data, n, d, indices.ctypes.data, distances.ctypes.data)
    else:
        r = _lib.knn_rows(desc.ptr, sparse.rows.ptr, indices.ctypes.data, distances.ctypes.data)
    if custom is not None:
        custom.raise_pending()
    check(r, info["error_detail"], "knn")
    return indices, distances


def quality(X, embedding, n_neighbors=15, labels=None, metric="euclidean", metric_kwds=None, n_queries=None,
            classifier_k=10, n_jobs=None):
    """umap_quality_eval: how well `embedding` (n x c, euclidean) keeps the
    neighbourhoods of X (n x d, in `metric`). Returns a dict:
    trustworthiness (Venna and Kaski's, scikit-learn's
    sklearn.manifold.trustworthiness with n_neighbors), knn_recall (the
    share of each row's n_neighbors nearest in X found among its nearest in
    the embedding) and, with integer labels, knn_accuracy (a leave-one-out
    classifier_k-NN vote in the embedding; else None). n_queries: score an
    evenly spaced subset of the rows (their neighbours among all rows);
    None scores all. X may be scipy.sparse: its neighbours and ranks come
    from the sparse rows, never densified."""
    rows = _lib.rows_of(X)
    n, d = rows.shape
    emb = as_rows(embedding, "embedding")
    if emb.shape[0] != n:
        raise ValueError("embedding has %d rows, X %d" % (emb.shape[0], n))
    if not 1 <= int(n_neighbors) < n or 2 * n - 3 * int(n_neighbors) - 1 <= 0:
        raise ValueError("n_neighbors=%d: need 1 <= n_neighbors < n_samples / 2 (n_samples=%d)" % (n_neighbors, n))
    if labels is not None:
        labels = np.asarray(labels)
        if labels.shape != (n,) or labels.dtype.kind not in "iub":
            raise ValueError("labels: %d integers expected, got %s of shape %s" % (n, labels.dtype, labels.shape))
        labels = np.ascontiguousarray(labels, dtype=np.int32)
        if not 1 <= int(classifier_k) < n:
            raise ValueError("classifier_k=%d: need 1 <= classifier_k < n_samples=%d" % (classifier_k, n))
    desc = Struct("umap_quality_desc")
    desc["k"] = int(n_neighbors)
    desc["classifier_k"] = int(classifier_k)
    desc["metric"], custom = _lib.metric_of(metric)
    metric_p, metric_v = _metric_kwds(metric, 2.0, metric_kwds, d)
    desc["metric_p"] = metric_p
    if metric_v is not None:
        desc["metric_v"] = metric_v.ctypes.data
    if custom is not None:
        desc["metric_fn"] = custom.address
    desc["n_queries"] = 0 if n_queries is None or int(n_queries) >= n else int(n_queries)
    if n_queries is not None and int(n_queries) < 1:
        raise ValueError("n_queries=%r: must be >= 1 (or None for every row)" % (n_queries,))
    desc["n_threads"] = _threads(n_jobs)
    out = Struct("umap_quality")
    r = _lib.quality_eval_rows(desc.ptr, rows.rows.ptr, emb.ctypes.data, emb.shape[1],
                               labels.ctypes.data if labels is not None else None, out.ptr)
    if custom is not None:
        custom.raise_pending()
    check(r, "", "quality")
    return {"trustworthiness": out["trustworthiness"], "knn_recall": out["knn_recall"],
            "knn_accuracy": out["knn_accuracy"] if labels is not None else None}
