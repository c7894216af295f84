"""Seed 001's claims against privnb's measurements, and the tables for the readings the paper leaves open.

:func:`selection_claims` checks each comparison the paper's Section 5.2 states, per data set and k, with an
AUC margin: a difference within the margin is a "tie", so a claim such as "k-AC beats its k-anonymity twin"
is "yes" only where the k-AC selector is ahead by more than the margin. :func:`reading_table` puts the
three readings of how RF and DP are tested beside the paper's numbers; :func:`svm_setting_table` the tuned
and LIBLINEAR-default (C = 1) SVMs of the full feature set and RF.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privnb.experiments.claims import verdict
from privnb.experiments.selection import LABELS
from privnb.experiments.selection_tables import PAPER_TABLES, method_label

KAC_SELECTORS = ("maximal", "greedy-hamdist", "greedy-distcnt")

#: (claim, better method, worse method, line of seed 001); the paper says "yes" to each.
CLAIMS = (
    ("Greedy-DistCnt (k-AC) beats its k-anonymity twin", "greedy-distcnt", "k-anonymity-distcnt", "001:360"),
    ("Greedy-HamDist (k-AC) beats its k-anonymity twin", "greedy-hamdist", "k-anonymity-hamdist", "001:360"),
    ("Maximal beats CM greedy", "maximal", "cm-greedy", "001:324"),
    ("Greedy-HamDist beats CM greedy", "greedy-hamdist", "cm-greedy", "001:324"),
    ("Greedy-DistCnt beats CM greedy", "greedy-distcnt", "cm-greedy", "001:324"),
    ("Greedy-DistCnt beats RF", "greedy-distcnt", "rf", "001:360"),
    ("Greedy-DistCnt beats Laplace-DP (eps = 1)", "greedy-distcnt", "laplace-dp", "001:360"),
)


def _auc(summary: pd.DataFrame, dataset: str, method: str, k: int) -> float:
    part = summary[(summary["dataset"] == dataset) & (summary["method"] == method)]
    if method.endswith("-dp"):
        part = part[np.isclose(part["param"], 1.0)]
    elif method != "full":
        part = part[np.isclose(part["param"], k)]
    return float(part["auc"].iloc[0]) if len(part) else np.nan


def _paper_auc(dataset: str, method: str, k: int) -> float:
    part = PAPER_TABLES[
        (PAPER_TABLES["dataset"] == dataset) & (PAPER_TABLES["method"] == method) & (PAPER_TABLES["k"] == k)
    ]
    return float(part["auc"].iloc[0]) if len(part) else np.nan


def _says(diff: float, margin: float) -> str:
    if np.isnan(diff):
        return "n/a"
    return "yes" if diff > margin else ("tie" if diff >= -margin else "no")


def selection_claims(summary: pd.DataFrame, *, margin: float = 0.01) -> pd.DataFrame:
    """Each claim of :data:`CLAIMS` per data set and k, plus "CM greedy is beaten by every k-AC selector".

    Columns: dataset, k, claim, AUC difference in the paper's table and ours (better minus worse), what each
    says ("yes" when the difference exceeds ``margin``, "tie" within it, "no" below; the paper's text says
    yes to every claim), and :func:`privnb.experiments.claims.verdict` of the text against ours.
    """
    rows = []
    for dataset in sorted(summary["dataset"].unique()):
        ks = sorted(int(k) for k in summary.loc[summary["method"].isin(KAC_SELECTORS), "param"].dropna().unique())
        for k in ks:
            for claim, better, worse, line in CLAIMS:
                ours = _auc(summary, dataset, better, k) - _auc(summary, dataset, worse, k)
                paper = _paper_auc(dataset, better, k) - _paper_auc(dataset, worse, k)
                rows.append((dataset, k, claim, line, paper, ours, _says(paper, margin), _says(ours, margin)))
            cm = _auc(summary, dataset, "cm-greedy", k)
            best_cm = min(_auc(summary, dataset, m, k) for m in KAC_SELECTORS) - cm
            paper_cm = min(_paper_auc(dataset, m, k) for m in KAC_SELECTORS) - _paper_auc(dataset, "cm-greedy", k)
            rows.append(
                (
                    dataset,
                    k,
                    "every k-AC selector beats CM greedy",
                    "001:324",
                    paper_cm,
                    best_cm,
                    _says(paper_cm, margin),
                    _says(best_cm, margin),
                )
            )
    table = pd.DataFrame(
        rows, columns=["dataset", "k", "claim", "line", "auc_diff_paper", "auc_diff_ours", "paper_table", "ours"]
    )
    table["text"] = "yes"
    table["verdict"] = [verdict(t, o) for t, o in zip(table["text"], table["ours"])]
    return table


def reading_table(summary: pd.DataFrame) -> pd.DataFrame:
    """RF (per k) and DP (per epsilon) AUC under each reading of the test protocol, beside the paper's RF.

    One row per (dataset, baseline, param); columns are the readings; ``paper`` is the paper's AUC (RF only:
    Figure 1's DP bars were not kept in our text) and ``closest`` the reading nearest to it.
    """
    base = summary["method"].str.partition("@")
    part = summary.assign(baseline=base[0], reading=base[2].replace("", "train-fold"))
    part = part[(part["baseline"] == "rf") | part["baseline"].str.contains("-dp")]
    part = part[~part["reading"].str.contains("C=")]
    table = part.pivot_table(index=["dataset", "baseline", "param"], columns="reading", values="auc", sort=False)
    table = table.reset_index()
    table["paper"] = [
        _paper_auc(d, b, int(p)) if b == "rf" else np.nan
        for d, b, p in zip(table["dataset"], table["baseline"], table["param"])
    ]
    readings = [c for c in ("train-fold", "whole", "both-folds") if c in table]
    gaps = table[readings].sub(table["paper"], axis=0).abs()
    table["closest"] = [gaps.columns[np.nanargmin(g)] if np.isfinite(g).any() else "" for g in gaps.to_numpy()]
    table["baseline"] = table["baseline"].map(lambda m: LABELS.get(m, m))
    return table


def svm_setting_table(summary: pd.DataFrame) -> pd.DataFrame:
    """AUC of the full feature set and RF with C tuned and with LIBLINEAR's default C = 1, beside the paper's."""
    base = summary["method"].str.partition("@")
    part = summary.assign(baseline=base[0], setting=np.where(base[2] == "C=1", "C=1 (LIBLINEAR default)", "C tuned"))
    part = part[part["baseline"].isin(["full", "rf"]) & base[2].isin(["", "C=1"])]
    table = part.pivot_table(
        index=["dataset", "baseline", "param"], columns="setting", values="auc", sort=False, dropna=False
    ).reset_index()
    table["paper"] = [
        _paper_auc(d, b, 5 if pd.isna(p) else int(p))
        for d, b, p in zip(table["dataset"], table["baseline"], table["param"])
    ]
    table["baseline"] = table["baseline"].map(method_label)
    return table.dropna(subset=[c for c in table.columns if c.startswith("C ")], how="all")
