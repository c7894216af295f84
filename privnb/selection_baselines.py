"""The competing methods of seed 001's Section 5.2, beside the k-AC selectors of privnb.containment.

- :func:`greedy_cm`: the Greedy algorithm with Iyengar's classification metric (CM, Definition 2).
- :func:`randomized_flipping`: RF, k-anonymity of all features by flipping bits inside clusters of at
  least ``k`` rows (reference [7] of the paper); reports the flipped share of cells.
- :func:`dp_select_release`: Laplace-DP and Exponential-DP feature selection with HamDist utilities,
  then a differentially private release of the projected contingency table (references [21], [30],
  [12]). The noise comes from IBM's diffprivlib mechanisms; half of epsilon selects, split equally per
  feature, half releases.

The k-anonymity baselines are ``greedy_hamdist`` / ``greedy_distcnt`` with ``constraint="k-anonymity"``.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state

from privnb.containment import (
    GreedyState,
    Selection,
    _check_k,
    _check_labels,
    _row_keys,
    check_binary,
    feature_hamdist,
    greedy_submodular,
)

DP_MECHANISMS = ("laplace", "exponential")


# ----------------------------------------------------------------------------------------------
# CM greedy
# ----------------------------------------------------------------------------------------------

def cm_gains(state: GreedyState, candidates: np.ndarray) -> np.ndarray:
    """Decrease of CM when each candidate splits the current groups of equal projected rows.

    A group with ``n+`` positive and ``n-`` negative rows costs ``min(n+, n-)``; splitting it by a
    feature held by ``a`` positive and ``b`` negative rows saves
    ``(|a - b| + |d - (a - b)| - |d|) / 2`` with ``d = n+ - n-`` (zero where ``a = b = 0``).
    """
    n, n_pos, ones, ones_pos = state.pattern_counts(candidates)
    diff = sp.csr_array(2 * ones_pos - ones).tocoo()      # a - b on its non-zero entries
    d = (2 * n_pos - n)[diff.row]
    saved = np.abs(diff.data) + np.abs(d - diff.data) - np.abs(d)
    return np.bincount(diff.col, weights=saved, minlength=candidates.size) / 2.0


def greedy_cm(X, y, k: int, *, constraint: str = "k-ac") -> Selection:
    """CM greedy of seed 001 (Section 5.2): Algorithm 3 with the decrease of Iyengar's CM as the gain.

    CM never grows when groups split, so the gain is non-negative; the selection stops when no
    feasible feature lowers CM, which is why this baseline keeps few features.
    """
    return greedy_submodular(X, y, k, cm_gains, constraint=constraint)


# ----------------------------------------------------------------------------------------------
# randomized flipping
# ----------------------------------------------------------------------------------------------

class Flipping(NamedTuple):
    """Output of :func:`randomized_flipping`: the k-anonymous matrix and what it cost."""

    X: sp.csr_array
    flipped_share: float
    n_clusters: int


def randomized_flipping(X, k: int, *, random_state=None) -> Flipping:
    """RF: make every row share its full feature vector with at least ``k - 1`` others by flipping bits.

    Rows whose vector already occurs ``k`` times keep it. The other rows are clustered greedily
    (k-member clustering of Byun et al., reference [7] of seed 001): a seed row, the remaining row
    farthest from the previous seed, takes its ``k - 1`` nearest remaining rows (Hamming distance);
    each cluster then takes, feature by feature, a random common bit drawn with the cluster's share of
    ones, and its rows are flipped to it. Fewer than ``k`` rows left over join the nearest group
    vector. The result is k-anonymous on all features.

    Returns
    -------
    Flipping(X, flipped_share, n_clusters)
    """
    X = check_binary(X)
    n, d = X.shape
    k = _check_k(k, n)
    rng = check_random_state(random_state)
    _, first, inverse, counts = np.unique(_row_keys(X), return_index=True, return_inverse=True,
                                          return_counts=True)
    inverse = inverse.ravel()
    small = np.flatnonzero(counts[inverse] < k)
    if small.size == 0:
        return Flipping(X, 0.0, int(counts.size))
    out = X.toarray().astype(np.int8)
    sub = X[small]
    sizes = np.asarray(sub.sum(axis=1)).ravel().astype(np.float64)
    remaining = np.ones(small.size, dtype=bool)
    vectors = [X[first[counts >= k]].toarray()]          # groups that are already large enough
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


# ----------------------------------------------------------------------------------------------
# differentially private selection and release
# ----------------------------------------------------------------------------------------------

class DPRelease(NamedTuple):
    """Output of :func:`dp_select_release`: selected features and the synthetic training rows."""

    features: np.ndarray
    X: np.ndarray
    y: np.ndarray
    epsilon_spent: float


def hamdist_sensitivity(y) -> float:
    """Sensitivity of one feature's HamDist under adding or removing one row: ``1 / min(N+, N-)``.

    ``h_f = a(1 - b) + (1 - a) b`` with ``a``, ``b`` the shares of positive and negative rows holding
    ``f``; one more or one fewer row moves its class share by at most ``1 / N_class``, and ``h_f`` by at
    most that much. The class sizes are treated as public (the paper does not state its value).
    """
    positive = np.asarray(y).astype(bool)
    return 1.0 / max(1, min(positive.sum(), (~positive).sum()))


def dp_select_release(X, y, n_features: int, epsilon: float, *, mechanism: str = "laplace",
                      random_state=None) -> DPRelease:
    """Laplace-DP or Exponential-DP of seed 001 (Section 5.2): select ``n_features``, release a table.

    Selection spends ``epsilon / 2``, ``epsilon / (2 n_features)`` per feature, on the HamDist
    utilities of single features (Definition 8) with :func:`hamdist_sensitivity`:

    - "laplace": every utility gets Laplace noise of that budget (diffprivlib ``Laplace``), the
      ``n_features`` largest noisy utilities win (reference [21]);
    - "exponential": ``n_features`` rounds of the exponential mechanism (diffprivlib ``Exponential``),
      each picking one of the features not yet chosen with probability proportional to
      ``exp(eps' u / (2 sensitivity))`` (reference [30]).

    The release spends the other half: the contingency table of the selected features and the class
    (``2^(n_features + 1)`` cells) gets truncated geometric noise (diffprivlib ``tools.histogram`` over the cell codes),
    and each cell becomes that many synthetic rows ("adds data instances to match the count").

    Returns
    -------
    DPRelease(features, X, y, epsilon_spent): synthetic rows as a dense 0/1 array and 0/1 labels.
    """
    from diffprivlib import BudgetAccountant
    from diffprivlib.mechanisms import Exponential, Laplace
    from diffprivlib.tools import histogram

    X = check_binary(X)
    positive = _check_labels(y, X.shape[0])
    if mechanism not in DP_MECHANISMS:
        raise ValueError(f"mechanism must be one of {DP_MECHANISMS}; got {mechanism!r}")
    if not 1 <= int(n_features) <= min(X.shape[1], 24):
        raise ValueError(f"n_features must be between 1 and min(n_features_in, 24) (the table has "
                         f"2^(n + 1) cells); got {n_features!r}")
    if not float(epsilon) > 0:
        raise ValueError(f"epsilon must be positive; got {epsilon!r}")
    n_features, epsilon = int(n_features), float(epsilon)
    rng = check_random_state(random_state)
    accountant = BudgetAccountant(epsilon=epsilon)
    utility = feature_hamdist(X, positive)
    sensitivity = hamdist_sensitivity(positive)
    per_feature = epsilon / (2 * n_features)
    if mechanism == "laplace":
        noise = Laplace(epsilon=per_feature, sensitivity=sensitivity, random_state=rng)
        noisy = np.array([noise.randomise(float(u)) for u in utility])
        chosen = np.lexsort((np.arange(noisy.size), -noisy))[:n_features]
        accountant.spend(epsilon / 2, 0)
    else:
        left = np.arange(X.shape[1])
        chosen = []
        for _ in range(n_features):
            pick = Exponential(epsilon=per_feature, sensitivity=sensitivity,
                               utility=utility[left].tolist(), random_state=rng).randomise()
            chosen.append(int(left[pick]))
            left = np.delete(left, pick)
            accountant.spend(per_feature, 0)
    features = np.sort(np.asarray(chosen, dtype=np.int64))
    bits = np.column_stack([X[:, features].toarray(), positive.astype(int)])
    n_cells = 1 << bits.shape[1]
    codes = bits @ (1 << np.arange(bits.shape[1])[::-1])
    counts, _ = histogram(codes, epsilon=epsilon / 2, bins=n_cells, range=(-0.5, n_cells - 0.5),
                          random_state=rng, accountant=accountant)
    counts = np.rint(counts).astype(np.int64)
    cells = ((np.arange(n_cells)[:, None] >> np.arange(bits.shape[1])[::-1]) & 1).astype(np.int8)
    rows = np.repeat(cells, counts, axis=0)
    return DPRelease(features, rows[:, :-1], rows[:, -1].astype(np.int64), float(accountant.total()[0]))
