"""MC16's measurements from :func:`~privnb.experiments.run_svm_grid`'s results table.

Mancuhan and Clifton (MC16; MC16a with the appendix): the mean errors per view beside the majority-class
baseline (:func:`svm_summary`),
the three observation aspects of Section 5.2 (:func:`svm_aspects`), Theorem 4.1 evaluated on the
experiment's own pruned linear SVCs (:func:`theorem_4_1_table`) and the grid in several input spaces side
by side (:func:`compare_spaces`). The claims checked on them are in :mod:`privnb.experiments.svm_claims`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from privnb.bounds import rp2_range_from_data, second_term_share, theorem_4_1_terms
from privnb.experiments.labels import method_label, method_sort_key
from privnb.learn.svm import CLASSIFIER_NAMES

#: The classifier and method of the majority-class baseline's rows (:func:`privnb.experiments.majority_view`).
MAJORITY = "majority"

#: The flag column of :func:`svm_summary`: the view's mean error is at or above the majority class's.
AT_MAJORITY = "≥ majority"

#: Columns of :func:`theorem_4_1_table` (``theorem_4_1.csv`` of notebook 01).
THEOREM_4_1_COLUMNS = (
    "l",
    "n_train",
    "n_suppressed",
    "d",
    "appendix_b_r2_min",
    "appendix_b_r2_max",
    "r2_min",
    "r2_max",
    "w_norm",
    "rp2_min",
    "rp2_max",
    "vc_term",
    "pruning_term",
    "pruning_share",
    "bound",
    "error",
    "measured gap",
)

#: The columns of :data:`THEOREM_4_1_COLUMNS` a reader needs first: N, d, ||w_p||, the bound's two terms, the
#: bound, and the measured error and gap (the squared radii and [r_p^2] are the rest).
THEOREM_4_1_MAIN_COLUMNS = ("l", "n_train", "d", "w_norm", "vc_term", "pruning_term", "bound", "error", "measured gap")


def error_rows(results: pd.DataFrame, *, majority: bool = False) -> pd.DataFrame:
    """The ``error`` rows of a grid's results, without the majority-class baseline's unless asked.

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`~privnb.experiments.run_svm_grid`.
    majority : bool
        Keep the baseline's rows (classifier "majority").

    Returns
    -------
    DataFrame
    """
    errors = results[results["metric"] == "error"]
    return errors if majority else errors[errors["classifier"] != MAJORITY]


def majority_error(results: pd.DataFrame) -> float:
    """The majority-class baseline's mean error over folds (NaN when the results hold none).

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`~privnb.experiments.run_svm_grid`.

    Returns
    -------
    float
    """
    errors = results[(results["metric"] == "error") & (results["classifier"] == MAJORITY)]["value"]
    return float(errors.mean()) if len(errors) else float("nan")


def svm_summary(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and spread of the error of every (classifier, view) of the SVM grid over folds, beside the baseline.

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`~privnb.experiments.run_svm_grid` (its ``error`` rows are read; the
        Theorem 4.1 rows of ``theorem_inputs=True`` are ignored).

    Returns
    -------
    DataFrame
        One row per (classifier, method, param) in the papers' order of views (Org., Id., L=2.., k=2..), the
        majority-class baseline's included: ``mean_error``,
        ``std_error``, mean ``n_train`` and ``n_suppressed``, the first ``note`` (N/A reason), ``view`` (e.g.
        ``"L=2"``, ``"Majority"``) and :data:`AT_MAJORITY` (True where a classifier's mean error is at or
        above the baseline's: it learned nothing a constant guess would not give; False without a baseline).
    """
    summary = (
        error_rows(results, majority=True)
        .groupby(["classifier", "method", "param"], dropna=False)
        .agg(
            mean_error=("value", "mean"),
            std_error=("value", "std"),
            n_train=("n_train", "mean"),
            n_suppressed=("n_suppressed", "mean"),
            note=("note", "first"),
        )
        .reset_index()
    )
    summary = summary.iloc[sorted(range(len(summary)), key=lambda i: _view_order(summary.iloc[i]))]
    summary = summary.reset_index(drop=True)
    summary["view"] = [method_label(m, p) for m, p in zip(summary["method"], summary["param"])]
    summary[AT_MAJORITY] = (summary["classifier"] != MAJORITY) & (summary["mean_error"] >= majority_error(results))
    return summary


