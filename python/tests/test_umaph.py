"""The Python package against the C library and the CLI (make test-python)."""
import os
import pickle
import signal
import subprocess
import threading
import time
import warnings

import numpy as np
import pytest

import umaph
from umaph import UMAP, UmapError, UmapFormatError, UmapValueError
from conftest import FAST

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
CLI = os.environ.get("UMAP_CLI", os.path.join(ROOT, "build", "umap"))
CLI_FAST = ["--epochs", "2", "--refine-epochs", "20", "--distill-epochs", "2"]


def cli(*args):
    if not os.path.exists(CLI):
        pytest.skip("no %s (make build/umap)" % CLI)
    r = subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r


# ---- the C API bit for bit, and model files across the CLI and Python

def test_fit_equals_cli_bit_for_bit(blobs, tmp_path):
    X = blobs[0]
    np.save(tmp_path / "x.npy", X)
    cli("fit", "--input", tmp_path / "x.npy", "--seed", 11, "--threads", 2, "--k", 10, "--min-dist", 0.3,
        *CLI_FAST, "--embedding", tmp_path / "e.npy", "--save", tmp_path / "m.safetensors", "--quiet")
    ours = UMAP(random_state=11, n_neighbors=10, min_dist=0.3, **FAST).fit(X)
    assert ours.embedding_.dtype == np.float32
    np.testing.assert_array_equal(ours.embedding_, np.load(tmp_path / "e.npy"))
    # another thread count, another seed
    other = UMAP(random_state=11, n_neighbors=10, min_dist=0.3, **dict(FAST, n_jobs=1)).fit(X)
    np.testing.assert_array_equal(other.embedding_, ours.embedding_)
    assert not np.array_equal(UMAP(random_state=12, n_neighbors=10, min_dist=0.3, **FAST).fit(X).embedding_,
                              ours.embedding_)


@pytest.mark.parametrize("ext", ["safetensors", "gguf"])
def test_models_cross_between_cli_and_python(blobs, tmp_path, ext):
    X = blobs[0]
    np.save(tmp_path / "x.npy", X)
    # the CLI's model in Python
    cli("fit", "--input", tmp_path / "x.npy", "--seed", 5, "--threads", 2, *CLI_FAST,
        "--save", tmp_path / ("cli." + ext), "--quiet")
    cli("transform", "--model", tmp_path / ("cli." + ext), "--input", tmp_path / "x.npy",
        "--output", tmp_path / "cli_t.npy", "--quiet")
    loaded = UMAP.load(tmp_path / ("cli." + ext))
    np.testing.assert_array_equal(loaded.transform(X), np.load(tmp_path / "cli_t.npy"))
    assert loaded.random_state == 5 and loaded.encoder_epochs == 2 and loaded.n_epochs == 20
    # Python's model in the CLI
    ours = UMAP(random_state=6, metric="manhattan", transform_mode="encoder", **FAST).fit(X)  # as the CLI places
    ours.save(tmp_path / ("py." + ext))
    cli("transform", "--model", tmp_path / ("py." + ext), "--input", tmp_path / "x.npy",
        "--output", tmp_path / "py_t.npy", "--quiet")
    np.testing.assert_array_equal(ours.transform(X), np.load(tmp_path / "py_t.npy"))
    back = UMAP.load(tmp_path / ("py." + ext))
    assert back.metric == "manhattan"
    np.testing.assert_array_equal(back.transform(X[:7]), ours.transform(X[:7]))


def test_keep_data_round_trip(blobs, tmp_path):
    X = blobs[0]
    m = UMAP(random_state=2, keep_data=True, transform_mode="neighbors", **FAST).fit(X)  # the training rows too
    m.save(tmp_path / "k.gguf")
    back = UMAP.load(tmp_path / "k.gguf")
    assert back.keep_data
    np.testing.assert_array_equal(back.embedding_, m.embedding_)
    np.testing.assert_array_equal(back.transform(X[:20]), m.transform(X[:20]))
    enc = back.set_params(transform_mode="encoder").transform(X[:20])
    assert not np.array_equal(enc, m.transform(X[:20]))
    # the walk along the kept k-NN graph finds these blobs' neighbours as the
    # exact search does for nearly every row (the same places); the model's
    # pruned graph misses one now and then, for one nearly as near, and such a
    # row lands elsewhere in its own blob (measured over seeds 0-7: up to 4 %
    # of the embedding's range; the nearest rows of two blobs lie 22 % apart)
    walk = m.transform(X[:50])
    exact = m.set_params(transform_exact=True).transform(X[:50])
    assert np.all(walk == exact, axis=1).mean() >= 0.9  # measured: 47 of 50
    np.testing.assert_allclose(walk, exact, atol=0.06 * np.ptp(m.embedding_))


def test_keep_sketch_round_trip(blobs, tmp_path):
    X = blobs[0]
    m = UMAP(random_state=2, keep_data="sketch", input_dims=4, transform_mode="neighbors", **FAST).fit(X)
    m.save(tmp_path / "s.safetensors")
    back = UMAP.load(tmp_path / "s.safetensors")
    assert back.keep_data == "sketch"
    np.testing.assert_array_equal(back.transform(X[:20]), m.transform(X[:20]))
    rows = UMAP(random_state=2, keep_data=True, input_dims=4, **FAST).fit(X)
    np.testing.assert_array_equal(rows.embedding_, m.embedding_)  # what is kept changes nothing in the fit
    # wider rows than the sketch's 48 axes: the sketch file is the smaller
    wide = np.hstack([X] * 10)
    UMAP(random_state=2, keep_data="sketch", **FAST).fit(wide).save(tmp_path / "ws.safetensors")
    UMAP(random_state=2, keep_data=True, **FAST).fit(wide).save(tmp_path / "wr.safetensors")
    assert (tmp_path / "ws.safetensors").stat().st_size < 0.9 * (tmp_path / "wr.safetensors").stat().st_size
    with pytest.raises(ValueError, match="sketch"):
        UMAP(keep_data="rows", **FAST).fit(X)


def test_pickle_round_trip(fitted, blobs):
    X = blobs[0]
    back = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(back.transform(X), fitted.transform(X))
    np.testing.assert_array_equal(back.embedding_, fitted.embedding_)
    assert back.get_params() == fitted.get_params()


# ---- parameters: the library's defaults, every config field wired

def test_defaults_are_the_librarys():
    p = UMAP().get_params()
    assert (p["n_components"], p["n_neighbors"], p["metric"], p["init"]) == (2, 15, "euclidean", "pca")
    assert p["min_dist"] == 0.1 and p["hidden"] == (64, 64, 64, 64) and p["n_epochs"] is None
    # every field of umap.h's umap_config is in the library's layout table and
    # a parameter, or set by fit itself (metric_v from metric_kwds), or (pool,
    # allocator) of no use here
    import re
    header = open(os.path.join(ROOT, "umap.h")).read()
    body = header[header.index("typedef struct umap_config {"):header.index("} umap_config;")]
    body = re.sub(r"/\*.*?\*/", "", body.split("{", 1)[1], flags=re.S)
    declared = set()
    for decl in body.split(";"):
        words = [w for w in decl.replace("*", " ").split() if w not in ("const", "struct")]
        if words:
            declared |= {re.sub(r"\[.*", "", n.strip()) for n in " ".join(words[1:]).split(",")}
    declared.discard("")
    table = {k.split(".")[0] for k in umaph._lib.LAYOUTS["umap_config"] if k}
    by_fit = {"target", "init_coords", "metric_v", "metric_fn", "metric_user_data", "seed", "n_threads", "backend", "refiner", "progress", "progress_user_data", "info", "graph",
              "n_hidden", "logger"}
    assert declared - {"pool", "allocator"} == table, declared ^ table
    params = {umaph.estimator._PARAM.get(f, f) for f in table - by_fit - {"metric_p"}}  # metric_p: metric_kwds'
    assert params <= set(p), params - set(p)


