"""The ctypes layer over the shared library (libumap): loading, the struct layouts the
library itself reports (python/libumap.c's field table), umap_config's table of
fields (umap_config_fields), and errors."""
import collections
import ctypes
import glob
import math
import numbers
import os
import struct

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))


def _find_library():
    # UMAPH_LIB names the file; else the library pip built beside the package
    # (umaph/libumap.<python tag>.so); else, in a checkout (python/umaph),
    # `make python`'s build/libumap.so; else one on the system's path.
    env = os.environ.get("UMAPH_LIB")
    if env:
        return env
    beside = sorted(glob.glob(os.path.join(_HERE, "libumap*" + _SUFFIX)))
    if beside:
        return beside[0]
    checkout = os.path.join(_HERE, "..", "..", "build", "libumap" + _SUFFIX)
    if os.path.basename(os.path.dirname(_HERE)) == "python" and os.path.exists(checkout):
        return os.path.abspath(checkout)
    import ctypes.util
    found = ctypes.util.find_library("umap")
    if found:
        return found
    raise ImportError("umaph: its shared library is not built: `pip install --no-build-isolation .` in the "
                      "checkout builds and installs both, `make python` builds build/libumap.so for the "
                      "checkout's python/ folder, or set UMAPH_LIB to the library's path")


_SUFFIX = ".pyd" if os.name == "nt" else ".so"  # what setuptools names an extension's library
LIBRARY_PATH = _find_library()
lib = ctypes.CDLL(LIBRARY_PATH)  # CDLL: every call releases the GIL

_p = ctypes.c_void_p
_i64 = ctypes.c_int64


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


class _Field(ctypes.Structure):
    _fields_ = [("struct_name", ctypes.c_char_p), ("name", ctypes.c_char_p), ("offset", ctypes.c_size_t),
                ("size", ctypes.c_size_t), ("kind", ctypes.c_char)]


_fn("umaph_field_at", ctypes.c_int, ctypes.c_int, ctypes.POINTER(_Field))
_FORMATS = {b"i": "=i", b"f": "=f", b"d": "=d", b"q": "=q", b"Q": "=Q", b"p": "=Q"}


def _read_layouts():
    layouts, f, i = {}, _Field(), 0
    while lib.umaph_field_at(i, ctypes.byref(f)):
        s = f.struct_name.decode()
        if not f.name:
            layouts[s] = {"": (0, f.size, None)}
        elif f.kind not in _FORMATS and f.kind not in b"Is":
            raise ImportError("umaph: %s reports %s.%s of a kind (%r) this package does not know: "
                              "python/libumap.c and python/umaph are of different versions"
                              % (LIBRARY_PATH, s, f.name.decode(), f.kind))
        else:
            layouts[s][f.name.decode()] = (f.offset, f.size, f.kind)
        i += 1
    return layouts


LAYOUTS = _read_layouts()

# umap_config's table (umap.h's umap_config_fields), row by row in its order:
# name, UMAP_FIELD_* flags, [lo, hi] and the one-line doc. The estimator's
# parameters for the config's scalar fields come from it.
ConfigRow = collections.namedtuple("ConfigRow", "name flags lo hi doc")
_fn("umaph_config_row", ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_int),
    ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_char_p))
_fn("umaph_field_flag", ctypes.c_int, ctypes.c_char_p)


def _read_config_rows():
    rows, name, doc, flags = [], ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_int()
    lo, hi = ctypes.c_double(), ctypes.c_double()
    while lib.umaph_config_row(len(rows), *(ctypes.byref(x) for x in (name, flags, lo, hi, doc))):
        rows.append(ConfigRow(name.value.decode(), flags.value, lo.value, hi.value, doc.value.decode()))
    return rows


CONFIG_ROWS = _read_config_rows()


def field_flag(name):
    """UMAP_FIELD_<name>'s bit ("AUTO", "ZERO", "LO_OPEN", "HI_OPEN", "SHAPE")."""
    bit = lib.umaph_field_flag(name.encode())
    if not bit:
        raise ValueError("no flag UMAP_FIELD_%s" % name)
    return bit


