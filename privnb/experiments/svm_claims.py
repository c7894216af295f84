"""Seed 003's claims checked against :func:`~privnb.experiments.run_svm_grid`'s results table.

Mancuhan and Clifton, *Statistical Learning Theory Approach for Data Classification with l-diversity*
(seed 003, arXiv 2016; its conference version with the appendix is seed 000): the mean errors per view
(:func:`svm_summary`), the three observation aspects of Section 5.2 (:func:`svm_aspects`), Theorem 4.1
evaluated on the experiment's own pruned linear SVCs (:func:`theorem_4_1_table`) and the paper's claims
side by side with the measurements (:func:`svm_claims`, :data:`SVM_CLAIMS`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from privnb.experiments.svm_tables import _errors, svm_aspects
from privnb.experiments.ttest import t_test_table

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


def _table2_svm(ls):
    """Appendix C.3's statement on every data set: pruned vs original SVM significant (P) for several of ``ls``."""
    return (
        "SVM",
        1,
        "Table 2 (C.3 text): pruned vs original SVM significant (P) for several l",
        "000:1058",
        lambda a, t: _cells(t, "SVM", ls),
        _at_least("P", 2),
    )


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
        _table2_svm(_L),
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
        _table2_svm(_L),
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
        _table2_svm((2, 3, 4)),
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
