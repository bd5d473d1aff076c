"""umaph.dask on a LocalCluster of two worker processes (loopback)."""
import numpy as np
import pytest

import umaph
from conftest import FAST

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
import umaph.dask  # noqa: E402


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                       dashboard_address=None, silence_logs=50)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_array_on_two_workers_equals_one_process(client, blobs):
    X = np.tile(blobs[0], (10, 1)) + np.float32(0.01) * np.arange(3000, dtype=np.float32)[:, None]
    model = umaph.UMAP(random_state=0, **FAST).fit(X[::10])
    want = model.transform(X)
    got = umaph.dask.transform(model, da.from_array(X, chunks=(400, 6)))
    assert got.chunks[0] == da.from_array(X, chunks=(400, 6)).chunks[0]
    result = got.compute()
    np.testing.assert_array_equal(result, want)
    # both workers embedded blocks (the model went to each)
    where = client.run(lambda: len(umaph.dask._cache))
    assert sorted(where.values()) == [1, 1]
    # pickling the estimator: the model file's bytes
    fut = client.submit(lambda m, x: m.transform(x), model, X[:50])
    np.testing.assert_array_equal(fut.result(), want[:50])


def test_dataframe_on_two_workers(client, blobs):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X = blobs[0]
    model = umaph.UMAP(random_state=1, **FAST).fit(X)
    frame = pd.DataFrame(X, columns=["f%d" % i for i in range(X.shape[1])])
    got = umaph.dask.transform(model, dd.from_pandas(frame, npartitions=4)).compute()
    assert list(got.columns) == ["umap0", "umap1"]  # get_feature_names_out's
    np.testing.assert_array_equal(got.to_numpy(), model.transform(X))
    with pytest.raises(ValueError, match="features"):
        umaph.dask.transform(model, da.from_array(X[:, :5]))


def _manhattan_by_hand(x, y):
    s = 0.0
    for j in range(x.shape[0]):
        s += abs(x[j] - y[j])
    return s


def test_custom_metric_goes_to_the_workers(client, blobs):
    # a model file keeps a custom metric's name only: the function travels beside it
    numba = pytest.importorskip("numba")
    X = blobs[0]
    model = umaph.UMAP(metric=numba.njit(_manhattan_by_hand), keep_data=True, random_state=2, **FAST).fit(X)
    got = umaph.dask.transform(model, da.from_array(X, chunks=(100, 12))).compute()
    np.testing.assert_array_equal(got, model.transform(X))
