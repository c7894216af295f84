"""Student's t-tests over cross-validation folds, as the papers read them ("significant at 0.95")."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from privnb.experiments.labels import method_label, method_sort_key


class TTestResult(NamedTuple):
    """Outcome of :func:`paired_t_test`: ``significant`` is the papers' "P" (pass)."""

    statistic: float
    pvalue: float
    significant: bool


def paired_t_test(a, b, *, confidence: float = 0.95) -> TTestResult:
    """Paired Student t-test of two views' per-fold errors (as ``scipy.stats.ttest_rel``, two-sided).

    "P" (pass) in the papers' tables means the difference is significant at ``confidence``
    (Appendix C.3 of MC16a, Section 5.3 of MC17). Differences are rounded to 12 decimals first,
    so that float noise does not make equal differences look like a signal; when all differences are
    equal the samples differ significantly exactly when that difference is not zero.

    Parameters
    ----------
    a, b : array-like of float
        The two views' per-fold values, paired by position (same length >= 2, no NaN).
    confidence : float
        The significance level's complement, in (0, 1): significant when ``pvalue < 1 - confidence``.

    Returns
    -------
    TTestResult

    Raises
    ------
    ValueError
        If the samples differ in length, hold fewer than 2 pairs or contain NaN.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1 or len(a) < 2:
        raise ValueError(
            f"paired_t_test needs two 1-d samples of the same length >= 2, got shapes {a.shape} and {b.shape}"
        )
    if np.isnan(a).any() or np.isnan(b).any():
        raise ValueError("paired_t_test got NaN values (an N/A view?); drop them or report N/A")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    differences = np.round(a - b, 12)  # equal differences stay equal despite float noise
    if np.ptp(differences) == 0:  # zero variance: the t statistic is 0 or infinite
        significant = bool(differences[0] != 0)
        return TTestResult(
            math.copysign(math.inf, differences[0]) if significant else 0.0, 0.0 if significant else 1.0, significant
        )
    from scipy import stats

    statistic, pvalue = stats.ttest_1samp(differences, 0.0)  # = ttest_rel(a, b) on the rounded differences
    return TTestResult(float(statistic), float(pvalue), bool(pvalue < 1 - confidence))


def unpaired_t_test(a, b, *, confidence: float = 0.95) -> TTestResult:
    """Student's two-sample t-test (equal variances, ``scipy.stats.ttest_ind``, two-sided) of two views'
    per-fold errors: the other reading of the papers' "Student's t-test at 0.95", which does not say
    whether the folds were paired. Values are rounded to 12 decimals; two constant samples differ
    significantly exactly when their values differ.

    Parameters
    ----------
    a, b : array-like of float
        The two views' per-fold values (each of length >= 2, no NaN; lengths may differ).
    confidence : float
        Significant when ``pvalue < 1 - confidence``.

    Returns
    -------
    TTestResult
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.ndim != 1 or b.ndim != 1 or len(a) < 2 or len(b) < 2:
        raise ValueError(f"unpaired_t_test needs two 1-d samples of length >= 2, got shapes {a.shape} and {b.shape}")
    if np.isnan(a).any() or np.isnan(b).any():
        raise ValueError("unpaired_t_test got NaN values (an N/A view?); drop them or report N/A")
    a, b = np.round(a, 12), np.round(b, 12)
    if np.ptp(a) == 0 and np.ptp(b) == 0:
        significant = bool(a[0] != b[0])
        return TTestResult(
            math.copysign(math.inf, a[0] - b[0]) if significant else 0.0, 0.0 if significant else 1.0, significant
        )
    from scipy import stats

    statistic, pvalue = stats.ttest_ind(a, b, equal_var=True)
    return TTestResult(float(statistic), float(pvalue), bool(pvalue < 1 - confidence))


def t_test_table(
    results: pd.DataFrame,
    *,
    against: str | Sequence[str] = ("anatomized", "pruned"),
    baseline: str = "original",
    rows: str | Sequence[str] = "classifier",
    metric: str = "error",
    confidence: float = 0.95,
    paired: bool = True,
) -> pd.DataFrame:
    """The papers' t-test table: baseline vs each private view, "P", "F" or "N/A".

    ``paired=True`` pairs the folds (:func:`paired_t_test`); ``paired=False`` is Student's two-sample
    test (:func:`unpaired_t_test`). The papers say only "Student's t-test at 0.95".

    Rows are ``rows`` (e.g. the classifier, Tables 1-4 of MC17, or the dataset, Tables 1-2 of
    MC16a); columns "Org. vs L=2", ... one per (method, param) of ``against``. "P" (pass): the
    t-test on the per-fold values finds a significant difference at ``confidence``; "F": it does
    not; "N/A": the view could not be built (l beyond the sensitive domain) or is missing.

    Parameters
    ----------
    results : DataFrame
        Tidy rows (:data:`privnb.experiments.COLUMNS`) with a ``fold`` column.
    against : str or sequence of str
        The private methods compared with the baseline.
    baseline : str
        The method every view is compared with.
    rows : str or sequence of str
        The columns that name the table's rows.
    metric : str
        The rows' ``metric`` tested.
    confidence : float
        Passed to the t-test.
    paired : bool
        :func:`paired_t_test` (folds paired by their number) or :func:`unpaired_t_test`.

    Returns
    -------
    DataFrame
        One row per ``rows`` group, one column per private view, cells "P", "F" or "N/A".

    Raises
    ------
    ValueError
        If a row group mixes several datasets/classifiers (add them to ``rows`` or filter first), or
        the baseline is missing or N/A.
    """
    rows = [rows] if isinstance(rows, str) else list(rows)
    against = [against] if isinstance(against, str) else list(against)
    # the majority-class baseline is a reference line, not a view the papers test
    frame = results[(results["metric"] == metric) & (results["method"] != "majority")]
    if frame.empty:
        raise ValueError(f"no rows with metric {metric!r}; metrics present: {sorted(results['metric'].unique())}")
    for column in ("dataset", "classifier"):
        if column not in rows and frame[column].nunique() > 1:
            raise ValueError(
                f"results hold several {column} values {sorted(frame[column].unique())}: "
                f"add {column!r} to rows or filter the results first"
            )
    private = frame[frame["method"].isin(against)]
    columns = sorted({(m, p) for m, p in zip(private["method"], private["param"])}, key=lambda mp: method_sort_key(*mp))
    base_label = method_label(baseline)
    table = {}
    for group, part in frame.groupby(rows, sort=True):
        base = part[part["method"] == baseline].set_index("fold")["value"].sort_index()
        if base.empty or base.isna().any():
            raise ValueError(f"baseline {baseline!r} is missing or N/A for {group}")
        cells = {}
        for method, param in columns:
            same_param = part["param"].isna() if pd.isna(param) else part["param"] == param  # NaN: no parameter
            view = part[(part["method"] == method) & same_param].set_index("fold")["value"]
            view = view.reindex(base.index)
            label = f"{base_label} vs {method_label(method, param)}"
            if view.isna().any():
                cells[label] = "N/A"
            else:
                test = (paired_t_test if paired else unpaired_t_test)(
                    base.to_numpy(), view.to_numpy(), confidence=confidence
                )
                cells[label] = "P" if test.significant else "F"
        table[group[0] if len(rows) == 1 else group] = cells
    out = pd.DataFrame.from_dict(table, orient="index")
    out.index.names = rows
    return out.fillna("N/A")