def test_options_change_the_result(blobs):
    X, y = blobs
    base = UMAP(random_state=1, **FAST).fit(X).embedding_
    for change in [dict(metric="cosine"), dict(metric="minkowski", metric_kwds={"p": 3.0}), dict(init="random"),
                   dict(init="spectral"), dict(hidden=(32,)), dict(a=2.0, b=1.0), dict(n_neighbors=8),
                   dict(standardize=False), dict(n_epochs=0), dict(negative_sample_rate=2)]:
        e = UMAP(random_state=1, **dict(FAST, **change)).fit(X).embedding_
        assert e.shape == (300, 2) and not np.array_equal(e, base), change
    three = UMAP(random_state=1, n_components=3, **FAST).fit_transform(X)
    assert three.shape == (300, 3)
    coords = np.random.RandomState(0).randn(300, 2).astype(np.float32)
    e = UMAP(random_state=1, init=coords, **FAST).fit(X).embedding_
    assert not np.array_equal(e, base)


def test_supervised_fit(blobs):
    X, y = blobs
    rs = np.random.RandomState(1)
    noise = rs.randn(300, 12).astype(np.float32)  # no structure: only the target separates
    # FAST's 20 refinement epochs leave the label's pull to chance (1x to 5x
    # over seeds); 100 give 3x to 10x for every seed from 1 to 8
    settled = dict(FAST, n_epochs=100)
    un = UMAP(random_state=4, **settled).fit(noise).embedding_
    sup = UMAP(random_state=4, target_weight=0.9, **settled).fit(noise, y).embedding_

    def separation(e):
        means = np.array([e[y == c].mean(0) for c in range(3)])
        within = np.mean([np.linalg.norm(e[y == c] - means[c], axis=1).mean() for c in range(3)])
        return np.linalg.norm(means[:, None] - means[None], axis=2).sum() / 6 / within

    assert separation(sup) > 2 * separation(un)
    semi = y.copy()
    semi[::2] = -1
    e = UMAP(random_state=4, **FAST).fit(noise, semi).embedding_
    assert np.isfinite(e).all() and not np.array_equal(e, sup)
    values = UMAP(random_state=4, target_metric="manhattan", **FAST).fit(noise, y.astype(np.float32)).embedding_
    assert np.isfinite(values).all() and not np.array_equal(values, sup)


# ---- bad input: the library's messages as Python exceptions

@pytest.mark.parametrize("bad, match", [
    (np.zeros(10), "Expected 2D"),
    (np.zeros((4, 3, 2)), "Expected 2D"),
    (np.zeros((10, 3), dtype=complex), "omplex"),
    (np.array([["a", "b"], ["c", "d"]], dtype=object), "cannot be converted"),  # ValueError: strings
])
def test_bad_input_raises(bad, match):
    with pytest.raises(ValueError, match=match):
        UMAP(**FAST).fit(bad)


def test_nan_names_the_row(blobs, fitted):
    X = blobs[0].copy()
    X[17, 3] = np.nan
    with pytest.raises(UmapValueError, match="NaN"):
        UMAP(**FAST).fit(X)
    with pytest.raises(UmapValueError, match="row 17"):
        fitted.transform(X)
    with pytest.raises(ValueError, match="features"):
        fitted.transform(X[:, :5])


def test_library_errors_carry_detail(blobs, tmp_path):
    X = blobs[0]
    with pytest.raises(UmapValueError) as e:
        UMAP(min_dist=2.0, spread=1.0, **FAST).fit(X)
    assert e.value.result == "INVALID_ARGUMENT" and e.value.detail
    with pytest.raises(ValueError, match="metric"):
        UMAP(metric="nope", **FAST).fit(X)
    with pytest.raises(OSError):
        UMAP.load(tmp_path / "missing.safetensors")
    (tmp_path / "junk.gguf").write_bytes(b"GGUF" + b"\x07" * 60)
    with pytest.raises(UmapFormatError) as e:
        UMAP.load(tmp_path / "junk.gguf")
    assert e.value.detail
    with pytest.raises(UmapError):
        UMAP(**FAST).fit(X).save(tmp_path / "model.txt")
    with pytest.raises((AttributeError, ValueError)):  # sklearn's NotFittedError is both
        UMAP().transform(X)


@pytest.mark.parametrize("param, value, error, says", [
    ("n_neighbors", 2**31, ValueError, "n_neighbors = 2147483648: must be an integer in [2, 2147483647]"),
    ("n_neighbors", 1.5, ValueError, "n_neighbors = 1.5: must be an integer"),
    ("n_neighbors", "15", ValueError, "n_neighbors: '15' (str) is not a number"),
    ("n_neighbors", None, ValueError, "n_neighbors: None"),
    ("keep_sample", 2**40, ValueError, "keep_sample = 1099511627776: must be an integer in [0, 2147483647] or 'auto'"),
    ("n_epochs", 2**31, ValueError, "n_epochs = 2147483648"),
    ("learning_rate", 1e39, ValueError, "learning_rate = 1e+39: must be in (0, 1000)"),
    ("learning_rate", "fast", ValueError, "learning_rate: 'fast'"),
    ("timeout_s", float("inf"), ValueError, "timeout_s = inf"),
    ("min_desired_loss", float("-inf"), ValueError, "min_desired_loss = -inf"),
    ("transform_epochs", 2**31, None, "transform_epochs = 2147483648"),
    ("n_jobs", "2", ValueError, "n_jobs"),
])
def test_every_refusal_names_the_parameter(blobs, param, value, error, says):
    """never struct.error, and never a value the library cannot save: the
    parameter, the value and the range it takes"""
    X = blobs[0]
    est = UMAP(**dict(FAST, **{param: value}))
    if error is None:  # a transform parameter: refused when transform reads it
        est = UMAP(**FAST).fit(X).set_params(**{param: value})
        with pytest.raises(ValueError) as e:
            est.transform(X[:5])
    else:
        with pytest.raises(error) as e:
            est.fit(X)
    assert says in str(e.value)


def test_every_number_parameter_refuses_what_is_no_number_by_name(blobs):
    """the walk behind the examples above: each parameter that is a number
    field of umap_config"""
    from umaph import _lib
    layout = _lib.LAYOUTS["umap_config"]
    from umaph import estimator
    named = {"metric", "knn_method", "init", "keep_data", "standardize"} | set(estimator._FLAGS)  # names and flags
    params = [p for p in UMAP().get_params() if p in layout and layout[p][2] in (b"i", b"f", b"d") and p not in named]
    assert len(params) > 25
    for p in params:
        with pytest.raises(ValueError, match="^%s: " % p):
            UMAP(**dict(FAST, **{p: "x"})).fit(blobs[0])
        with pytest.raises(ValueError, match="(^|: )%s = " % p):
            UMAP(**dict(FAST, **{p: 1e300 if layout[p][2] != b"d" else float("nan")})).fit(blobs[0])


