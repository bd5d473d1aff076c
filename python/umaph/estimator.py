"""umaph.UMAP: scikit-learn's estimator shape over umap_fit/umap_transform."""
import ctypes
import logging
import os
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
_LOG_LEVELS = [logging.ERROR, logging.WARNING, logging.INFO, logging.DEBUG]  # umap_log_level's order
_TRANSFORM_MODES = ["auto", "encoder", "neighbors"]

# The parameters for umap_config's scalar fields come from umap.h's table of
# them (umap_config_fields, in _lib.CONFIG_ROWS): a row is a parameter of its
# own name and kind, "auto" for UMAP_AUTO where the row has UMAP_FIELD_AUTO.
# These rows alone are mapped by hand (_config_to_params and _config below):
# by name (metric, knn_method, init), flags (unique, densmap, output_dens:
# bools; standardize: a bool or "auto"),
# what to keep (keep_data) and the widths (n_hidden: the parameter hidden, a
# tuple).
_FLAGS = ("unique", "densmap", "output_dens")
_MAPPED = ("metric", "knn_method", "init", "keep_data", "n_hidden", "standardize") + _FLAGS
_PARAM = {"n_hidden": "hidden"}  # a row whose parameter has another name


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


def _config_to_params(cfg):
    """The estimator's parameters a umap_config holds."""
    p = {name: _short(cfg, name) for name in _PLAIN}
    p["metric"] = _lib.METRICS[cfg["metric"]]
    p["knn_method"] = _KNN_METHODS[cfg["knn_method"]]
    p["hidden"] = tuple(cfg["hidden"][:cfg["n_hidden"]])
    for name in _FLAGS:
        p[name] = bool(cfg[name])
    p["keep_data"] = "auto" if cfg["keep_data"] == _lib.AUTO else _KEEP[cfg["keep_data"]]  # fit holds it to these
    p["standardize"] = "auto" if cfg["standardize"] == _lib.AUTO else bool(cfg["standardize"])
    p["init"] = _lib.INITS[cfg["init"]]
    for name in _AUTO:
        p[name] = "auto" if cfg[name] == _lib.AUTO else _short(cfg, name)
    return p


def _library_defaults():
    cfg = Struct("umap_config")
    _lib.config_default(cfg.ptr)
    p = _config_to_params(cfg)
    tgt = Struct("umap_target")  # zeroed = the header's defaults
    p["target_metric"] = _lib.METRICS[tgt["metric"]]
    p["target_metric_p"] = _short(tgt, "metric_p")
    p["target_n_neighbors"] = tgt["n_neighbors"]
    return p


# The signature: the common parameters first, in umap-learn's order (and a
# supervised fit's), then the rest of umap_config in its table's order, then
# the estimator's own; defaults read from umap_config_default() here.
_HEAD = ["n_components", "n_neighbors", "min_dist", "metric", "metric_p", "metric_kwds", "random_state", "n_jobs",
         "device",
         "init", "spread", "keep_data", "keep_sample", "refine_epochs", "distill_epochs", "refine_rate",
         "refine_attraction", "n_epochs", "target_weight", "target_metric", "target_metric_p", "target_n_neighbors"]
_TAIL = ["transform_mode", "transform_epochs", "transform_exact", "verbose", "callback"]


def _order(rows):
    params = [_PARAM.get(r.name, r.name) for r in rows]
    return _HEAD + [p for p in params if p not in _HEAD] + _TAIL


_ORDER = _order(_lib.CONFIG_ROWS)
_DEFAULTS = dict(_library_defaults(), metric_kwds=None, random_state=None, n_jobs=None, device="cpu", transform_mode="auto",
                 transform_epochs=0, transform_exact=False, verbose=False, callback=None)
assert sorted(_ORDER) == sorted(_DEFAULTS), set(_ORDER) ^ set(_DEFAULTS)


def _metric_kwds(metric, metric_p, kwds, d):
    """umap-learn's metric_kwds for the metrics that take arguments:
    minkowski {"p": p} (over metric_p), seuclidean {"V": the d variances}
    (umap-learn passes the values by position, so its "sigma" is the same);
    returns (metric_p, V as float32 or None)."""
    if not kwds:
        return metric_p, None
    kwds = dict(kwds)
    if metric == "minkowski" and set(kwds) == {"p"}:
        return float(kwds["p"]), None
    if metric == "seuclidean" and len(kwds) == 1 and set(kwds) <= {"V", "sigma"}:
        v = np.ascontiguousarray(np.asarray(next(iter(kwds.values())), dtype=np.float64).reshape(-1), dtype=np.float32)
        if v.shape != (d,):
            raise ValueError("metric_kwds: seuclidean's V holds one variance per column: %d, got %d" % (d, v.size))
        return metric_p, v
    raise ValueError("metric_kwds %r: minkowski takes {'p': p}, seuclidean {'V': variances}; %s takes none"
                     % (sorted(kwds), metric))


