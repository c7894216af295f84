"""The floor a non-uniform prior puts under r-closeness for classifier-keeping publications (Section 7 of
MZ09), with the exact condition under which it holds, checked with the exact audit.

The argument: take the whole tuple ``tau`` as quasi-identifier. ``E[K_c] = X_{tau,c}`` (eq. (2)), so where
the posterior of eq. (4) equals the normalized score ``X_{tau,c} / sum_c' X_{tau,c'}``, the label ``c`` the
classifier predicts at ``tau`` has posterior ``>= 1/|C|``, and Definition 5 needs ``r >= 1 / (|C| F(c))``.

Exact condition: the argument proves the floor ``r >= 1 / (|C| F(c))`` for published views ``V`` exactly
when its premise holds in ``V``: **some tuple tau where V predicts c has exact posterior
P2^{c,tau} >= 1/|C|** (then ``r >= P2/F(c) >= 1/(|C| F(c))``; without it the argument proves nothing, and
the floor can fail). The normalized score is the posterior only in the limit of large counts (to float64
precision once ``tau`` expects ``E[S_tau] >= 2^60`` matching rows, as EST's and SafetyTransform's outputs do);
with small counts the exact posterior ``E[K_c / S | S >= 1]`` can fall below ``1/|C|`` at every tuple where
``c`` wins (a tie won by precedence, or a narrow win), and a classifier-keeping publication can then meet an
r below the "floor" (``tests/nbc/test_nbc_prior_floor.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privnb.nbc.exact_audit import check_prior, grid_posteriors, log_expected_counts
from privnb.nbc.views import NBCViews, score_signs


def _wins(views: NBCViews) -> np.ndarray:
    """Boolean (tuples, labels): the label the NBC predicts at each tuple (C order of the domains)."""
    signs = score_signs(views)  # sign(X_a - X_b) for a < b
    n_classes = len(views.labels)
    wins = np.ones((signs.shape[0], n_classes), dtype=bool)
    pairs = [(a, b) for a in range(n_classes) for b in range(a + 1, n_classes)]
    for column, (a, b) in enumerate(pairs):
        wins[:, a] &= signs[:, column] > 0
        wins[:, b] &= signs[:, column] <= 0
    return wins


@dataclass(frozen=True)
class PriorFloor:
    """The prior floor of :func:`prior_floor` and the check of its premise on the given views.

    Attributes
    ----------
    bound : float
        ``max_c 1 / (|C| F(c))`` over the labels predicted somewhere.
    label : object
        The label that sets it (the smallest prior among the predicted labels).
    tuples : int
        How many tuples predict ``label``.
    tuple : tuple or None
        The tuple checked: where ``label`` wins with the exact posterior found largest (None: none checked).
    log10_expected_rows : float
        ``log10 E[S_tau]`` there: the rows the possible worlds expect to match ``tau``.
    score_share : float
        The normalized score ``X_{tau,c} / sum X_{tau,c'}`` there (>= 1/|C|).
    posterior : float
        The exact posterior of ``label`` there (eq. (4)); NaN when it cannot be computed (non-integer counts).
    holds : bool
        Whether the premise holds on these views: ``posterior >= 1/|C|`` at ``tuple`` (then every publication
        of these very views has r >= bound).
    """

    bound: float
    label: object
    tuples: int
    tuple: tuple | None
    log10_expected_rows: float
    score_share: float
    posterior: float
    holds: bool

    def describe(self, n_labels: int) -> str:
        """One sentence: the premise and whether it was met."""
        if self.tuple is None:
            return "no tuple predicts a label: no floor"
        verdict = ">=" if self.holds else "<"
        return (
            f"at {self.tuple}, where the classifier predicts {self.label!r}, the views expect "
            f"10^{self.log10_expected_rows:.3g} matching rows; the exact posterior of {self.label!r} there is "
            f"{self.posterior:.6g} {verdict} 1/{n_labels} (normalized score {self.score_share:.6g})"
        )


def _reduced(views: NBCViews, values: tuple) -> NBCViews:
    """Views keeping each attribute's value of ``values`` and the rest summed into one value: the chain of
    that tuple (its posterior) is unchanged, the grid is at most 2^n.
    """
    counts = {}
    for attribute, value in zip(views.attributes, values):
        frame = views.counts[attribute]
        kept = frame.loc[[value]]
        rest = frame.drop(index=value)
        if len(rest):
            kept = pd.concat([kept, rest.sum().to_frame("__rest__").T.astype(frame.dtypes.iloc[0])])
        counts[attribute] = kept
    return NBCViews(views.class_counts, counts)


def prior_floor(views: NBCViews, prior, *, candidates: int = 16) -> PriorFloor:
    """The prior floor ``r >= max_c 1 / (|C| F(c))`` and the check of its premise on ``views`` (module doc).

    Among the tuples where the floor's label wins, the ``candidates`` that expect the most matching rows
    are audited exactly (their posterior alone, through a two-values-per-attribute reduction of the views);
    the premise holds when one of them has posterior ``>= 1/|C|``.

    Parameters
    ----------
    views : NBCViews
        The views whose classifier a publication keeps.
    prior : Mapping label -> probability, or None
        The prior of Definition 5 (None: uniform), read by :func:`privnb.nbc.exact_audit.check_prior`.
    candidates : int
        How many winning tuples (most expected matching rows first) are audited exactly.

    Returns
    -------
    PriorFloor
        The floor, the label that sets it and the outcome of the premise's check.
    """
    f = check_prior(prior, views.labels)
    wins = _wins(views)
    count = wins.sum(axis=0)
    predicted = [i for i in range(len(views.labels)) if count[i] > 0]
    c = min(predicted, key=lambda i: f[views.labels[i]])
    label, n_labels = views.labels[c], len(views.labels)
    bound = 1 / (n_labels * float(f[label]))
    index, log_e = log_expected_counts(views, tuple(views.attributes))
    log_s = np.logaddexp.reduce(log_e, axis=1)
    where = np.flatnonzero(wins[:, c] & np.isfinite(log_s))
    order = where[np.argsort(-log_s[where], kind="stable")][:candidates]
    best = None
    for i in order:
        values = index[int(i)]
        values = tuple(
            v.item() if isinstance(v, np.generic) else v for v in (values if isinstance(values, tuple) else (values,))
        )
        p = math.nan  # non-integer counts: the possible worlds are undefined
        if views.is_integral() and views.is_realistic():
            _, post = grid_posteriors(_reduced(views, values), tuple(views.attributes), "exact")
            p = float(post[0, c])
        share = float(np.exp(log_e[i, c] - log_s[i]))
        if best is None or (p > best[3]) or (math.isnan(best[3]) and not math.isnan(p)):
            best = (values, float(log_s[i] / math.log(10)), share, p)
        if p >= 1 / n_labels:
            break
    if best is None:
        return PriorFloor(bound, label, int(count[c]), None, math.nan, math.nan, math.nan, False)
    values, rows, share, p = best
    return PriorFloor(bound, label, int(count[c]), values, rows, share, p, bool(p >= (1 / n_labels) * (1 - 1e-12)))