# ---- umap.h's table of umap_config's fields (umap_config_fields) is the
# estimator's list of config parameters: a row added there is a parameter

def _row_param(row):
    from umaph import estimator
    return estimator._PARAM.get(row.name, row.name)


def test_umap_learns_parameters_come_first_in_its_order():
    """umap-learn 0.5's signature, then the library's own parameters (the
    parameters are keyword-only, so the order is for reading)"""
    import inspect
    from umaph import estimator
    umap_learn = ["n_neighbors", "n_components", "metric", "metric_kwds", "output_metric", "output_metric_kwds",
                  "n_epochs", "learning_rate", "init", "min_dist", "spread", "low_memory", "n_jobs",
                  "set_op_mix_ratio", "local_connectivity", "repulsion_strength", "negative_sample_rate",
                  "transform_queue_size", "a", "b", "random_state", "angular_rp_forest", "target_n_neighbors",
                  "target_metric", "target_metric_kwds", "target_weight", "transform_seed", "transform_mode",
                  "force_approximation_algorithm", "verbose", "tqdm_kwds", "unique", "densmap", "dens_lambda",
                  "dens_frac", "dens_var_shift", "output_dens", "disconnection_distance", "precomputed_knn"]
    ours = [p for p in inspect.signature(UMAP.__init__).parameters if p != "self"]
    assert estimator._ORDER == ours and ours[:len(umap_learn)] == umap_learn
    assert {"encoder_epochs", "encoder_learning_rate", "hidden", "keep_data", "device"} <= set(ours)
    assert not {"refine_epochs", "refine_rate", "metric_p", "target_metric_p"} & set(ours)


def test_every_row_is_a_parameter_at_the_librarys_default():
    from umaph import _lib
    rows = _lib.CONFIG_ROWS
    assert len(rows) > 30 and len({r.name for r in rows}) == len(rows)
    params = UMAP().get_params()
    for r in rows:
        if r.name != "metric_p":  # from metric_kwds, as umap-learn takes it
            assert _row_param(r) in params, r.name
            assert r.doc and r.doc in UMAP.__doc__, r.name  # the docstring's line
    # the default parameters make the library's default config, row by row
    ours = UMAP()._config(100, 10, 15)[0]
    lib = _lib.Struct("umap_config")
    _lib.config_default(lib.ptr)
    for r in rows:
        assert ours[r.name] == lib[r.name], r.name
    assert ours["hidden"] == lib["hidden"]


def _out_of_range(row, kind):
    """values just outside the row's range (None where it has no end): the
    end itself where it is open, else a step past it, and past UMAP_AUTO or
    0 where the row takes those"""
    from umaph import _lib
    auto, zero = _lib.field_flag("AUTO"), _lib.field_flag("ZERO")
    special = lambda v: (row.flags & auto and v == _lib.AUTO) or (row.flags & zero and v == 0)
    out = []
    for end, sign, open_flag in ((row.lo, -1, "LO_OPEN"), (row.hi, 1, "HI_OPEN")):
        step = 1 if kind == b"i" else max(1.0, abs(end))  # floats: 2 FLT_MAX, 2e6, -1, ...
        v = end if row.flags & _lib.field_flag(open_flag) else end + sign * step
        while special(v):
            v += sign * step
        out.append(int(v) if kind == b"i" else v)
    return out


def test_every_row_refuses_a_value_outside_its_range_by_name(blobs):
    import re
    from umaph import _lib, estimator
    X = blobs[0]
    layout = _lib.LAYOUTS["umap_config"]
    hi = {r.name: r.hi for r in _lib.CONFIG_ROWS}
    # the hand-mapped rows' parameters take names or a tuple: values they
    # refuse (unique, densmap and output_dens are flags: any value is true or
    # false; standardize too, or "auto")
    mapped_bad = {"metric": ["nope", int(hi["metric"]) + 1], "knn_method": ["nope", int(hi["knn_method"]) + 1],
                  "init": ["nope"], "keep_data": ["rows"], "n_hidden": [(8,) * (int(hi["n_hidden"]) + 1)],
                  "standardize": ["yes"], "unique": [], "densmap": [], "output_dens": [],
                  "metric_p": [], "a": [-1.0, "x"], "b": [-1.0, "x"]}  # metric_p: metric_kwds' (its own test)
    assert set(mapped_bad) == set(estimator._MAPPED)
    tried = 0
    for r in _lib.CONFIG_ROWS:
        param = _row_param(r)
        values = mapped_bad[r.name] if r.name in mapped_bad else _out_of_range(r, layout[r.name][2])
        for v in values:
            with pytest.raises(ValueError) as e:
                UMAP(**dict(FAST, **{param: v})).fit(X)
            assert re.search(r"(^|: )%s( = |: )" % param, str(e.value)), (param, v, str(e.value))
            tried += 1
    assert tried > 60


def test_a_new_row_becomes_a_parameter():
    """_PLAIN and _AUTO are the table's rows but the hand-mapped ones, so a
    row added to umap.h cannot be missed; a pretend one lands by its flags"""
    from umaph import _lib, estimator
    rows, auto_flag = _lib.CONFIG_ROWS, _lib.field_flag("AUTO")
    names = [r.name for r in rows]
    assert set(estimator._MAPPED) <= set(names)
    assert estimator._PLAIN == [n for n in names if n not in estimator._MAPPED and
                                not rows[names.index(n)].flags & auto_flag]
    assert estimator._AUTO == [n for n in names if n not in estimator._MAPPED and
                               rows[names.index(n)].flags & auto_flag]
    assert sorted(estimator._PLAIN + estimator._AUTO + list(estimator._MAPPED)) == sorted(names)
    new = [_lib.ConfigRow("new_knob", 0, 0, 1, "a pretend row"), _lib.ConfigRow("new_auto", auto_flag, 0, 9, "")]
    plain, auto = estimator._split_rows(rows[:5] + new[:1] + rows[5:] + new[1:])  # in table order
    k = len([n for n in names[:5] if n in estimator._PLAIN])
    assert plain == estimator._PLAIN[:k] + ["new_knob"] + estimator._PLAIN[k:]
    assert auto == estimator._AUTO + ["new_auto"]
    tail = len(estimator._TAIL)
    assert estimator._order(rows + new) == estimator._ORDER[:-tail] + ["new_knob", "new_auto"] + estimator._TAIL


def test_accepted_values_are_saved_and_load(blobs, tmp_path):
    """what fit accepts at the ends of the ranges saves a model that loads,
    pickles and transforms (timeout_s = inf once saved unloadable JSON)"""
    X = blobs[0]
    est = UMAP(random_state=1, timeout_s=1e300, min_desired_loss=-3e38, n_components=2.0, b=0.01, a=1e30,
               **FAST).fit(X)
    est.save(tmp_path / "m.gguf")
    loaded = UMAP.load(tmp_path / "m.gguf")
    assert loaded.timeout_s == 1e300 and loaded.b == pytest.approx(0.01) and loaded.n_components == 2
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(est)).transform(X[:7]), est.transform(X[:7]))
    with pytest.raises(UmapValueError, match="keep_sample = 100 asks for kept rows"):
        UMAP(keep_sample=100, metric="cosine", **FAST).fit(X)


