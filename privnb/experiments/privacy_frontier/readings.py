"""What notebook 05 says, computed from its rows: the common adversary's table, the rankings its intervals allow,
and which attack is the strongest on each release.

A ranking is stated only where the 95% intervals of the advantage separate (:func:`ranking_lines`); otherwise the
sentence says the releases cannot be told apart at this size. Every number in these sentences comes from the rows.
"""

from __future__ import annotations

import pandas as pd

from .points import pooled_interval

__all__ = ["ADVERSARY_COLUMNS", "adversary_table", "ranking_lines", "strongest_lines"]

ADVERSARY_COLUMNS = (
    "success",
    "baseline",
    "advantage",
    "advantage_low",
    "advantage_high",
    "grouped_success",
    "suppressed_share",
    "exact_share",
    "n_targets",
    "n_folds",
)
"""The columns of :func:`adversary_table`."""


def adversary_table(results: pd.DataFrame, methods=None) -> pd.DataFrame:
    """The common adversary on every release: mean over folds, the advantage's pooled 95% interval.

    Parameters
    ----------
    results : DataFrame
        Tidy rows of the frontier's runner.
    methods : sequence of str, optional
        The views to show, in this order (default every view with ``common`` rows, in the rows' order).

    Returns
    -------
    DataFrame
        Indexed by (method, param), columns :data:`ADVERSARY_COLUMNS`.
    """
    rows = results[results["metric"].str.startswith("common")]
    if methods is not None:
        rows = rows[rows["method"].isin(list(methods))]
    if rows.empty:
        return pd.DataFrame(columns=list(ADVERSARY_COLUMNS))
    per_fold = rows.groupby(["method", "param", "fold", "metric"], sort=False)["value"].mean().unstack()
    out = {}
    for (method, param), folds in per_fold.groupby(level=[0, 1], sort=False):
        means = folds.mean()
        low, high = pooled_interval(folds, "common")
        out[(method, param)] = {
            "success": means["common"],
            "baseline": means["common_baseline"],
            "advantage": means["common_advantage"],
            "advantage_low": low,
            "advantage_high": high,
            "grouped_success": means.get("common_grouped_success", float("nan")),
            "suppressed_share": means.get("common_suppressed_share", float("nan")),
            "exact_share": means.get("common_exact_share", float("nan")),
            "n_targets": means["common_n_targets"],
            "n_folds": len(folds),
        }
    table = pd.DataFrame.from_dict(out, orient="index")[list(ADVERSARY_COLUMNS)]
    table.index = table.index.set_names(["method", "param"])
    if methods is not None:
        order = {method: i for i, method in enumerate(methods)}
        table = table.sort_index(key=lambda level: level.map(order) if level.name == "method" else level)
    return table


def _said(method, row) -> str:
    return f"{method} {row.advantage:+.3f} [{row.advantage_low:+.3f}, {row.advantage_high:+.3f}]"


def ranking_lines(table: pd.DataFrame, *, letter: str = "l") -> list[str]:
    """One sentence per parameter ranking the releases by their gain over the background, as far as intervals allow.

    Releases are ordered by their advantage and cut into tiers: a release joins the tier above when its
    interval overlaps the interval of the last release of that tier. ``>`` separates tiers (every interval above
    lies wholly above); ``≈`` joins releases that cannot be told apart at this size.

    Parameters
    ----------
    table : DataFrame
        :func:`adversary_table`'s rows of the releases to compare (indexed by method and param).
    letter : str
        The parameter's letter in the sentences.

    Returns
    -------
    list of str
    """
    lines = []
    for param, group in table.groupby(level="param", sort=True):
        ranked = group.droplevel("param").sort_values("advantage", ascending=False)
        if len(ranked) < 2:
            continue
        tiers, last = [], None
        for method, row in ranked.iterrows():
            if last is not None and row.advantage_high >= last.advantage_low:
                tiers[-1].append(_said(method, row))
            else:
                tiers.append([_said(method, row)])
            last = row
        text = " > ".join(" ≈ ".join(tier) for tier in tiers)
        lines.append(f"{letter} = {param:g}, gain over the background [95% interval]: {text}.")
    return lines


def strongest_lines(results: pd.DataFrame, attacks=("common", "definetti")) -> list[str]:
    """Which attack guesses the sensitive value best on all training rows, over the releases both attack.

    The common adversary scores every training row; the de Finetti attack's ``success_all_rows`` does too (a
    suppressed row guessed by the majority prior), so the two compare on the same rows.

    Parameters
    ----------
    results : DataFrame
        Tidy rows of the frontier's runner.
    attacks : sequence of str
        The attacks to compare.

    Returns
    -------
    list of str
        One sentence per attack that is the strongest on at least one release: on which releases, and by how
        much (its share minus the runner-up's, smallest and largest).
    """
    column = {"common": "common", "definetti": "definetti_success_all_rows"}
    rows = results[results["metric"].isin([column[a] for a in attacks])]
    means = rows.groupby(["method", "param", "metric"], sort=False)["value"].mean().unstack().dropna()
    if means.empty:
        return []
    shares = means[[column[a] for a in attacks]].set_axis(list(attacks), axis=1)
    best = shares.idxmax(axis=1)
    margin = shares.max(axis=1) - shares.apply(lambda row: row.nlargest(2).iloc[-1], axis=1)
    lines = []
    for attack in attacks:
        won = best == attack
        if not won.any():
            continue
        views = ", ".join(f"{method} {param:g}" for method, param in shares.index[won])
        lines.append(
            f"{attack} guesses most on {won.sum()} of {len(shares)} releases ({views}), by "
            f"{margin[won].min():.3f} to {margin[won].max():.3f} of the training rows."
        )
    return lines
