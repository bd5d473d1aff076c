"""umaph as a drop-in for umap-learn's UMAP and a scikit-learn estimator of
today: the installed package, umap-learn's parameters with its meanings,
scikit-learn's conventions (check_estimator with defaults, feature names,
set_output, tags) and a training row's fitted place in transform."""
import logging
import os
import pickle
import re
import warnings

import numpy as np
import pytest

import umaph
from umaph import UMAP

from conftest import FAST

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def _header_version():
    with open(os.path.join(ROOT, "umap.h")) as f:
        return re.search(r'#define UMAP_VERSION_STRING "([^"]+)"', f.read()).group(1)


def test_the_package_reports_its_version_and_library():
    assert umaph.__version__ == _header_version()
    assert os.path.exists(umaph.LIBRARY_PATH)
    if os.environ.get("UMAPH_TEST_INSTALLED"):  # make test-python: pip installed it into a venv
        from importlib import metadata
        here = os.path.dirname(os.path.abspath(umaph.__file__))
        assert os.path.realpath(here) != os.path.realpath(os.path.join(ROOT, "python", "umaph")), here
        assert os.path.dirname(os.path.abspath(umaph.LIBRARY_PATH)) == here  # the library pip built, beside it
        assert metadata.version("umaph") == umaph.__version__
        assert any(r.startswith("numpy") for r in metadata.requires("umaph"))


def test_check_estimator_passes_with_defaults_and_no_expected_failures():
    sklearn_checks = pytest.importorskip("sklearn.utils.estimator_checks")
    est = UMAP()
    assert "_xfail_checks" not in est._more_tags()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checks' 10-row sets: n_neighbors is cut, with umap-learn's warning
        sklearn_checks.check_estimator(est)


def test_a_training_row_gets_its_fitted_place(blobs):
    """transform of the training data is embedding_ (umap-learn's rule), and
    so is any training row alone, in any order; transform_mode='encoder'
    still places them by the encoder; a pickle keeps the rule"""
    X = blobs[0]
    m = UMAP(random_state=1, **FAST).fit(X)
    np.testing.assert_array_equal(m.transform(X), m.embedding_)
    order = np.random.RandomState(0).permutation(len(X))
    np.testing.assert_array_equal(m.transform(X[order]), m.embedding_[order])
    np.testing.assert_array_equal(np.vstack([m.transform(X[i:i + 1]) for i in range(5)]), m.embedding_[:5])
    mixed = np.vstack([X[:3], X[:3] + 0.5])  # new rows are placed as alone
    got = m.transform(mixed)
    np.testing.assert_array_equal(got[:3], m.embedding_[:3])
    np.testing.assert_array_equal(got[3:], m.transform(X[:3] + 0.5))
    assert not np.array_equal(m.set_params(transform_mode="encoder").transform(X[:5]), m.embedding_[:5])
    back = pickle.loads(pickle.dumps(m.set_params(transform_mode="embedding")))
    np.testing.assert_array_equal(back.transform(X[:7]), m.embedding_[:7])
    # scipy.sparse rows: the same row by value, whatever the form
    scipy_sparse = pytest.importorskip("scipy.sparse")
    s = UMAP(random_state=1, **FAST).fit(scipy_sparse.csr_matrix(X))
    np.testing.assert_array_equal(s.transform(scipy_sparse.csr_matrix(X[:9])), s.embedding_[:9])
    np.testing.assert_array_equal(s.transform(X[:9]), s.embedding_[:9])
    # update: the added rows are training rows too
    m.update(X[:20] + 1.0)
    np.testing.assert_array_equal(m.transform(X[:20] + 1.0), m.embedding_[-20:])


def test_umap_learns_defaults_are_accepted_whole():
    """a umap-learn estimator's parameters, as get_params() gives them, make
    a umaph estimator that fits"""
    umap = pytest.importorskip("umap")
    params = umap.UMAP().get_params()
    ours = UMAP(**params)
    assert set(params) <= set(ours.get_params())
    X = np.random.RandomState(0).rand(120, 6).astype(np.float32)
    assert ours.set_params(random_state=0, **FAST).fit_transform(X).shape == (120, 2)


