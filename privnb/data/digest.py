"""Content digests of arrays and tables: what caches keyed by content (the full-domain lattices, the k-NN's last
prediction) feed their hashes.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

__all__ = ["rows_digest", "update_digest"]


def update_digest(h, values) -> None:
    """Feed an array's content to the hash ``h``: numbers by their bytes, other values by ``repr``.

    Parameters
    ----------
    h : hashlib hash
        The digest being built.
    values : array-like
        The array (its dtype kind and shape are fed too, so ``[1, 2]`` and ``["1", "2"]`` differ).
    """
    a = np.asarray(values)
    h.update(f"|{a.dtype.kind}{a.shape}|".encode())
    if a.dtype.kind in "biuf":
        h.update(np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes())
    else:
        h.update("\x00".join(map(repr, a.ravel().tolist())).encode())


def rows_digest(X) -> str:
    """A digest of a table's content: its columns, their types and every row's values, in order.

    Parameters
    ----------
    X : DataFrame or array-like
        The rows (the index does not count).

    Returns
    -------
    str
    """
    h = hashlib.blake2b(digest_size=16)
    if isinstance(X, pd.DataFrame):
        h.update(repr([(str(c), str(t)) for c, t in X.dtypes.items()]).encode())
        update_digest(h, pd.util.hash_pandas_object(X, index=False).to_numpy())
    else:
        update_digest(h, X)
    return h.hexdigest()