class Struct:
    """A C struct in a zeroed buffer, fields read and written by name at the
    offsets the library reported."""
    __slots__ = ("name", "layout", "buf")

    def __init__(self, name):
        self.name = name
        self.layout = LAYOUTS[name]
        self.buf = ctypes.create_string_buffer(self.layout[""][1])

    @property
    def ptr(self):
        return ctypes.addressof(self.buf)

    def __getitem__(self, field):
        off, size, kind = self.layout[field]
        if kind == b"s":
            return text(self.buf.raw[off:off + size].split(b"\0", 1)[0])
        if kind == b"I":
            return list(struct.unpack_from("=%di" % (size // 4), self.buf, off))
        return struct.unpack_from(_FORMATS[kind], self.buf, off)[0]

    def __setitem__(self, field, value):
        self.set(field, value)

    def set(self, field, value, param=None):
        """Stores value into field; a value the field cannot hold (a string,
        None, 1.5 or 2**31 for an int, 1e39 for a float) is a ValueError
        naming param (default: the field) and the range the
        library holds it to, never struct.error."""
        off, size, kind = self.layout[field]
        if kind == b"I":
            value = list(value) + [0] * (size // 4 - len(value))
            struct.pack_into("=%di" % (size // 4), self.buf, off, *value)
        elif kind == b"p":
            struct.pack_into("=Q", self.buf, off, value or 0)
        else:
            struct.pack_into(_FORMATS[kind], self.buf, off, _number(field, param or field, value, kind, self.name))


_INT_LIMITS = {b"i": (-2**31, 2**31 - 1), b"q": (-2**63, 2**63 - 1), b"Q": (0, 2**64 - 1)}


def field_range(name):
    """The range the library holds umap_config's field `name` to, as its
    messages say it; None for a field without one."""
    buf = ctypes.create_string_buffer(256)
    return text(buf) if lib.umaph_field_range(name.encode(), buf, len(buf)) else None


# how a parameter says UMAP_AUTO, where not "auto" (the estimator's
# umap-learn parameters say None)
AUTO_WORD = {}


def _number(field, name, value, kind, struct_name):
    # a Python value as the C field's type, or a ValueError naming the
    # parameter (name) with the range the library holds the field to
    rng = field_range(field) if struct_name == "umap_config" else None
    rng = rng and rng.replace("UMAP_AUTO (-1)", AUTO_WORD.get(name, "'auto'"))
    if kind in _INT_LIMITS:
        lo, hi = _INT_LIMITS[kind]
        rng = rng or "an integer in [%d, %d]" % (lo, hi)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, numbers.Real)):
            raise ValueError("%s: %r (%s) is not a number: must be %s" % (name, value, type(value).__name__, rng))
        if not isinstance(value, numbers.Integral):
            if not (math.isfinite(value) and float(value).is_integer()):
                raise ValueError("%s = %r: must be %s" % (name, value, rng))
            value = int(value)  # 2.0, as a grid search gives it
        value = int(value)
        if not lo <= value <= hi:
            raise ValueError("%s = %d: must be %s" % (name, value, rng))
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError("%s: %r (%s) is not a number%s" % (name, value, type(value).__name__,
                                                           ": must be " + rng if rng else ""))
    value = float(value)
    if kind == b"f" and math.isfinite(value) and abs(value) > 3.4028234663852886e38:
        raise ValueError("%s = %r: must be %s" % (name, value, rng or "a float32"))
    return value


# ---- the functions (pointers as c_void_p: numpy's .ctypes.data passes as is)
result_string = _fn("umap_result_string", ctypes.c_char_p, ctypes.c_int)
config_default = _fn("umaph_config_default", None, _p)
model_config = _fn("umaph_model_config", None, _p, _p)
fit = _fn("umap_fit", ctypes.c_int, _p, _p, _i64, _i64, _p)
vk_fit = _fn("umap_vk_fit", ctypes.c_int, _p, _p, _p, _i64, _i64, _p)
device_open = _fn("umaph_device_open", ctypes.c_int, ctypes.c_char_p, _i64, _i64, _p, ctypes.c_char_p, ctypes.c_size_t)
vk_free = _fn("umap_vk_free", None, _p)
transform_with = _fn("umap_transform_with", ctypes.c_int, _p, _p, _p, _i64, _i64, _p)
inverse_transform = _fn("umap_inverse_transform", ctypes.c_int, _p, _p, _i64, _i64, _p, ctypes.c_int, ctypes.c_char_p,
                        ctypes.c_size_t)
model_has_decoder = _fn("umap_model_has_decoder", ctypes.c_int, _p)
model_embedding = _fn("umap_model_embedding", _p, _p)
model_n_train = _fn("umap_model_n_train", _i64, _p)
model_n_kept = _fn("umap_model_n_kept", _i64, _p)
model_transform_k = _fn("umap_model_transform_k", ctypes.c_int, _p)
edge_list_free = _fn("umap_edge_list_free", None, _p)
model_disconnected = _fn("umap_model_disconnected", _p, _p, ctypes.POINTER(_i64))
model_local_radii = _fn("umap_model_local_radii", _i64, _p, ctypes.POINTER(_p), ctypes.POINTER(_p))
model_n_features = _fn("umap_model_n_features", _i64, _p)
model_n_components = _fn("umap_model_n_components", ctypes.c_int, _p)
save = _fn("umap_save_ex", ctypes.c_int, _p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t)
load = _fn("umap_load", ctypes.c_int, ctypes.c_char_p, _p, ctypes.c_char_p, ctypes.c_size_t)
load_memory = _fn("umap_load_memory", ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, _p, _p, ctypes.c_char_p,
                  ctypes.c_size_t)
model_free = _fn("umap_model_free", None, _p)
model_set_metric_fn = _fn("umap_model_set_metric_fn", ctypes.c_int, _p, _p, _p)
knn = _fn("umap_knn", ctypes.c_int, _p, _p, _i64, _i64, _p, _p)
knn_rows = _fn("umap_knn_rows", ctypes.c_int, _p, _p, _p, _p)
quality_eval_rows = _fn("umap_quality_eval_rows", ctypes.c_int, _p, _p, _p, ctypes.c_int, _p, _p)
fit_rows = _fn("umap_fit_rows", ctypes.c_int, _p, _p, _p)
fit_knn = _fn("umap_fit_knn", ctypes.c_int, _p, _p, _i64, _i64, _p, _p, ctypes.c_int, _p)
transform_rows = _fn("umap_transform_rows", ctypes.c_int, _p, _p, _p, _p)
update = _fn("umap_update", ctypes.c_int, _p, _p, _p)
metric_name = _fn("umap_metric_name", ctypes.c_char_p, ctypes.c_int)
metric_from_name = _fn("umap_metric_from_name", ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int))
init_name = _fn("umap_init_name", ctypes.c_char_p, ctypes.c_int)
init_from_name = _fn("umap_init_from_name", ctypes.c_int, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int))

config_check = _fn("umap_config_check", ctypes.c_int, _p, _i64, _i64, ctypes.c_char_p, ctypes.c_size_t)
_fn("umaph_field_range", ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t)
VERSION = _fn("umaph_version", ctypes.c_char_p)().decode()
_fn("umaph_row_fingerprints", None, _p, _i64, _p)

PROGRESS_FN = ctypes.CFUNCTYPE(ctypes.c_int, _p, _p)
# umap_metric_fn: double (*)(const float *a, const float *b, int64_t dim, void *user_data)
METRIC_FN = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.POINTER(ctypes.c_float), ctypes.POINTER(ctypes.c_float), _i64, _p)
LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, _p)

