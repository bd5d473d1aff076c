import os
import sys

import numpy as np
import pytest

# the checkout's python/ folder, unless the suite tests the installed package
# (make test-python: pip install into a venv, UMAPH_TEST_INSTALLED=1)
if not os.environ.get("UMAPH_TEST_INSTALLED"):
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

# A short fit: the suite checks wiring and equality, not quality.
FAST = dict(encoder_epochs=2, n_epochs=20, distill_epochs=2, n_jobs=2)


@pytest.fixture(scope="session")
def blobs():
    rs = np.random.RandomState(0)
    centres = rs.randn(3, 12) * 4
    y = np.repeat(np.arange(3), 100)
    X = (centres[y] + rs.randn(300, 12)).astype(np.float32)
    return X, y


@pytest.fixture(scope="session")
def fitted(blobs):
    from umaph import UMAP
    return UMAP(random_state=3, **FAST).fit(blobs[0])
