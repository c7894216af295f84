"""Content digests of arrays: what caches keyed by content (the full-domain lattices) feed their hashes."""

from __future__ import annotations

import numpy as np

__all__ = ["update_digest"]


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
