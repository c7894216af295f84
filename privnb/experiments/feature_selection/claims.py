"""FSAC's claims against privnb's measurements, and the tables for the readings the paper leaves open.

:func:`selection_claims` gives each comparison the paper's Section 5.2 states, per data set and k, as a
:class:`privnb.experiments.Claim` record measured with an AUC margin: a difference within the margin is a
"tie", so a claim such as "k-AC beats its k-anonymity twin" is "yes" only where the k-AC selector is ahead
by more than the margin. :func:`reading_table` puts the three readings of how RF and DP are tested beside the
paper's numbers; :func:`svm_setting_table` the tuned and LIBLINEAR-default (C = 1) SVMs of the full feature
set and RF.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privnb.experiments.claims import Claim, Reason, evaluate
from privnb.experiments.feature_selection._views import LABELS
from privnb.experiments.feature_selection.runner import READINGS
from privnb.experiments.feature_selection.tables import PAPER_TABLES, selection_label

KAC_SELECTORS = ("maximal", "greedy-hamdist", "greedy-distcnt")

#: The sections of FSAC's experiments by the line of its text they hold (Section 5.3 is the ED data set's,
#: 5.4 Adult's, 5.5 Email's, i.e. PU1's).
SECTIONS_BY_LINE = {"324": "Section 5.3", "356": "Section 5.4", "360": "Section 5.5"}

#: (claim, better method, worse method, line of FSAC's text, paper value per data set where it is not "yes").
#: The text says "yes" to each comparison for the data set of its section and, read as the paper's general
#: claims, for the others; where a data set's own section says otherwise, its line and value are given.
SELECTION_CLAIMS = (
    ("Greedy-DistCnt (k-AC) beats its k-anonymity twin", "greedy-distcnt", "k-anonymity-distcnt", "360", {}),
    ("Greedy-HamDist (k-AC) beats its k-anonymity twin", "greedy-hamdist", "k-anonymity-hamdist", "360", {}),
    ("Maximal beats CM greedy", "maximal", "cm-greedy", "324", {}),
    ("Greedy-HamDist beats CM greedy", "greedy-hamdist", "cm-greedy", "324", {}),
    ("Greedy-DistCnt beats CM greedy", "greedy-distcnt", "cm-greedy", "324", {}),
    ("Greedy-DistCnt beats RF", "greedy-distcnt", "rf", "360", {"adult": ("356", "no")}),
    ("Greedy-DistCnt beats Laplace-DP (eps = 1)", "greedy-distcnt", "laplace-dp", "360", {}),
)


def _auc(summary: pd.DataFrame, dataset_name: str, method: str, k: int) -> float:
    part = summary[(summary["dataset"] == dataset_name) & (summary["method"] == method)]
    if method.endswith("-dp"):
        part = part[np.isclose(part["param"], 1.0)]
    elif method != "full":
        part = part[np.isclose(part["param"], k)]
    return float(part["auc"].iloc[0]) if len(part) else np.nan


def _paper_auc(dataset_name: str, method: str, k: int) -> float:
    part = PAPER_TABLES[
        (PAPER_TABLES["dataset"] == dataset_name) & (PAPER_TABLES["method"] == method) & (PAPER_TABLES["k"] == k)
    ]
    return float(part["auc"].iloc[0]) if len(part) else np.nan


def _says(diff: float, margin: float) -> str:
    if np.isnan(diff):
        return "n/a"
    return "yes" if diff > margin else ("tie" if diff >= -margin else "no")


class _Says(str):
    """What an AUC difference says ("yes", "tie", "no", "n/a"), keeping the difference (and RF's readings) to show."""

    diff: float = np.nan
    readings: str = ""


def _measured(diff: float, margin: float) -> _Says:
    says = _Says(_says(diff, margin))
    says.diff = diff
    return says


def _show(measured) -> str:
    diff = getattr(measured, "diff", np.nan)
    shown = str(measured) if np.isnan(diff) else f"{measured} (AUC {diff:+.3f})"
    readings = getattr(measured, "readings", "")
    return f"{shown}; RF by reading: {readings}" if readings else shown


def _difference(dataset_name: str, better: str, worse: str, k: int, margin: float):
    def measure(summary: pd.DataFrame) -> _Says:
        return _measured(_auc(summary, dataset_name, better, k) - _auc(summary, dataset_name, worse, k), margin)

    return measure


def _cm_beaten(dataset_name: str, k: int, margin: float):
    def measure(summary: pd.DataFrame) -> _Says:
        worst = min(_auc(summary, dataset_name, m, k) for m in KAC_SELECTORS)
        return _measured(worst - _auc(summary, dataset_name, "cm-greedy", k), margin)

    return measure


def _rf_readings(dataset_name: str, k: int):
    """RF's AUC at k under every reading of how it is tested that ran ("train-fold 0.990, whole 0.930")."""

    def show(summary: pd.DataFrame) -> str:
        base = summary["method"].str.partition("@")
        part = summary[(summary["dataset"] == dataset_name) & (base[0] == "rf") & np.isclose(summary["param"], k)]
        part = part[~part["method"].str.contains("C=")]
        readings = [(m.partition("@")[2] or "train-fold", auc) for m, auc in zip(part["method"], part["auc"])]
        readings.sort(key=lambda ra: READINGS.index(ra[0]) if ra[0] in READINGS else len(READINGS))
        return ", ".join(f"{reading} {auc:.3f}" for reading, auc in readings)

    return show


def _claim(dataset_name, k, text, line, paper_value, paper_diff, measure, margin, reason=None) -> Claim:
    table = "Table 5" if dataset_name == "adult" else ("Table 6" if dataset_name == "pu1" else "its tables")
    said = f"{_says(paper_diff, margin)}, AUC {paper_diff:+.3f}" if not np.isnan(paper_diff) else "n/a"
    return Claim(
        "FSAC",
        f"{SECTIONS_BY_LINE[line]}, FSAC:{line}",
        f"{text} at k = {k} (the paper's {table} says {said})",
        paper_value,
        measure,
        dataset=dataset_name,
        show=_show,
        reason=reason,
    )


def selection_claims(
    summary: pd.DataFrame, *, margin: float = 0.01, results: pd.DataFrame | None = None
) -> list[Claim]:
    """The claims of :data:`SELECTION_CLAIMS` per data set and k of ``summary``, and "every k-AC selector beats
    CM greedy", as :class:`privnb.experiments.Claim` records measured on a :func:`summary_table`.

    The paper's value is "yes", or the value its data set's own section gives (Adult, Section 5.4: RF performs
    best). privnb's value is what the AUC difference (better minus worse) says: "yes" when it exceeds
    ``margin``, "tie" within it, "no" below; the claim's text gives what the paper's own Tables 5-6 say. A
    claim against RF also shows RF's AUC under every reading of how it is tested that ran. Each claim carries
    its reason should it differ (:data:`SELECTION_REASONS`).

    Parameters
    ----------
    summary : DataFrame
        A :func:`summary_table` (its data sets and the k of the k-AC selectors choose the claims).
    margin : float
        The AUC margin of a tie.
    results : DataFrame, optional
        The tidy rows ``summary`` condenses: a tie's reason then weighs the difference against its spread over the
        folds (:func:`selection_reason`).

    Returns
    -------
    list of Claim
    """
    claims = []
    for dataset in sorted(summary["dataset"].unique()):
        ks = sorted(int(k) for k in summary.loc[summary["method"].isin(KAC_SELECTORS), "param"].dropna().unique())
        for k in ks:
            for text, better, worse, line, own in SELECTION_CLAIMS:
                line, value = own.get(dataset, (line, "yes"))
                paper = _paper_auc(dataset, better, k) - _paper_auc(dataset, worse, k)
                measure = _difference(dataset, better, worse, k, margin)
                if worse == "rf":
                    measure = _with_readings(measure, _rf_readings(dataset, k))
                reason = selection_reason(text, dataset, k, margin, results)
                claims.append(_claim(dataset, k, text, line, value, paper, measure, margin, reason))
            paper_cm = min(_paper_auc(dataset, m, k) for m in KAC_SELECTORS) - _paper_auc(dataset, "cm-greedy", k)
            text = "every k-AC selector beats CM greedy"
            reason = selection_reason(text, dataset, k, margin, results)
            claims.append(
                _claim(dataset, k, text, "324", "yes", paper_cm, _cm_beaten(dataset, k, margin), margin, reason)
            )
    return claims


def _with_readings(measure, readings):
    def measured(summary: pd.DataFrame) -> _Says:
        says = measure(summary)
        says.readings = readings(summary)
        return says

    return measured


def _count(summary: pd.DataFrame, dataset_name: str, method: str, k: int) -> str:
    part = summary[(summary["dataset"] == dataset_name) & (summary["method"] == method)]
    part = part[np.isclose(part["param"], k)] if method != "full" else part
    if not len(part) or "n_features" not in part:
        return "n/a"
    paper = PAPER_TABLES[
        (PAPER_TABLES["dataset"] == dataset_name) & (PAPER_TABLES["method"] == method) & (PAPER_TABLES["k"] == k)
    ]
    said = f" (paper {paper['size'].iloc[0]:g})" if len(paper) else ""
    return f"{selection_label(method)} {part['n_features'].iloc[0]:.1f}{said}"


def fold_differences(results: pd.DataFrame, dataset_name: str, better: str, worse: str, k: int) -> np.ndarray:
    """Per fold, the AUC of ``better`` minus that of ``worse`` at k (randomized methods: the mean over runs of the
    fold; DP at epsilon 1, as :func:`selection_claims` reads them).

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`evaluate_datasets` (metric "auc"; a randomized method's run r numbers its folds
        ``r * n_splits + i``).
    dataset_name, better, worse : str
        The data set and the two methods.
    k : int
        The k of the selectors and RF.

    Returns
    -------
    ndarray
        One difference per fold (empty where a method did not run).
    """
    auc = results[(results["dataset"] == dataset_name) & (results["metric"] == "auc")]
    n_splits = int(auc.groupby("method")["fold"].nunique().min()) if len(auc) else 0

    def per_fold(method):
        part = auc[auc["method"] == method]
        if method != "full":
            part = part[np.isclose(part["param"], 1.0 if method.endswith("-dp") else k)]
        return part.groupby(part["fold"] % max(n_splits, 1))["value"].mean()

    diff = (per_fold(better) - per_fold(worse)).dropna()
    return diff.to_numpy() if len(diff) == n_splits else np.array([])


def _tie_reason(results, dataset_name: str, better: str, worse: str, k: int, diff: float, margin: float):
    """A tie's reason: "noise" within two standard errors of the difference's spread over the folds; beyond them,
    "ambiguous" (the paper prints AUCs to two decimals and tests no difference; privnb's margin calls it a tie);
    None where the two methods score the same on every fold.
    """
    said = f"AUC difference {diff:+.3f}, margin {margin:g}"
    folds = fold_differences(results, dataset_name, better, worse, k) if results is not None else np.array([])
    if len(folds) < 2:
        why = "the two AUCs lie within the tie margin: five folds do not resolve a difference this small"
        return Reason("noise", why, said)
    if np.allclose(folds, 0):
        return None  # the same AUC on every fold: no noise, the selections agree (the data set's reason says why)
    se = float(np.std(folds, ddof=1) / np.sqrt(len(folds)))
    said += f"; standard error over the {len(folds)} folds {se:.3f}"
    if abs(diff) < 2 * se:
        return Reason("noise", "the difference is within two standard errors of its spread over the folds", said)
    why = (
        "a difference beyond the folds' noise but within 0.01: the paper prints AUCs to two decimals and tests no "
        "difference, and privnb calls one within that margin a tie"
    )
    return Reason("ambiguous", why, said)


def selection_reason(text: str, dataset_name: str, k: int, margin: float = 0.01, results: pd.DataFrame | None = None):
    """Why a claim of :data:`SELECTION_CLAIMS` (or "every k-AC selector beats CM greedy") differs.

    The reason (:class:`privnb.experiments.Reason`, a kind of :data:`privnb.experiments.REASON_KINDS`) is picked
    from the :func:`summary_table` the claim is measured on:

    - an AUC difference within ``margin`` (a "tie"): "noise" when within two standard errors of its spread over the
      folds (read from ``results``; without them, every tie), else "ambiguous" (privnb's margin calls it a tie);
    - a claim against RF: "ambiguous", the paper does not say what RF's SVM is tested on (RF's AUC under every
      reading that ran is the evidence);
    - a claim against Laplace-DP: "departure", privnb's Laplace-DP is epsilon-DP as booked, the paper's is not;
    - a claim between selectors on Adult: "data", its 19 binary features are privnb's bins (the paper's interval
      bounds were lost), so the selections differ (the selected counts are the evidence);
    - a claim between selectors on PU1: "departure", privnb selects on each training fold where the paper's
      counts are those of the whole data (tests/learn/test_feature_selection_pu1.py); Maximal's counts are not
      reachable at all ("unreachable", Section 4 of notebook 03).

    Parameters
    ----------
    text : str
        The claim's text (:data:`SELECTION_CLAIMS`).
    dataset_name : str
        Its data set.
    k : int
        Its k.
    margin : float
        The AUC margin of a tie.
    results : DataFrame, optional
        The tidy rows the summary condenses (:func:`fold_differences`).

    Returns
    -------
    callable
        ``reason(summary) -> Reason``.
    """
    better, worse = next(
        ((b, w) for t, b, w, *_ in SELECTION_CLAIMS if t == text), ("+".join(KAC_SELECTORS), "cm-greedy")
    )
    methods = [m for m in (*better.split("+"), worse) if m != "rf" and not m.endswith("-dp")]

    def reason(summary: pd.DataFrame) -> Reason:
        diffs = [_auc(summary, dataset_name, b, k) - _auc(summary, dataset_name, worse, k) for b in better.split("+")]
        diff = min(diffs)
        if not np.isnan(diff) and abs(diff) <= margin:
            closest = better.split("+")[int(np.nanargmin(diffs))]
            tie = _tie_reason(results, dataset_name, closest, worse, k, diff, margin)
            if tie is not None:
                return tie
        if worse == "rf":
            why = (
                "the paper does not say what RF's SVM is tested on; privnb's first reading trains on the flipped "
                "training fold and tests on raw rows"
            )
            paper = _paper_auc(dataset_name, "rf", k)
            return Reason(
                "ambiguous", why, f"RF by reading: {_rf_readings(dataset_name, k)(summary)}; paper {paper:.2f}"
            )
        if worse.endswith("-dp"):
            why = "privnb's Laplace-DP is epsilon-DP as booked; the paper's reading of it is not (Figure 1 section)"
            return Reason("departure", why, f"AUC difference {diff:+.3f}")
        counts = "; ".join(_count(summary, dataset_name, m, k) for m in methods)
        if dataset_name == "adult":
            why = "Adult's 19 binary features are privnb's bins (the paper's interval bounds were lost)"
            return Reason("data", why, f"features selected per training fold: {counts}")
        if "maximal" in methods and diffs[0] == diff:
            why = "Maximal's counts (121 / 66 / 58) are not reachable from Algorithm 1's text (Section 4)"
            return Reason("unreachable", why, f"features selected per training fold: {counts}")
        why = (
            "privnb selects on each training fold (train on protected data); the paper's counts are the whole "
            "data's (tests/learn/test_feature_selection_pu1.py)"
        )
        return Reason("departure", why, f"features selected per training fold: {counts}")

    return reason


def selection_claims_table(
    summary: pd.DataFrame, *, margin: float = 0.01, results: pd.DataFrame | None = None
) -> pd.DataFrame:
    """:func:`selection_claims` evaluated on ``summary``: the claims table (:data:`privnb.experiments.CLAIM_COLUMNS`).

    Parameters
    ----------
    summary : DataFrame
        A :func:`summary_table`.
    margin : float
        The AUC margin of a tie.
    results : DataFrame, optional
        The tidy rows ``summary`` condenses (a tie's reason reads their folds).

    Returns
    -------
    DataFrame
    """
    return evaluate(selection_claims(summary, margin=margin, results=results), summary)


def reading_table(summary: pd.DataFrame) -> pd.DataFrame:
    """RF (per k) and DP (per epsilon) AUC under each reading of the test protocol, beside the paper's RF.

    One row per (dataset, baseline, param); columns are the readings; ``paper`` is the paper's AUC (RF only:
    Figure 1's DP bars were not kept in our text) and ``closest`` the reading nearest to it.

    Parameters
    ----------
    summary : DataFrame
        A :func:`summary_table` (readings as method suffixes "@whole", "@both-folds").

    Returns
    -------
    DataFrame
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
    """AUC of the full feature set and RF with C tuned and with LIBLINEAR's default C = 1, beside the paper's.

    Parameters
    ----------
    summary : DataFrame
        A :func:`summary_table` (C = 1 as the method suffix "@C=1").

    Returns
    -------
    DataFrame
    """
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
    table["baseline"] = table["baseline"].map(selection_label)
    return table.dropna(subset=[c for c in table.columns if c.startswith("C ")], how="all")