def test_parameters_without_effect_change_nothing(blobs):
    X = blobs[0]
    base = UMAP(random_state=2, **FAST).fit(X)
    other = dict(low_memory=False, transform_queue_size=1.0, angular_rp_forest=True, transform_seed=7,
                 tqdm_kwds={"disable": True})
    assert set(other) == set(UMAP.NO_EFFECT)
    m = UMAP(random_state=2, **dict(FAST, **other)).fit(X)
    np.testing.assert_array_equal(m.embedding_, base.embedding_)
    np.testing.assert_array_equal(m.transform(X[:9] + 0.5), base.transform(X[:9] + 0.5))


def test_integral_floats_are_integers_and_n_jobs_is_joblibs(blobs):
    X = blobs[0]
    want = UMAP(random_state=3, n_components=2, n_neighbors=10, **FAST).fit(X).embedding_
    got = UMAP(random_state=3, n_components=2.0, n_neighbors=10.0, **dict(FAST, n_epochs=20.0, n_jobs=-2)).fit(X)
    np.testing.assert_array_equal(got.embedding_, want)
    np.testing.assert_array_equal(UMAP(random_state=3, n_neighbors=10, **dict(FAST, n_jobs=None)).fit(X).embedding_,
                                  want)
    with pytest.raises(ValueError, match="n_jobs=0"):
        UMAP(**dict(FAST, n_jobs=0)).fit(X)


@pytest.mark.parametrize("params, says", [
    (dict(n_components=2.5), "^n_components = 2.5: must be an integer"),
    (dict(n_components="2"), "^n_components: '2'"),
    (dict(n_neighbors=1), "^n_neighbors = 1"),
    (dict(learning_rate=0), "^learning_rate = 0: "),
    (dict(learning_rate="fast"), "^learning_rate: 'fast'"),
    (dict(n_epochs=-5), "^n_epochs = -5: must be an integer in \\[0, 100000\\] or None"),
    (dict(min_dist=-1.0), "min_dist"),
    (dict(metric="nope"), "^metric: 'nope'"),
    (dict(metric_kwds={"q": 1}), "^metric_kwds"),
    (dict(output_metric="hyperboloid"), "^output_metric="),
    (dict(output_metric_kwds={"x": 1}), "^output_metric_kwds"),
    (dict(transform_mode="nope"), "^transform_mode: 'nope'"),
    (dict(target_metric="nope"), "^target_metric: 'nope'"),
    (dict(tqdm_kwds=3), "^tqdm_kwds"),
    (dict(transform_queue_size=-1), "^transform_queue_size"),
    (dict(force_approximation_algorithm=True, knn_method="exact"), "^force_approximation_algorithm"),
    (dict(precomputed_knn=(np.zeros((5, 3), np.int32), np.zeros((5, 3)))), "^precomputed_knn"),
    (dict(a=-1.0), "^a = -1"),
    (dict(n_jobs=1.5), "^n_jobs"),
    (dict(hidden="wide"), "^hidden"),
])
def test_bad_values_are_value_errors_naming_the_parameter_at_fit(blobs, params, says):
    est = UMAP(**dict(FAST, **params))  # constructing never checks (scikit-learn's rule)
    with pytest.raises(ValueError, match=says.replace("^", "(^|: )")):  # the library's: "fit: invalid argument: "
        est.fit(blobs[0])


def test_n_neighbors_above_the_rows_warns_and_is_cut(blobs):
    X = blobs[0][:40]
    with pytest.warns(UserWarning, match="n_neighbors is larger than the dataset size; truncating to"):
        big = UMAP(n_neighbors=100, random_state=4, **FAST).fit(X)
    np.testing.assert_array_equal(big.embedding_, UMAP(n_neighbors=39, random_state=4, **FAST).fit(X).embedding_)
    assert big.n_neighbors == 100  # the parameter as given (scikit-learn's rule)


def test_learning_rate_and_n_epochs_are_umap_learns():
    """learning_rate is the refinement's first SGD step and n_epochs its
    epochs, as in umap-learn: umap-learn's values give umap-learn's kind of
    result (the encoder's Adam step is encoder_learning_rate)"""
    datasets = pytest.importorskip("sklearn.datasets")
    X, y = datasets.load_digits(return_X_y=True)
    X = X.astype(np.float32)

    def trust(**kw):
        e = UMAP(random_state=0, n_jobs=2, **kw).fit_transform(X)
        return umaph.quality(X, e, n_neighbors=10)["trustworthiness"]

    default = trust()
    assert default > 0.97
    assert trust(learning_rate=1.0, n_epochs=200) > default - 0.01   # umap-learn's values
    assert trust(n_epochs=0) < default                                 # no refinement: the encoder's layout
    with pytest.raises(ValueError, match="(^|: )encoder_learning_rate = 5000"):
        UMAP(encoder_learning_rate=5000).fit(X)