def test_save_says_why_and_hostile_files_raise_format_errors(fitted, tmp_path):
    with pytest.raises(OSError, match="No such file or directory"):
        fitted.save(tmp_path / "missing" / "m.safetensors")
    (tmp_path / "d.safetensors").mkdir()
    with pytest.raises(OSError, match="Is a directory"):
        fitted.save(tmp_path / "d.safetensors")
    # the loader quotes a file's bytes escaped: a format error, never a UnicodeDecodeError
    blob = fitted.to_bytes("safetensors")
    n = int.from_bytes(blob[:8], "little")
    header = blob[8:8 + n].replace(b'"umap.hidden":"64,64,64,64"', b'"umap.hidden":"\\u001b[2J\\u00ff"')
    header += b" " * (-(8 + len(header)) % 8)
    with pytest.raises(UmapFormatError) as e:
        UMAP.from_bytes(len(header).to_bytes(8, "little") + header + blob[8 + n:])
    assert "umap.hidden" in str(e.value) and "\x1b" not in str(e.value) and "\\x1b" in str(e.value)


# ---- scikit-learn

def test_estimator_checks():
    pytest.importorskip("sklearn")
    from sklearn.utils.estimator_checks import check_estimator
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_estimator(UMAP(n_neighbors=5, random_state=0, **FAST))


def test_pipeline(blobs):
    pytest.importorskip("sklearn")
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.base import clone
    X, y = blobs
    pipe = Pipeline([("scale", StandardScaler()), ("umap", UMAP(random_state=0, **FAST)),
                     ("knn", KNeighborsClassifier())])
    pipe.fit(X[::2], y[::2])
    assert pipe.score(X[1::2], y[1::2]) > 0.9
    pipe2 = clone(pipe).set_params(umap__n_components=3)
    assert pipe2.fit(X, y).named_steps["umap"].embedding_.shape == (300, 3)


# ---- threads, progress, cancel

def test_threads_transform_concurrently(fitted, blobs):
    X = np.tile(blobs[0], (20, 1))
    want = fitted.transform(X)
    got = [None] * 4

    def run(i):
        got[i] = fitted.transform(X)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for g in got:
        np.testing.assert_array_equal(g, want)


def _python_share_during(call):
    """The share of its solo speed a Python thread keeps while call() runs
    on another: about 0 when call holds the GIL (it then runs only in the
    few milliseconds of Python around the C call), near 1 when it does not
    (on a second core)."""
    count = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        time.sleep(0.2)  # the spinner alone (this thread sleeps: no GIL)
        c0, t0 = count[0], time.perf_counter()
        time.sleep(0.2)
        solo = (count[0] - c0) / (time.perf_counter() - t0)
        c0, t0 = count[0], time.perf_counter()
        call()
        elapsed = time.perf_counter() - t0
        during = (count[0] - c0) / elapsed
    finally:
        stop.set()
        t.join()
    return during / solo, elapsed


def test_gil_released(blobs):
    X = np.tile(blobs[0], (10, 1)) + np.float32(0.01) * np.arange(3000, dtype=np.float32)[:, None]
    model = UMAP(random_state=0, **FAST).fit(X[:300])
    big = np.tile(X, (120, 1))
    fit = UMAP(random_state=0, **dict(FAST, n_jobs=1, n_epochs=100))
    calls = {
        "knn": lambda: umaph.knn(np.tile(X, (3, 1)), k=10, method="exact", n_jobs=1),
        "transform": lambda: model.set_params(n_jobs=1).transform(big),
        # fit on a worker thread (no callback there: nothing listens), joined here
        "fit": lambda: (lambda t: (t.start(), t.join()))(threading.Thread(target=fit.fit, args=(X,))),
    }
    for name, call in calls.items():
        share, elapsed = _python_share_during(call)
        assert elapsed > 0.1, (name, elapsed)  # long enough that the Python around the call is noise
        assert share > 0.3, (name, share, elapsed)


def test_progress_and_cancel(blobs):
    X = blobs[0]
    seen = []
    UMAP(random_state=0, callback=lambda p: seen.append((p.phase, p.epoch, p.n_epochs)) and False,
         **FAST).fit(X)
    assert seen and all(isinstance(p[0], str) for p in seen)
    with pytest.warns(RuntimeWarning, match="cancelled"):
        m = UMAP(random_state=0, callback=lambda p: p.phase == "train" and p.epoch >= 1,
                 **dict(FAST, encoder_epochs=20)).fit(X)
    assert m.cancelled_ and m.fit_info_["epochs_run"] < 20
    assert np.isfinite(m.transform(X[:5])).all()

    with pytest.raises(UmapError) as e:  # before training: no model
        UMAP(random_state=0, callback=lambda p: p.phase == "knn", **FAST).fit(X)
    assert e.value.result == "CANCELLED" and not hasattr(e, "embedding_")

    def boom(p):
        raise ZeroDivisionError("from the callback")
    with pytest.raises(ZeroDivisionError):
        UMAP(random_state=0, callback=boom, **FAST).fit(X)


def test_ctrl_c_cancels_fit(blobs):
    X = blobs[0]
    before = signal.getsignal(signal.SIGINT)
    sent = []

    def press_ctrl_c(p):
        if p.phase == "train" and p.epoch >= 1 and not sent:
            sent.append(1)
            os.kill(os.getpid(), signal.SIGINT)
        return False

    m = UMAP(random_state=0, callback=press_ctrl_c, **dict(FAST, encoder_epochs=30))
    with pytest.raises(KeyboardInterrupt):
        m.fit(X)
    assert m.cancelled_ and m.fit_info_["epochs_run"] < 30
    assert signal.getsignal(signal.SIGINT) is before


def test_library_log_reaches_python(blobs, caplog):
    X = blobs[0].copy()
    X[:, 4] = 1.0  # a constant column: the library warns through its logger
    with pytest.warns(UserWarning, match="constant"):
        UMAP(random_state=0, **FAST).fit(X)
    assert any("constant" in r.getMessage() and r.name == "umaph" for r in caplog.records)


def test_verbose_progress(blobs, capsys):
    UMAP(random_state=0, verbose=True, **FAST).fit(blobs[0])
    assert "umaph:" in capsys.readouterr().err


# ---- k-NN

def test_knn_matches_brute_force(blobs):
    X = blobs[0]
    idx, dist = umaph.knn(X, k=5, method="exact")
    assert idx.shape == (300, 5) and idx.dtype == np.int32 and dist.dtype == np.float32
    d2 = ((X[:, None, :].astype(np.float64) - X[None].astype(np.float64)) ** 2).sum(-1)
    np.fill_diagonal(d2, np.inf)
    want = np.sort(np.sqrt(d2), axis=1)[:, :5]
    np.testing.assert_allclose(dist, want, rtol=1e-5)
    np.testing.assert_allclose(np.sqrt(d2[np.arange(300)[:, None], idx]), dist, rtol=1e-5)
    with pytest.raises(ValueError):
        umaph.knn(X, k=300)


