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

Which distribution t-closeness and beta-likeness compare a class with, when rows are suppressed: ARX compares
with the input table's (before suppression); a reader holding only the release can compare with the
release's own. Each such model names its reading, ``reference="input"`` (the default, ARX's) or
``"release"``; :meth:`PrivacyModel.holds` on counts from :func:`sensitive_counts` uses that reading (the
input's distribution comes with ``input_table=``), and the generalizers search under it
(:mod:`privnb.mechanisms._model_checks`). The ordered distance uses the attribute's declared order
(``order=``) and refuses text without one (:mod:`privnb.mechanisms._ground_distances`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privnb._docstrings import shared_doc
from privnb.mechanisms._ground_distances import emd_equal, emd_hierarchical, emd_in_order, emd_ordered
from privnb.mechanisms.class_counts import SensitiveCounts, sensitive_counts

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
    "REFERENCES",
]

#: The distributions a t-closeness or beta-likeness model may compare each class with: the input table's
#: (before suppression; ARX's reading, the default) or the release's own (after suppression).
REFERENCES = ("input", "release")


def _shares(counts: np.ndarray) -> np.ndarray:
    sizes = counts.sum(axis=1, keepdims=True).astype(float)
    return np.divide(counts, sizes, out=np.zeros(counts.shape), where=sizes > 0)


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
        return bool(self.class_holds(counts.counts, self.compared_with(counts)).all())

    def compared_with(self, counts: SensitiveCounts) -> np.ndarray:
        """The distribution the model compares each class of ``counts`` with: the release's own, or for a
        model with ``reference="input"`` the input table's (``counts.input_overall``).

        Parameters
        ----------
        counts : SensitiveCounts
            The release's class-by-value counts.

        Returns
        -------
        ndarray of shape (n_values,)
        """
        if getattr(self, "reference", "release") == "release":
            return counts.overall
        if counts.input_overall is None:
            raise ValueError(
                f"{self.name} with reference='input' (ARX's reading) compares each class with the input table's "
                "distribution: build the counts with sensitive_counts(release, ..., input_table=<the table "
                "before anonymization>), or ask for reference='release' (the release's own distribution)"
            )
        return counts.input_overall


def _is_number(value) -> bool:
    return isinstance(value, (int, float, np.number)) and not isinstance(value, (bool, np.bool_))


def _check_positive(value, name: str) -> None:
    if not (_is_number(value) and value > 0 and math.isfinite(value)):
        raise ValueError(f"{name} must be a positive number, got {value!r}")


def _check_reference(reference) -> None:
    if reference not in REFERENCES:
        raise ValueError(
            f"reference must be 'input' (compare with the input table's distribution, ARX's reading) or "
            f"'release' (the release's own, after suppression), got {reference!r}"
        )


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


@shared_doc
@dataclass(frozen=True)
class TCloseness(PrivacyModel):
    """t-closeness: every class's sensitive distribution is within Earth Mover's Distance ``t`` of the
    table's (Li, Li and Venkatasubramanian 2007, Section 3; the ground distances of their Section 4.2).

    Parameters
    ----------
    t : float
        The largest distance allowed, in [0, 1].
    distance : {"equal", "ordered", "hierarchical"}
        The ground distance: "equal" for a nominal attribute (the total variation distance), "ordered" for an
        ordinal or numeric one (``|i - j| / (m - 1)`` over the m values of the ordered domain: ``order`` when
        given, else the numbers present by value; text without ``order`` is refused), "hierarchical" with
        ``hierarchy``.
    hierarchy : privnb.data.Hierarchy, optional
        The sensitive attribute's hierarchy (``distance="hierarchical"``).
    values : sequence, optional
        The sensitive values in the columns' order, for the hierarchical and ordered distances inside a
        generalizer (:meth:`measure` and :meth:`holds` take them from the counts).
    order : sequence, optional
        The sensitive attribute's declared order for ``distance="ordered"`` (``Dataset.orders[sensitive]``,
        a data card's ordinal ``order``); its values are the domain. A generalizer's ``orders`` gives it
        when left out.
    reference : {"input", "release"}
        {reference}
    """

    t: float
    distance: str = "equal"
    hierarchy: object = None
    values: Sequence | None = None
    order: Sequence | None = None
    reference: str = "input"
    name = "t-closeness"

    def __post_init__(self):
        if not (_is_number(self.t) and 0 <= self.t <= 1):
            raise ValueError(f"t must be a number in [0, 1], got {self.t!r}")
        if self.distance not in DISTANCES:
            raise ValueError(f"distance must be one of {DISTANCES}, got {self.distance!r}")
        if self.distance == "hierarchical" and self.hierarchy is None:
            raise ValueError("the hierarchical distance needs the sensitive attribute's hierarchy: pass hierarchy=")
        _check_reference(self.reference)
        if self.order is not None:
            if self.distance != "ordered" or isinstance(self.order, str):
                raise ValueError(
                    f"order= is the sensitive values in their order, for distance='ordered'; got {self.order!r} "
                    f"with distance={self.distance!r}"
                )
            order = tuple(self.order)
            if len(set(order)) != len(order) or any(pd.isna(v) for v in order):
                raise ValueError(f"order= must list distinct values, none missing, got {list(order)}")
            object.__setattr__(self, "order", order)

    def distances(self, counts: np.ndarray, overall: np.ndarray, values=None) -> np.ndarray:
        """Each class's Earth Mover's Distance to ``overall``.

        Parameters
        ----------
        counts : ndarray of shape (n_classes, n_values)
            Sensitive counts per class.
        overall : ndarray of shape (n_values,)
            The distribution compared with.
        values : sequence, optional
            The sensitive values of the columns (ordered and hierarchical distances; default ``self.values``).

        Returns
        -------
        ndarray of shape (n_classes,)
        """
        shares = _shares(np.asarray(counts))
        if self.distance == "equal":
            return emd_equal(shares, overall)
        values = self.values if values is None else values
        if values is None:
            raise ValueError(
                f"the {self.distance} distance needs the sensitive values of the count matrix's columns: pass "
                "values= (TCloseness(..., values=...)), or use holds() and measure() on sensitive_counts()"
            )
        if self.distance == "ordered":
            return emd_in_order(shares, overall, values, self.order)
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
        """The largest distance of a class to the distribution compared with (see :meth:`PrivacyModel.measure`)."""
        found = self.distances(counts.counts, self.compared_with(counts), counts.values)
        return float(found.max()) if len(found) else 0.0

    def holds(self, counts):
        """Whether every class is within distance t (see :meth:`PrivacyModel.holds`)."""
        return self.measure(counts) <= self.t + 1e-12


def _relative_gains(counts: np.ndarray, overall: np.ndarray) -> np.ndarray:
    """(q - p) / p for every class and value with q > p, else 0 (q the class's share, p the share compared
    with); infinite where q > p = 0, a value the class holds and the distribution does not.
    """
    shares = _shares(np.asarray(counts))
    p = np.broadcast_to(np.asarray(overall, dtype=float), shares.shape)
    gain = np.divide(shares - p, p, out=np.full(shares.shape, np.inf), where=p > 0)
    return np.where(shares > p, gain, 0.0)


@shared_doc
@dataclass(frozen=True)
class BasicBetaLikeness(PrivacyModel):
    """Basic beta-likeness: in every class, each sensitive value more frequent than in the table is so by at
    most a relative ``beta``: ``(q - p) / p <= beta`` whenever ``q > p`` (basic beta-likeness of Cao and Karras
    2012).
    A value with p = 0 that a class holds has an unbounded gain: no beta holds.

    Parameters
    ----------
    beta : float
        The largest relative gain (positive).
    reference : {"input", "release"}
        {reference}
    """

    beta: float
    reference: str = "input"
    name = "basic beta-likeness"

    def __post_init__(self):
        _check_positive(self.beta, "beta")
        _check_reference(self.reference)

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
        gains = _relative_gains(counts.counts, self.compared_with(counts))
        return float(gains.max()) if gains.size else 0.0


@shared_doc
@dataclass(frozen=True)
class EnhancedBetaLikeness(PrivacyModel):
    """Enhanced beta-likeness: ``(q - p) / p <= min(beta, -ln p)`` whenever ``q > p`` (enhanced beta-likeness
    of Cao and Karras 2012: the bound tightens beta for frequent values; for p = 0, ``-ln p`` is infinite and beta
    binds, and a class holding such a value has an unbounded gain).

    ``measure`` is the least beta the release satisfies: the largest relative gain, or infinity when some
    gain exceeds ``-ln p`` (then no beta makes it hold). pyCANON 1.3 reports another number, the largest
    over values of ``min(largest gain, -ln p)``, which is not a beta the release is guaranteed to satisfy.

    Parameters
    ----------
    beta : float
        The largest relative gain (positive).
    reference : {"input", "release"}
        {reference}
    """

    beta: float
    reference: str = "input"
    name = "enhanced beta-likeness"

    def __post_init__(self):
        _check_positive(self.beta, "beta")
        _check_reference(self.reference)

    @staticmethod
    def _limits(overall: np.ndarray) -> np.ndarray:
        """``-ln p`` for each value: +inf where p = 0."""
        p = np.asarray(overall, dtype=float)
        return -np.log(p, out=np.full(p.shape, -np.inf), where=p > 0)

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
        overall = self.compared_with(counts)
        gains = _relative_gains(counts.counts, overall)
        if not gains.size:
            return 0.0
        if (gains > self._limits(overall) + 1e-12).any():
            return math.inf
        return float(gains.max())
