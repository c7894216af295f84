"""Randomization flipping (RF), FSAC's randomization baseline: rows clustered into groups of at least
k, then cells flipped towards each group's majority pattern.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from privnb._docstrings import shared_doc
from privnb.mechanisms.containment import check_binary, row_keys
from privnb.validation import check_int


class Flipping(NamedTuple):
    """Output of :func:`randomized_flipping`: the k-anonymous matrix and what it cost."""

    X: sp.csr_array
    flipped_share: float
    n_clusters: int


@shared_doc
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
    X : binary matrix
        {binary_matrix}
    k : int
        The anonymity parameter, 1 <= k <= n_rows.
    random_state : int, RandomState or None
        Seeds the first cluster's seed row and the common bits.
        {random_state}

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
    dense = X[small].astype(np.int8).toarray()  # the rows to cluster
    sub = X[small].astype(np.float64)
    sizes = np.asarray(sub.sum(axis=1)).ravel()
    remaining, n_left = np.ones(small.size, dtype=bool), small.size
    vectors = [X[first[counts >= k]].astype(np.int8).toarray()]  # groups that are already large enough
    assigned = np.empty(small.size, dtype=np.int64)  # each clustered row's vector, a row of vstack(vectors)
    shares, n_vectors = _share_table(k), len(vectors[0])
    seed = int(rng.randint(small.size))
    while n_left >= k:
        dist = _hamming_to(sub, sizes, dense[seed])
        dist[~remaining] = np.inf
        members = _nearest(dist, k)
        vector = (rng.random_sample(d) < shares[dense[members].sum(axis=0)]).astype(np.int8)
        assigned[members] = n_vectors
        vectors.append(vector[None, :])
        n_vectors += 1
        remaining[members] = False
        n_left -= k
        if n_left:
            far = _hamming_to(sub, sizes, vector)
            far[~remaining] = -np.inf
            seed = int(np.argmax(far))
    pool = np.vstack(vectors)
    if n_left:
        left = np.flatnonzero(remaining)
        dist = sizes[left, None] + pool.sum(axis=1)[None, :] - 2.0 * (sub[left] @ pool.T.astype(np.float64))
        assigned[left] = np.argmin(dist, axis=1)
    return _flipped(X, small, sp.csr_array(pool)[assigned], len(pool))


def _flipped(X: sp.csr_array, small: np.ndarray, rows: sp.csr_array, n_clusters: int) -> Flipping:
    """``X`` (int8) with its rows ``small`` replaced by ``rows``, and the share of cells that changed."""
    n, d = X.shape
    kept = np.setdiff1d(np.arange(n), small, assume_unique=True)
    position = np.empty(n, dtype=np.int64)
    position[np.concatenate([kept, small])] = np.arange(n)
    out = sp.vstack([X[kept].astype(np.int8), rows], format="csr")[position]
    before = X[small]
    changed = int(before.sum()) + int(rows.sum()) - 2 * int(before.multiply(rows).sum())
    return Flipping(sp.csr_array(out), changed / (n * d), n_clusters)


def _nearest(dist: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` rows of smallest distance, ties to the lower index: the first ``k`` of a stable argsort,
    as a set (found by partition, without sorting every row).
    """
    bound = np.partition(dist, k - 1)[k - 1]
    closer = np.flatnonzero(dist < bound)
    return np.concatenate([closer, np.flatnonzero(dist == bound)[: k - closer.size]])


def _share_table(k: int) -> np.ndarray:
    """A cluster's share of ones for each count of ones 0..k, as the float a column mean of the ``k`` rows
    sums it: ``1/k`` added once per row holding a one (the same float as ``scipy.sparse`` ``mean``).
    """
    step, table = 1.0 / k, np.zeros(k + 1)
    for count in range(1, k + 1):
        table[count] = table[count - 1] + step
    return table


def _hamming_to(rows: sp.csr_array, sizes: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Hamming distance of each row to one binary vector: |x| + |v| - 2 x.v."""
    return sizes + float(vector.sum()) - 2.0 * (rows @ vector.astype(np.float64))
