"""Randomization flipping (RF), FSAC's randomization baseline: rows clustered into groups of at least
k, then cells flipped towards each group's majority pattern.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from privnb.mechanisms.containment import check_binary, row_keys
from privnb.validation import check_int


class Flipping(NamedTuple):
    """Output of :func:`randomized_flipping`: the k-anonymous matrix and what it cost."""

    X: sp.csr_array
    flipped_share: float
    n_clusters: int


def randomized_flipping(X, k: int, *, random_state=None) -> Flipping:
    """RF: make every row share its full feature vector with at least ``k - 1`` others by flipping bits.

    Rows whose vector already occurs ``k`` times keep it. The other rows are clustered greedily
    (k-member clustering of Byun et al., reference [7] of FSAC): a seed row, the remaining row
    farthest from the previous seed, takes its ``k - 1`` nearest remaining rows (Hamming distance);
    each cluster then takes, feature by feature, a random common bit drawn with the cluster's share of
    ones, and its rows are flipped to it. Fewer than ``k`` rows left over join the nearest group
    vector. The result is k-anonymous on all features.

    Parameters
    ----------
    X : binary matrix (n_rows, n_features), dense or scipy.sparse
        The rows' 0/1 features.
    k : int
        The anonymity parameter, 1 <= k <= n_rows.
    random_state : None, int or RandomState
        Seeds the first cluster's seed row and the common bits.

    Returns
    -------
    Flipping(X, flipped_share, n_clusters)
    """
    X = check_binary(X)
    n, d = X.shape
    k = check_int(k, "k", high=n, high_name="the number of rows")
    rng = check_random_state(random_state)
    _, first, inverse, counts = np.unique(row_keys(X), return_index=True, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    small = np.flatnonzero(counts[inverse] < k)
    if small.size == 0:
        return Flipping(X, 0.0, int(counts.size))
    out = X.toarray().astype(np.int8)
    sub = X[small]
    sizes = np.asarray(sub.sum(axis=1)).ravel().astype(np.float64)
    remaining = np.ones(small.size, dtype=bool)
    vectors = [X[first[counts >= k]].toarray()]  # groups that are already large enough
    seed = int(rng.randint(small.size))
    while remaining.sum() >= k:
        dist = _hamming_to(sub, sizes, sub[[seed]].toarray().ravel())
        dist[~remaining] = np.inf
        members = np.argsort(dist, kind="stable")[:k]
        share = np.asarray(sub[members].mean(axis=0)).ravel()
        vector = (rng.random_sample(d) < share).astype(np.int8)
        vectors.append(vector[None, :])
        out[small[members]] = vector
        remaining[members] = False
        if remaining.any():
            far = _hamming_to(sub, sizes, vector)
            far[~remaining] = -np.inf
            seed = int(np.argmax(far))
    if remaining.any():
        pool = np.vstack(vectors).astype(np.float64)
        left = np.flatnonzero(remaining)
        dist = sizes[left, None] + pool.sum(axis=1)[None, :] - 2.0 * (sub[left] @ pool.T)
        out[small[left]] = pool[np.argmin(dist, axis=1)]
    changed = int(np.count_nonzero(out != X.toarray()))
    return Flipping(sp.csr_array(out), changed / (n * d), int(sum(len(v) for v in vectors)))


def _hamming_to(rows: sp.csr_array, sizes: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Hamming distance of each row to one binary vector: |x| + |v| - 2 x.v."""
    return sizes + float(vector.sum()) - 2.0 * (rows @ vector.astype(np.float64))
