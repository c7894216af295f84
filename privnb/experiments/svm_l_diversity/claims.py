"""MC16's claims as :class:`~privnb.experiments.Claim` records, checked against :func:`run_svm_grid`'s results.

Mancuhan and Clifton, *Statistical Learning Theory Approach for Data Classification with l-diversity*
(MC16, arXiv 2016; its conference version with the appendix is MC16a): Section 5.2's observation aspects
for Adult, Appendix C.2 of MC16a for the other data sets, its Table 1 and the text of C.3 for the t-tests
(Table 1's rows read from the garbled extraction as Adult, Fatality, IPUMS, Marketing; Table 2's cells are
lost in the extraction, only its text remains). :data:`SVM_CLAIMS` holds them per data set; :func:`svm_claims`
evaluates them into the one claims schema (:data:`privnb.experiments.CLAIM_COLUMNS`).

The paper says only "Student's t-test": every claim read from a t-test is two records, one per reading
("paired t-test", "unpaired t-test"); the others have reading "". A claim the paper marks N/A that privnb
measures N/A is "both N/A" (counted apart, never an agreement); a measurement the run cannot make (a t-test
cell of a missing view) is "n/a".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privnb.experiments.claims import NOT_MEASURED, Claim, Reason, evaluate, fold_errors_reason, fold_rows, gap_reason
from privnb.experiments.data_causes import GENERALIZED, SVM_CAUSES, Cause
from privnb.experiments.svm_l_diversity.tables import error_rows, svm_aspects
from privnb.experiments.ttest import t_test_table

#: The readings of the paper's "Student's t-test": reading -> paired.
T_TEST_READINGS = {"paired t-test": True, "unpaired t-test": False}


@dataclass(frozen=True)
class SvmClaim(Claim):
    """A claim of MC16 about one of its classifiers (checked only where that classifier ran).

    Parameters
    ----------
    classifier : str
        "SVC" (linear kernel) or "SVM" (RBF kernel); the other parameters are :class:`Claim`'s.
    """

    classifier: str = ""


@dataclass(frozen=True)
class SvmEvidence:
    """What the claims of MC16 read: the observation aspects and the t-tests of original vs pruned.

    Parameters
    ----------
    aspects : DataFrame
        :func:`svm_aspects` of the run.
    ttests : mapping of str to DataFrame
        Reading (:data:`T_TEST_READINGS`) -> :func:`~privnb.experiments.t_test_table` of the original view
        against each pruned one, rows per classifier.
    errors : DataFrame, optional
        The run's error rows (:func:`error_rows`): the per-fold errors a differing t-test claim's reason reads.
    """

    aspects: pd.DataFrame
    ttests: Mapping[str, pd.DataFrame]
    errors: pd.DataFrame | None = None


def svm_evidence(results: pd.DataFrame, **aspects) -> SvmEvidence:
    """The evidence :data:`SVM_CLAIMS` reads from a run's results.

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`run_svm_grid` (the majority-class baseline's rows are left out).
    aspects
        ``classifiers``, ``ls``, ``k_anonymity`` of :func:`svm_aspects`.

    Returns
    -------
    SvmEvidence
    """
    errors = error_rows(results)
    return SvmEvidence(
        svm_aspects(results, **aspects),
        {
            reading: t_test_table(errors, against="pruned", rows="classifier", paired=paired)
            for reading, paired in T_TEST_READINGS.items()
        },
        errors,
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


def _shown(value) -> str:
    """How a measurement is written in the claims table ("3 of 4 l values", "+0.0100", "F F P", ...)."""
    if isinstance(value, tuple) and value and all(isinstance(v, str) for v in value):
        return " ".join(value)
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], tuple):
        return f"{_shown(value[0])}, t-test {value[1]}"
    if isinstance(value, tuple):
        return f"{value[0]} of {value[1]} l values"
    if isinstance(value, float):
        return NOT_MEASURED if math.isnan(value) else f"{value:+.4f}"
    return str(value)


def _reader(measure: Callable, reading: str) -> Callable[[SvmEvidence], object]:
    """``measure(aspects, ttests)`` on the evidence, with the t-tests of ``reading``; "n/a" where unmeasurable."""

    def read(evidence: SvmEvidence):
        try:
            return measure(evidence.aspects, evidence.ttests.get(reading))
        except (KeyError, ValueError, TypeError):
            return NOT_MEASURED

    return read


_KIND_ORDER = ("data", "ambiguous", "noise")  # a claim over several cells takes the first kind one of them has


def _cells_reason(classifier: str, ls: Sequence[int], cause: Cause):
    """Why a t-test claim over the cells ``ls`` differs: :func:`~privnb.experiments.claims.fold_errors_reason` of
    each cell (original against pruned), the claim taking the first of "data", "ambiguous", "noise" a cell has.
    """

    def reason(evidence: SvmEvidence) -> Reason | None:
        if evidence.errors is None:
            return None
        errors = evidence.errors[(evidence.errors["classifier"] == classifier) & (evidence.errors["note"] == "")]
        cells = {l: fold_errors_reason(errors, "pruned", l, cause=cause) for l in ls}
        if not cells:
            return None
        kind = next(k for k in _KIND_ORDER if any(r.kind == k for r in cells.values()))
        why = next(r.text for r in cells.values() if r.kind == kind)
        return Reason(kind, why, "; ".join(f"L={l}: {r.evidence}" for l, r in cells.items()))

    return reason


def _gap_reason(classifier: str, column: str, mode: int | str, cause: Cause):
    """Why an aspect claim differs: the gaps of ``column`` (:func:`svm_aspects`) against it, beside the standard
    error of one run's error rate (the original view's, on the data set's rows) (:func:`gap_reason`). ``mode``: -1
    or +1, the gaps of the wrong sign; "magnitude", every gap; "spread", the range of the column over l.
    """

    def reason(evidence: SvmEvidence) -> Reason | None:
        part = evidence.aspects[evidence.aspects["classifier"] == classifier].dropna(subset=[column])
        if evidence.errors is None or part.empty:
            return None
        values = dict(zip(part["l"], part[column]))
        if mode == "spread":
            gaps = [
                (f"{column} spread over L={min(values)}..{max(values)}", max(values.values()) - min(values.values()))
            ]
        else:
            shown = values if mode == "magnitude" else {l: v for l, v in values.items() if np.sign(v) != mode}
            gaps = [(f"{column} L={l}", v) for l, v in shown.items()]
        errors = evidence.errors[
            (evidence.errors["classifier"] == classifier) & (evidence.errors["method"] == "original")
        ]
        return gap_reason(gaps, error=float(errors["value"].mean()), rows=fold_rows(errors), cause=cause)

    return reason


def _claims(dataset_name: str, *specs) -> tuple[SvmClaim, ...]:
    """Claim records of ``dataset_name`` from ``(classifier, aspect, line, text, paper value, measure, agrees,
    t-test)``.

    ``line`` is the line of the paper's text ("MC16:296" of MC16's, "MC16a:1031" of MC16a's); ``measure(aspects,
    ttests)`` reads the measurements; a claim read from a t-test (``t-test``: the l of its cells) gives one record
    per reading, with the reason :func:`_cells_reason` should it differ.
    """
    claims, cause = [], SVM_CAUSES[dataset_name]
    for classifier, aspect, line, text, paper_value, measure, agrees, ttest, *gap in specs:
        paper = "MC16" if line.startswith("003:") else "MC16a"
        for reading in T_TEST_READINGS if ttest else ("",):
            claims.append(
                SvmClaim(
                    paper=paper,
                    source=f"aspect {aspect}, {paper}:{line.split(':')[1]}",
                    text=text,
                    paper_value=paper_value,
                    measure=_reader(measure, reading),
                    agrees=agrees,
                    dataset=dataset_name,
                    reading=reading,
                    show=_shown,
                    classifier=classifier,
                    reason=_cells_reason(classifier, ttest, cause)
                    if ttest
                    else _gap_reason(classifier, *gap[0], GENERALIZED if "generalized" in gap[0][0] else cause),
                )
            )
    return tuple(claims)


_L = (2, 3, 4, 5)
_FEW = "P for at least 2 l"


def _is(expected):
    return lambda value: value == expected


def _table1_claim(classifier, l, expected, line, text=None):
    significant = "significant" if expected == "P" else "not significant"
    text = text or f"Table 1 ({classifier}): Org. vs L={l} {significant} ({expected})"
    return (classifier, 1, line, text, expected, lambda a, t: _table1(t, classifier, l), _is(expected), (l,))


def _table2_svm(ls):
    """Appendix C.3's statement on every data set: pruned vs original SVM significant (P) for several of ``ls``."""
    text = "Table 2 (C.3 text): pruned vs original SVM significant (P) for several l"
    return ("SVM", 1, "MC16a:1058", text, _FEW, lambda a, t: _cells(t, "SVM", ls), _at_least("P", 2), tuple(ls))