# the results' enum names from the library ("UMAP_ERR_FORMAT" -> "FORMAT")
_fn("umaph_result_name", ctypes.c_char_p, ctypes.c_int)
_RESULT_NAMES = []
while lib.umaph_result_name(len(_RESULT_NAMES)):
    _RESULT_NAMES.append(lib.umaph_result_name(len(_RESULT_NAMES)).decode().replace("UMAP_ERR_", "").replace("UMAP_", ""))
AUTO = _fn("umaph_auto", ctypes.c_int)()


def text(buf):
    """A message the library wrote into a buffer (bytes or a ctypes buffer)
    as str: the library escapes what it quotes from files, and a byte that
    is not UTF-8 still never raises here."""
    raw = buf.value if hasattr(buf, "value") else buf
    return (raw or b"").decode("utf-8", "replace")


def result_code(name):
    return _RESULT_NAMES.index(name)


def _names(name_of, past_the_end):
    # an enum's names, from the library, in enum order
    names = []
    while name_of(len(names)).decode() != past_the_end:
        names.append(name_of(len(names)).decode())
    return names


METRICS = _names(metric_name, "unknown")  # umap_metric_name's answer out of range
INITS = _names(init_name, "?")            # umap_init_name's


class UmapError(RuntimeError):
    """An error the library reported: .code (umap_result), .result (its name
    without UMAP_ERR_), .detail (the library's detail message)."""

    def __init__(self, code, detail="", what=""):
        self.code = code
        self.result = _RESULT_NAMES[code] if 0 <= code < len(_RESULT_NAMES) else str(code)
        self.detail = detail
        msg = result_string(code).decode()
        if detail:
            msg = "%s: %s" % (msg, detail)
        if what:
            msg = "%s: %s" % (what, msg)
        super().__init__(msg)