def test_precomputed_knn_is_umap_learns(blobs):
    X = blobs[0]
    k = 10
    idx, dist = umaph.knn(X, k=k - 1, method="exact")
    n = len(X)
    with_self = (np.hstack([np.arange(n)[:, None], idx]), np.hstack([np.zeros((n, 1), np.float32), dist]), None)
    want = UMAP(n_neighbors=k, knn_method="exact", random_state=5, **FAST).fit(X).embedding_
    got = UMAP(n_neighbors=k, precomputed_knn=with_self, random_state=5, **FAST).fit(X).embedding_
    np.testing.assert_array_equal(got, want)
    others = umaph.knn(X, k=k, method="exact")  # k others: no row lists itself
    with pytest.raises(ValueError, match="does not list itself first"):
        UMAP(n_neighbors=k, precomputed_knn=others, **FAST).fit(X)


def test_target_metric_categorical_takes_any_labels(blobs):
    X, y = blobs
    by_int = UMAP(random_state=6, **FAST).fit(X, y).embedding_
    np.testing.assert_array_equal(UMAP(random_state=6, **FAST).fit(X, y.astype(np.float64)).embedding_, by_int)
    np.testing.assert_array_equal(UMAP(random_state=6, **FAST).fit(X, np.array(["a", "b", "c"])[y]).embedding_,
                                  by_int)
    values = UMAP(random_state=6, target_metric="euclidean", **FAST).fit(X, y.astype(np.float64)).embedding_
    assert not np.array_equal(values, by_int)
    with pytest.raises(ValueError, match="target_metric"):
        UMAP(target_metric="euclidean", **FAST).fit(X, np.array(["a", "b", "c"])[y])


def test_feature_names_and_set_output(blobs):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("sklearn")
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    X = blobs[0]
    cols = ["f%d" % i for i in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=cols)
    m = UMAP(random_state=7, **FAST).fit(frame)
    assert list(m.feature_names_in_) == cols and m.n_features_in_ == len(cols)
    assert list(m.get_feature_names_out()) == ["umap0", "umap1"]
    with pytest.raises(ValueError, match="same order"):
        m.transform(frame[cols[::-1]])
    with pytest.raises(ValueError, match="unseen at fit time"):
        m.transform(frame.rename(columns={"f0": "g0"}))
    with pytest.raises(ValueError, match="same order"):  # update reads a frame by its names too
        m.update(frame[cols[::-1]].iloc[:20])
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        m.transform(X[:5])
    out = m.set_output(transform="pandas").transform(frame.iloc[:5])
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["umap0", "umap1"]
    assert list(out.index) == list(frame.index[:5])
    pipe = make_pipeline(StandardScaler(), UMAP(random_state=7, **FAST)).set_output(transform="pandas")
    assert list(pipe.fit_transform(frame).columns) == ["umap0", "umap1"]
    plain = UMAP(random_state=7, **FAST).fit(X)
    assert not hasattr(plain, "feature_names_in_")
    with pytest.raises(ValueError, match=r"X has 1 features, but \w+ is expecting 12 features as input"):
        plain.transform(X[:, :1])  # scikit-learn's check_n_features_in_after_fitting's words
    with pytest.warns(UserWarning, match="fitted without feature names"):
        plain.transform(frame.iloc[:5])


def test_tags_for_old_and_new_scikit_learn():
    """_more_tags for scikit-learn up to 1.5, __sklearn_tags__ from 1.6 (a
    stand-in of its dataclasses where this scikit-learn has none)"""
    assert UMAP()._more_tags()["preserves_dtype"] == [np.float32]
    try:
        from sklearn.utils import Tags  # noqa: F401 (scikit-learn >= 1.6)
        tags = UMAP().__sklearn_tags__()
    except ImportError:
        class Sub:
            pass

        class Base:
            def __sklearn_tags__(self):
                t = Sub()
                t.transformer_tags, t.input_tags = Sub(), Sub()
                t.transformer_tags.preserves_dtype, t.input_tags.sparse = ["float64"], False
                return t

        class Probe(UMAP, Base):
            pass

        tags = UMAP.__sklearn_tags__(Probe())
    assert tags.transformer_tags.preserves_dtype == ["float32"] and tags.input_tags.sparse