def _direction(classifier, aspect, line, text, column, sign, values=None):
    """A claim that the pruned view is below (sign -1) or above (+1) another for every l (of ``values``)."""
    count = lambda a, t: _count(a, classifier, column, sign, values)  # noqa: E731
    return (classifier, aspect, line, text, "every l", count, _all_of, False, (column, sign))


SVM_CLAIMS: dict[str, tuple[SvmClaim, ...]] = {
    "adult": _claims(
        "adult",
        (
            "SVC",
            1,
            "MC16:296",
            "pruned SVC beats original SVC for several l (Fig. 5, C.1)",
            "at least 2 l",
            lambda a, t: _count(a, "SVC", "pruned - original", -1),
            lambda c: c[0] >= 2,
            False,
            ("pruned - original", -1),
        ),
        (
            "SVC",
            1,
            "MC16:296",
            "pruned SVC error falls as l grows (Fig. 5)",
            "slope < 0",
            lambda a, t: _slope(a, "SVC"),
            lambda s: s < 0,
            False,
            ("pruned", "spread"),
        ),
        _table1_claim("SVC", 4, "F", "MC16a:1016"),
        _table1_claim("SVC", 5, "F", "MC16a:1023"),
        (
            "SVC",
            1,
            "MC16a:1031",
            "C.3: pruned vs original SVC not significant for every l = 2..5 (F)",
            "F F F F",
            lambda a, t: _cells(t, "SVC", _L),
            _all_cells("F"),
            _L,
        ),
        _direction(
            "SVC",
            2,
            "MC16:298",
            "identifying SVC beats pruned SVC for l = 2..4 (bad predictor)",
            "pruned - identifying",
            1,
            [2, 3, 4],
        ),
        _direction(
            "SVC",
            3,
            "MC16:300",
            "pruned SVC beats generalized SVC for l = k = 3..5",
            "pruned - generalized(k=l)",
            -1,
            [3, 4, 5],
        ),
        _direction("SVM", 1, "MC16a:932", "original SVM beats pruned SVM (C.2)", "pruned - original", 1),
        (
            "SVM",
            1,
            "MC16a:932",
            "pruned SVM error grows with l (C.2)",
            "slope > 0",
            lambda a, t: _slope(a, "SVM"),
            lambda s: s > 0,
            False,
            ("pruned", "spread"),
        ),
        _table2_svm(_L),
        _direction(
            "SVM",
            2,
            "MC16a:951",
            "pruned SVM beats identifying SVM (C.2: good predictor in infinite dimensions)",
            "pruned - identifying",
            -1,
        ),
        _direction("SVM", 3, "MC16a:951", "pruned SVM beats generalized SVM (C.2)", "pruned - generalized(k=l)", -1),
    ),
    "bank": _claims(
        "bank",
        _direction(
            "SVC", 1, "MC16a:983", "original SVC beats pruned SVC (C.5, expected behaviour)", "pruned - original", 1
        ),
        _table1_claim("SVC", 4, "F", "MC16a:1016"),
        _table1_claim("SVC", 5, "F", "MC16a:1023"),
        (
            "SVC",
            1,
            "MC16a:1034",
            "C.3: pruned vs original SVC not significant for l = 3..5 (F)",
            "F F F",
            lambda a, t: _cells(t, "SVC", (3, 4, 5)),
            _all_cells("F"),
            (3, 4, 5),
        ),
        _direction(
            "SVC", 2, "MC16a:992", "identifying SVC beats pruned SVC (C.5: bad predictor)", "pruned - identifying", 1
        ),
        _direction("SVM", 1, "MC16a:996", "original SVM beats pruned SVM (C.6)", "pruned - original", 1),
        _table2_svm(_L),
        _direction(
            "SVM",
            2,
            "MC16a:999",
            "identifying SVM beats pruned SVM (C.6: not a good predictor)",
            "pruned - identifying",
            1,
        ),
    ),
    "fars": _claims(
        "fars",
        (
            "SVC",
            1,
            "MC16a:1000",
            "pruned SVC about equal to original SVC for all l (C.7): |difference| < 0.5 points",
            "< 0.005",
            lambda a, t: _max_abs(a, "SVC", "pruned - original"),
            lambda m: m < 0.005,
            False,
            ("pruned - original", "magnitude"),
        ),
        _table1_claim("SVC", 4, "F", "MC16a:1016"),
        _table1_claim("SVC", 5, "N/A", "MC16a:1023", "Table 1 (SVC): Org. vs L=5 N/A (4 alcohol values)"),
        (
            "SVC",
            1,
            "MC16a:1031",
            "C.3: pruned vs original SVC not significant for every l = 2..4 (F)",
            "F F F",
            lambda a, t: _cells(t, "SVC", (2, 3, 4)),
            _all_cells("F"),
            (2, 3, 4),
        ),
        (
            "SVC",
            2,
            "MC16a:1006",
            "pruned SVC does not beat identifying SVC (C.7)",
            "0 l",
            lambda a, t: _count(a, "SVC", "pruned - identifying", -1),
            lambda c: c[0] == 0,
            False,
            ("pruned - identifying", 1),
        ),
        _direction("SVM", 1, "MC16a:1009", "original SVM beats pruned SVM (C.8)", "pruned - original", 1),
        _table2_svm((2, 3, 4)),
        _direction("SVM", 2, "MC16a:1009", "identifying SVM beats pruned SVM (C.8)", "pruned - identifying", 1),
    ),
    "ipums": _claims(
        "ipums",
        _direction("SVC", 1, "MC16:296", "original SVC beats pruned SVC (Fig. 6, C.3)", "pruned - original", 1),
        _table1_claim("SVC", 4, "P", "MC16a:1016"),
        _table1_claim("SVC", 5, "P", "MC16a:1023"),
        (
            "SVC",
            1,
            "MC16a:1053",
            "C.3: pruned vs original SVC significant for almost all l (P, 3 of 4)",
            "P for at least 3 l",
            lambda a, t: _cells(t, "SVC", _L),
            _at_least("P", 3),
            _L,
        ),
        (
            "SVC",
            2,
            "MC16:298",
            "pruned SVC beats identifying SVC only for l = 2 (Fig. 6)",
            "l = 2 only",
            lambda a, t: _count(a, "SVC", "pruned - identifying", -1),
            lambda c: c == (1, c[1]),
            False,
            ("pruned - identifying", "magnitude"),
        ),
        (
            "SVM",
            1,
            "MC16a:974",
            "C.4: pruned SVM beats original SVM at l = 2, significant (Table 2: P)",
            "1 of 1 l values, t-test P",
            lambda a, t: (_count(a, "SVM", "pruned - original", -1, [2]), _table1(t, "SVM", 2)),
            lambda v: v[0] == (1, 1) and v[1] == "P",
            (2,),
        ),
    ),
}
"""The paper's claims per data set (:class:`SvmClaim` records; those read from a t-test once per reading)."""


