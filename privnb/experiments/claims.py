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
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import pandas as pd

#: Verdicts, in the order :func:`count_verdicts` reports them.
VERDICTS = ("agree", "differ", "both N/A", "n/a")

#: The columns of every claims table (``claims.csv`` of each notebook).
CLAIM_COLUMNS = ("paper", "dataset", "source", "claim", "reading", "paper value", "privnb value", "verdict")

#: What a measurement reads when privnb cannot measure the claim in this run.
NOT_MEASURED = "n/a"


def _equals_paper(paper_value):
    return lambda measured: str(measured) == str(paper_value)


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


def evaluate(claims: Iterable[Claim], evidence) -> pd.DataFrame:
    """Every claim measured on ``evidence`` and judged: one row per claim, the columns :data:`CLAIM_COLUMNS`.

    Parameters
    ----------
    claims : iterable of Claim
        The paper's claims (for one or several data sets and readings).
    evidence : object
        What the claims' ``measure`` functions read.

    Returns
    -------
    DataFrame
    """
    rows = []
    for claim in claims:
        measured = claim.measure(evidence)
        rows.append(
            (
                claim.paper,
                claim.dataset,
                claim.source,
                claim.text,
                claim.reading,
                str(claim.paper_value),
                claim.shown(measured),
                claim.verdict(measured),
            )
        )
    return pd.DataFrame(rows, columns=list(CLAIM_COLUMNS))


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
