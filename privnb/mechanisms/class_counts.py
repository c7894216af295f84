"""The sensitive attribute's counts per equivalence class of a release (the class-by-value matrix every
privacy model of :mod:`privnb.mechanisms.privacy_models` judges), and the input table's distribution beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["SensitiveCounts", "sensitive_counts", "sensitive_column"]


@dataclass(frozen=True)
class SensitiveCounts:
    """The sensitive attribute's counts per equivalence class of a release.

    Parameters
    ----------
    counts : ndarray of shape (n_classes, n_values)
        Rows of each class holding each sensitive value.
    values : ndarray of shape (n_values,)
        The sensitive values of the columns (sorted, or in the given order).
    class_of_row : ndarray of shape (n_rows,)
        The class of each row of the release.
    input_overall : ndarray of shape (n_values,), optional
        The input table's sensitive distribution (before anonymization and suppression), which models with
        ``reference="input"`` compare each class with; None when the counts were built from the release alone.
    """

    counts: np.ndarray
    values: np.ndarray
    class_of_row: np.ndarray
    input_overall: np.ndarray | None = None

    @property
    def overall(self) -> np.ndarray:
        """The sensitive distribution over the whole release."""
        total = self.counts.sum(axis=0).astype(float)
        return total / total.sum()


def sensitive_column(table, sensitive: str, what: str) -> pd.Series:
    """The sensitive column of ``table``, or a ValueError naming the column when it has missing values.

    Parameters
    ----------
    table : DataFrame or Series
        A table holding ``sensitive``, or the column itself.
    sensitive : str
        The sensitive column's name.
    what : str
        What the table is, for the message ("release", "training frame").

    Returns
    -------
    Series
    """
    column = table[sensitive] if isinstance(table, pd.DataFrame) else pd.Series(table)
    missing = int(column.isna().sum())
    if missing:
        raise ValueError(
            f"the sensitive column {sensitive!r} of the {what} has {missing} missing value(s): drop those rows, "
            "or fill them with a value of their own (e.g. 'unknown'), before judging privacy models"
        )
    return column


def sensitive_counts(
    release: pd.DataFrame, quasi_identifiers, sensitive: str, *, order=None, input_table=None
) -> SensitiveCounts:
    """The class-by-value count matrix of ``release``.

    Parameters
    ----------
    release : DataFrame
        The released rows (suppressed rows left out).
    quasi_identifiers : sequence of str
        The columns whose equal values make an equivalence class (``["gid"]`` for an anatomy's groups).
    sensitive : str
        The sensitive column (no missing values).
    order : sequence, optional
        The sensitive domain in its order (an ordinal attribute's order); default the sorted values (numbers
        by value). Values missing from ``order`` are an error.
    input_table : DataFrame or Series, optional
        The table the release was made from (before suppression), or its sensitive column: its distribution
        is what models with ``reference="input"`` (ARX's reading, the default) compare each class with.

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
    column = sensitive_column(release, sensitive, "release")
    source = None if input_table is None else sensitive_column(input_table, sensitive, "input table")
    classes = release.groupby(qi, sort=False, observed=True, dropna=False).ngroup().to_numpy()
    present = pd.unique(column if source is None else pd.concat([column, source], ignore_index=True))
    if order is None:
        values = np.array(sorted(present, key=_sort_key), dtype=object)
    else:
        values = np.array(list(order), dtype=object)
        unknown = set(present) - set(values.tolist())
        if unknown:
            raise ValueError(f"sensitive values {sorted(map(str, unknown))} are not in the given order")
    codes = pd.Categorical(column, categories=values).codes
    n_classes = int(classes.max()) + 1 if len(classes) else 0
    counts = np.zeros((n_classes, len(values)), dtype=np.int64)
    np.add.at(counts, (classes, codes), 1)
    input_overall = None
    if source is not None:
        total = np.bincount(pd.Categorical(source, categories=values).codes, minlength=len(values)).astype(float)
        input_overall = total / max(total.sum(), 1.0)
    return SensitiveCounts(counts, values, classes, input_overall)


def _sort_key(value):
    return (0, float(value), "") if isinstance(value, (int, float, np.number)) else (1, 0.0, str(value))
