"""Grouping rows by their quasi-identifier values, the shared core of k-anonymity: one integer key per
row, group sizes, and :func:`is_k_anonymous` (Definition 1 of FSAC, after Samarati).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from privnb.data.hierarchy import Hierarchy
from privnb.validation import check_int


# -- shared helpers ----------------------------------------------------------------------
def combine_codes(codes: Sequence[np.ndarray], sizes: Sequence[int]) -> np.ndarray:
    """One int64 key per row from several code columns (mixed radix, compressed on overflow).

    Parameters
    ----------
    codes : sequence of ndarray
        Integer code columns, one value per row.
    sizes : sequence of int
        The number of codes of each column.

    Returns
    -------
    ndarray of int64
    """
    key = np.zeros(len(codes[0]) if codes else 0, dtype=np.int64)
    span = 1
    for c, size in zip(codes, sizes):
        size = max(int(size), 1)
        if span * size >= 2**62:
            key = pd.factorize(key)[0].astype(np.int64)
            span = int(key.max()) + 1 if len(key) else 1
        key = key * size + c
        span *= size
    return key


def group_sizes(
    key: np.ndarray, weights: np.ndarray | None = None, span: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(group of each entry, weighted size of each group); ``span`` bounds the keys when known.

    Groups are numbered in no particular order: a bincount when the span is small, else a
    hash table (pandas.factorize, several times faster than sorting).

    Parameters
    ----------
    key : ndarray
        One integer key per entry.
    weights : ndarray, optional
        A weight per entry (default 1).
    span : int, optional
        An upper bound of the keys, when known.
    """
    if span is not None and span <= 2 * len(key) + 1024:
        counts = np.bincount(key, weights=weights, minlength=span)
        present = np.flatnonzero(counts)
        rank = np.zeros(span, dtype=np.intp)
        rank[present] = np.arange(len(present))
        return rank[key], counts[present].astype(np.int64)
    inverse = pd.factorize(key)[0]
    return inverse, np.bincount(inverse, weights=weights).astype(np.int64)


def check_frame(frame, quasi_identifiers) -> tuple[pd.DataFrame, list[str]]:
    """``frame`` and its quasi-identifiers as a list, or a ValueError saying what is wrong with them.

    Parameters
    ----------
    frame : DataFrame
        The rows.
    quasi_identifiers : sequence of str
        Columns of ``frame``, each once, without missing values.

    Returns
    -------
    (DataFrame, list of str)
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"expected a pandas DataFrame, got {type(frame).__name__}")
    if isinstance(quasi_identifiers, str) or len(quasi_identifiers) == 0:
        raise ValueError("quasi_identifiers must be a non-empty list of column names")
    qi = list(quasi_identifiers)
    if any(c is None or (isinstance(c, float) and c != c) for c in qi):
        raise ValueError(f"quasi_identifiers holds None (or NaN) where a column name belongs: {qi}")
    repeated = sorted({str(c) for c in qi if qi.count(c) > 1})
    if repeated:
        raise ValueError(f"quasi_identifiers names {', '.join(map(repr, repeated))} more than once: {qi}")
    if len(frame.columns) == 0:
        raise ValueError(f"frame has no columns (an empty frame); expected the quasi-identifiers {qi}")
    missing = [c for c in qi if c not in frame.columns]
    if missing:
        raise ValueError(f"quasi-identifiers {missing} are not columns of the frame (columns: {list(frame.columns)})")
    check_columns(frame, qi, "frame", missing_values=False)
    return frame, qi


def check_columns(frame: pd.DataFrame, columns, name: str = "frame", *, missing_values: bool = True) -> None:
    """ValueError naming ``name`` unless ``frame`` has columns, each of ``columns`` once, and (with
    ``missing_values``) no missing value in them.

    Parameters
    ----------
    frame : DataFrame
        The rows.
    columns : sequence of str
        The columns that must be there.
    name : str
        What ``frame`` is, for the message.
    missing_values : bool
        Also refuse missing values in ``columns``.

    Parameters
    ----------
    frame : DataFrame
        The rows.
    columns : sequence of str
        The columns that must be there.
    name : str
        What ``frame`` is, for the message.
    missing_values : bool
        Also refuse missing values in ``columns``.
    """
    if len(frame.columns) == 0:
        raise ValueError(f"{name} has no columns (an empty frame); expected the columns {list(columns)}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"columns {missing} are not in {name} (columns: {list(frame.columns)})")
    duplicated = [c for c in dict.fromkeys(columns) if (frame.columns == c).sum() > 1]
    if duplicated:
        raise ValueError(f"{name} has duplicated column names {duplicated}; rename or drop the copies")
    if missing_values:
        for c in columns:
            if frame[c].isna().any():
                raise ValueError(
                    f"{name}: column {c!r} has missing values (None or NaN); drop or impute them, "
                    "or generalize them to a value such as '*'"
                )


def is_k_anonymous(frame: pd.DataFrame, quasi_identifiers: Sequence[str], k: int) -> bool:
    """True when each combination of quasi-identifier values occurs in at least ``k`` rows.

    k-anonymity as in Definition 1 of FSAC (Samarati 2001); a frame with the columns but no
    rows is k-anonymous. A frame without columns, duplicated column names, None among the
    quasi-identifiers or a missing value in a quasi-identifier column is a ValueError.

    Parameters
    ----------
    frame : DataFrame
        The release.
    quasi_identifiers : sequence of str
        Its quasi-identifier columns.
    k : int
        The anonymity level.

    Parameters
    ----------
    frame : DataFrame
        The release.
    quasi_identifiers : sequence of str
        Its quasi-identifier columns.
    k : int
        The anonymity level.

    Returns
    -------
    bool
    """
    frame, qi = check_frame(frame, quasi_identifiers)
    check_columns(frame, qi, "frame")
    k = check_int(k, "k")
    if len(frame) == 0:
        return True
    codes, sizes = [], []
    for c in qi:
        codes_c, uniques = pd.factorize(frame[c], use_na_sentinel=False)
        codes.append(codes_c)
        sizes.append(len(uniques))
    _, counts = group_sizes(combine_codes(codes, sizes))
    return bool(counts.min() >= k)


def as_hierarchy(attribute: str, h) -> Hierarchy:
    """``h`` as a :class:`Hierarchy`: a Hierarchy as is, an ARX table (DataFrame) read by ``Hierarchy.from_arx``.

    Parameters
    ----------
    attribute : str
        The attribute the hierarchy generalizes (its name, for messages).
    h : Hierarchy or DataFrame
        The hierarchy.

    Parameters
    ----------
    attribute : str
        The attribute the hierarchy generalizes (its name, for messages).
    h : Hierarchy or DataFrame
        The hierarchy.

    Returns
    -------
    Hierarchy
    """
    if isinstance(h, Hierarchy):
        return h
    if isinstance(h, pd.DataFrame):
        return Hierarchy.from_arx(h, name=attribute)
    raise ValueError(
        f"hierarchy for {attribute!r} must be a Hierarchy or an ARX table (DataFrame), got {type(h).__name__}"
    )
