"""One claim record: verdicts counted honestly, one table for every paper."""

import math

import pandas as pd

from privnb.experiments import CLAIM_COLUMNS, Claim, count_verdicts, evaluate, verdict


def _claim(paper_value, measured, **options):
    return Claim("MC16", "Table 1", "a statement", paper_value, lambda evidence: evidence[measured], **options)


def test_verdicts_of_the_four_kinds():
    evidence = {"p": "P", "na": "N/A", "missing": None, "nan": math.nan, "f": "F"}
    claims = [_claim("P", "p"), _claim("N/A", "na"), _claim("P", "missing"), _claim("P", "nan"), _claim("P", "f")]
    table = evaluate(claims, evidence)
    assert list(table.columns) == list(CLAIM_COLUMNS)
    assert table["verdict"].tolist() == ["agree", "both N/A", "n/a", "n/a", "differ"]


def test_a_claim_na_on_one_side_only_differs():
    assert _claim("N/A", "p").verdict("P") == "differ"
    assert _claim("P", "na").verdict("N/A") == "differ"


def test_agrees_overrides_text_equality_and_show_formats():
    claim = Claim("FSAC", "Table 5", "AUC above 0.9", 0.94, lambda e: e, agrees=lambda v: v > 0.9)
    table = evaluate([claim], 0.95123)
    assert table.loc[0, "verdict"] == "agree" and table.loc[0, "privnb value"] == "0.9512"


def test_count_verdicts_per_reading():
    table = evaluate(
        [_claim("P", "p", reading="paired"), _claim("P", "f", reading="paired"), _claim("P", "p", reading="unpaired")],
        {"p": "P", "f": "F"},
    )
    counts = count_verdicts(table)
    assert counts.loc["paired"].to_dict() == {"agree": 1, "differ": 1, "both N/A": 0, "n/a": 0}
    assert counts.loc["unpaired", "agree"] == 1


def test_verdict_function_matches_the_record():
    assert [verdict("N/A", "N/A"), verdict("F", "N/A"), verdict("yes", "n/a"), verdict("P", "P")] == [
        "both N/A",
        "differ",
        "n/a",
        "agree",
    ]
    assert isinstance(evaluate([], None), pd.DataFrame)