def _present(results: pd.DataFrame, method: str) -> list[int]:
    params = error_rows(results).loc[lambda f: f["method"] == method, "param"].dropna().unique()
    return sorted(int(p) for p in params)


def svm_aspects(
    results: pd.DataFrame,
    *,
    classifiers: Sequence[str] | None = None,
    ls: Sequence[int] | None = None,
    k_anonymity: Sequence[int] | None = None,
) -> pd.DataFrame:
    """The three observation aspects of Section 5.2 of MC16, one row per (classifier, l).

    1. pruned against original (Theorem 4.1: higher error, growing with l);
    2. pruned against identifying (the sensitive attribute as a predictor);
    3. pruned against generalized with k = l (anatomy keeps exact values).

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`~privnb.experiments.run_svm_grid`.
    classifiers : sequence of str, optional
        Rows' classifiers ("SVC", "SVM"), in this order; default those in ``results`` but the baseline, in order.
    ls : sequence of int, optional
        l of the pruned views; default the pruned params in ``results``.
    k_anonymity : sequence of int, optional
        k of the generalized views (a difference with "generalized(k=l)" needs l among them);
        default the generalized params in ``results``.

    Returns
    -------
    DataFrame
        Columns classifier, l, pruned (mean error), "pruned - original", "pruned - identifying",
        "pruned - generalized(k=l)" (NaN without that view) and "suppressed per fold".
    """
    summary = svm_summary(results)
    classifiers = list(dict.fromkeys(error_rows(results)["classifier"])) if classifiers is None else list(classifiers)
    ls = _present(results, "pruned") if ls is None else list(ls)
    k_anonymity = _present(results, "generalized") if k_anonymity is None else list(k_anonymity)
    means = summary.set_index(["classifier", "method", "param"])["mean_error"]

    def mean_of(classifier, method, param=np.nan):
        key = (classifier, method, float(param) if param is not None else np.nan)
        hits = [
            v
            for k, v in means.items()
            if k[0] == classifier and k[1] == method and ((np.isnan(k[2]) and np.isnan(key[2])) or k[2] == key[2])
        ]
        return hits[0] if hits else np.nan

    aspects = []
    for name in classifiers:
        org, ident = mean_of(name, "original"), mean_of(name, "identifying")
        for l in ls:
            pruned = mean_of(name, "pruned", l)
            gen = mean_of(name, "generalized", l) if l in k_anonymity else np.nan
            suppressed = summary[
                (summary["classifier"] == name) & (summary["method"] == "pruned") & (summary["param"] == l)
            ]["n_suppressed"]
            aspects.append(
                {
                    "classifier": name,
                    "l": l,
                    "pruned": pruned,
                    "pruned - original": pruned - org,
                    "pruned - identifying": pruned - ident,
                    "pruned - generalized(k=l)": pruned - gen,
                    "suppressed per fold": float(suppressed.iloc[0]) if len(suppressed) else np.nan,
                }
            )
    return pd.DataFrame(aspects)