def test_knn_on_sparse_rows_equals_the_dense_search():
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(4)
    X = sp.random(400, 3000, density=0.01, random_state=5, format="csr", dtype=np.float64)
    X.data = np.abs(X.data) + 0.1
    for metric in ("euclidean", "cosine", "manhattan", "jaccard", "hellinger", "correlation"):
        idx, dist = umaph.knn(X, k=7, metric=metric)
        d_idx, d_dist = umaph.knn(X.toarray(), k=7, metric=metric, method="exact")
        np.testing.assert_allclose(dist, d_dist, rtol=1e-5, atol=1e-6, err_msg=metric)
        if metric != "correlation":  # computed without centring: ties may fall either way
            np.testing.assert_array_equal(idx, d_idx, err_msg=metric)
    # as scikit-learn's brute-force search finds them on the same sparse matrix
    from sklearn.neighbors import NearestNeighbors
    nn = NearestNeighbors(n_neighbors=8, metric="cosine", algorithm="brute").fit(X)
    want, _ = nn.kneighbors(X)  # distances (each row's own first, at 0)
    idx, dist = umaph.knn(X, k=7, metric="cosine")
    np.testing.assert_allclose(dist, want[:, 1:], rtol=1e-5, atol=1e-6)
    # unsorted and duplicate entries are put in scipy's canonical form first, COO and CSC too
    coo = X.tocoo()
    order = rng.permutation(coo.nnz)
    shuffled = sp.coo_matrix((coo.data[order], (coo.row[order], coo.col[order])), shape=X.shape)
    np.testing.assert_array_equal(umaph.knn(shuffled, k=7, metric="cosine")[0], idx)
    np.testing.assert_array_equal(umaph.knn(X.tocsc(), k=7, metric="cosine")[0], idx)
    # bad values are named by row
    bad = X.copy()
    bad.data[bad.indptr[9]] = np.nan
    with pytest.raises(umaph.UmapValueError, match="row 9 holds NaN"):
        umaph.knn(bad, k=7)
    with pytest.raises(umaph.UmapValueError, match="takes dense rows"):
        umaph.knn(X, k=7, metric="haversine")
    with pytest.raises(umaph.UmapValueError, match="a graph of distances between the 400 rows is 400 x 400"):
        umaph.knn(X, k=7, metric="precomputed")


def test_quality_is_scikit_learns_trustworthiness_and_takes_sparse_rows():
    sklearn_manifold = pytest.importorskip("sklearn.manifold")
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(11)
    X = rng.normal(size=(300, 10)).astype(np.float32)
    E = (X[:, :2] + rng.normal(scale=0.8, size=(300, 2))).astype(np.float32)
    labels = (X[:, 0] > 0).astype(np.int64)
    for metric in ("euclidean", "cosine", "manhattan"):
        q = umaph.quality(X, E, n_neighbors=10, metric=metric, labels=labels)
        want = sklearn_manifold.trustworthiness(X, E, n_neighbors=10, metric=metric)
        assert q["trustworthiness"] == pytest.approx(want, abs=1e-9), metric
        assert 0.0 < q["knn_recall"] < 1.0 and 0.5 < q["knn_accuracy"] <= 1.0
    assert umaph.quality(X, E)["knn_accuracy"] is None
    # sparse rows score as their dense form, never densified
    S = sp.random(300, 60, density=0.2, random_state=1, format="csr", dtype=np.float64)
    S.data += 0.5
    for metric in ("cosine", "euclidean", "jaccard"):
        qs = umaph.quality(S, E, metric=metric, labels=labels, n_queries=120)
        qd = umaph.quality(S.toarray(), E, metric=metric, labels=labels, n_queries=120)
        assert qs["knn_recall"] == qd["knn_recall"] and qs["knn_accuracy"] == qd["knn_accuracy"], metric
        assert qs["trustworthiness"] == pytest.approx(qd["trustworthiness"], abs=2e-3), metric
    with pytest.raises(ValueError, match="embedding has 299 rows"):
        umaph.quality(X, E[:299])
    with pytest.raises(ValueError, match="n_neighbors=200"):
        umaph.quality(X, E, n_neighbors=200)
    with pytest.raises(ValueError, match="labels"):
        umaph.quality(X, E, labels=np.zeros(300, np.float32))
    bad = X.copy()
    bad[7, 3] = np.nan
    with pytest.raises(umaph.UmapValueError):
        umaph.quality(bad, E)


def test_fit_and_transform_sparse_rows():
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(7)
    # 8 topics: each row's words mostly from its topic's 40, some from 100 shared
    n, d = 600, 420
    labels = rng.integers(0, 8, n)
    rows, cols = [], []
    for i, t in enumerate(labels):
        words = np.concatenate([t * 40 + rng.integers(0, 40, 12), 320 + rng.integers(0, 100, 8)])
        rows += [i] * len(words)
        cols += list(words)
    X = sp.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(n, d))  # duplicates summed
    model = umaph.UMAP(metric="cosine", random_state=1, n_jobs=2).fit(X)
    emb = model.embedding_
    from sklearn.neighbors import KNeighborsClassifier
    acc = KNeighborsClassifier(10).fit(emb, labels).score(emb, labels)
    assert acc > 0.9
    # the model places sparse rows as the same rows dense, and refuses the wrong width
    new = X[:50]
    np.testing.assert_allclose(model.transform(new), umaph.UMAP.transform(model, new.toarray()), rtol=1e-3, atol=1e-3)
    with pytest.raises(ValueError, match="features"):
        model.transform(sp.csr_matrix((3, d + 1), dtype=np.float32))
    with pytest.raises(ValueError, match="keep_data"):
        umaph.UMAP(metric="cosine", keep_data=True).fit(X)
    # unique: repeated documents (one with an explicit stored zero) share one place
    r10 = X[10]
    free = min(set(range(d)) - set(r10.indices))  # a column row 10 leaves empty: a stored zero there
    z = sp.csr_matrix((np.append(r10.data, 0.0), np.append(r10.indices, free), [0, r10.nnz + 1]), shape=(1, d))
    Xd = sp.vstack([X, X[3], X[10], X[3], z], format="csr")
    assert Xd[n + 3].nnz == r10.nnz + 1
    emb = umaph.UMAP(metric="cosine", unique=True, random_state=1, n_jobs=2).fit(Xd).embedding_
    for copy, row in ((n, 3), (n + 1, 10), (n + 2, 3), (n + 3, 10)):
        np.testing.assert_array_equal(emb[copy], emb[row])
    assert not np.array_equal(emb[3], emb[10])


# ---- input layout and devices

def test_float32_c_rows_are_not_copied():
    from umaph._lib import as_rows
    X = np.zeros((5, 3), dtype=np.float32)
    assert as_rows(X) is X
    F = np.asfortranarray(X)
    assert as_rows(F).flags.c_contiguous and as_rows(F) is not F
    assert as_rows(X.astype(np.float64)).dtype == np.float32
    assert as_rows(X[:, :2]).flags.c_contiguous


def test_devices(blobs, monkeypatch):
    X = blobs[0]
    with pytest.raises(ValueError, match="not cpu, vulkan or auto"):
        UMAP(device="gpu", **FAST).fit(X)
    # auto: a GPU only when calibrated faster; never an error
    m = UMAP(random_state=0, device="auto", **FAST).fit(X)
    assert m.device_used_ in ("cpu", "vulkan") and np.isfinite(m.embedding_).all()
    # vulkan: a GPU (not a CPU driver: the test stays fast) or UMAP_ERR_NO_DEVICE with the reason
    monkeypatch.delenv("UMAP_VK_ALLOW_CPU", raising=False)
    try:
        m = UMAP(random_state=0, device="vulkan", **FAST).fit(X)
        assert m.device_used_ == "vulkan" and np.isfinite(m.embedding_).all()
    except UmapError as e:
        assert e.result == "NO_DEVICE" and e.detail


