"""What the trained model leaks: the membership attack on every view's classifier beside its release's attack.

Every view of the frontier is scored by
:func:`~privnb.experiments.privacy_frontier._scoring.membership_scores` on the folds its error is measured on;
:func:`membership_table` puts the means over folds beside the headline attack registered for its release (the
first frontier attack its rows hold: the common adversary on microdata), and :func:`membership_reading` answers,
for the data at hand, whether training on a protected view leaks less about who was in the training fold than
training on the original rows.
"""

from __future__ import annotations

import math

import pandas as pd

from .points import frontier_headlines

__all__ = [
    "LIRA_COLUMNS",
    "MEMBERSHIP_COLUMNS",
    "REFERENCE_VIEWS",
    "lira_table",
    "lira_unrun",
    "membership_reading",
    "membership_table",
]

MEMBERSHIP_COLUMNS = (
    "dataset",
    "classifier",
    "method",
    "param",
    "membership_advantage",
    "membership_in_sample_advantage",
    "membership_yeom_advantage",
    "membership_auc",
    "membership_tpr_at_1pct_fpr",
    "n_targets",
    "loss",
    "release_attack",
    "release_advantage",
    "error",
    "n_folds",
)
"""The columns of :func:`membership_table`."""

REFERENCE_VIEWS = ("original", "full")
"""The views trained on the unprotected rows: the k-NN's and NBC's original data, the SVM's full feature set."""

_KEYS = ["dataset", "classifier", "method", "param"]


def membership_table(results: pd.DataFrame, *, m: int = 5) -> pd.DataFrame:
    """The membership attack on each view's classifier beside the registered attack on its release.

    One row per (data set, classifier, mechanism, parameter) with ``membership`` rows: the means over folds of
    the membership advantage (held-out threshold; accuracy - 1/2), the in-sample and Yeom's mean-loss
    advantages, the AUC, the held-out targets per fold, the loss the classifier gave, the release's headline
    attack (the first of :func:`frontier_headlines` its rows hold; empty for a view without a release) and its
    advantage, and the test error.

    Parameters
    ----------
    results : DataFrame
        Tidy rows of the frontier's runners.
    m : int
        The linkage's known values (headlines with ``{m}``).

    Returns
    -------
    DataFrame
        Columns :data:`MEMBERSHIP_COLUMNS`.
    """
    heads = results[results["metric"] == "membership"]
    if heads.empty:
        return pd.DataFrame(columns=list(MEMBERSHIP_COLUMNS))
    means = results.groupby([*_KEYS, "metric"], dropna=False, sort=False)["value"].mean().unstack().reset_index()
    notes = heads.groupby(_KEYS, dropna=False, sort=False).agg(note=("note", "first"), n_folds=("fold", "nunique"))
    table = notes.reset_index().merge(means, on=_KEYS, how="left")  # NaN params (the original view) match
    table["loss"] = table["note"].str.extract(r"loss=([^;]*)", expand=False).fillna("")
    table["n_targets"] = table.get("membership_n_targets", float("nan"))
    heads = frontier_headlines(m)
    table["release_attack"] = [
        next((head for head in heads if pd.notna(row.get(f"{head}_advantage"))), "") for _, row in table.iterrows()
    ]
    table["release_advantage"] = [
        row.get(f"{head}_advantage", float("nan")) if head else float("nan")
        for head, (_, row) in zip(table["release_attack"], table.iterrows(), strict=True)
    ]
    for column in MEMBERSHIP_COLUMNS:
        if column not in table:
            table[column] = float("nan")
    return table[list(MEMBERSHIP_COLUMNS)]


LIRA_COLUMNS = (
    "lira_online_advantage",
    "lira_online_auc",
    "lira_online_tpr_at_1pct_fpr",
    "lira_online_tpr_at_0_1pct_fpr",
    "lira_offline_advantage",
    "lira_offline_auc",
    "lira_offline_tpr_at_1pct_fpr",
)
"""LiRA's columns in :func:`lira_table`."""


