"""Section 5.2 of FSAC, the tables: the paper's Tables 5-6 and ours, side by side, and the headline metrics.

:data:`PAPER_TABLES` holds the paper's Tables 5 (Adult) and 6 (Email), for the side-by-side table.
:func:`summary_table` condenses the tidy rows of :func:`privnb.experiments.feature_selection.runner.evaluate_methods`;
:func:`auc_tables` and :func:`ac_table` (Tables 5-6), :func:`side_by_side`, :func:`selection_metrics`.
:func:`feature_set_table` and :func:`selection_example` show the definitions and the selectors on the paper's
Table 1.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privnb._docstrings import shared_doc
from privnb.experiments.feature_selection._views import LABELS, METHODS, SELECTORS
from privnb.learn.maximal_selection import maximal_itemsets
from privnb.mechanisms.containment import (
    classification_metric,
    dataset_ac,
    dataset_anonymity,
    distcnt,
    hamdist,
)

PAPER_TABLES = pd.DataFrame(
    [
        (ds, m, k, auc, size)
        for ds, rows in {
            "adult": {
                "maximal": [(0.74, 8), (0.74, 8), (0.75, 7)],
                "greedy-hamdist": [(0.77, 9), (0.77, 9), (0.76, 8)],
                "greedy-distcnt": [(0.78, 10), (0.78, 10), (0.76, 8)],
                "cm-greedy": [(0.71, 5)] * 3,
                "rf": [(0.80, 0.0060), (0.80, 0.0100), (0.80, 0.0144)],
                "k-anonymity-hamdist": [(0.72, 8)] * 3,
                "k-anonymity-distcnt": [(0.73, 8), (0.70, 6), (0.70, 6)],
                "full": [(0.82, 19)] * 3,
            },
            "pu1": {
                "maximal": [(0.94, 121), (0.92, 66), (0.90, 58)],
                "greedy-hamdist": [(0.91, 11)] * 3,
                "greedy-distcnt": [(0.95, 11), (0.93, 7), (0.93, 7)],
                "cm-greedy": [(0.86, 3)] * 3,
                "rf": [(0.87, 0.0130), (0.86, 0.0173), (0.87, 0.0203)],
                "k-anonymity-hamdist": [(0.84, 4)] * 3,
                "k-anonymity-distcnt": [(0.81, 4)] * 3,
                "full": [(0.95, 24604)] * 3,
            },
        }.items()
        for m, values in rows.items()
        for k, (auc, size) in zip((5, 8, 11), values)
    ],
    columns=["dataset", "method", "k", "auc", "size"],
)
"""Tables 5 (Adult) and 6 (Email = PU1) of FSAC: AUC and selected feature count (RF: flipped share).

