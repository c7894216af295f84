"""Differentially private NBC views: a release, audited like SafetyTransform's by MZ09's exact adversary.

A DP Naive Bayes (Vaidya et al., "Differentially private naive Bayes classification", WI-IAT 2013) releases
noisy counts: one individual changes its class count P_c and one count N^i_{t,c} per attribute by one, so
the views' L1 sensitivity is n_attributes + 1. :func:`dp_views` adds Laplace or geometric noise to every
count (diffprivlib's mechanisms), then post-processes (DP is closed under post-processing) into integer,
realistic views: each count is rounded and floored at 1, and each attribute's counts of class c are
rescaled to sum to the noisy P_c (largest remainders). The same exact audit that measures SafetyTransform
(:func:`privnb.nbc.achieved_r`, the possible-worlds posterior of Section 4 of MZ09) then gives the
r-closeness of the DP release, so DP and SafetyTransform face the same adversary.
"""

from __future__ import annotations

import numpy as np
from diffprivlib.mechanisms import Geometric, Laplace
from sklearn.utils import check_random_state

from privnb._docstrings import shared_doc

from .views import NBCViews

__all__ = ["DP_COUNT_MECHANISMS", "dp_views"]

DP_COUNT_MECHANISMS = ("laplace", "geometric")


def _noisy(values: np.ndarray, epsilon: float, sensitivity: float, mechanism: str, rng) -> np.ndarray:
    if mechanism == "laplace":
        mech = Laplace(epsilon=epsilon, sensitivity=sensitivity, random_state=rng)
    else:
        mech = Geometric(epsilon=epsilon, sensitivity=int(sensitivity), random_state=rng)
    return np.array(
        [mech.randomise(int(v) if mechanism == "geometric" else float(v)) for v in values.ravel()], dtype=float
    ).reshape(values.shape)


def _rescale(counts: np.ndarray, total: int) -> np.ndarray:
    """Integers >= 1 summing to ``total`` (>= len(counts)), proportional to ``counts`` (largest remainders)."""
    share = counts / counts.sum() * (total - len(counts))
    base = np.floor(share).astype(np.int64)
    rest = total - len(counts) - base.sum()
    base[np.argsort(-(share - base), kind="stable")[:rest]] += 1
    return base + 1


@shared_doc
def dp_views(views: NBCViews, epsilon: float, *, mechanism: str = "laplace", random_state=None) -> NBCViews:
    """The views released with epsilon-differential privacy (Laplace or geometric noise on every count).

    Parameters
    ----------
    views : NBCViews
        Integer views of the training rows (``NBCViews.from_frame``).
    epsilon : float
        The privacy budget, > 0; the whole budget goes to one release of all counts (sensitivity
        ``n_attributes + 1`` under adding or removing one row).
    mechanism : {"laplace", "geometric"}
        diffprivlib's ``Laplace`` or ``Geometric`` (integer noise).
    random_state : int, RandomState or None
        Seeds the noise.
        {random_state}

    Returns
    -------
    NBCViews
        Integer, realistic views (every count >= 1, each attribute's counts sum to P_c), same domains.
    """
    if mechanism not in DP_COUNT_MECHANISMS:
        raise ValueError(f"mechanism must be one of {DP_COUNT_MECHANISMS}, got {mechanism!r}")
    if not (isinstance(epsilon, (int, float, np.number)) and np.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"epsilon must be a positive finite number, got {epsilon!r}")
    if not views.is_integral():
        raise ValueError("dp_views needs integer counts: the views of a table (NBCViews.from_frame)")
    rng = check_random_state(random_state)
    sensitivity = views.n_attributes + 1
    tables = [np.asarray(c, dtype=float) for c in views.counts.values()]
    p = _noisy(np.asarray(views.class_counts, dtype=float), epsilon, sensitivity, mechanism, rng)
    widest = max(t.shape[0] for t in tables)
    p = np.maximum(np.rint(p), widest).astype(np.int64)  # room for a count of at least 1 per value
    noisy = [np.maximum(_noisy(t, epsilon, sensitivity, mechanism, rng), 0.5) for t in tables]
    released = [np.stack([_rescale(t[:, c], int(p[c])) for c in range(len(p))], axis=1) for t in noisy]
    return views.with_counts([int(v) for v in p], [t.astype(object) for t in released])
