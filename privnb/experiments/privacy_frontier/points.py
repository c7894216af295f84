"""The frontier table: one point per (mechanism, parameter, attack), each attack's advantage against error."""

from __future__ import annotations

import pandas as pd

from privnb.attacks import ATTACKS

__all__ = ["POINT_COLUMNS", "frontier_headlines", "frontier_points", "pooled_interval", "view_table"]

POINT_COLUMNS = (
    "dataset",
    "method",
    "param",
    "attack",
    "success",
    "baseline",
    "advantage",
    "advantage_low",
    "advantage_high",
    "error",
    "majority_error",
    "at_or_above_majority",
    "n_folds",
)
"""The columns of :func:`frontier_points`."""


def frontier_headlines(m: int = 5) -> list[str]:
    """The headline records of every attack the frontier shows (:data:`privnb.attacks.ATTACKS`), in order.

    Parameters
    ----------
    m : int
        The linkage's known values (headlines with ``{m}``).

    Returns
    -------
    list of str
    """
    names = [attack.headline.format(m=m) for entries in ATTACKS.values() for attack in entries if attack.frontier]
    return list(dict.fromkeys(names))


def pooled_interval(per_fold: pd.DataFrame, head: str) -> tuple[float, float]:
    """The 95% interval of an attack's mean advantage over folds: the mean of the folds' half-widths.

    Cross-validation folds share most of their training rows (k - 2 of k parts), so the folds' estimates are
    correlated: the standard error of their mean is at most the mean of theirs (equal when they move together), and
    dividing by the square root of the number of folds, as for independent estimates, would overstate the precision.

    Parameters
    ----------
    per_fold : DataFrame
        One row per fold, the attack's ``{head}_advantage``, ``_advantage_low`` and ``_advantage_high`` columns.
    head : str
        The attack.

    Returns
    -------
    (float, float)
        (nan, nan) when the folds hold no interval.
    """
    low, high = per_fold.get(f"{head}_advantage_low"), per_fold.get(f"{head}_advantage_high")
    if low is None or high is None or low.isna().all():
        return float("nan"), float("nan")
    half = ((high - low) / 2).mean()
    centre = per_fold[f"{head}_advantage"].mean()
    return float(centre - half), float(centre + half)


def frontier_points(results: pd.DataFrame, *, m: int = 5) -> pd.DataFrame:
    """One point per (data set, mechanism, parameter, attack) for every frontier attack its rows hold.

    ``advantage`` is the mean over folds of the attack's advantage (success minus its baseline), ``success``
    and ``baseline`` its parts, ``advantage_low`` and ``advantage_high`` its 95% interval (the mean of the
    folds' half-widths, :func:`pooled_interval`), ``error`` the mean test error and
    ``majority_error`` the mean majority-class error of the same folds; ``at_or_above_majority`` flags a
    view that learned nothing a constant guess would not give.

    Parameters
    ----------
    results : DataFrame
        Tidy rows of the frontier's runners.
    m : int
        The linkage's known values (headlines with ``{m}``).

    Returns
    -------
    DataFrame
        Columns :data:`POINT_COLUMNS`.
    """
    keys = ["dataset", "method", "param"]
    per_fold = results.groupby([*keys, "fold", "metric"], dropna=False)["value"].mean().unstack()
    out = []
    for (ds, method, param), view in per_fold.groupby(level=[0, 1, 2], dropna=False, sort=False):
        means = view.mean()
        for head in frontier_headlines(m):
            needed = [f"{head}_advantage", head, f"{head}_baseline", "error"]
            if any(column not in means or pd.isna(means[column]) for column in needed):
                continue
            majority = means.get("majority_error", float("nan"))
            low, high = pooled_interval(view, head)
            out.append(
                (ds, method, param, head, means[head], means[f"{head}_baseline"], means[f"{head}_advantage"])
                + (low, high, means["error"], majority, bool(means["error"] >= majority), len(view))
            )
    return pd.DataFrame(out, columns=list(POINT_COLUMNS))


def view_table(results: pd.DataFrame, methods, metrics, *, by_metric: bool = False) -> pd.DataFrame:
    """Mean over folds of ``metrics`` per (method, param) of ``methods``, the errors beside them, and a flag.

    Parameters
    ----------
    results : DataFrame
        Tidy rows of the frontier's runners.
    methods : sequence of str
        The views to show.
    metrics : sequence of str
        The attack metrics to show (those absent from ``results`` are left out).
    by_metric : bool
        One row per metric and one column per view ("method param") instead, for many metrics.

    Returns
    -------
    DataFrame
        Indexed by (method, param) (or by metric); the metrics, ``error``, ``majority_error`` and
        ``≥ majority`` (the view's error is at or above the majority-class error: it learned nothing a
        constant guess would not give).
    """
    rows = results[results["method"].isin(list(methods))]
    means = rows.groupby(["method", "param", "metric"], dropna=False, sort=False)["value"].mean().unstack()
    columns = [m for m in [*metrics, "error", "majority_error"] if m in means.columns]
    table = means[columns].copy()
    if {"error", "majority_error"} <= set(table.columns):
        table["≥ majority"] = table["error"] >= table["majority_error"]
    if by_metric:
        table = table.astype(float).T
        table.columns = [method if pd.isna(param) else f"{method} {param:g}" for method, param in table.columns]
    return table