def test_imports_with_docstrings_stripped():
    # python -OO strips docstrings; the estimator appends its parameters'
    # lines to its own and must not fail on a None there
    import sys
    pkg = os.path.join(os.path.dirname(__file__), "..")
    r = subprocess.run([sys.executable, "-OO", "-c", "import umaph; print(umaph.UMAP().n_neighbors)"],
                       capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=pkg))
    assert r.returncode == 0 and r.stdout.strip() == "15", r.stderr


def test_disconnection_distance_lists_the_rows_it_cuts_off():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 5)).astype(np.float32)
    X[7] += 500.0  # far from every other row
    u = UMAP(disconnection_distance=50.0, random_state=1, **FAST)
    with pytest.warns(UserWarning, match="rows 7"):
        emb = u.fit_transform(X)
    assert u.disconnected_vertices_.tolist() == [7]
    assert np.isfinite(emb).all()  # placed by the encoder, not NaN
    assert u.fit_info_["n_dropped_edges"] == 14 and u.fit_info_["n_disconnected"] == 1
    back = pickle.loads(pickle.dumps(u))
    assert back.disconnected_vertices_.tolist() == [7]
    plain = UMAP(random_state=1, **FAST).fit(X)
    assert plain.disconnected_vertices_.size == 0
    with pytest.raises(UmapValueError, match="disconnection_distance"):
        UMAP(disconnection_distance=-2.0, **FAST).fit(X)


@pytest.mark.parametrize("metric", ["hellinger", "canberra", "braycurtis", "dice", "russellrao"])
def test_new_metrics_fit_and_match_their_definitions(metric):
    rng = np.random.default_rng(4)
    X = (rng.random(size=(120, 6)) < 0.5).astype(np.float32) * rng.random(size=(120, 6)).astype(np.float32)
    idx, dist = umaph.knn(X, k=5, metric=metric, method="exact")
    def ref(a, b):  # umap-learn's definitions (umap/distances.py)
        if metric == "hellinger":  # a zero row: at 0 from a zero row, sqrt(1/2) from others (umap-learn: 1)
            if a.sum() == 0 or b.sum() == 0:
                return 0.0 if a.sum() == b.sum() else np.sqrt(0.5)
            return np.sqrt(max(0.0, 1 - np.sum(np.sqrt(a * b)) / np.sqrt(a.sum() * b.sum())))
        if metric == "canberra":
            den = np.abs(a) + np.abs(b)
            return np.sum(np.abs(a - b)[den > 0] / den[den > 0])
        if metric == "braycurtis":
            den = np.sum(np.abs(a + b))
            return 0.0 if den == 0 else np.sum(np.abs(a - b)) / den
        x, y = a != 0, b != 0
        tt, neq = np.sum(x & y), np.sum(x != y)
        if metric == "dice":
            return 0.0 if neq == 0 else neq / (2 * tt + neq)
        return 0.0 if (tt == x.sum() and tt == y.sum()) else (len(a) - tt) / len(a)
    X64 = X.astype(np.float64)
    for i in range(0, 120, 17):
        d = np.array([ref(X64[i], X64[j]) if j != i else np.inf for j in range(120)])
        assert np.allclose(dist[i], np.sort(d)[:5], atol=1e-5)
    assert np.isfinite(UMAP(metric=metric, random_state=0, **FAST).fit_transform(X)).all()
    if metric == "hellinger":
        with pytest.raises(UmapValueError, match="non-negative"):
            umaph.knn(X - 0.5, k=5, metric=metric)


def test_haversine_matches_scikit_learns_and_refuses_degrees():
    # scikit-learn's haversine_distances: (latitude, longitude) in radians, as umap-learn's
    from sklearn.metrics.pairwise import haversine_distances
    rng = np.random.default_rng(6)
    X = np.stack([rng.uniform(-1.5, 1.5, 200), rng.uniform(-3.1, 3.1, 200)], 1).astype(np.float32)
    idx, dist = umaph.knn(X, k=5, metric="haversine", method="exact")
    D = haversine_distances(X.astype(np.float64))
    np.fill_diagonal(D, np.inf)
    assert (idx == np.argsort(D, 1, kind="stable")[:, :5]).all()
    assert np.allclose(dist, np.sort(D, 1)[:, :5], atol=1e-6)
    u = UMAP(metric="haversine", random_state=0, **FAST)
    assert np.isfinite(u.fit_transform(X)).all()
    assert np.isfinite(u.transform(X[:10])).all()
    with pytest.raises(UmapValueError, match="radians"):
        u.transform(np.degrees(X[:10]))
    with pytest.raises(UmapValueError, match="2 columns"):
        umaph.knn(np.ones((20, 3), np.float32), k=5, metric="haversine")


def test_seuclidean_matches_scipys_and_takes_umap_learns_metric_kwds():
    from scipy.spatial.distance import cdist
    rng = np.random.default_rng(7)
    X = (rng.normal(size=(150, 5)) * np.array([1.0, 30.0, 0.01, 5.0, 400.0])).astype(np.float32)
    X64 = X.astype(np.float64)
    for V in (None, np.array([1.0, 4.0, 0.5, 2.0, 9.0])):
        kw = None if V is None else {"V": V}
        want_V = np.var(X64, axis=0, ddof=1) if V is None else V  # scipy's default, and umap-learn's metric_kwds
        idx, dist = umaph.knn(X, k=5, metric="seuclidean", method="exact", metric_kwds=kw)
        D = cdist(X64, X64, "seuclidean", V=want_V)
        np.fill_diagonal(D, np.inf)
        assert (idx == np.argsort(D, 1, kind="stable")[:, :5]).all()
        assert np.allclose(dist, np.sort(D, 1)[:, :5], rtol=1e-5)
    # minkowski's p as umap-learn passes it
    a, _ = umaph.knn(X, k=5, metric="minkowski", metric_kwds={"p": 3})
    b, _ = umaph.knn(X, k=5, metric="minkowski", metric_p=3.0)
    assert (a == b).all()
    u = UMAP(metric="seuclidean", metric_kwds={"sigma": np.ones(5)}, random_state=0, keep_data=True, **FAST)
    assert np.isfinite(u.fit_transform(X)).all() and np.isfinite(u.transform(X[:10])).all()
    back = pickle.loads(pickle.dumps(u))
    assert np.array_equal(back.transform(X[:10]), u.transform(X[:10]))
    with pytest.raises(ValueError, match="one variance per column"):
        UMAP(metric="seuclidean", metric_kwds={"V": np.ones(3)}, **FAST).fit(X)
    with pytest.raises(ValueError, match="metric_kwds"):
        UMAP(metric="cosine", metric_kwds={"V": np.ones(5)}, **FAST).fit(X)
    with pytest.raises(UmapValueError, match="finite and >= 0"):
        umaph.knn(X, k=5, metric="seuclidean", metric_kwds={"V": [1, -1, 1, 1, 1]})


