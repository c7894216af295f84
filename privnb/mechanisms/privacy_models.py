"""Privacy models beyond k-anonymity, checked on any release: l-diversity (distinct, entropy, recursive
(c,l)), t-closeness (equal, ordered and hierarchical ground distance) and beta-likeness (basic, enhanced).

A release is a table whose equivalence classes are the groups of equal quasi-identifier values (for
anatomy: the groups ``gid``); each model looks at the sensitive attribute's distribution in each class,
and some at the distribution over the whole table. Every model is a small frozen record with
:meth:`PrivacyModel.class_holds` (which classes satisfy it, vectorized over a class-by-value count matrix:
what a generalizer needs to suppress failing classes), :meth:`PrivacyModel.measure` (the release's value of
the model's parameter: the smallest l, the largest t or beta, as pyCANON reports it) and
:meth:`PrivacyModel.holds`. :func:`sensitive_counts` builds the count matrix of a release.

Definitions: distinct and entropy l-diversity and recursive (c,l)-diversity after Machanavajjhala et al.
(2007); t-closeness with the Earth Mover's Distance after Li, Li and Venkatasubramanian (2007), with the
equal, ordered and hierarchical ground distances of their Section 4; basic and enhanced beta-likeness after
Cao and Karras (2012). Where definitions differ between tools, the docstring of each model says which it
takes and how the other reads.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "PrivacyModel",
    "DistinctLDiversity",
    "EntropyLDiversity",
    "RecursiveCLDiversity",
    "TCloseness",
    "BasicBetaLikeness",
    "EnhancedBetaLikeness",
    "SensitiveCounts",
    "sensitive_counts",
    "emd_equal",
    "emd_ordered",
    "emd_hierarchical",
]


@dataclass(frozen=True)
class SensitiveCounts:
    """The sensitive attribute's counts per equivalence class of a release.

    Parameters
    ----------
    counts : ndarray of shape (n_classes, n_values)
        Rows of each class holding each sensitive value.
    values : ndarray of shape (n_values,)
        The sensitive values, in the domain's order (the order the ordered distance uses).
    class_of_row : ndarray of shape (n_rows,)
        The class of each row of the release.
    """

    counts: np.ndarray
    values: np.ndarray
    class_of_row: np.ndarray

    @property
    def overall(self) -> np.ndarray:
        """The sensitive distribution over the whole release."""
        total = self.counts.sum(axis=0).astype(float)
        return total / total.sum()


def sensitive_counts(release: pd.DataFrame, quasi_identifiers, sensitive: str, *, order=None) -> SensitiveCounts:
    """The class-by-value count matrix of ``release``.

    Parameters
    ----------
    release : DataFrame
        The released rows (suppressed rows left out).
    quasi_identifiers : sequence of str
        The columns whose equal values make an equivalence class (``["gid"]`` for an anatomy's groups).
    sensitive : str
        The sensitive column.
    order : sequence, optional
        The sensitive domain in its order (an ordinal attribute's order); default the sorted values.
        Values of the release missing from ``order`` are an error.

    Returns
    -------
    SensitiveCounts
    """
    qi = list(quasi_identifiers)
    if not qi or any(c not in release.columns for c in [*qi, sensitive]):
        raise ValueError(
            f"the release must have the quasi-identifiers {qi} and the sensitive column {sensitive!r}; "
            f"it has {list(release.columns)}"
        )
    classes = release.groupby(qi, sort=False, observed=True, dropna=False).ngroup().to_numpy()
    present = pd.unique(release[sensitive])
    if order is None:
        values = np.array(sorted(present, key=_sort_key), dtype=object)
    else:
        values = np.array(list(order), dtype=object)
        unknown = set(present) - set(values.tolist())
        if unknown:
            raise ValueError(f"sensitive values {sorted(map(str, unknown))} are not in the given order")
    codes = pd.Categorical(release[sensitive], categories=values).codes
    n_classes = int(classes.max()) + 1 if len(classes) else 0
    counts = np.zeros((n_classes, len(values)), dtype=np.int64)
    np.add.at(counts, (classes, codes), 1)
    return SensitiveCounts(counts, values, classes)


def _sort_key(value):
    return (0, float(value), "") if isinstance(value, (int, float, np.number)) else (1, 0.0, str(value))


def _shares(counts: np.ndarray) -> np.ndarray:
    sizes = counts.sum(axis=1, keepdims=True).astype(float)
    return np.divide(counts, sizes, out=np.zeros(counts.shape), where=sizes > 0)


def emd_equal(shares: np.ndarray, overall: np.ndarray) -> np.ndarray:
    """Earth Mover's Distance with the equal ground distance (every two values at distance 1).

    It is the total variation distance, half the L1 distance (Li et al. 2007, Section 4.2).

    Parameters
    ----------
    shares : ndarray of shape (n_classes, n_values)
        Each class's sensitive distribution.
    overall : ndarray of shape (n_values,)
        The table's.

    Returns
    -------
    ndarray of shape (n_classes,)
    """
    return 0.5 * np.abs(shares - overall).sum(axis=1)


def emd_ordered(shares: np.ndarray, overall: np.ndarray) -> np.ndarray:
    """Earth Mover's Distance with the ordered distance ``|i - j| / (m - 1)`` on an ordered domain of m values.

    Closed form (Li et al. 2007, Section 4.2): ``sum_i |r_1 + ... + r_i| / (m - 1)`` with ``r = shares -
    overall``; 0 for a one-value domain.

    Parameters
    ----------
    shares : ndarray of shape (n_classes, n_values)
        Each class's sensitive distribution, values in the domain's order.
    overall : ndarray of shape (n_values,)
        The table's.

    Returns
    -------
    ndarray of shape (n_classes,)
    """
    m = shares.shape[1]
    if m < 2:
        return np.zeros(shares.shape[0])
    return np.abs(np.cumsum(shares - overall, axis=1)).sum(axis=1) / (m - 1)


@functools.lru_cache(maxsize=32)
def _tree_sums(hierarchy, values: tuple) -> list[tuple[float, np.ndarray, np.ndarray]]:
    """Per level above the values: (level / H, value -> node a level down, node -> parent) indicators."""
    height, child, out = hierarchy.n_levels - 1, np.arange(len(values)), []
    for level in range(1, height + 1):
        top = level == height
        parent = np.zeros(len(values), dtype=np.int64) if top else hierarchy.codes(np.asarray(values, object), level)
        children, parents = (np.unique(c, return_inverse=True)[1].ravel() for c in (child, parent))
        links = np.zeros((children.max() + 1, parents.max() + 1))
        links[children, parents] = 1
        out.append((level / height, np.eye(children.max() + 1)[children], links))
        child = parent
    return out


def emd_hierarchical(shares: np.ndarray, overall: np.ndarray, hierarchy, values) -> np.ndarray:
    """Earth Mover's Distance with the hierarchical distance: two values are ``level / H`` apart, where level
    is the height of their lowest common ancestor in ``hierarchy`` and H its height.

    Closed form (Li et al. 2007, Section 4.2): the sum over the hierarchy's inner nodes N of
    ``height(N) / H * min(positive extra, negative extra)`` of N's children, where a node's extra is the
    sum of ``shares - overall`` over the values below it.

    Parameters
    ----------
    shares : ndarray of shape (n_classes, n_values)
        Each class's sensitive distribution.
    overall : ndarray of shape (n_values,)
        The table's.
    hierarchy : privnb.mechanisms.Hierarchy
        The sensitive attribute's generalization hierarchy (its top level ``*`` joins everything).
    values : sequence
        The sensitive values, in the columns' order.

    Returns
    -------
    ndarray of shape (n_classes,)
    """
    cost = np.zeros(shares.shape[0])
    extra = shares - overall  # the level-0 nodes: the values themselves
    for weight, children, parents in _tree_sums(hierarchy, tuple(values)):
        child_extra = extra @ children  # the extra of each node at level - 1
        positive, negative = np.clip(child_extra, 0, None) @ parents, np.clip(-child_extra, 0, None) @ parents
        cost += weight * np.minimum(positive, negative).sum(axis=1)
    return cost


class PrivacyModel:
    """Base of the models: a model judges each class's sensitive counts, and the release by its classes."""

    #: The model's name in tables.
    name = "model"

    def class_holds(self, counts: np.ndarray, overall: np.ndarray) -> np.ndarray:
        """Which classes satisfy the model.

        Parameters
        ----------
        counts : ndarray of shape (n_classes, n_values)
            Sensitive counts per class.
        overall : ndarray of shape (n_values,)
            The table's sensitive distribution.

        Returns
        -------
        ndarray of bool, shape (n_classes,)
        """
        raise NotImplementedError

    def measure(self, counts: SensitiveCounts) -> float:
        """The release's value of the model's parameter (pyCANON's reading).

        Parameters
        ----------
        counts : SensitiveCounts
            The release's class-by-value counts.
        """
        raise NotImplementedError

    def holds(self, counts: SensitiveCounts) -> bool:
        """Whether every class of the release satisfies the model.

        Parameters
        ----------
        counts : SensitiveCounts
            The release's class-by-value counts.
        """
        return bool(self.class_holds(counts.counts, counts.overall).all())


def _check_positive(value, name: str) -> None:
    if not (isinstance(value, (int, float, np.number)) and value > 0):
        raise ValueError(f"{name} must be a positive number, got {value!r}")


def _check_at_least(value, name: str, low: float, *, integer: bool = False) -> None:
    ok = isinstance(value, (int, np.integer)) if integer else isinstance(value, (int, float, np.number))
    if isinstance(value, bool) or not ok or not value >= low:
        kind = "an integer" if integer else "a number"
        raise ValueError(f"{name} must be {kind} >= {low}, got {value!r}")


@dataclass(frozen=True)
class DistinctLDiversity(PrivacyModel):
    """Distinct l-diversity: every class holds at least ``l`` distinct sensitive values.

    Parameters
    ----------
    l : int
        The least number of distinct values per class (at least 1).
    """

    l: int
    name = "distinct l-diversity"

    def __post_init__(self):
        _check_at_least(self.l, "l", 1, integer=True)

    def class_holds(self, counts, overall):
        """Classes with at least l distinct values.

        Parameters
        ----------
        counts, overall
            As in :meth:`PrivacyModel.class_holds`.
        """
        return (np.asarray(counts) > 0).sum(axis=1) >= self.l

    def measure(self, counts):
        """The smallest number of distinct values in a class (see :meth:`PrivacyModel.measure`)."""
        return float((counts.counts > 0).sum(axis=1).min()) if len(counts.counts) else math.inf


def _entropy(counts: np.ndarray) -> np.ndarray:
    shares = _shares(np.asarray(counts))
    logs = np.log(shares, out=np.zeros(shares.shape), where=shares > 0)
    return -(shares * logs).sum(axis=1)


@dataclass(frozen=True)
class EntropyLDiversity(PrivacyModel):
    """Entropy l-diversity: every class's sensitive entropy is at least ``log(l)`` (natural logarithm).

    ``measure`` is the smallest ``exp(entropy)`` over classes, a real number (pyCANON 1.3 reports its
    integer part; ARX reports whether the model holds for a given l).

    Parameters
    ----------
    l : float
        The diversity (at least 1).
    """

    l: float
    name = "entropy l-diversity"
    #: Relative slack for a class at exactly log(l) (floating-point entropy of l equal values).
    tolerance = 1e-12

    def __post_init__(self):
        _check_at_least(self.l, "l", 1)

    def class_holds(self, counts, overall):
        """Classes with entropy at least log(l).

        Parameters
        ----------
        counts, overall
            As in :meth:`PrivacyModel.class_holds`.
        """
        return _entropy(counts) >= math.log(self.l) * (1 - self.tolerance)

    def measure(self, counts):
        """The smallest exp(entropy) over classes (see :meth:`PrivacyModel.measure`)."""
        return float(np.exp(_entropy(counts.counts).min())) if len(counts.counts) else math.inf


@dataclass(frozen=True)
class RecursiveCLDiversity(PrivacyModel):
    """Recursive (c,l)-diversity: in every class, ``r_1 < c (r_l + r_(l+1) + ... + r_m)`` with ``r_i`` the
    counts sorted in decreasing order (a class with fewer than l distinct values fails).

    ``measure`` gives, for this ``l``, the largest ``r_1 / (r_l + ... + r_m)`` over classes: the model
    holds for every c strictly above it. This is Machanavajjhala et al.'s and ARX's reading; pyCANON 1.3
    reads otherwise: it sorts the counts in increasing order, takes l as the release's distinct l and
    reports the integer ``floor(ratio) + 1``.

    Parameters
    ----------
    c : float
        The constant (positive).
    l : int
        The diversity (at least 1; with l = 1 the sum holds r_1 itself, so any c > 1 holds).
    """

    c: float
    l: int
    name = "recursive (c,l)-diversity"

    def __post_init__(self):
        _check_at_least(self.l, "l", 1, integer=True)
        _check_positive(self.c, "c")

    def _ratios(self, counts: np.ndarray) -> np.ndarray:
        ordered = -np.sort(-np.asarray(counts), axis=1)
        tail = ordered[:, self.l - 1 :].sum(axis=1).astype(float)
        return np.divide(ordered[:, 0], tail, out=np.full(len(ordered), np.inf), where=tail > 0)

    def class_holds(self, counts, overall):
        """Classes with r_1 < c (r_l + ... + r_m).

        Parameters
        ----------
        counts, overall
            As in :meth:`PrivacyModel.class_holds`.
        """
        return self._ratios(counts) < self.c

    def measure(self, counts):
        """The largest r_1 / (r_l + ... + r_m) over classes (see :meth:`PrivacyModel.measure`)."""
        return float(self._ratios(counts.counts).max()) if len(counts.counts) else 0.0


DISTANCES = ("equal", "ordered", "hierarchical")


@dataclass(frozen=True)
class TCloseness(PrivacyModel):
    """t-closeness: every class's sensitive distribution is within Earth Mover's Distance ``t`` of the
    table's.

    Parameters
    ----------
    t : float
        The largest distance allowed, in [0, 1].
    distance : {"equal", "ordered", "hierarchical"}
        The ground distance: "equal" for a nominal attribute (the total variation distance), "ordered" for an
        ordinal or numeric one (values in the count matrix's order), "hierarchical" with ``hierarchy``.
    hierarchy : privnb.mechanisms.Hierarchy, optional
        The sensitive attribute's hierarchy (``distance="hierarchical"``).
    values : sequence, optional
        The sensitive values in the columns' order, for the hierarchical distance inside a generalizer
        (:meth:`measure` and :meth:`holds` take them from the counts).
    """

    t: float
    distance: str = "equal"
    hierarchy: object = None
    values: Sequence | None = None
    name = "t-closeness"

    def __post_init__(self):
        if not (isinstance(self.t, (int, float, np.number)) and 0 <= self.t <= 1):
            raise ValueError(f"t must be a number in [0, 1], got {self.t!r}")
        if self.distance not in DISTANCES:
            raise ValueError(f"distance must be one of {DISTANCES}, got {self.distance!r}")
        if self.distance == "hierarchical" and self.hierarchy is None:
            raise ValueError("the hierarchical distance needs the sensitive attribute's hierarchy: pass hierarchy=")

    def distances(self, counts: np.ndarray, overall: np.ndarray, values=None) -> np.ndarray:
        """Each class's Earth Mover's Distance to the table.

        Parameters
        ----------
        counts : ndarray of shape (n_classes, n_values)
            Sensitive counts per class.
        overall : ndarray of shape (n_values,)
            The table's sensitive distribution.
        values : sequence, optional
            The sensitive values (hierarchical distance; default ``self.values``).

        Returns
        -------
        ndarray of shape (n_classes,)
        """
        shares = _shares(np.asarray(counts))
        if self.distance == "equal":
            return emd_equal(shares, overall)
        if self.distance == "ordered":
            return emd_ordered(shares, overall)
        values = self.values if values is None else values
        if values is None:
            raise ValueError("the hierarchical distance needs the sensitive values of the count matrix's columns")
        return emd_hierarchical(shares, overall, self.hierarchy, values)

    def class_holds(self, counts, overall):
        """Classes within distance t.

        Parameters
        ----------
        counts, overall
            As in :meth:`PrivacyModel.class_holds`.
        """
        return self.distances(counts, overall) <= self.t + 1e-12

    def measure(self, counts):
        """The largest distance of a class to the table (see :meth:`PrivacyModel.measure`)."""
        found = self.distances(counts.counts, counts.overall, counts.values)
        return float(found.max()) if len(found) else 0.0

    def holds(self, counts):
        """Whether every class is within distance t (see :meth:`PrivacyModel.holds`)."""
        return bool((self.distances(counts.counts, counts.overall, counts.values) <= self.t + 1e-12).all())


def _relative_gains(counts: np.ndarray, overall: np.ndarray) -> np.ndarray:
    """(q - p) / p for every class and value with q > p (else 0): q the class's share, p the table's."""
    shares = _shares(np.asarray(counts))
    p = np.broadcast_to(np.asarray(overall, dtype=float), shares.shape)
    gain = np.divide(shares - p, p, out=np.zeros(shares.shape), where=p > 0)
    return np.where(shares > p, gain, 0.0)


@dataclass(frozen=True)
class BasicBetaLikeness(PrivacyModel):
    """Basic beta-likeness: in every class, each sensitive value more frequent than in the table is so by at
    most a relative ``beta``: ``(q - p) / p <= beta`` whenever ``q > p``.

    Parameters
    ----------
    beta : float
        The largest relative gain (positive).
    """

    beta: float
    name = "basic beta-likeness"

    def __post_init__(self):
        _check_positive(self.beta, "beta")

    def class_holds(self, counts, overall):
        """Classes whose relative gains are at most beta.

        Parameters
        ----------
        counts, overall
            As in :meth:`PrivacyModel.class_holds`.
        """
        return (_relative_gains(counts, overall) <= self.beta + 1e-12).all(axis=1)

    def measure(self, counts):
        """The largest relative gain over classes and values (see :meth:`PrivacyModel.measure`)."""
        gains = _relative_gains(counts.counts, counts.overall)
        return float(gains.max()) if gains.size else 0.0


@dataclass(frozen=True)
class EnhancedBetaLikeness(PrivacyModel):
    """Enhanced beta-likeness: ``(q - p) / p <= min(beta, -ln p)`` whenever ``q > p`` (Cao and Karras'
    bound that tightens beta for frequent values).

    ``measure`` is the least beta the release satisfies: the largest relative gain, or infinity when some
    gain exceeds ``-ln p`` (then no beta makes it hold). pyCANON 1.3 reports another number, the largest
    over values of ``min(largest gain, -ln p)``, which is not a beta the release is guaranteed to satisfy.

    Parameters
    ----------
    beta : float
        The largest relative gain (positive).
    """

    beta: float
    name = "enhanced beta-likeness"

    def __post_init__(self):
        _check_positive(self.beta, "beta")

    @staticmethod
    def _limits(overall: np.ndarray) -> np.ndarray:
        p = np.asarray(overall, dtype=float)
        return -np.log(p, out=np.full(p.shape, np.inf), where=p > 0)

    def class_holds(self, counts, overall):
        """Classes within min(beta, -ln p).

        Parameters
        ----------
        counts, overall
            As in :meth:`PrivacyModel.class_holds`.
        """
        bound = np.minimum(self.beta, self._limits(overall))
        return (_relative_gains(counts, overall) <= bound + 1e-12).all(axis=1)

    def measure(self, counts):
        """The least beta the release satisfies (see :meth:`PrivacyModel.measure`)."""
        gains = _relative_gains(counts.counts, counts.overall)
        if not gains.size:
            return 0.0
        if (gains > self._limits(counts.overall) + 1e-12).any():
            return math.inf
        return float(gains.max())