def _make_init():
    # scikit-learn reads the parameters from __init__'s signature and wants
    # __init__ to store them untouched; the defaults are the library's.
    args = ", ".join("%s=%r" % (k, _DEFAULTS[k]) for k in _ORDER)
    body = "".join("    self.%s = %s\n" % (k, k) for k in _ORDER)
    ns = {}
    exec("def __init__(self, *, %s):\n%s" % (args, body), ns)
    return ns["__init__"]


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
    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer))):
        raise TypeError("n_jobs: %r is not an integer or None" % (n_jobs,))
    if n_jobs is None or n_jobs == -1 or n_jobs == 0:
        return 0  # all cores; the thread count never changes the result
    if n_jobs < -1:
        return max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    return int(n_jobs)


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
    """Parametric UMAP (umap.h) with scikit-learn's conventions.

    Every field of the C library's umap_config is a parameter of the same
    name, its default the library's (umap_config_default()), except:
    metric/knn_method/init by name; metric may also be a function (a custom
    metric: umap-learn's numba.njit f(x, y) -> float, compiled to C; a
    numba cfunc or ctypes pointer of umap_metric_fn's signature,
    umaph.METRIC_FN; any Python callable over two float32 rows, slow: one
    call at a time), which a model file does not keep (set_metric_function
    after load); hidden: the hidden layer widths as a tuple;
    refine_epochs/distill_epochs/refine_attraction: "auto" for UMAP_AUTO;
    random_state: the seed (None: a fresh one; the seed alone decides the
    result); n_jobs: the
    threads (None/-1: all cores; never changes the result); init: "pca",
    "random", "spectral" or an (n, n_components) array; target_*: the
    target's k-NN for a float y (fit(X, y): integer labels, -1 unknown, or
    float values). device: "cpu", "vulkan" (exact k-NN and training on the
    GPU; an error without one) or "auto" (the GPU when a calibration says it
    is faster). transform_mode/transform_epochs: umap_transform_desc's;
    transform_exact: its exact_neighbors (keep_data: search every training
    row instead of walking the kept k-NN graph). keep_data: True keeps the
    training rows (UMAP_KEEP_ROWS), "sketch" the rows on their own leading
    principal axes (UMAP_KEEP_SKETCH: 48 floats a row for wide data,
    euclidean only), False neither (transform by the encoder alone), "auto"
    (the default) the sketch of keep_sample rows for the euclidean metric
    and 2 components, else none. keep_sample: at most that many rows kept, drawn by the seed
    (0: all; "auto": 16,384 with keep_data "auto", all otherwise).
    verbose: a progress bar on stderr; callback(progress) -> True cancels
    fit: during training the best weights so far are kept and fit warns
    (cancelled_ is True); before training (k-NN, graph, warm start) there
    is no model and fit raises UmapError (result "CANCELLED"). Ctrl-C
    cancels the same way and raises KeyboardInterrupt after.
    """

    __init__ = _make_init()

    # (python -OO strips docstrings: __doc__ is None there)
    __doc__ = (__doc__ or "") + "\n    The parameters of umap_config's fields (name=default: what it is):\n\n" + "".join(
        "    %s=%r: %s\n" % (_PARAM.get(r.name, r.name), _DEFAULTS[_PARAM.get(r.name, r.name)], r.doc)
        for r in _lib.CONFIG_ROWS)

    # ---- scikit-learn's estimator checks that do not apply (see docs/python.md)
    def _more_tags(self):
        why = ("fit_transform returns the refined embedding (embedding_) and transform places the same rows "
               "anew (among the kept rows, or by the encoder): close, not equal to 1e-2 (umap-learn's UMAP "
               "differs the same way)")
        return {
            "preserves_dtype": [np.float32],
            "_xfail_checks": {"check_transformer_general": why, "check_transformer_data_not_an_array": why},
        }

    # ---- fit
    def _config(self, n, d):
        cfg = Struct("umap_config")
        _lib.config_default(cfg.ptr)
        for name in _PLAIN:
            cfg[name] = getattr(self, name)
        cfg["metric"], custom = _lib.metric_of(self.metric)
        metric_p, metric_v = _metric_kwds(self.metric, self.metric_p, self.metric_kwds, d)
        cfg["metric_p"] = metric_p
        cfg["knn_method"] = _name_to_index(_KNN_METHODS, self.knn_method, "knn_method")
        hidden = tuple(int(h) for h in self.hidden)
        if len(hidden) > len(cfg["hidden"]):
            raise ValueError("hidden: at most %d layers, got %d" % (len(cfg["hidden"]), len(hidden)))
        cfg["n_hidden"] = len(hidden)
        cfg["hidden"] = hidden
        for name in _FLAGS:
            cfg[name] = int(bool(getattr(self, name)))
        cfg["keep_data"] = _keep_data(self.keep_data)
        cfg["standardize"] = _standardize(self.standardize)
        for name in _AUTO:
            v = getattr(self, name)
            cfg[name] = _lib.AUTO if isinstance(v, str) and v == "auto" else v
        cfg["seed"] = _seed(self.random_state)
        cfg.set("n_threads", _threads(self.n_jobs), "n_jobs")
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
        y = np.asarray(y)
        if y.shape[0] != n:
            raise ValueError("y has %d rows, X has %d" % (y.shape[0], n))
        tgt = Struct("umap_target")
        if y.dtype.kind in "biu" or (y.dtype.kind in "OUS"):
            if y.ndim != 1:
                raise ValueError("y: labels must be 1-D, got shape %s" % (y.shape,))
            if y.dtype.kind in "OUS":  # class names: codes 0..C-1 (no unknown among them)
                labels = np.unique(y.astype(str), return_inverse=True)[1].astype(np.int32)
            else:
                if y.size and (y.min() < -1 or y.max() > np.iinfo(np.int32).max):
                    raise ValueError("y: integer labels must be >= 0 (or -1 for unknown) and fit in int32")
                labels = np.ascontiguousarray(y, dtype=np.int32)
            tgt["labels"] = labels.ctypes.data
            keep.append(labels)
        elif y.dtype.kind == "f":
            values = as_rows(y.reshape(n, -1), "y")
            tgt["values"] = values.ctypes.data
            tgt["values_dim"] = values.shape[1]
            tgt["metric"] = _name_to_index(_lib.METRICS, self.target_metric, "target_metric")
            tgt.set("metric_p", self.target_metric_p, "target_metric_p")
            tgt.set("n_neighbors", self.target_n_neighbors, "target_n_neighbors")
            keep.append(values)
        else:
            raise ValueError("y: dtype %s is neither labels (integers, -1 unknown) nor values (floats)" % y.dtype)
        keep.append(tgt)
        cfg["target"] = tgt.ptr

    def fit(self, X, y=None):
        """Fits on X (n_samples x n_features); y (optional): a label per row
        (integers, -1 = unknown: semi-supervised) or target values (floats),
        as umap-learn's fit(X, y). X may be scipy.sparse (CSR, or any
        format, converted once): fitted without densifying (the C library's
        umap_fit_rows), on the CPU."""
        sparse = _lib.SparseRows(X) if _lib.is_sparse(X) else None
        X = as_rows(X) if sparse is None else None
        n, d = X.shape if sparse is None else sparse.shape
        if n < 2:
            raise ValueError("n_samples=%d: UMAP needs at least 2 samples" % n)
        cfg, keep = self._config(n, d)
        if y is not None:
            self._target(y, n, cfg, keep)
        info = Struct("umap_fit_info")
        cfg["info"] = info.ptr
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
                    text = message.decode("utf-8", "replace")
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
                if sparse is not None:
                    r = _lib.fit_rows(cfg.ptr, sparse.rows.ptr, ctypes.byref(model))
                elif vk.value:
                    r = _lib.vk_fit(vk, cfg.ptr, X.ctypes.data, n, d, ctypes.byref(model))
                else:
                    r = _lib.fit(cfg.ptr, X.ctypes.data, n, d, ctypes.byref(model))
            finally:
                if vk.value:
                    _lib.vk_free(vk)
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
        check(r, info["error_detail"], "fit")
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
        new = _lib.rows_of(X, "X", self.n_features_in_)
        cfg = Struct("umap_config")
        _lib.model_config(self._model, cfg.ptr)
        keeps_all = cfg["keep_data"] == 1 and cfg["keep_sample"] == 0
        if X_old is not None:
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
        r = _lib.update(self._model, desc.ptr, new.rows.ptr)
        self._raise_metric_error()
        check(r, info["error_detail"], "update")
        self._read_model(self._model)
        self.fit_info_ = {k: info[k] for k in _lib.LAYOUTS["umap_fit_info"] if k}
        self.fit_info_["init_used"] = _lib.INITS[self.fit_info_["init_used"]]
        if old is not None:  # all rows, for the next update (stacked by it, if it comes)
            self._fit_rows = [old, new]
        return self

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
        """Embeds new rows: the encoder, or among the nearest training rows
        for a model fitted with keep_data (transform_mode picks)."""
        self._check_fitted()
        sparse = _lib.SparseRows(X, n_features=self.n_features_in_) if _lib.is_sparse(X) else None
        X = as_rows(X, n_features=self.n_features_in_) if sparse is None else None
        out = np.empty(((X if sparse is None else sparse).shape[0], self.n_components_), dtype=np.float32)
        desc = Struct("umap_transform_desc")
        desc["mode"] = _name_to_index(_TRANSFORM_MODES, self.transform_mode, "transform_mode")
        desc.set("epochs", self.transform_epochs, "transform_epochs")
        desc["exact_neighbors"] = int(bool(self.transform_exact))
        desc.set("n_threads", _threads(self.n_jobs), "n_jobs")
        detail = ctypes.create_string_buffer(256)
        desc["detail"] = ctypes.addressof(detail)
        desc["detail_size"] = len(detail)
        if sparse is not None:  # by the encoder (the neighbours mode searches kept dense rows)
            r = _lib.transform_rows(self._model, desc.ptr, sparse.rows.ptr, out.ctypes.data)
        else:
            r = _lib.transform_with(self._model, desc.ptr, X.ctypes.data, X.shape[0], X.shape[1], out.ctypes.data)
        self._raise_metric_error()
        if r != 0:  # among the kept rows of a loaded custom model: the function is missing
            self._need_metric_function("transform")
        check(r, _lib.text(detail), "transform")
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