def test_precomputed_distances_fit_and_transform_as_umap_learn():
    rng = np.random.default_rng(5)
    X = np.concatenate([rng.normal(size=(100, 5)) + c for c in (0.0, 8.0, 16.0)]).astype(np.float32)
    D = np.sqrt(((X[:, None].astype(np.float64) - X[None]) ** 2).sum(-1)).astype(np.float32)
    idx, dist = umaph.knn(D, k=5, metric="precomputed")
    want, _ = umaph.knn(X, k=5, metric="euclidean", method="exact")
    assert (idx == want).all()
    u = UMAP(metric="precomputed", random_state=1, **FAST)
    emb = u.fit_transform(D)
    assert emb.shape == (300, 2) and np.isfinite(emb).all()
    new = u.transform(D[:30])  # rows of distances to the 300 training rows
    blob = np.repeat(np.arange(3), 100)
    centre = np.stack([emb[blob == b].mean(0) for b in range(3)])
    assert (np.argmin(((new[:, None] - centre[None]) ** 2).sum(-1), 1) == 0).all()
    with pytest.raises(UmapValueError, match="n x n distance matrix"):
        UMAP(metric="precomputed", **FAST).fit(X)
    bad = D.copy()
    bad[3, 17] = -1.0
    with pytest.raises(UmapValueError, match=r"entry \(3, 17\)"):
        UMAP(metric="precomputed", **FAST).fit(bad)
    with pytest.raises(UmapValueError, match="unique"):
        UMAP(metric="precomputed", unique=True, **FAST).fit(D)


def test_unique_gives_copies_one_place():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 4)).astype(np.float32)
    X[[10, 50, 90]] = X[3]
    u = UMAP(unique=True, random_state=2, **FAST)
    emb = u.fit_transform(X)
    assert emb.shape == (200, 2)
    assert (emb[[10, 50, 90]] == emb[3]).all()
    assert u.get_params()["unique"] is True
    plain = UMAP(random_state=2, **FAST).fit_transform(X)
    assert not (plain[10] == plain[3]).all()
    back = UMAP.from_bytes(u.to_bytes()) if hasattr(UMAP, "from_bytes") else pickle.loads(pickle.dumps(u))
    assert np.array_equal(back.transform(X[:20] + 0.5), u.transform(X[:20] + 0.5))  # new rows: a file keeps no
    assert np.array_equal(pickle.loads(pickle.dumps(u)).transform(X[:20]), emb[:20])  # fitted rows, a pickle does