class UmapValueError(UmapError, ValueError):
    """Bad input or arguments (UMAP_ERR_INVALID_ARGUMENT, SHAPE, DTYPE,
    NON_FINITE, TOO_LARGE): also a ValueError, as scikit-learn expects."""


class UmapFormatError(UmapError, ValueError):
    """A model file that is malformed or not a model (UMAP_ERR_FORMAT)."""


_VALUE_CODES = {result_code(n) for n in ("INVALID_ARGUMENT", "SHAPE", "DTYPE", "NON_FINITE", "TOO_LARGE")}


def check(code, detail="", what=""):
    if code == 0:
        return
    if code in _VALUE_CODES:
        raise UmapValueError(code, detail, what)
    if code == result_code("FORMAT"):
        raise UmapFormatError(code, detail, what)
    if code == result_code("IO"):
        err = UmapError(code, detail, what)
        raise OSError(str(err)) from err
    raise UmapError(code, detail, what)


class CustomMetric:
    """A metric given as a function, as the library calls it (its address
    for umap_metric_fn), from any of:
    - a C function pointer: a ctypes function of METRIC_FN's type, or a
      numba cfunc of that signature (float64(CPointer(float32),
      CPointer(float32), int64, voidptr)): called as it is, at C speed;
    - a numba.njit function f(x, y) -> float, as umap-learn takes: compiled
      into such a cfunc (numba needed, as umap-learn needs it);
    - any other Python callable f(x, y) -> float over two float32 rows:
      called back through ctypes, one call at a time under the GIL (slow:
      for trying a metric out). An exception there fails the call and is
      raised again (raise_pending).
    The object keeps what the address points at alive: hold it as long as
    a model uses it."""

    def __init__(self, metric):
        self.metric = metric
        self.errors = []
        if isinstance(metric, ctypes._CFuncPtr):
            self._keep = metric
            self.address = ctypes.cast(metric, ctypes.c_void_p).value
        elif hasattr(metric, "address") and hasattr(metric, "ctypes"):  # a numba cfunc
            self._keep = metric
            self.address = int(metric.address)
        elif callable(metric) and type(metric).__module__.startswith("numba") and hasattr(metric, "py_func"):
            self._keep = _numba_cfunc(metric)
            self.address = int(self._keep.address)
        elif callable(metric):
            errors = self.errors

            def call(a, b, dim, _user_data):
                try:
                    x = np.ctypeslib.as_array(a, shape=(dim,))
                    y = np.ctypeslib.as_array(b, shape=(dim,))
                    return float(metric(x, y))
                except BaseException as e:  # cannot cross the C frames: NaN fails the call, raised after
                    if not errors:
                        errors.append(e)
                    return math.nan

            self._keep = METRIC_FN(call)
            self.address = ctypes.cast(self._keep, ctypes.c_void_p).value
        else:
            raise ValueError("metric: %r is not a metric's name or a function" % (metric,))

    def raise_pending(self):
        """The first exception the Python function raised, if any."""
        if self.errors:
            e = self.errors[0]
            del self.errors[:]
            raise e


def _numba_cfunc(f):
    import numba
    from numba import types
    sig = types.float64(types.CPointer(types.float32), types.CPointer(types.float32), types.int64, types.voidptr)

    def wrapped(a, b, dim, _user_data):
        return f(numba.carray(a, (dim,)), numba.carray(b, (dim,)))

    return numba.cfunc(sig, nopython=True)(wrapped)


def metric_of(metric):
    """(umap_metric index, CustomMetric or None) for a metric's name or function"""
    if isinstance(metric, str) or not callable(metric):
        if metric not in METRICS or metric == "custom":
            raise ValueError("metric: %r is not one of %s, or a function" %
                             (metric, ", ".join(m for m in METRICS if m != "custom")))
        return METRICS.index(metric), None
    return METRICS.index("custom"), CustomMetric(metric)


def is_sparse(X):
    """scipy.sparse matrices and arrays, and pandas' sparse frames"""
    return hasattr(X, "tocsr") or hasattr(X, "sparse") and hasattr(getattr(X, "sparse"), "to_coo")


def _check_width(name, width, n_features):
    # scikit-learn's words, which its estimator checks match
    if n_features is not None and width != n_features:
        raise ValueError("%s has %d features, but UMAP is expecting %d features as input" % (name, width, n_features))