The names of the two Greedy rows and of the two k-anonymity rows were lost in the text we have; we
read them in the order the paper introduces them (HamDist, then DistCnt).
"""


AT_OR_BELOW_MAJORITY = "≤ majority"
"""The column of :func:`summary_table` marking a method whose AUC is at or below the majority-class baseline's
(a constant score, AUC 0.5): it has learned nothing a constant guess would not give."""


def summary_table(results: pd.DataFrame, *, n_splits: int = 5) -> pd.DataFrame:
    """Tables 5-6 layout: one row per (dataset, method, param); AUC mean (and std over runs), SFC, AC.

    For randomized methods the AUC of a run is its mean over folds; ``auc_std`` is the standard
    deviation over runs (the paper's "mean +- std of 10 runs"); deterministic methods have none.
    :data:`AT_OR_BELOW_MAJORITY` marks the methods at or below the data set's "majority" row (False when the
    majority baseline did not run).

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`privnb.experiments.feature_selection.runner.evaluate_methods`.
    n_splits : int
        The folds per run (fold ``f`` is of run ``f // n_splits``).

    Returns
    -------
    DataFrame
    """
    frame = results.copy()
    frame["run"] = frame["fold"] // n_splits
    wide = (
        frame.groupby(["dataset", "method", "param", "run", "metric"], dropna=False)["value"]
        .mean()
        .unstack("metric")
        .reset_index()
    )
    grouped = wide.groupby(["dataset", "method", "param"], dropna=False)
    out = grouped.agg(auc=("auc", "mean"), n_features=("n_features", "mean"), runs=("run", "nunique")).reset_index()
    out["auc_std"] = grouped["auc"].std(ddof=0).to_numpy()
    for extra in ("ac", "flipped_share"):
        if extra in wide:
            out[extra] = grouped[extra].mean().to_numpy()
    out.loc[out["runs"] < 2, "auc_std"] = np.nan
    majority = out[out["method"] == "majority"].groupby("dataset")["auc"].first()
    out[AT_OR_BELOW_MAJORITY] = (out["method"] != "majority") & (out["auc"] <= out["dataset"].map(majority))
    order = {m: i for i, m in enumerate(METHODS)}
    out["_order"] = out["method"].map(lambda m: order.get(m.partition("@")[0], len(order)))
    return out.sort_values(["dataset", "_order", "param"]).drop(columns="_order").reset_index(drop=True)


def side_by_side(summary: pd.DataFrame, datasets=("adult", "pu1")) -> pd.DataFrame:
    """The paper's Tables 5-6 beside ours: AUC (SFC, or flipped share for RF) and the method ranks at k.

    ``datasets``: the paper's data sets to show (those that ran); other data sets have no paper numbers.

    Parameters
    ----------
    summary : DataFrame
        A :func:`summary_table`.
    datasets : sequence of str
        The paper's data sets to show.

    Returns
    -------
    DataFrame
    """
    ours = summary[summary["method"].isin(PAPER_TABLES["method"].unique())].copy()
    full = ours["method"] == "full"
    ours = pd.concat([ours[~full]] + [ours[full].assign(param=float(k)) for k in (5, 8, 11)])
    ours = ours.rename(columns={"param": "k", "auc": "auc_ours"})
    ours["k"] = ours["k"].astype(int)
    ours["size_ours"] = np.where(ours["method"] == "rf", ours.get("flipped_share"), ours["n_features"])
    paper = PAPER_TABLES[PAPER_TABLES["dataset"].isin(datasets)]
    paper = paper.rename(columns={"auc": "auc_paper", "size": "size_paper"})
    table = paper.merge(
        ours[["dataset", "method", "k", "auc_ours", "auc_std", "size_ours"]], on=["dataset", "method", "k"], how="left"
    )
    for who in ("paper", "ours"):
        table[f"rank_{who}"] = table.groupby(["dataset", "k"])[f"auc_{who}"].rank(ascending=False, method="min")
    table["method"] = table["method"].map(LABELS)
    return table


def selection_label(method: str) -> str:
    """The paper's row label of a method name, with its reading or SVM setting ("rf@whole", "full@C=1").

    Parameters
    ----------
    method : str
        A method name of the result rows.

    Returns
    -------
    str
    """
    base, _, suffix = method.partition("@")
    return LABELS.get(base, base) + (f" [{suffix}]" if suffix else "")


def _auc_text(row) -> str:
    if row.method == "majority":
        return f"{row.auc:.3f}"
    if row.method.startswith("rf"):
        return (
            f"{row.auc:.3f}±{row.auc_std:.3f} ({100 * row.flipped_share:.2f}%)"
            if pd.notna(row.auc_std)
            else f"{row.auc:.3f} ({100 * row.flipped_share:.2f}%)"
        )
    return f"{row.auc:.3f} ({row.n_features:.3g})"


def auc_tables(summary: pd.DataFrame) -> pd.DataFrame:
    """Our Tables 5-6 of FSAC from :func:`summary_table`: one cell per (data set, method) and k.

    A cell reads "AUC (selected feature count)"; RF's reads "AUC±std (flipped share of cells)" (no std
    with a single run). Columns "k=5", ..., and "all" for the full feature set; DP methods are left out
    (they are Figure 1). The majority-class baseline (a constant score, AUC 0.5) is the reference row, in every
    column; a cell at or below it ends in "≤ majority".

    Parameters
    ----------
    summary : DataFrame
        A :func:`summary_table`.

    Returns
    -------
    DataFrame
    """
    table = summary[~summary["method"].str.contains("-dp")].copy()
    below = table[AT_OR_BELOW_MAJORITY] if AT_OR_BELOW_MAJORITY in table else pd.Series(False, index=table.index)
    table["cell"] = [_auc_text(r) + (" ≤ majority" if b else "") for r, b in zip(table.itertuples(), below)]
    majority = table["method"] == "majority"
    params = sorted(table.loc[~majority, "param"].dropna().unique())
    references = [table[majority].assign(param=p) for p in [*params, np.nan]]
    table = pd.concat([*references, table[~majority]]).sort_values("dataset", kind="stable")
    table["k"] = table["param"].map(lambda p: "all" if pd.isna(p) else f"k={int(p)}")
    table["method"] = table["method"].map(selection_label)
    return table.pivot_table(index=["dataset", "method"], columns="k", values="cell", aggfunc="first", sort=False)


def ac_table(summary: pd.DataFrame) -> pd.DataFrame:
    """The AC (Definition 5 of FSAC) each method's selection reaches on the training fold, per param.

    Parameters
    ----------
    summary : DataFrame
        A :func:`summary_table`.

    Returns
    -------
    DataFrame
    """
    return summary.pivot_table(index=["dataset", "method"], columns="param", values="ac", sort=False).round(1)


def selection_metrics(summary: pd.DataFrame, side: pd.DataFrame | None, seconds: Mapping[str, float]) -> dict:
    """Headline numbers of the Section 5.2 comparison (FSAC) for ``metrics.json``.

    ``<dataset>_k<k>_rank_spearman``: Spearman correlation of the paper's and our method ranks at k (from
    :func:`side_by_side`) without the full feature set, whose rank is fixed by construction (it is best or
    near best in both tables); ``..._rank_spearman_with_full`` keeps it. ``<dataset>_<method>[_<param>]_auc``
    and ``..._n_features`` per :func:`summary_table` row (no param suffix for the full feature set);
    ``<dataset>_seconds``. ``side`` None (no paper data set ran): no rank correlations. The majority baseline
    gives its ``..._majority_auc`` only.

    Parameters
    ----------
    summary : DataFrame
        A :func:`summary_table`.
    side : DataFrame or None
        A :func:`side_by_side`.
    seconds : mapping of str to float
        Wall seconds per data set.

    Returns
    -------
    dict
    """
    metrics = {}
    by_construction = LABELS["full"]
    for (name, k), part in (side if side is not None else pd.DataFrame(columns=["dataset", "k"])).groupby(
        ["dataset", "k"]
    ):
        free = part[part["method"] != by_construction] if "method" in part else part
        metrics[f"{name}_k{k}_rank_spearman"] = float(free["rank_paper"].corr(free["rank_ours"], method="spearman"))
        metrics[f"{name}_k{k}_rank_spearman_with_full"] = float(
            part["rank_paper"].corr(part["rank_ours"], method="spearman")
        )
    for r in summary.itertuples():
        key = f"{r.dataset}_{r.method}" if pd.isna(r.param) else f"{r.dataset}_{r.method}_{r.param:g}"
        metrics[f"{key}_auc"] = float(r.auc)
        if r.method != "majority":
            metrics[f"{key}_n_features"] = float(r.n_features)
    metrics.update({f"{name}_seconds": s for name, s in seconds.items()})
    return metrics


@shared_doc
def feature_set_table(X, y=None, feature_sets: Mapping | None = None) -> pd.DataFrame:
    """Definitions 1-9 of FSAC on named feature sets of one small binary table (its Table 2 on Table 1).

    ``feature_sets`` maps a name to column indices (None: every column; default: every column only). Columns:
    ``AC`` (Definition 6), ``k-anonymity`` (the largest k, Definition 1) and, with labels ``y``, ``HamDist``
    (Definition 8), ``DistCnt`` (Definition 9) and ``CM mistakes`` (Iyengar's CM, Definition 2).

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    y : array, optional
        Labels 0/1.
    feature_sets : mapping, optional
        Name -> column indices.

    Returns
    -------
    DataFrame
    """
    rows = {}
    for name, features in (feature_sets or {"all features": None}).items():
        row = {"AC": dataset_ac(X, features), "k-anonymity": dataset_anonymity(X, features)}
        if y is not None:
            row |= {
                "HamDist": hamdist(X, y, features),
                "DistCnt": distcnt(X, y, features),
                "CM mistakes": classification_metric(X, y, features),
            }
        rows[name] = row
    return pd.DataFrame.from_dict(rows, orient="index")


@shared_doc
def selection_example(X, y, k: int, names) -> pd.DataFrame:
    """What Maximal, Greedy-HamDist and Greedy-DistCnt (Section 4 of FSAC) select at ``k`` beside the maximal
    frequent itemsets of support ``k`` (Lemma 3), on a small table whose columns are ``names``.

    One row per itemset or selector: its features and their AC (Definition 6).

    Parameters
    ----------
    X : binary matrix
        {binary_matrix}
    y : array
        Labels 0/1.
    k : int
        The anonymity level.
    names : sequence of str
        The columns' names.

    Returns
    -------
    DataFrame
    """
    spell = "".join if all(len(str(n)) == 1 for n in names) else ", ".join

    def features(indices) -> str:
        return "{" + spell(str(names[i]) for i in indices) + "}"

    rows = [
        (f"maximal frequent itemset of support {k}", features(s), dataset_ac(X, list(s)))
        for s in maximal_itemsets(X, k)
    ]
    for method in ("maximal", "greedy-hamdist", "greedy-distcnt"):
        selection = SELECTORS[method](X, y, k, {})
        rows.append((f"{LABELS[method]} at k = {k}", features(selection.features), selection.ac))
    return pd.DataFrame(rows, columns=["what", "features", "AC"]).set_index("what")