def svm_claims(
    results: pd.DataFrame,
    dataset: str,
    *,
    classifiers: Sequence[str] | None = None,
    ls: Sequence[int] | None = None,
    k_anonymity: Sequence[int] | None = None,
    fallback: Reason | None = None,
) -> pd.DataFrame:
    """The claims of MC16 (and of MC16a's Appendix C.2 and Table 1) for ``dataset``, with verdicts.

    Each claim of :data:`SVM_CLAIMS` whose classifier ran is measured on the aspects (:func:`svm_aspects`)
    or on the t-tests of the original view against every pruned one (:func:`~privnb.experiments.t_test_table`,
    once per reading of :data:`T_TEST_READINGS`) and judged (:meth:`~privnb.experiments.Claim.verdict`).

    Parameters
    ----------
    results : DataFrame
        Tidy rows of :func:`run_svm_grid`.
    dataset : {"adult", "bank", "fars", "ipums"}
        The paper's data set whose claims apply; another name gives an empty table.
    classifiers, ls, k_anonymity
        As in :func:`svm_aspects` (defaults read from ``results``).
    fallback : Reason, optional
        The reason of a differing claim that names none (:func:`privnb.experiments.scale_reason` of a run below
        the paper's scale).

    Returns
    -------
    DataFrame
        The one claims schema, :data:`privnb.experiments.CLAIM_COLUMNS`; a t-test claim that differs carries
        the reason its fold errors give (:func:`privnb.experiments.claims.t_test_reason`).
    """
    present = set(results["classifier"])
    chosen = [claim for claim in SVM_CLAIMS.get(dataset, ()) if claim.classifier in present]
    if not chosen:
        return evaluate((), None)
    evidence = svm_evidence(results, classifiers=classifiers, ls=ls, k_anonymity=k_anonymity)
    return evaluate(chosen, evidence, fallback=fallback)


