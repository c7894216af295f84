"""Seed 003's claims checked against :func:`~privnb.experiments.run_svm_grid`'s results table.

Mancuhan and Clifton, *Statistical Learning Theory Approach for Data Classification with l-diversity*
(seed 003, arXiv 2016; its conference version with the appendix is seed 000): the mean errors per view
(:func:`svm_summary`), the three observation aspects of Section 5.2 (:func:`svm_aspects`), Theorem 4.1
evaluated on the experiment's own pruned linear SVCs (:func:`theorem_4_1_table`) and the paper's claims
side by side with the measurements (:func:`svm_claims`, :data:`SVM_CLAIMS`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from privnb.bounds import rp2_range_from_data, second_term_share, theorem_4_1_terms
from privnb.experiments.protocol import method_label
from privnb.experiments.ttest import t_test_table
from privnb.learn.svm import CLASSIFIER_NAMES

#: Columns of :func:`svm_claims`' table (``claims.csv`` of notebook 01).
CLAIM_COLUMNS = (
    "dataset",
    "classifier",
    "aspect",
    "paper",
    "line",
    "privnb measures",
    "verdict",
    "privnb measures (unpaired)",
    "verdict (unpaired)",
)

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


def _errors(results: pd.DataFrame) -> pd.DataFrame:
    return results[results["metric"] == "error"]


def svm_summary(results: pd.DataFrame) -> pd.DataFrame:
    """Mean and spread of the error of every (classifier, view) of the SVM grid over folds.

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`~privnb.experiments.run_svm_grid` (its ``error`` rows are read; the
        Theorem 4.1 rows of ``theorem_inputs=True`` are ignored).

    Returns
    -------
    DataFrame
        One row per (classifier, method, param): ``mean_error``, ``std_error``, mean ``n_train`` and
        ``n_suppressed``, the first ``note`` (N/A reason) and ``view`` (e.g. ``"L=2"``).
    """
    summary = (
        _errors(results)
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
    summary["view"] = [method_label(m, p) for m, p in zip(summary["method"], summary["param"])]
    return summary


def _present(results: pd.DataFrame, method: str) -> list[int]:
    params = _errors(results).loc[lambda f: f["method"] == method, "param"].dropna().unique()
    return sorted(int(p) for p in params)


def svm_aspects(
    results: pd.DataFrame,
    *,
    classifiers: Sequence[str] | None = None,
    ls: Sequence[int] | None = None,
    k_anonymity: Sequence[int] | None = None,
) -> pd.DataFrame:
    """The three observation aspects of Section 5.2 of seed 003, one row per (classifier, l).

    1. pruned against original (Theorem 4.1: higher error, growing with l);
    2. pruned against identifying (the sensitive attribute as a predictor);
    3. pruned against generalized with k = l (anatomy keeps exact values).

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`~privnb.experiments.run_svm_grid`.
    classifiers : sequence of str, optional
        Rows' classifiers ("SVC", "SVM"), in this order; default those in ``results``, in order.
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
    classifiers = list(dict.fromkeys(_errors(results)["classifier"])) if classifiers is None else list(classifiers)
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
    """Theorem 4.1 of seed 003 (bound (4.6), proof in Appendix A of seed 000) on the grid's pruned SVCs.

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
    errors = _errors(results)
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


def _slope(aspects, name):
    part = aspects[(aspects["classifier"] == name)].dropna(subset=["pruned"])
    return float(np.polyfit(part["l"], part["pruned"], 1)[0]) if len(part) >= 2 else np.nan


def _count(aspects, name, column, sign, values=None):
    part = aspects[(aspects["classifier"] == name)]
    if values is not None:
        part = part[part["l"].isin(values)]
    part = part.dropna(subset=[column])
    return int((np.sign(part[column]) == sign).sum()), len(part)


def _table1(ttests, name, l):
    label = f"Org. vs L={l}"
    return ttests.loc[name, label] if name in ttests.index and label in ttests.columns else "N/A"


def _cells(ttests, name, ls):
    """The t-test cells of ``name`` for every l in ``ls`` (N/A where not run)."""
    return tuple(_table1(ttests, name, l) for l in ls)


def _all_cells(expected):
    return lambda cells: len(cells) > 0 and all(c == expected for c in cells)


def _at_least(expected, n):
    return lambda cells: sum(c == expected for c in cells) >= n


def _max_abs(aspects, name, column):
    return float(aspects[aspects["classifier"] == name][column].abs().max())


def _all_of(count):
    return count[0] == count[1] > 0


def _is(expected):
    return lambda value: value == expected


#: The paper's statements per data set (Section 5.2 of seed 003 for Adult, Appendix C.2 of seed 000 for the
#: others, its Table 1 and the text of C.3 for the t-tests; Table 1's rows read from the garbled extraction
#: as Adult, Fatality, IPUMS, Marketing; Table 2's cells are lost in the extraction, only its text remains).
#: Each entry: (classifier, aspect, claim, line, measure, agrees), where ``line`` is the paper's line
#: ("003:296" is line 296 of seed 003's text, "000:1031" of seed 000's), ``measure(aspects, ttests)`` reads
#: the measurements and ``agrees(value)`` says whether they agree. A claim that the paper marks N/A and
#: privnb measures N/A is counted apart ("both N/A").
_L = (2, 3, 4, 5)
SVM_CLAIMS = {
    "adult": [
        (
            "SVC",
            1,
            "pruned SVC beats original SVC for several l (Fig. 5, C.1)",
            "003:296",
            lambda a, t: _count(a, "SVC", "pruned - original", -1),
            lambda c: c[0] >= 2,
        ),
        (
            "SVC",
            1,
            "pruned SVC error falls as l grows (Fig. 5)",
            "003:296",
            lambda a, t: _slope(a, "SVC"),
            lambda s: s < 0,
        ),
        ("SVC", 1, "Table 1: Org. vs L=4 not significant (F)", "000:1016", lambda a, t: _table1(t, "SVC", 4), _is("F")),
        ("SVC", 1, "Table 1: Org. vs L=5 not significant (F)", "000:1023", lambda a, t: _table1(t, "SVC", 5), _is("F")),
        (
            "SVC",
            1,
            "C.3: pruned vs original SVC not significant for every l = 2..5 (F)",
            "000:1031",
            lambda a, t: _cells(t, "SVC", _L),
            _all_cells("F"),
        ),
        (
            "SVC",
            2,
            "identifying SVC beats pruned SVC for l = 2..4 (bad predictor)",
            "003:298",
            lambda a, t: _count(a, "SVC", "pruned - identifying", 1, [2, 3, 4]),
            _all_of,
        ),
        (
            "SVC",
            3,
            "pruned SVC beats generalized SVC for l = k = 3..5",
            "003:300",
            lambda a, t: _count(a, "SVC", "pruned - generalized(k=l)", -1, [3, 4, 5]),
            _all_of,
        ),
        (
            "SVM",
            1,
            "original SVM beats pruned SVM (C.2)",
            "000:932",
            lambda a, t: _count(a, "SVM", "pruned - original", 1),
            _all_of,
        ),
        ("SVM", 1, "pruned SVM error grows with l (C.2)", "000:932", lambda a, t: _slope(a, "SVM"), lambda s: s > 0),
        (
            "SVM",
            1,
            "Table 2 (C.3 text): pruned vs original SVM significant (P) for several l",
            "000:1058",
            lambda a, t: _cells(t, "SVM", _L),
            _at_least("P", 2),
        ),
        (
            "SVM",
            2,
            "pruned SVM beats identifying SVM (C.2: good predictor in infinite dimensions)",
            "000:951",
            lambda a, t: _count(a, "SVM", "pruned - identifying", -1),
            _all_of,
        ),
        (
            "SVM",
            3,
            "pruned SVM beats generalized SVM (C.2)",
            "000:951",
            lambda a, t: _count(a, "SVM", "pruned - generalized(k=l)", -1),
            _all_of,
        ),
    ],
    "bank": [
        (
            "SVC",
            1,
            "original SVC beats pruned SVC (C.5, expected behaviour)",
            "000:983",
            lambda a, t: _count(a, "SVC", "pruned - original", 1),
            _all_of,
        ),
        ("SVC", 1, "Table 1: Org. vs L=4 not significant (F)", "000:1016", lambda a, t: _table1(t, "SVC", 4), _is("F")),
        ("SVC", 1, "Table 1: Org. vs L=5 not significant (F)", "000:1023", lambda a, t: _table1(t, "SVC", 5), _is("F")),
        (
            "SVC",
            1,
            "C.3: pruned vs original SVC not significant for l = 3..5 (F)",
            "000:1034",
            lambda a, t: _cells(t, "SVC", (3, 4, 5)),
            _all_cells("F"),
        ),
        (
            "SVC",
            2,
            "identifying SVC beats pruned SVC (C.5: bad predictor)",
            "000:992",
            lambda a, t: _count(a, "SVC", "pruned - identifying", 1),
            _all_of,
        ),
        (
            "SVM",
            1,
            "original SVM beats pruned SVM (C.6)",
            "000:996",
            lambda a, t: _count(a, "SVM", "pruned - original", 1),
            _all_of,
        ),
        (
            "SVM",
            1,
            "Table 2 (C.3 text): pruned vs original SVM significant (P) for several l",
            "000:1058",
            lambda a, t: _cells(t, "SVM", _L),
            _at_least("P", 2),
        ),
        (
            "SVM",
            2,
            "identifying SVM beats pruned SVM (C.6: not a good predictor)",
            "000:999",
            lambda a, t: _count(a, "SVM", "pruned - identifying", 1),
            _all_of,
        ),
    ],
    "fars": [
        (
            "SVC",
            1,
            "pruned SVC about equal to original SVC for all l (C.7): |difference| < 0.5 points",
            "000:1000",
            lambda a, t: _max_abs(a, "SVC", "pruned - original"),
            lambda m: m < 0.005,
        ),
        ("SVC", 1, "Table 1: Org. vs L=4 not significant (F)", "000:1016", lambda a, t: _table1(t, "SVC", 4), _is("F")),
        (
            "SVC",
            1,
            "Table 1: Org. vs L=5 N/A (4 alcohol values)",
            "000:1023",
            lambda a, t: _table1(t, "SVC", 5),
            _is("N/A"),
        ),
        (
            "SVC",
            1,
            "C.3: pruned vs original SVC not significant for every l = 2..4 (F)",
            "000:1031",
            lambda a, t: _cells(t, "SVC", (2, 3, 4)),
            _all_cells("F"),
        ),
        (
            "SVC",
            2,
            "pruned SVC does not beat identifying SVC (C.7)",
            "000:1006",
            lambda a, t: _count(a, "SVC", "pruned - identifying", -1),
            lambda c: c[0] == 0,
        ),
        (
            "SVM",
            1,
            "original SVM beats pruned SVM (C.8)",
            "000:1009",
            lambda a, t: _count(a, "SVM", "pruned - original", 1),
            _all_of,
        ),
        (
            "SVM",
            1,
            "Table 2 (C.3 text): pruned vs original SVM significant (P) for several l",
            "000:1058",
            lambda a, t: _cells(t, "SVM", (2, 3, 4)),
            _at_least("P", 2),
        ),
        (
            "SVM",
            2,
            "identifying SVM beats pruned SVM (C.8)",
            "000:1009",
            lambda a, t: _count(a, "SVM", "pruned - identifying", 1),
            _all_of,
        ),
    ],
    "ipums": [
        (
            "SVC",
            1,
            "original SVC beats pruned SVC (Fig. 6, C.3)",
            "003:296",
            lambda a, t: _count(a, "SVC", "pruned - original", 1),
            _all_of,
        ),
        ("SVC", 1, "Table 1: Org. vs L=4 significant (P)", "000:1016", lambda a, t: _table1(t, "SVC", 4), _is("P")),
        ("SVC", 1, "Table 1: Org. vs L=5 significant (P)", "000:1023", lambda a, t: _table1(t, "SVC", 5), _is("P")),
        (
            "SVC",
            1,
            "C.3: pruned vs original SVC significant for almost all l (P, 3 of 4)",
            "000:1053",
            lambda a, t: _cells(t, "SVC", _L),
            _at_least("P", 3),
        ),
        (
            "SVC",
            2,
            "pruned SVC beats identifying SVC only for l = 2 (Fig. 6)",
            "003:298",
            lambda a, t: _count(a, "SVC", "pruned - identifying", -1),
            lambda c: c == (1, c[1]),
        ),
        (
            "SVM",
            1,
            "C.4: pruned SVM beats original SVM at l = 2, significant (Table 2: P)",
            "000:974",
            lambda a, t: (_count(a, "SVM", "pruned - original", -1, [2]), _table1(t, "SVM", 2)),
            lambda v: v[0] == (1, 1) and v[1] == "P",
        ),
    ],
}


def _fmt(value) -> str:
    if isinstance(value, tuple) and value and all(isinstance(v, str) for v in value):
        return " ".join(value)
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], tuple):
        return f"{_fmt(value[0])}, t-test {value[1]}"
    if isinstance(value, tuple):
        return f"{value[0]} of {value[1]} l values"
    if isinstance(value, float):
        return f"{value:+.4f}"
    return str(value)


def svm_claims(
    results: pd.DataFrame,
    dataset: str,
    *,
    classifiers: Sequence[str] | None = None,
    ls: Sequence[int] | None = None,
    k_anonymity: Sequence[int] | None = None,
) -> pd.DataFrame:
    """The claims of seed 003 (and of seed 000's Appendix C.2 and Table 1) for ``dataset``, with verdicts.

    Each claim of :data:`SVM_CLAIMS` whose classifier ran is measured on the aspects
    (:func:`svm_aspects`) or on the t-tests of the original view against every pruned one
    (:func:`~privnb.experiments.t_test_table`), paired (``verdict``) and unpaired (``verdict
    (unpaired)``: the paper says only "Student's t-test"), and judged "agree" or "differ"; a claim of N/A
    that privnb measures N/A is "both N/A" (counted apart, never an agreement); a measurement that cannot
    be made (e.g. a t-test cell of a missing view) is "n/a".

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`~privnb.experiments.run_svm_grid`.
    dataset : {"adult", "bank", "fars", "ipums"}
        The paper's data set whose claims apply; another name gives an empty table.
    classifiers, ls, k_anonymity
        As in :func:`svm_aspects` (defaults read from ``results``).

    Returns
    -------
    DataFrame
        Columns :data:`CLAIM_COLUMNS`: dataset, classifier, aspect, paper (the claim), line (of the
        paper's text), "privnb measures" (formatted measurement) and verdict ("agree", "differ", "both
        N/A" or "n/a"), then the same two under the unpaired t-test.
    """
    aspects = svm_aspects(results, classifiers=classifiers, ls=ls, k_anonymity=k_anonymity)
    readings = {
        "": t_test_table(_errors(results), against="pruned", rows="classifier"),
        " (unpaired)": t_test_table(_errors(results), against="pruned", rows="classifier", paired=False),
    }
    present = set(results["classifier"])
    rows = []
    for classifier, aspect, claim, line, measure, agrees in SVM_CLAIMS.get(dataset, []):
        if classifier not in present:
            continue
        row = {"dataset": dataset, "classifier": classifier, "aspect": aspect, "paper": claim, "line": line}
        for suffix, ttests in readings.items():
            try:
                value = measure(aspects, ttests)
                verdict = "agree" if agrees(value) else "differ"
                if verdict == "agree" and "N/A" in claim and value == "N/A":
                    verdict = "both N/A"  # no l = 5 on either side: no agreement, counted apart
            except (KeyError, ValueError, TypeError) as error:
                value, verdict = f"not measurable: {error}", "n/a"
            row["privnb measures" + suffix], row["verdict" + suffix] = _fmt(value), verdict
        rows.append(row)
    return pd.DataFrame(rows, columns=list(CLAIM_COLUMNS))


def compare_spaces(results_by_space: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The SVM grid in several input spaces side by side (seed 003's R^(d+1) against privnb's one-hot).

    Parameters
    ----------
    results_by_space : mapping space -> DataFrame
        Tidy rows of :func:`~privnb.experiments.run_svm_grid` per ``space`` (same data, folds and seed),
        e.g. ``{"one_hot": ..., "appendix_b": ...}``; ``theorem_inputs=True`` adds d and the bound.

    Returns
    -------
    DataFrame
        One row per (classifier, view): ``error (<space>)`` for each space (mean over folds), ``<second> -
        <first>`` (the error difference of the first two spaces), and for the pruned linear SVCs ``d
        (<space>)`` (the learner's dimension less one) and ``bound (<space>)`` (4.6) from
        :func:`theorem_4_1_table` (NaN on other rows).
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
    if len(spaces) >= 2:
        table[f"{spaces[1]} - {spaces[0]}"] = table[f"error ({spaces[1]})"] - table[f"error ({spaces[0]})"]
    for space in spaces:
        theorem = theorem_4_1_table(results_by_space[space])
        theorem = theorem[["l", "d", "bound"]] if "bound" in theorem else pd.DataFrame(columns=["l", "d", "bound"])
        theorem = theorem.assign(
            classifier=CLASSIFIER_NAMES["linear"], method="pruned", param=theorem["l"].astype(float)
        )
        named = {"d": f"d ({space})", "bound": f"bound ({space})"}
        table = table.merge(
            theorem.drop(columns="l").rename(columns=named), on=["classifier", "method", "param"], how="left"
        )
    return table.drop(columns=["method", "param"])
