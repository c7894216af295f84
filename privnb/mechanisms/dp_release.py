"""Differentially private feature selection and release, seed 001's DP baseline: features chosen with the
Laplace or exponential mechanism on their HamDist scores, then the projected contingency table released
with Laplace noise (diffprivlib's mechanisms).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from sklearn.utils import check_random_state

from privnb.mechanisms.containment import check_binary, check_labels, feature_hamdist

DP_MECHANISMS = ("laplace", "exponential")


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
    positive = check_labels(y, X.shape[0])
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