class SparseRows:
    """A scipy.sparse matrix as the library's umap_rows: CSR with float32
    values, int32 column indices, sorted and without duplicates (summed, as
    scipy does), int64 offsets; copies only what is not already so. The
    arrays live as long as this object."""

    def __init__(self, X, name="X", n_features=None):
        if hasattr(X, "sparse") and not hasattr(X, "tocsr"):
            X = X.sparse.to_coo()
        if X.dtype.kind == "c":
            raise ValueError("%s: complex data not supported (Complex data not supported)" % name)
        csr = X.tocsr()
        if csr.shape[0] < 1:
            raise ValueError("%s: 0 sample(s) (shape=%s) while a minimum of 1 is required." % (name, csr.shape))
        if csr.shape[1] < 1:
            raise ValueError("%s: 0 feature(s) (shape=%s) while a minimum of 1 is required." % (name, csr.shape))
        _check_width(name, csr.shape[1], n_features)
        if csr.shape[1] >= 2**31:
            raise ValueError("%s: %d columns: sparse rows take fewer than 2**31" % (name, csr.shape[1]))
        if not csr.has_canonical_format:
            csr = csr.copy()
            csr.sum_duplicates()
        self.shape = csr.shape
        self.values = np.ascontiguousarray(csr.data, dtype=np.float32)
        self.indices = np.ascontiguousarray(csr.indices, dtype=np.int32)
        self.indptr = np.ascontiguousarray(csr.indptr, dtype=np.int64)
        self.rows = Struct("umap_rows")
        self.rows["n"] = csr.shape[0]
        self.rows["dim"] = csr.shape[1]
        self.rows["indptr"] = self.indptr.ctypes.data
        self.rows["indices"] = self.indices.ctypes.data
        self.rows["values"] = self.values.ctypes.data


class DenseRows:
    """A C-contiguous float32 matrix (as_rows') as the library's umap_rows;
    the matrix lives as long as this object."""

    def __init__(self, X):
        self.matrix = X
        self.shape = X.shape
        self.rows = Struct("umap_rows")
        self.rows["n"], self.rows["dim"], self.rows["dense"] = X.shape[0], X.shape[1], X.ctypes.data


def rows_of(X, name="X", n_features=None):
    """X, dense or scipy.sparse, as SparseRows or DenseRows"""
    return SparseRows(X, name, n_features) if is_sparse(X) else DenseRows(as_rows(X, name, n_features))


def as_rows(X, name="X", n_features=None):
    """X as a C-contiguous float32 matrix: the array itself when it is one
    (no copy), else converted once. Refuses what cannot be (complex, object
    or strings, not 2-D, sparse) with a ValueError/TypeError naming it; NaN
    and Inf are left to the library, which names the row."""
    if is_sparse(X):
        raise TypeError("%s: sparse input is not supported here (fit, transform, knn and quality take it); pass "
                        "a dense array (e.g. X.toarray())" % name)
    a = np.asarray(X)
    if a.dtype.kind == "c":
        raise ValueError("%s: complex data not supported (Complex data not supported)" % name)
    if a.dtype.kind not in "biuf":
        try:
            a = a.astype(np.float32)
        except (TypeError, ValueError) as e:  # the same type as numpy's: scikit-learn's checks expect it
            raise type(e)("%s: dtype %s cannot be converted to float32: %s" % (name, a.dtype, e)) from None
    if a.ndim != 2:
        raise ValueError("%s: Expected 2D array, got %dD array instead (shape %s). Reshape your data, "
                         "e.g. X.reshape(-1, 1) for one feature" % (name, a.ndim, a.shape))
    if a.shape[0] < 1:
        raise ValueError("%s: 0 sample(s) (shape=%s) while a minimum of 1 is required." % (name, a.shape))
    if a.shape[1] < 1:
        raise ValueError("%s: 0 feature(s) (shape=%s) while a minimum of 1 is required." % (name, a.shape))
    _check_width(name, a.shape[1], n_features)
    return np.ascontiguousarray(a, dtype=np.float32)


def take_rows(rows, which):
    """the rows `which` (indices) of DenseRows or SparseRows, in the same form"""
    if isinstance(rows, DenseRows):
        return DenseRows(np.ascontiguousarray(rows.matrix[which]))
    import scipy.sparse
    return SparseRows(scipy.sparse.csr_matrix((rows.values, rows.indices, rows.indptr), shape=rows.shape)[which])


def fingerprints(rows, stride=1):
    """umaph_row_fingerprints of DenseRows or SparseRows (uint64, a row each)"""
    out = np.empty(rows.shape[0], dtype=np.uint64)
    lib.umaph_row_fingerprints(rows.rows.ptr, stride, out.ctypes.data)
    return out