def theorem_4_1_table(results: pd.DataFrame, d: int | None = None) -> pd.DataFrame:
    """Theorem 4.1 of MC16 (bound (4.6), proof in Appendix A of MC16a) on the grid's pruned SVCs.

    For each fold and l: N (rows of D_P) from the error rows, ||w_p|| and the prerequisite step's
    squared-norm extremes (Figure B.1) from the ``theorem_inputs=True`` rows, [r_p^2] = R^2 ||w_p||^2
    (:func:`privnb.bounds.rp2_range_from_data`), the VC term (3.5), the pruning term, their sum (4.6),
    the pruning term's share, and the measured gap: the pruned SVC's error minus the original SVC's on
    the same fold (a lower estimate of E[R(f_Np)] - inf R(f)). Averaged over folds, one row per l.

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`~privnb.experiments.run_svm_grid` with ``theorem_inputs=True``.
    d : int, optional
        The d of R^(d+1). Default: the space the learner actually saw, d = (its number of coordinates) - 1,
        read per fold from the ``dimension`` rows (:func:`~privnb.experiments.theorem_4_1_inputs`); in space
        "appendix_b" that is the number of identifying attributes, as in the paper; in space "one_hot" it is
        the one-hot width less one. Pass the number of quasi-identifiers to reproduce the paper's reading
        whatever the space.

    Returns
    -------
    DataFrame
        Columns :data:`THEOREM_4_1_COLUMNS`; a frame with the single column ``l`` and no rows when the
        results hold no linear SVC on pruned data (no ``w_norm`` rows).
    """
    linear = CLASSIFIER_NAMES["linear"]
    errors = error_rows(results)
    pruned_svc = results[(results["classifier"] == linear) & (results["method"] == "pruned")]
    per_fold = pruned_svc.pivot_table(index=["param", "fold"], columns="metric", values="value")
    if "w_norm" not in per_fold:
        return pd.DataFrame(columns=["l"])
    per_fold = per_fold.join(
        pruned_svc[pruned_svc["metric"] == "error"].set_index(["param", "fold"])[["n_train", "n_suppressed"]]
    )
    per_fold = per_fold.dropna(subset=["w_norm"]).reset_index()
    per_fold[["rp2_min", "rp2_max"]] = [
        rp2_range_from_data(lo, hi, w) for lo, hi, w in per_fold[["r2_min", "r2_max", "w_norm"]].to_numpy()
    ]
    if d is None and "dimension" not in per_fold:
        raise ValueError(
            "the results hold no `dimension` rows (made before the learner's space was recorded); "
            "pass d, the number of identifying attributes"
        )
    per_fold["d"] = per_fold["dimension"] - 1 if d is None else d
    first, second = theorem_4_1_terms(per_fold["n_train"], per_fold["d"], per_fold["rp2_min"], per_fold["rp2_max"])
    per_fold["vc_term"], per_fold["pruning_term"], per_fold["bound"] = first, second, first + second
    per_fold["pruning_share"] = second_term_share(
        per_fold["n_train"], per_fold["d"], per_fold["rp2_min"], per_fold["rp2_max"]
    )
    original = errors[(errors["classifier"] == linear) & (errors["method"] == "original")].set_index("fold")["value"]
    per_fold["measured gap"] = per_fold["error"] - per_fold["fold"].map(original)
    table = per_fold.groupby("param").mean(numeric_only=True).drop(columns="fold").rename_axis("l").reset_index()
    table["l"] = table["l"].astype(int)
    return table[list(THEOREM_4_1_COLUMNS)]


def compare_spaces(results_by_space: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The SVM grid in several input spaces side by side (MC16's R^(d+1), scaled or not, against a one-hot space).

    Parameters
    ----------
    results_by_space : mapping space -> DataFrame
        Tidy rows of :func:`~privnb.experiments.run_svm_grid` per ``space`` (same data, folds and seed),
        e.g. ``{"one_hot": ..., "appendix_b": ...}``; ``theorem_inputs=True`` adds d and the bound.

    Returns
    -------
    DataFrame
        One row per (classifier, view): ``error (<space>)`` for each space (mean over folds), ``<other> -
        <first>`` for every other space (its error less the first space's), and for the pruned linear SVCs ``d
        (<space>)`` (the learner's dimension less one) and ``bound (<space>)`` (4.6) from
        :func:`theorem_4_1_table` (NaN on other rows; no such columns for a space without a linear SVC), rows
        per classifier in the papers' order of views.
    """
    spaces = list(results_by_space)
    if not spaces:
        raise ValueError("no results to compare: pass {space: run_svm_grid(...) rows}")
    keys = ["classifier", "method", "param", "view"]
    table = None
    for space in spaces:
        summary = svm_summary(results_by_space[space])[keys + ["mean_error"]].rename(
            columns={"mean_error": f"error ({space})"}
        )
        table = summary if table is None else table.merge(summary, on=keys, how="outer", sort=False)
    for other in spaces[1:]:
        table[f"{other} - {spaces[0]}"] = table[f"error ({other})"] - table[f"error ({spaces[0]})"]
    for space in spaces:
        theorem = theorem_4_1_table(results_by_space[space])
        if "bound" not in theorem:
            continue  # no linear SVC on pruned data in this space: no d, no bound
        theorem = theorem[["l", "d", "bound"]].assign(
            classifier=CLASSIFIER_NAMES["linear"], method="pruned", param=theorem["l"].astype(float)
        )
        named = {"d": f"d ({space})", "bound": f"bound ({space})"}
        table = table.merge(
            theorem.drop(columns="l").rename(columns=named), on=["classifier", "method", "param"], how="left"
        )
    order = sorted(range(len(table)), key=lambda i: _view_order(table.iloc[i]))
    return table.iloc[order].drop(columns=["method", "param"]).reset_index(drop=True)


def _view_order(row) -> tuple:
    """Rows by classifier, then in the papers' order of views."""
    return row["classifier"], method_sort_key(row["method"], row["param"])
