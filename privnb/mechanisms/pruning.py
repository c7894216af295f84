"""Pruning of anatomized data for SVC/SVM training (MC16, Section 4.1; MC16a, Appendix B).

From the anatomized training data D_A (Definition 11: every individual joined with the l sensitive
values of its group) the pruned data D_P (Definition 13) keeps, for each individual, the one candidate
row whose squared norm after the Appendix B preprocessing is closest to the estimated squared radius
E[||R||^2] = (min + max) / 2 of all squared norms (Figures B.1 and B.2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privnb._docstrings import shared_doc
from privnb.mechanisms.anatomy import Anatomizer
from privnb.mechanisms.releases import PrunedRelease
from privnb.validation import infer_kinds


def _ordinal_codes(values: pd.Series, order: Sequence | None) -> np.ndarray:
    """Values mapped to 1..|dom| in domain order (Appendix B, rule 2)."""
    domain = pd.Index(list(order) if order is not None else sorted(values.unique()))
    codes = domain.get_indexer(values)
    if (codes < 0).any():
        unknown = sorted(set(values[codes < 0].astype(str)))[:5]
        raise ValueError(
            f"ordinal column {values.name!r} holds values outside its domain order: {unknown}; "
            "pass the full order in `orders`"
        )
    return codes.astype(float) + 1.0


#: Readings of Appendix B's "set mode of the discrete values to be mean" for ordinal attributes.
ORDINAL_CENTERS = ("mean", "mode")


def appendix_b_statistics(
    frame: pd.DataFrame,
    kinds: Mapping[str, str],
    *,
    orders: Mapping[str, Sequence] | None = None,
    columns: Sequence[str] | None = None,
    ordinal_center: str = "mean",
) -> dict:
    """What the Appendix B preprocessing learns from ``frame`` (MC16a, Appendix B, rules 2 and 3).

    The learned half of :func:`appendix_b_preprocess`, so that the same rules can be fitted on training
    rows and applied to others (:func:`appendix_b_apply`; ``privnb.learn.FrameEncoder(scheme="appendix_b")``).

    Parameters
    ----------
    frame : DataFrame
        The rows the rules are learned from.
    kinds : mapping
        Column -> "numeric" | "ordinal" | "nominal".
    orders : mapping, optional
        Ordinal column -> its domain order (sorted values when absent).
    columns : sequence of str, optional
        The columns to learn (default every column of ``kinds``).
    ordinal_center : {"mean", "mode"}
        The centre of ordinal codes.

    Returns
    -------
    dict
        Column -> ``(kind, statistic, order)``: the centre of a numeric column (its mean) or of an
        ordinal one's codes 1..|dom| (mean or mode, ``ordinal_center``), the mode of a nominal one;
        ``order`` is an ordinal column's domain order (``None`` otherwise). Insertion order is
        ``columns``' order.
    """
    orders = orders or {}
    columns = [c for c in frame.columns if c in kinds] if columns is None else list(columns)
    missing = [c for c in columns if c not in frame.columns or c not in kinds]
    if missing:
        raise ValueError(
            f"columns {missing} are not in the frame or have no kind; pass `columns` that the "
            "frame holds and `kinds` names"
        )
    if not columns:
        raise ValueError("no attribute to encode: `kinds` names none of the frame's columns")
    if ordinal_center not in ORDINAL_CENTERS:
        raise ValueError(f"ordinal_center must be one of {ORDINAL_CENTERS}, got {ordinal_center!r}")
    if len(frame) == 0:
        raise ValueError("no rows to learn the Appendix B preprocessing from")
    statistics = {}
    for name in columns:
        values, kind = frame[name], kinds[name]
        if values.isna().any():
            raise ValueError(f"column {name!r} has missing values; drop or impute them before pruning")
        if kind == "numeric":
            statistics[name] = (kind, float(values.to_numpy(dtype=float).mean()), None)
        elif kind == "ordinal":
            order = list(orders[name]) if orders.get(name) is not None else sorted(values.unique())
            col = _ordinal_codes(values, order)
            center = col.mean() if ordinal_center == "mean" else pd.Series(col).mode().iloc[0]
            statistics[name] = (kind, float(center), order)
        elif kind == "nominal":
            statistics[name] = (kind, values.mode().iloc[0], None)
        else:
            raise ValueError(f"column {name!r} has kind {kind!r}; expected numeric, ordinal or nominal")
    return statistics


def appendix_b_apply(frame: pd.DataFrame, statistics: Mapping[str, tuple]) -> np.ndarray:
    """Rules 2 and 3 of Appendix B with learned ``statistics`` (:func:`appendix_b_statistics`).

    Numeric values minus their centre; ordinal codes 1..|dom| minus their centre (a value outside the
    learned order is an error); nominal values 0 when equal to the learned mode, 1 otherwise (a value
    unseen when learning is "another value": 1).

    Parameters
    ----------
    frame : DataFrame
        The rows to encode.
    statistics : mapping
        What :func:`appendix_b_statistics` learned.

    Returns
    -------
    ndarray of shape (len(frame), len(statistics))
    """
    out = np.empty((len(frame), len(statistics)), dtype=float)
    for j, (name, (kind, statistic, order)) in enumerate(statistics.items()):
        values = frame[name]
        if values.isna().any():
            raise ValueError(f"column {name!r} has missing values; drop or impute them first")
        if kind == "numeric":
            out[:, j] = values.to_numpy(dtype=float) - statistic
        elif kind == "ordinal":
            out[:, j] = _ordinal_codes(values, order) - statistic
        else:
            out[:, j] = (values != statistic).to_numpy(dtype=float)
    return out


def appendix_b_preprocess(
    frame: pd.DataFrame,
    kinds: Mapping[str, str],
    *,
    orders: Mapping[str, Sequence] | None = None,
    columns: Sequence[str] | None = None,
    ordinal_center: str = "mean",
) -> np.ndarray:
    """The Appendix B preprocessing of the anatomized data (MC16a, Appendix B, rules 2 and 3).

    Numeric attributes are mean-centred; ordinal attributes are mapped to 1..|dom| in domain order and
    mean-centred; a nominal attribute's mode becomes 0 and its other values 1. Statistics come from
    ``frame`` itself (the anatomized training data): :func:`appendix_b_statistics` then
    :func:`appendix_b_apply`.

    Parameters
    ----------
    frame : DataFrame
        The rows to encode (D_A, or any table with the same columns).
    kinds : mapping
        Column -> "numeric" | "ordinal" | "nominal" (as ``Dataset.kinds``).
    orders : mapping, optional
        Ordinal column -> its values in domain order; sorted values when absent.
    columns : sequence of str, optional
        The attributes to encode (the d identifying attributes and the sensitive one); default every
        column of ``frame`` that ``kinds`` names.
    ordinal_center : {"mean", "mode"}
        Rule 2 says the mean is subtracted and, for ordinal values, "set mode of the discrete values to be
        mean": "mean" (default) centres the codes 1..|dom| on their mean; "mode" on their mode (the most
        frequent code; the smallest among ties), the other reading.

    Returns
    -------
    ndarray of shape (len(frame), len(columns))
    """
    return appendix_b_apply(
        frame, appendix_b_statistics(frame, kinds, orders=orders, columns=columns, ordinal_center=ordinal_center)
    )


@dataclass(frozen=True)
class Prerequisites:
    """The prerequisite step (Figure B.1): squared norms, their extremes and E[||R||^2]."""

    squared_norms: np.ndarray
    r2_min: float
    r2_max: float

    @property
    def expected_r2(self) -> float:
        """E[||R||^2] = (||R_min||^2 + ||R_max||^2) / 2, the midpoint of U[min, max] (Figure B.1)."""
        return (self.r2_min + self.r2_max) / 2.0


def prerequisites(encoded: np.ndarray) -> Prerequisites:
    """Figure B.1 (computePrerequisites) on preprocessed rows of D_A, in O(N l (d+1))."""
    encoded = np.asarray(encoded, dtype=float)
    if encoded.ndim != 2 or encoded.shape[0] == 0:
        raise ValueError(f"expected a non-empty 2-d array of preprocessed rows, got shape {encoded.shape}")
    sq = np.einsum("ij,ij->i", encoded, encoded)
    return Prerequisites(sq, float(sq.min()), float(sq.max()))


@dataclass(frozen=True)
class Pruning:
    """The result of :func:`prune`.

    Attributes
    ----------
    pruned : DataFrame
        D_P: one row of D_A per individual, in the order of first appearance in D_A, original values.
    kept : ndarray of int
        Positions in D_A of the kept rows.
    encoded : ndarray
        The Appendix B preprocessing of every row of D_A (``encoded[kept]`` is D_P in R^(d+1)).
    prerequisites : Prerequisites
        Squared norms of D_A, their min and max and E[||R||^2].
    """

    pruned: pd.DataFrame
    kept: np.ndarray
    encoded: np.ndarray
    prerequisites: Prerequisites


def prune(
    joined: pd.DataFrame,
    kinds: Mapping[str, str],
    *,
    orders: Mapping[str, Sequence] | None = None,
    columns: Sequence[str] | None = None,
    id_column: str = "row_id",
    ordinal_center: str = "mean",
) -> Pruning:
    """Prune anatomized training data D_A to D_P (Definition 13; Figures B.1 and B.2 of MC16a).

    For each individual (``id_column``), keep the candidate row whose squared norm after
    :func:`appendix_b_preprocess` is closest to E[||R||^2]; ties go to the first candidate in D_A
    (the strict ``d < d_c`` of Figure B.2). Vectorized, O(N l (d+2)) plus a sort of the ids.

    Parameters
    ----------
    joined : DataFrame
        D_A as ``Anatomy.join()`` returns it: identifying columns, the sensitive column, ``id_column``.
    kinds, orders, columns, ordinal_center
        As :func:`appendix_b_preprocess`; ``columns`` defaults to every column ``kinds`` names
        (``id_column`` and columns without a kind, such as the class, are left out of the norms).
    id_column : str
        The column naming each individual.

    Returns
    -------
    Pruning

    References
    ----------
    .. [1] K. Mancuhan and C. Clifton, "Statistical Learning Theory Approach for Data Classification with
       l-diversity", conference version with the appendix (MC16a; its text gives neither venue nor year).
    .. [2] K. Mancuhan and C. Clifton, "Statistical Learning Theory Approach for Data Classification with
       l-diversity", arXiv version, October 2016 (MC16; the text gives no venue).
    """
    if id_column not in joined.columns:
        raise ValueError(f"D_A has no {id_column!r} column; pass the frame Anatomy.join() returns")
    if columns is None:
        columns = [c for c in joined.columns if c in kinds and c != id_column]
    encoded = appendix_b_preprocess(joined, kinds, orders=orders, columns=columns, ordinal_center=ordinal_center)
    pre = prerequisites(encoded)
    distance = np.abs(pre.squared_norms - pre.expected_r2)
    ids = pd.factorize(joined[id_column])[0]
    # order by individual (in order of first appearance), then by distance; lexsort is stable, so
    # equal distances keep D_A's order and the first candidate wins as in Figure B.2
    order = np.lexsort((distance, ids))
    starts = np.flatnonzero(np.r_[True, ids[order][1:] != ids[order][:-1]])
    kept = order[starts]
    return Pruning(joined.iloc[kept].reset_index(drop=True), kept, encoded, pre)


@shared_doc
class AnatomyPruner(Anatomizer):
    """Mechanism of the pruned view D_P (Definitions 13 and 15 of MC16; Appendix B pruning).

    The training rows are anatomized (as :class:`privnb.mechanisms.Anatomizer`), IT is joined with ST
    (N*l rows) and :func:`prune` keeps one candidate row per individual: ``fit_resample`` returns N
    rows, each with one sensitive value of its group.

    Parameters
    ----------
    sensitive : str or int
        The sensitive column (name, or position for array input).
    l : int
        Diversity of the anatomization (:func:`privnb.mechanisms.anatomize`).
    kinds : mapping, optional
        Column -> "numeric" | "ordinal" | "nominal" for the Appendix B preprocessing; columns left out
        are "numeric" when their dtype is numeric, else "nominal".
    orders : mapping, optional
        Ordinal column -> domain order (sorted values when absent).
    residue : {"suppress", "assign"}
        What happens to rows the bucketization cannot group (see :func:`privnb.mechanisms.anatomize`).
    ordinal_center : {"mean", "mode"}
        Appendix B's centring of ordinal codes (:func:`appendix_b_preprocess`).
    random_state : int, RandomState or None
        Drives the anatomization's random choices.
        {random_state}

    Attributes
    ----------
    anatomy_ : Anatomy of the training rows; pruning_ : Pruning; n_suppressed_ : int.
    """

    def __init__(
        self, sensitive, l, *, kinds=None, orders=None, residue="suppress", ordinal_center="mean", random_state=None
    ):
        super().__init__(sensitive, l, residue=residue, random_state=random_state)
        self.kinds = kinds
        self.orders = orders
        self.ordinal_center = ordinal_center

    def _fit_resample(self, X, y):
        """Anatomize the training rows with their labels, join IT with ST and prune (Figure B.2)."""
        joined, target = self.joined(X, y)
        self.pruning_ = prune(
            joined,
            infer_kinds(X, self.kinds),
            orders=self.orders,
            columns=list(X.columns),
            ordinal_center=self.ordinal_center,
        )
        pruned = self.pruning_.pruned
        self.release_ = PrunedRelease(self.anatomy_, pruned)
        return pruned[list(X.columns)], pruned[target].to_numpy()