def lira_table(results: pd.DataFrame) -> pd.DataFrame:
    """The views LiRA attacked: LiRA's means over folds beside the loss threshold's (advantage, AUC, TPR at 1% FPR).

    Parameters
    ----------
    results : DataFrame
        Tidy rows of the frontier's runners.

    Returns
    -------
    DataFrame
        One row per attacked (classifier, method, param): the loss threshold's columns and :data:`LIRA_COLUMNS`.
    """
    keys = ["classifier", "method", "param"]
    loss = ["membership_advantage", "membership_auc", "membership_tpr_at_1pct_fpr"]
    rows = results[results["method"].isin(results.loc[results["metric"] == "lira_online", "method"])]
    means = rows.groupby([*keys, "metric"], dropna=False, sort=False)["value"].mean().unstack().reset_index()
    if "lira_online_advantage" not in means:
        return pd.DataFrame(columns=[*keys, *loss, *LIRA_COLUMNS])
    means = means[means["lira_online_advantage"].notna()]
    return means.reindex(columns=[*keys, *loss, *LIRA_COLUMNS]).reset_index(drop=True)


def lira_unrun(dataset_name: str, population, lira_views) -> str:
    """Why LiRA attacked no view of a run ("" when it attacks some): its shadow models learn from rows outside
    the data set, which a run on all of it leaves none of, and it attacks only the views ``lira_views`` names.

    Parameters
    ----------
    dataset_name : str
        The data set's name.
    population : DataFrame or None
        The rows outside the run's sample (:func:`population_rows`).
    lira_views : sequence of str
        The views LiRA attacks.

    Returns
    -------
    str
    """
    if population is None or not len(population):
        return (
            f"this run uses every row of {dataset_name}, so no rows are left outside it for LiRA's shadow models; "
            "a sample (n_rows > 0) leaves the rest as their population (the 05_privacy_utility.lira spec: every view)"
        )
    if not len(lira_views):
        return "lira_views names no view; name the views to attack, e.g. lira_views = ['original', 'anatomized']"
    return ""


def _view_name(row) -> str:
    return row.method if pd.isna(row.param) else f"{row.method} {row.param:g}"


def _family_line(dataset_name, classifier, group: pd.DataFrame) -> str | None:
    reference = group[group["method"].isin(REFERENCE_VIEWS)]
    protected = group[~group["method"].isin(REFERENCE_VIEWS)]
    if reference.empty or protected.empty:
        return None
    ref = reference.iloc[0]
    band = 2 * math.sqrt(2) * 0.5 / math.sqrt(max(1.0, float(ref.n_targets)) * max(1, int(ref.n_folds)))
    diff = protected["membership_advantage"] - ref.membership_advantage
    lower = [_view_name(r) for r, d in zip(protected.itertuples(), diff, strict=True) if d < -band]
    higher = [_view_name(r) for r, d in zip(protected.itertuples(), diff, strict=True) if d > band]
    text = (
        f"{classifier} on {dataset_name}: trained on {_view_name(ref)} rows, advantage {ref.membership_advantage:.3f} "
        f"(AUC {ref.membership_auc:.3f}); the {len(protected)} protected views range from "
        f"{protected['membership_advantage'].min():.3f} to {protected['membership_advantage'].max():.3f}. "
    )
    within = f"{band:.3f} (two standard errors of a difference)"
    if not lower and not higher:
        return text + f"None differs from it by more than {within}: no measurable difference."
    parts = [f"less: {', '.join(lower)}" if lower else "", f"more: {', '.join(higher)}" if higher else ""]
    return text + f"Beyond {within} they leak " + "; ".join(p for p in parts if p) + "."


def membership_reading(table: pd.DataFrame) -> list[str]:
    """One sentence per classifier saying whether its protected views leak less about membership than the original.

    Each protected view's membership advantage is compared with that of the same classifier trained on the
    unprotected rows (:data:`REFERENCE_VIEWS`); a difference counts when it exceeds two standard errors of
    the difference of two accuracies of 1/2 on independent held-out targets, 2 * sqrt(2) * 0.5 /
    sqrt(targets per fold * folds) (conservative: both views are measured on the same targets). With many
    views, a few differences beyond it are expected by chance.

    Parameters
    ----------
    table : DataFrame
        :func:`membership_table`'s rows.

    Returns
    -------
    list of str
        One sentence per (data set, classifier) with a reference view and a protected view.
    """
    lines = [
        _family_line(dataset, classifier, group)
        for (dataset, classifier), group in table.groupby(["dataset", "classifier"], sort=False)
    ]
    return [line for line in lines if line is not None]
