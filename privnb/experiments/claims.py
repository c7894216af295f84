"""Verdicts of a paper's claims against privnb's measurements, counted honestly.

A claim the paper marks N/A (no l = 5 on Fatality: its sensitive attribute has 4 values) that privnb
also cannot measure is no agreement: it is counted apart, as "both N/A". A claim privnb cannot measure
in the run (a view or a k that did not run) is "n/a". The papers' "Student's t-test at 0.95" does not say
paired or not, so the t-test claims carry both verdicts (``verdict`` paired, ``verdict (unpaired)``).
"""

from __future__ import annotations

import pandas as pd

#: Verdicts, in the order :func:`count_verdicts` reports them.
VERDICTS = ("agree", "differ", "both N/A", "n/a")


def verdict(paper, measured) -> str:
    """The verdict: "agree", "differ", "both N/A" (the paper says N/A and privnb measures N/A) or "n/a".

    "n/a" means not measured.
    """
    if str(paper) == "N/A" and str(measured) == "N/A":
        return "both N/A"
    if measured is None or str(measured) == "n/a":
        return "n/a"
    return "agree" if str(paper) == str(measured) else "differ"


def count_verdicts(claims: pd.DataFrame, columns=("verdict", "verdict (unpaired)")) -> pd.DataFrame:
    """How many claims get each verdict, one row per verdict column (paired and unpaired t-test readings)."""
    rows = {
        column: claims[column].value_counts().reindex(list(VERDICTS), fill_value=0)
        for column in columns
        if column in claims
    }
    return pd.DataFrame(rows).T.rename_axis("reading").astype(int)