def test_the_logger_is_silent_unless_configured():
    log = logging.getLogger("umaph")
    assert any(isinstance(h, logging.NullHandler) for h in log.handlers)


def test_graph_is_the_fuzzy_graph_the_fit_trained_on(blobs):
    scipy_sparse = pytest.importorskip("scipy.sparse")
    X = blobs[0]
    m = UMAP(random_state=0, **FAST).fit(X)
    g = m.graph_
    assert scipy_sparse.issparse(g) and g.shape == (300, 300) and g.dtype == np.float32
    assert g.nnz == 2 * m.fit_info_["n_edges"] and (abs(g - g.T) > 0).nnz == 0  # both directions, symmetric
    assert g.data.min() > 0 and g.data.max() <= 1 and g.diagonal().max() == 0
    umap = pytest.importorskip("umap")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = umap.UMAP(random_state=0, n_epochs=10).fit(X).graph_.tocsr()
    # the same exact k-NN and the same memberships: the same graph, to the sigma search's tolerance
    assert (abs(g - theirs) > 2e-3).nnz == 0 and ((g > 0) != (theirs > 0)).nnz == 0
    # pickles keep it; update grows it; a file does not keep it
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(m)).graph_.toarray(), g.toarray())
    m.update(X[:40] + 0.5)
    assert m.graph_.shape == (340, 340) and m.graph_.nnz == 2 * m.fit_info_["n_edges"]
    assert not hasattr(UMAP.from_bytes(m.to_bytes()), "graph_")
    # unique: over the distinct rows
    copies = np.vstack([X, X[:30]])
    assert UMAP(unique=True, random_state=0, **FAST).fit(copies).graph_.shape == (300, 300)


def test_transform_mode_graph_is_umap_learns(blobs):
    pytest.importorskip("scipy.sparse")
    X = blobs[0]
    train, new = X[:250], X[250:]
    m = UMAP(transform_mode="graph", random_state=0, **FAST).fit(train)
    assert umaph._lib.model_n_kept(m._model) == 250  # fit kept every training row for it
    g = m.transform(new)
    k = m.n_neighbors
    assert g.shape == (50, 250) and np.all(np.diff(g.indptr) == k)
    np.testing.assert_allclose(np.asarray(g.sum(axis=1)).ravel(), np.log2(k), rtol=1e-3)
    # the places come back with the embedding mode; the graph's rows are the placement's
    assert m.set_params(transform_mode="embedding").transform(new).shape == (50, 2)
    umap = pytest.importorskip("umap")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = umap.UMAP(transform_mode="graph", random_state=0, n_epochs=10).fit(train).transform(new).tocsr()
    exact = UMAP(transform_mode="graph", keep_data=True, transform_exact=True, random_state=0, **FAST).fit(train)
    ours = exact.transform(new)
    assert ((ours > 0) != (theirs > 0)).nnz == 0  # the same nearest training rows
    # the memberships rank them alike; their sum is log2(k) over all k here
    # (every one a real neighbour, as uwot has it), umap-learn's over all
    # but the nearest (it takes the nearest for the row itself, as in fit)
    for i in range(ours.shape[0]):
        rank = lambda g: g.indices[g.indptr[i]:g.indptr[i + 1]][np.argsort(-g.data[g.indptr[i]:g.indptr[i + 1]],
                                                                              kind="stable")]
        np.testing.assert_array_equal(rank(ours), rank(theirs))
        row = np.sort(theirs.data[theirs.indptr[i]:theirs.indptr[i + 1]])
        np.testing.assert_allclose(row[:-1].sum(), np.log2(k), rtol=1e-3)
    # a model without every training row refuses, saying how to fit it
    with pytest.raises(ValueError, match="keep_data=True"):
        UMAP(keep_data=False, random_state=0, **FAST).fit(train).set_params(transform_mode="graph").transform(new)
    import scipy.sparse
    with pytest.raises(ValueError, match="transform_mode='graph'"):
        UMAP(transform_mode="graph", **FAST).fit(scipy.sparse.csr_matrix(train))