def test_inverse_transform_decodes_places_back_to_rows(blobs, tmp_path):
    X, y = blobs
    u = UMAP(decoder_epochs=30, random_state=1, **FAST).fit(X)
    emb = u.embedding_
    assert np.array_equal(emb, UMAP(random_state=1, **FAST).fit(X).embedding_)  # the decoder leaves the fit alone
    back = u.inverse_transform(emb)
    assert back.shape == X.shape and back.dtype == np.float32
    # each blob's places decode nearer its own centre than the others'
    centres = np.stack([X[y == c].mean(0) for c in range(3)])
    nearest = np.argmin(((back[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
    assert (nearest == y).mean() > 0.95
    assert ((back - X) ** 2).mean() < 0.5 * ((X - X.mean(0)) ** 2).mean()
    assert u.fit_info_["decoder_loss"] > 0 and u.fit_info_["decoder_s"] > 0
    path = tmp_path / "dec.safetensors"
    u.save(path)
    assert np.array_equal(UMAP.load(path).inverse_transform(emb[:50]), back[:50])
    assert np.array_equal(pickle.loads(pickle.dumps(u)).inverse_transform(emb[:50]), back[:50])
    with pytest.raises(UmapError, match="no decoder"):
        UMAP(random_state=1, **FAST).fit(X).inverse_transform(emb)
    bad = emb[:5].copy()
    bad[3, 1] = np.nan
    with pytest.raises(UmapError, match="row 3"):
        u.inverse_transform(bad)
    with pytest.raises(ValueError):
        u.inverse_transform(X[:5])  # rows of data, not places


def test_densmap_keeps_local_radii_and_returns_them_as_umap_learn():
    # three blobs of very different spreads: densMAP keeps them apart in the
    # embedding's radii; fit_transform with output_dens is umap-learn's tuple
    rng = np.random.default_rng(8)
    X = np.concatenate([rng.normal(size=(100, 5)) * s + 30 * i for i, s in enumerate((0.2, 1.0, 4.0))])
    X = X.astype(np.float32)
    corr = {}
    for densmap in (False, True):
        u = UMAP(densmap=densmap, output_dens=True, random_state=3, **FAST)
        emb, ro, re = u.fit_transform(X)
        assert emb.shape == (300, 2) and ro.shape == (300,) and re.shape == (300,)
        assert np.array_equal(ro, u.rad_orig_) and np.array_equal(re, u.rad_emb_)
        corr[densmap] = np.corrcoef(ro, re)[0, 1]
    assert corr[True] > 0.8 and corr[True] > corr[False] + 0.2, corr
    assert u.get_params()["densmap"] is True and u.get_params()["dens_lambda"] == 2.0
    back = pickle.loads(pickle.dumps(u))  # the fit's radii travel with it; the model file keeps the settings
    assert np.array_equal(back.rad_orig_, ro) and np.array_equal(back.transform(X[:20]), u.transform(X[:20]))
    assert UMAP.from_bytes(u.to_bytes()).get_params()["densmap"] is True
    plain = UMAP(random_state=3, **FAST).fit(X)
    assert not hasattr(plain, "rad_orig_")
    assert isinstance(plain.fit_transform(X), np.ndarray)
    with pytest.raises(ValueError, match="densmap with n_epochs = 0: "):  # by umap-learn's name
        UMAP(**dict(FAST, densmap=True, n_epochs=0)).fit(X)


def test_update_grows_the_model_and_keeps_the_old_places(blobs, tmp_path):
    # umap-learn's update(X): embedding_ grows by X's rows, the old rows stay
    X, y = blobs
    old, new = X[: len(X) * 3 // 4], X[len(X) * 3 // 4:]
    u = UMAP(random_state=4, **FAST).fit(old)  # the default keep: a sketch, so the fit's rows are used
    before = u.embedding_.copy()
    assert u.update(new) is u
    assert u.embedding_.shape == (len(X), 2)
    assert np.array_equal(u.embedding_[: len(old)], before)
    # each new row among its own blob's old rows
    d = ((u.embedding_[len(old):, None, :] - before[None]) ** 2).sum(-1)
    assert (y[: len(old)][np.argmin(d, axis=1)] == y[len(old):]).mean() > 0.95
    assert u.transform(new[:5]).shape == (5, 2)
    # a loaded model has not the fit's rows: X_old, or a clear error
    path = tmp_path / "m.safetensors"
    u.save(path)
    loaded = UMAP.load(path)
    with pytest.raises(ValueError, match="X_old"):
        loaded.update(new[:10])
    loaded.update(new[:10], X_old=X)
    assert loaded.embedding_.shape == (len(X) + 10, 2)
    kept = UMAP(keep_data=True, random_state=4, **FAST).fit(old)
    twin = pickle.loads(pickle.dumps(kept))  # pickled without the fit's rows: the model keeps them
    assert np.array_equal(kept.update(new).embedding_, twin.update(new).embedding_)
    bad = new[:5].copy()
    bad[2, 0] = np.nan
    with pytest.raises(UmapError, match="row 2"):
        kept.update(bad)
    with pytest.raises(ValueError):
        kept.update(new[:, :3])


def test_updates_one_after_another_grow_on_all_rows():
    # the fit's rows held by reference, then each update's rows beside them
    rng = np.random.default_rng(5)
    parts = [(rng.standard_normal((120, 6)) + 8 * (np.arange(120) % 3)[:, None]).astype(np.float32)
             for _ in range(3)]
    u = UMAP(random_state=2, **FAST).fit(parts[0])
    u.update(parts[1]).update(parts[2])
    assert u.embedding_.shape == (360, 2)
    v = UMAP(random_state=2, **FAST).fit(parts[0])
    v.update(parts[1])
    v.update(parts[2], X_old=np.vstack(parts[:2]))  # the same rows, given
    assert np.array_equal(u.embedding_, v.embedding_)


def _weighted_l1(x, y):
    # a metric no library has built in: manhattan with column weights 1, 2, 3, 1, ...
    s = 0.0
    for j in range(x.shape[0]):
        s += (1 + j % 3) * abs(float(x[j]) - float(y[j]))
    return s


def _weighted_l1_reference(X):
    w = 1 + np.arange(X.shape[1]) % 3
    return (w * np.abs(X[:, None, :].astype(np.float64) - X[None])).sum(-1)


def test_custom_metric_from_numba_ctypes_or_python(blobs, tmp_path):
    # umap-learn's custom metric: a numba.njit f(x, y); a C function (a
    # ctypes pointer, a numba cfunc) or any Python callable do too
    numba = pytest.importorskip("numba")
    X = blobs[0][:120]
    d = _weighted_l1_reference(X)
    np.fill_diagonal(d, np.inf)
    want = np.argsort(d, axis=1, kind="stable")[:, :5]
    jitted = numba.njit(_weighted_l1)
    by_c = umaph.METRIC_FN(lambda a, b, n, _u: _weighted_l1(np.ctypeslib.as_array(a, (n,)),
                                                             np.ctypeslib.as_array(b, (n,))))
    for metric in (jitted, _weighted_l1, by_c):
        idx, dist = umaph.knn(X, k=5, metric=metric, method="exact")
        assert np.array_equal(idx, want)
        np.testing.assert_allclose(dist, np.sort(d, axis=1)[:, :5], rtol=1e-5)
    # fit, transform among the kept rows, pickling, a file and update
    u = UMAP(metric=jitted, keep_data=True, transform_mode="neighbors", random_state=4, **FAST).fit(blobs[0])
    y = u.transform(blobs[0][:40])  # placed among the kept rows, as a loaded model places them
    assert np.array_equal(pickle.loads(pickle.dumps(u)).transform(blobs[0][:40]), y)
    path = str(tmp_path / "custom.safetensors")
    u.save(path)
    loaded = UMAP.load(path)
    assert loaded.metric == "custom"
    with pytest.raises(ValueError, match="set_metric_function"):
        loaded.update(blobs[0][:10])
    with pytest.raises(ValueError, match="set_metric_function"):
        loaded.transform(blobs[0][:40])
    assert np.array_equal(loaded.set_metric_function(jitted).transform(blobs[0][:40]), y)
    assert loaded.update(blobs[0][:10] + 0.5).embedding_.shape == (310, 2)
    assert 0.8 < umaph.quality(blobs[0], u.embedding_, metric=jitted)["trustworthiness"] <= 1.0
    with pytest.raises(ValueError, match="not one of"):
        UMAP(metric="custom").fit(blobs[0])  # a function, not the name


def test_custom_metric_errors_name_the_pair_or_raise_the_functions_own():
    X = np.arange(40, dtype=np.float32).reshape(20, 2)

    def negative_for_3_and_7(x, y):
        if {int(x[0]) // 2, int(y[0]) // 2} == {3, 7}:
            return -1.0
        return float(np.abs(x - y).sum())

    with pytest.raises(UmapValueError, match="between row 3 and row 7 is -1, below 0"):
        umaph.knn(X, k=3, metric=negative_for_3_and_7)

    def raises(x, y):
        raise KeyError("the caller's own")

    with pytest.raises(KeyError, match="the caller's own"):
        umaph.knn(X, k=3, metric=raises)
    with pytest.raises(KeyError, match="the caller's own"):
        UMAP(metric=raises, **FAST).fit(X)
    with pytest.raises(ValueError, match="metric: 3 is not one of .*, or a function"):
        umaph.knn(X, k=3, metric=3)


def test_knn_selects_from_a_sparse_graph_of_distances():
    # umap-learn's sparse precomputed input: each row's stored distances are its candidates
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(3)
    X = rng.standard_normal((80, 5)).astype(np.float32)
    D = np.sqrt(((X[:, None, :].astype(np.float64) - X[None]) ** 2).sum(-1)).astype(np.float32)
    keep = np.argsort(D, axis=1, kind="stable")[:, :12]  # each row's own entry and its 11 nearest
    G = sp.csr_matrix((D[np.arange(80)[:, None], keep].ravel(), keep.ravel(), np.arange(0, 81 * 12, 12)),
                      shape=(80, 80))
    G.sort_indices()
    idx, dist = umaph.knn(G, k=6, metric="precomputed")
    want_i, want_d = umaph.knn(D, k=6, metric="precomputed")
    assert np.array_equal(idx, want_i) and np.array_equal(dist, want_d)
    with pytest.raises(UmapValueError, match="stores 11 distances to other rows, fewer than k = 12"):
        umaph.knn(G, k=12, metric="precomputed")



def test_precomputed_sparse_graph_fits_and_transforms():
    # umap-learn's sparse precomputed fit: the encoder reads each row's memberships, new rows
    # come as their nearest training rows' distances
    sp = pytest.importorskip("scipy.sparse")
    rng = np.random.default_rng(5)
    X = np.concatenate([rng.normal(size=(100, 5)) + c for c in (0.0, 8.0, 16.0)]).astype(np.float32)
    D = np.sqrt(((X[:, None].astype(np.float64) - X[None]) ** 2).sum(-1)).astype(np.float32)

    def graph(d, keep):
        cols = np.sort(np.argsort(d, axis=1, kind="stable")[:, :keep], axis=1)
        rows = np.repeat(np.arange(len(d)), keep)
        return sp.csr_matrix((d[rows, cols.ravel()], (rows, cols.ravel())), shape=d.shape)

    G = graph(D, 16)  # each row's own entry and its 15 nearest
    u = UMAP(metric="precomputed", random_state=1, **FAST)
    emb = u.fit_transform(G)
    assert emb.shape == (300, 2) and np.isfinite(emb).all()
    new = u.transform(graph(D[:30], 15))  # the first blob's rows, by their 15 nearest training rows
    blob = np.repeat(np.arange(3), 100)
    centre = np.stack([emb[blob == b].mean(0) for b in range(3)])
    assert (np.argmin(((new[:, None] - centre[None]) ** 2).sum(-1), 1) == 0).all()
    back = pickle.loads(pickle.dumps(u))
    assert np.array_equal(back.transform(graph(D[:30], 15)), new)
    # new rows go among the training places (the default keeps them); the encoder places them too
    by_encoder = UMAP(metric="precomputed", random_state=1, transform_mode="encoder", **FAST).fit(G)
    placed = by_encoder.transform(graph(D[:30], 15))
    assert np.array_equal(by_encoder.embedding_, emb) and not np.array_equal(placed, new)
    assert (np.argmin(((placed[:, None] - centre[None]) ** 2).sum(-1), 1) == 0).all()
    with pytest.raises(UmapValueError, match="fitted on a sparse graph of distances"):
        u.transform(D[:30])
    with pytest.raises(UmapValueError, match="fewer than k = 15"):
        u.transform(graph(D[:30], 5))
