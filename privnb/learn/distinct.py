"""The distinct rows of a matrix, for the factored neighbour searches of :mod:`privnb.learn.neighbors`."""

from __future__ import annotations

import numpy as np
import pandas as pd


def distinct_rows(X):
    """Distinct rows of X and, for each row, the index of its distinct row (first-seen order).

    Rows are grouped by a 64-bit hash, then checked for equality; on a (most unlikely) collision the
    exact but slower ``np.unique`` decides.
    """
    X = np.ascontiguousarray(X, dtype=float) + 0.0  # + 0.0 turns -0.0 into 0.0
    codes, uniques = pd.factorize(pd.util.hash_pandas_object(pd.DataFrame(X), index=False).to_numpy())
    first = np.full(len(uniques), len(X))
    np.minimum.at(first, codes, np.arange(len(X)))
    if np.array_equal(X[first][codes], X):
        return X[first], codes
    keys = X.view(np.dtype((np.void, X.dtype.itemsize * X.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return X[first], inverse.ravel()
