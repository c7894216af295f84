"""One claim record and one claims schema for every paper: a paper's statement, what privnb measures for
it, and the verdict, counted honestly.

Every paper's claims are data: a tuple of :class:`Claim` records, each naming its source in the paper, the
statement, the paper's value, how privnb measures it from the run's evidence (tables, t-tests) and when the
measurement agrees. :func:`evaluate` gives one table with the columns :data:`CLAIM_COLUMNS`, the same for
every notebook, and the report counts its ``verdict`` column.

A claim the paper marks N/A (no l = 5 on Fatality: its sensitive attribute has 4 values) that privnb also
cannot measure is no agreement: it is counted apart, as "both N/A". A claim privnb cannot measure in the
run (a view or a k that did not run) is "n/a". Where the paper leaves a reading open (its "Student's t-test
at 0.95" does not say paired or not), one claim per reading is evaluated, and ``reading`` says which.

A "differ" verdict is never left bare: each carries a :class:`Reason` of one of :data:`REASON_KINDS` (the data
differ from the paper's, the paper is ambiguous and privnb chose, the paper's number is not reachable, sampling
noise at this scale, a privnb departure) and its evidence, a number computed from the run's evidence or the
test that shows it. A claim names its reason (``Claim.reason``); a run below the paper's scale can give one
reason for every differing claim that names none (:func:`evaluate`'s ``fallback``, :func:`scale_reason`);
:func:`unexplained` lists the "differ" rows that still have none (the notebooks' tests require none).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privnb.experiments.ttest import paired_t_test, unpaired_t_test

#: Verdicts, in the order :func:`count_verdicts` reports them.
VERDICTS = ("agree", "differ", "both N/A", "n/a")

#: The kinds of reason a "differ" verdict carries: kind -> what it means.
REASON_KINDS = {
    "data": "the data differ from the paper's",
    "ambiguous": "the paper is ambiguous and privnb chose",
    "unreachable": "the paper's number is not reachable",
    "noise": "sampling noise at this scale",
    "departure": "a privnb departure",
}

#: The columns of every claims table (``claims.csv`` of each notebook).
CLAIM_COLUMNS = (
    "paper",
    "dataset",
    "source",
    "claim",
    "reading",
    "paper value",
    "privnb value",
    "verdict",
    "reason",
    "why",
    "evidence",
)

#: What a measurement reads when privnb cannot measure the claim in this run.
NOT_MEASURED = "n/a"


def _equals_paper(paper_value):
    return lambda measured: str(measured) == str(paper_value)


@dataclass(frozen=True)
class Reason:
    """Why privnb's measurement of a claim differs from the paper's, and the evidence that shows it.

    Parameters
    ----------
    kind : str
        One of :data:`REASON_KINDS`.
    text : str
        The reason in words ("Adult's rows differ: ...").
    evidence : str or callable
        ``evidence(claims_evidence) -> str``: a number computed from the run's evidence (what the claims'
        ``measure`` functions read), or a fixed pointer to the test that shows it
        ("tests/learn/test_feature_selection_pu1.py::test_...").
    """

    kind: str
    text: str
    evidence: str | Callable[[object], str]

    def __post_init__(self):
        if self.kind not in REASON_KINDS:
            raise ValueError(f"a reason's kind must be one of {sorted(REASON_KINDS)}; got {self.kind!r}")
        if not str(self.text).strip():
            raise ValueError("a reason needs its text: say why the measurement differs from the paper's")
        if not callable(self.evidence) and not str(self.evidence).strip():
            raise ValueError("a reason needs its evidence: a function of the run's evidence, or the test that shows it")

    def shown(self, evidence) -> tuple[str, str, str]:
        """(kind, text, evidence) as the claims table writes them, the evidence computed on ``evidence``.

        Parameters
        ----------
        evidence : object
            What the claims' ``measure`` functions read.

        Returns
        -------
        tuple of str
        """
        found = self.evidence(evidence) if callable(self.evidence) else self.evidence
        return self.kind, self.text, str(found)


def t_test_reason(original, private, *, rows: int, cause: tuple[str, str], confidence: float = 0.95) -> Reason:
    """Why a t-test cell of the papers' tables ("P"/"F", original against a private view) differs from the
    paper's, read from the per-fold errors of the two views.

    - "ambiguous" when the two readings of the paper's "Student's t-test" (paired, unpaired) disagree on the cell;
    - "noise" when the cell is near the test's threshold (both p-values between 0.01 and 0.2) or the mean difference
      is within two standard errors of one run's error rate on ``rows`` rows (``sqrt(e (1 - e) / rows)``):
      another draw of folds or rows, such as the paper's, can flip the cell;
    - ``cause`` otherwise: a clear-cut difference beyond that sampling error, put down to what differs between
      privnb's run and the paper's on this data set (its data, or privnb's reading where the paper is silent).

    Parameters
    ----------
    original, private : array-like of float
        The two views' per-fold errors, paired by fold.
    rows : int
        The rows the folds cover (the data set's size).
    cause : (str, str)
        The kind (:data:`REASON_KINDS`) and words of a clear-cut difference on this data set.
    confidence : float
        The t-tests' confidence.

    Returns
    -------
    Reason
    """
    original, private = np.asarray(original, dtype=float), np.asarray(private, dtype=float)
    paired = paired_t_test(original, private, confidence=confidence)
    unpaired = unpaired_t_test(original, private, confidence=confidence)
    error = float(original.mean())
    effect = float(private.mean() - original.mean())
    se = one_run_error(error, rows)
    evidence = (
        f"p = {paired.pvalue:.3g} paired, {unpaired.pvalue:.3g} unpaired; difference {100 * effect:+.2f} points, "
        f"standard error of one run {100 * se:.2f} points ({int(rows)} rows)"
    )
    if paired.significant != unpaired.significant:
        return Reason(
            "ambiguous",
            'the paper says only "Student\'s t-test": its paired and unpaired readings split here',
            evidence,
        )
    if abs(effect) < 2 * se:
        why = "the difference is within two standard errors of one run's error: other folds or rows can flip the cell"
        return Reason("noise", why, evidence)
    if all(0.01 <= p <= 0.2 for p in (paired.pvalue, unpaired.pvalue)):
        why = "both readings' p-values lie in 0.01-0.2, near the 0.05 threshold: other folds or rows can flip the cell"
        return Reason("noise", why, evidence)
    return Reason(
        cause[0], f"a clear-cut difference beyond two standard errors of one run's error; {cause[1]}", evidence
    )


def one_run_error(error: float, rows: int) -> float:
    """The standard error of one run's error rate ``error`` measured on ``rows`` rows, ``sqrt(e (1 - e) / rows)``:
    the size of the sampling noise a reason compares a gap with.

    Parameters
    ----------
    error : float
        The error rate.
    rows : int
        The rows it is measured on.

    Returns
    -------
    float
    """
    return float(np.sqrt(max(error * (1 - error), 0.0) / max(int(rows), 1)))


def gap_reason(gaps, *, error: float, rows: int, cause: tuple[str, str]) -> Reason | None:
    """Why a claim on error rates differs, from the gaps found against it beside the sampling noise of one run.

    "noise" when every gap is within two standard errors of one run's error (:func:`one_run_error`), ``cause``
    (kind and words, as in :func:`t_test_reason`) when some gap exceeds them; None without gaps.

    Parameters
    ----------
    gaps : sequence of (str, float)
        Each comparison against the claim, labelled, and its gap in error rate.
    error : float
        The error rate whose noise the gaps are read against (the original view's).
    rows : int
        The rows the folds cover.
    cause : (str, str)
        The kind and words of a difference beyond the noise.

    Returns
    -------
    Reason or None
    """
    if not gaps:
        return None
    se = one_run_error(error, rows)
    shown = "; ".join(f"{label} {100 * gap:+.2f}" for label, gap in gaps[:6]) + ("; ..." if len(gaps) > 6 else "")
    evidence = (
        f"gaps against the claim (points): {shown}; standard error of one run {100 * se:.2f} points ({rows} rows)"
    )
    if max(abs(gap) for _, gap in gaps) < 2 * se:
        return Reason("noise", "every gap against the claim is within two standard errors of one run's error", evidence)
    return Reason(
        cause[0], f"a gap against the claim exceeds two standard errors of one run's error; {cause[1]}", evidence
    )


def fold_errors_reason(errors: pd.DataFrame, view: str, l: int, *, cause: tuple[str, str]) -> Reason:
    """Why a t-test cell (the original view against ``view`` at l) differs, read from one classifier's fold errors:
    "data" where the view could not be built in every fold, else :func:`t_test_reason`.

    Parameters
    ----------
    errors : DataFrame
        Tidy error rows of one classifier (``method``, ``param``, ``fold``, ``value``, ``n_train``), N/A rows left
        out.
    view : str
        The private view's method ("pruned", "anatomized").
    l : int
        Its l.
    cause : (str, str)
        As in :func:`t_test_reason`.

    Returns
    -------
    Reason
    """
    original = errors[errors["method"] == "original"].set_index("fold")["value"].sort_index()
    private = errors[(errors["method"] == view) & (errors["param"] == l)].set_index("fold")["value"]
    private = private.reindex(original.index)
    if len(original) < 2 or private.isna().any():
        why = f"privnb cannot build the {view} view at l = {l} in every fold (fewer than l sensitive values)"
        return Reason("data", why, f"{int(private.isna().sum())} of {len(original)} folds N/A")
    return t_test_reason(original, private, rows=fold_rows(errors[errors["method"] == "original"]), cause=cause)


def fold_rows(results: pd.DataFrame) -> int:
    """The rows the folds of tidy ``results`` cover: every row trains in all folds but its own, so the training
    rows summed over the folds are (folds - 1) times the rows.

    Parameters
    ----------
    results : DataFrame
        Tidy rows with ``fold`` and ``n_train`` (of one data set and one training view).

    Returns
    -------
    int
    """
    per_fold = results.groupby("fold")["n_train"].max()
    return round(per_fold.sum() / (len(per_fold) - 1)) if len(per_fold) > 1 else int(per_fold.sum())


def scale_reason(rows: int, *, sampled: bool, folds: int, paper_folds: int) -> Reason | None:
    """The "noise" reason of a run below the paper's scale (a sample of the rows, or fewer folds), else None.

    Parameters
    ----------
    rows : int
        The rows the run used.
    sampled : bool
        Whether they are a sample of the data set (the paper uses every row).
    folds : int
        The run's folds.
    paper_folds : int
        The paper's folds.

    Returns
    -------
    Reason or None
    """
    if not sampled and folds >= paper_folds:
        return None
    why = "this run is smaller than the paper's: run the paper sweep to judge the claim"
    run = f"{rows} rows{' (a sample)' if sampled else ''}, {folds} folds"
    return Reason("noise", why, f"{run}; the paper: every row, {paper_folds} folds")


@dataclass(frozen=True)
class Claim:
    """One statement of a paper, and how privnb checks it.

    Parameters
    ----------
    paper : str
        The paper's key (README's References: MC16, MC16a, MC17, FSAC, MZ09).
    source : str
        Where the paper says it: a section, table or figure, and the line of its text ("Table 1, MC16a:1016").
    text : str
        The statement in words.
    paper_value : object
        What the paper reports ("P", "F", "holds", 0.94, "N/A").
    measure : callable
        ``measure(evidence) -> value``: privnb's value for the claim from the run's evidence (whatever the
        paper's claims are written against: a dict of tables, a results frame); :data:`NOT_MEASURED` or
        None when the run cannot measure it, "N/A" when privnb finds the claim undefined as the paper does.
    agrees : callable, optional
        ``agrees(value) -> bool``; default: the value equals ``paper_value`` as text.
    dataset : str
        The data set the claim is about ("" for a claim about no data set).
    reading : str
        The reading of the paper the measurement takes where the paper is silent ("paired t-test", ...).
    show : callable, optional
        ``show(value) -> str``: how the value is written in the table (default ``str``; floats with 4
        decimals).
    reason : Reason or callable, optional
        Why privnb's value differs from the paper's where it does (shown only on a "differ" verdict); a callable
        ``reason(evidence) -> Reason`` picks it from the run's evidence (an AUC tie is noise, a loss is not).
    """

    paper: str
    source: str
    text: str
    paper_value: object
    measure: Callable[[object], object]
    agrees: Callable[[object], bool] | None = None
    dataset: str = ""
    reading: str = ""
    show: Callable[[object], str] | None = None
    reason: Reason | Callable[[object], Reason | None] | None = None

    def verdict(self, measured) -> str:
        """The verdict: "agree", "differ", "both N/A" (paper and privnb say N/A) or "n/a" (not measured).

        Parameters
        ----------
        measured : object
            privnb's value, as :attr:`measure` gives it.

        Returns
        -------
        str
        """
        if str(self.paper_value) == "N/A" and str(measured) == "N/A":
            return "both N/A"
        if _not_measured(measured):
            return NOT_MEASURED
        agrees = self.agrees or _equals_paper(self.paper_value)
        return "agree" if agrees(measured) else "differ"

    def shown(self, measured) -> str:
        """The measured value as the table writes it."""
        if self.show is not None:
            return self.show(measured)
        if isinstance(measured, float):
            return "n/a" if math.isnan(measured) else f"{measured:.4f}"
        return str(measured)


def _not_measured(measured) -> bool:
    if measured is None or str(measured) == NOT_MEASURED:
        return True
    return isinstance(measured, float) and math.isnan(measured)


def verdict(paper, measured) -> str:
    """The verdict of a measurement against the paper's value, compared as text.

    Parameters
    ----------
    paper : object
        The paper's value.
    measured : object
        privnb's value.

    Returns
    -------
    str
        One of :data:`VERDICTS`.
    """
    return Claim("", "", "", paper, lambda evidence: measured).verdict(measured)


def evaluate(claims: Iterable[Claim], evidence, *, fallback: Reason | None = None) -> pd.DataFrame:
    """Every claim measured on ``evidence`` and judged: one row per claim, the columns :data:`CLAIM_COLUMNS`.

    A "differ" row carries its claim's :class:`Reason` (kind, why, evidence computed on ``evidence``), or
    ``fallback`` where the claim names none; other rows leave the three columns empty.

    Parameters
    ----------
    claims : iterable of Claim
        The paper's claims (for one or several data sets and readings).
    evidence : object
        What the claims' ``measure`` functions read.
    fallback : Reason, optional
        The reason of a differing claim that names none (:func:`scale_reason` of a run below the paper's
        scale); None leaves such a row unexplained (:func:`unexplained`).

    Returns
    -------
    DataFrame
    """
    rows = []
    for claim in claims:
        measured = claim.measure(evidence)
        judged = claim.verdict(measured)
        reason = None
        if judged == "differ":  # a reason is read from the evidence only where it is shown
            reason = (claim.reason(evidence) if callable(claim.reason) else claim.reason) or fallback
        rows.append(
            (
                claim.paper,
                claim.dataset,
                claim.source,
                claim.text,
                claim.reading,
                str(claim.paper_value),
                claim.shown(measured),
                judged,
                *(reason.shown(evidence) if reason is not None else ("", "", "")),
            )
        )
    return pd.DataFrame(rows, columns=list(CLAIM_COLUMNS))


def unexplained(claims: pd.DataFrame) -> pd.DataFrame:
    """The "differ" rows of a claims table that carry no reason (every differing claim must carry one).

    Parameters
    ----------
    claims : DataFrame
        A table of :func:`evaluate`.

    Returns
    -------
    DataFrame
    """
    reason = claims["reason"].fillna("").astype(str) if "reason" in claims else pd.Series("", index=claims.index)
    return claims[(claims["verdict"] == "differ") & (reason.str.strip() == "")]


def reason_counts(claims: pd.DataFrame) -> pd.DataFrame:
    """Per data set: the claims agreeing, and the differing ones by reason kind (:data:`REASON_KINDS`).

    Parameters
    ----------
    claims : DataFrame
        A table of :func:`evaluate`.

    Returns
    -------
    DataFrame
        Index ``dataset``; columns "agree", then "differ: <kind>" per kind found ("differ: none" for rows
        without a reason).
    """
    differ = claims[claims["verdict"] == "differ"]
    kinds = differ["reason"].replace("", "none") if "reason" in differ else pd.Series("none", index=differ.index)
    counts = pd.crosstab(differ["dataset"], "differ: " + kinds) if len(differ) else pd.DataFrame()
    agree = claims[claims["verdict"] == "agree"].groupby("dataset").size().rename("agree")
    table = pd.concat([agree, counts], axis=1).reindex(sorted(set(claims["dataset"]))).fillna(0).astype(int)
    return table.rename_axis("dataset")


def count_verdicts(claims: pd.DataFrame) -> pd.DataFrame:
    """How many claims get each verdict, one row per reading (all readings together when there is one).

    Parameters
    ----------
    claims : DataFrame
        A table of :func:`evaluate`.

    Returns
    -------
    DataFrame
        Index ``reading``, one column per verdict of :data:`VERDICTS`.
    """
    readings = claims["reading"].fillna("") if "reading" in claims else pd.Series("", index=claims.index)
    counts = pd.crosstab(readings, claims["verdict"]).reindex(columns=list(VERDICTS), fill_value=0)
    return counts.rename_axis("reading").rename_axis(None, axis=1).astype(int)