def compare_space_claims(
    results_by_space: Mapping[str, pd.DataFrame], dataset: str, *, values: bool = False, **aspects
) -> pd.DataFrame:
    """The claims of ``dataset`` measured in several input spaces side by side, and whether a verdict changes.

    Parameters
    ----------
    results_by_space : mapping of str to DataFrame
        Space -> tidy rows of :func:`run_svm_grid` (same data, folds and seed), the default space first.
    dataset : str
        The paper's data set (:data:`SVM_CLAIMS`).
    values : bool
        Also give each space's measured value (column ``value (<space>)`` after its verdicts).
    aspects
        ``classifiers``, ``ls``, ``k_anonymity`` of :func:`svm_aspects`.

    Returns
    -------
    DataFrame
        One row per claim and reading: ``source``, ``claim``, ``reading``, then one column per space holding its
        verdict (empty where the space did not run the claim's classifier), ``verdict changes`` (True where the
        spaces that measured the claim disagree) and, with ``values``, the measured values.
    """
    keys = ["source", "claim", "reading"]
    table = pd.DataFrame(columns=keys)
    for space, results in results_by_space.items():
        claims = svm_claims(results, dataset, **aspects)[[*keys, "verdict", "privnb value"]]
        claims = claims.rename(columns={"verdict": space, "privnb value": f"value ({space})"})
        table = claims if table.empty else table.merge(claims, on=keys, how="outer", sort=False)
    spaces = list(results_by_space)
    table["verdict changes"] = table[spaces].nunique(axis=1, dropna=True) > 1
    shown = [*keys, *spaces, "verdict changes", *([f"value ({space})" for space in spaces] if values else [])]
    return table[shown].fillna("")
