"""The frontier table: one point per (mechanism, parameter), the registered attack's advantage against error."""

from __future__ import annotations

import pandas as pd

from privnb.attacks.registry import RELEASES

__all__ = ["POINT_COLUMNS", "frontier_points"]

POINT_COLUMNS = (
    "dataset",
    "method",
    "param",
    "attack",
    "success",
    "baseline",
    "error",
    "majority_error",
    "at_or_above_majority",
    "axis",
    "n_folds",
)
"""The columns of :func:`frontier_points`."""


def frontier_points(results: pd.DataFrame, *, m: int = 5) -> pd.DataFrame:
    """One point per (data set, mechanism, parameter) whose method has a :data:`RELEASES` entry.

    ``attack`` is the mean over folds of the entry's headline advantage (success minus the baseline the
    attack computed), ``success`` and ``baseline`` its parts, ``error`` the mean test error and
    ``majority_error`` the mean majority-class error of the same folds; ``at_or_above_majority`` flags a view
    that learned nothing a constant guess would not give.

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
    means = results.groupby([*keys, "metric"], dropna=False)["value"].mean().unstack()
    folds = results[results["metric"] == "error"].groupby(keys, dropna=False)["fold"].nunique()
    out = []
    for (ds, method, param), row in means.iterrows():
        kind = RELEASES.get(method)
        if kind is None:
            continue
        head = kind.headline.format(m=m)
        needed = [f"{head}_advantage", head, f"{head}_baseline", "error"]
        if any(column not in row or pd.isna(row[column]) for column in needed):
            continue
        majority = row.get("majority_error", float("nan"))
        out.append(
            (
                ds,
                method,
                param,
                row[needed[0]],
                row[head],
                row[needed[2]],
                row["error"],
                majority,
                bool(row["error"] >= majority),
                kind.axis,
                int(folds.get((ds, method, param), 1)),
            )
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
