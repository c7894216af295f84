"""What a mechanism publishes, as small frozen records: the one thing attacks and utility read.

Every mechanism sets ``release_`` in ``fit`` to one of these records (as ARX's output handle or anonymeter's
evaluators work on the released table, not on the tool that made it), and
:class:`privnb.learn.ProtectedTraining` exposes its mechanism's. Attacks take a record and the attacked
individuals (:mod:`privnb.attacks`), never a fitted learner; :func:`privnb.mechanisms.record_utility` measures
a record. The records:

- :class:`~privnb.mechanisms.Anatomy`: anatomy's IT and ST (Definition 11 of MC17), its groups and residue;
- :class:`PrunedRelease`: the anatomy a pruned view learned from, and the one candidate row kept per individual
  (MC16);
- :class:`GeneralizedRelease`: rows whose quasi-identifiers are recoded into classes (full-domain, Mondrian),
  the privacy models every class satisfies; :class:`MicroaggregatedRelease`: the same with MDAV's centroids;
- :class:`ProjectionRelease`: a binary item matrix projected on selected features (FSAC's k-AC, k-anonymity);
- :class:`privnb.nbc.NBCViews`: published Naive Bayes views (MZ09).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privnb.mechanisms.anatomy import Anatomy

__all__ = ["GeneralizedRelease", "MicroaggregatedRelease", "ProjectionRelease", "PrunedRelease", "row_classes"]


def row_classes(table: pd.DataFrame, quasi_identifiers) -> np.ndarray:
    """Equivalence class ids of released rows: rows with equal released quasi-identifiers share one.

    Parameters
    ----------
    table : DataFrame
        Released rows.
    quasi_identifiers : sequence of str
        The recoded columns.

    Returns
    -------
    ndarray of int
        One id per row, numbered in order of first appearance.
    """
    if len(table) == 0:
        return np.zeros(0, dtype=np.intp)
    return table.groupby(list(quasi_identifiers), sort=False, dropna=False).ngroup().to_numpy(np.intp)


@dataclass(frozen=True)
class GeneralizedRelease:
    """Rows whose quasi-identifiers are recoded so that they fall in classes of at least k rows.

    Attributes
    ----------
    table : DataFrame
        The released rows, indexed by the input rows' labels (suppressed rows absent); the quasi-identifiers
        recoded, every other column (the sensitive one included) as it was.
    quasi_identifiers : tuple of str
        The recoded columns.
    classes : ndarray of int
        The equivalence class of each released row (rows of one class are indistinguishable on the
        quasi-identifiers).
    suppressed : Index
        The input rows left out.
    k : int
        The k every class reaches.
    method : str
        The mechanism ("full-domain", "mondrian", "mdav").
    sensitive : str or None
        The sensitive column the privacy models judge (None without models).
    models : tuple of str
        The privacy models every class satisfies beside k-anonymity, in words.
    hierarchies : mapping or None
        The hierarchies of the recoded columns (full-domain), for utility.
    links_target : bool
        Whether each released row keeps its label beside its sensitive value (as when the rows are published
        to train a classifier), so that an adversary who knows an individual's label narrows its class to the
        rows of that label.
    """

    table: pd.DataFrame
    quasi_identifiers: tuple
    classes: np.ndarray
    suppressed: pd.Index
    k: int
    method: str
    sensitive: str | None = None
    models: tuple = ()
    hierarchies: Mapping | None = None
    links_target: bool = True

    def __post_init__(self):
        if len(self.classes) != len(self.table):
            raise ValueError(f"classes has {len(self.classes)} entries for {len(self.table)} released rows")


@dataclass(frozen=True)
class MicroaggregatedRelease(GeneralizedRelease):
    """A :class:`GeneralizedRelease` whose quasi-identifiers are replaced by their group's centroid (MDAV).

    Attributes
    ----------
    centroids : DataFrame or None
        One row per group: the centroid of its quasi-identifiers.
    """

    centroids: pd.DataFrame | None = None


@dataclass(frozen=True)
class PrunedRelease:
    """The anatomy a pruned view learned from and the candidate row it kept per individual (MC16, Figure B.2).

    Attributes
    ----------
    anatomy : Anatomy
        The published IT and ST.
    kept : DataFrame
        D_P: one row of the join per individual (with ``row_id``).
    """

    anatomy: Anatomy
    kept: pd.DataFrame


@dataclass(frozen=True)
class ProjectionRelease:
    """A binary item matrix projected on the selected features (FSAC's release).

    Attributes
    ----------
    features : ndarray of int
        The selected feature positions.
    k : int or None
        The k of the containment or anonymity constraint (None: every feature, no constraint).
    constraint : str
        The selector's name ("greedy-hamdist", "k-anonymity-hamdist", ... or "none").
    details : mapping
        What else the selector reports.
    """

    features: np.ndarray
    k: int | None = None
    constraint: str = "none"
    details: Mapping = field(default_factory=dict)
