"""One claim record: verdicts counted honestly, one table for every paper."""

import math

import pandas as pd
import pytest

from privnb.experiments import (
    CLAIM_COLUMNS,
    REASON_KINDS,
    Claim,
    Reason,
    count_verdicts,
    evaluate,
    reason_counts,
    scale_reason,
    unexplained,
    verdict,
)


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


def test_a_differing_claim_carries_its_reason_and_computed_evidence():
    why = Reason("data", "the rows differ", lambda evidence: f"{evidence['rows']} rows")
    claims = [_claim("P", "f", reason=why), _claim("P", "p", reason=why), _claim("P", "f")]
    table = evaluate(claims, {"p": "P", "f": "F", "rows": 1000})
    assert table[["reason", "why", "evidence"]].values.tolist() == [
        ["data", "the rows differ", "1000 rows"],
        ["", "", ""],  # agrees: no reason shown
        ["", "", ""],  # differs without a reason
    ]
    assert unexplained(table).index.tolist() == [2]


def test_a_reason_picked_from_the_evidence_and_the_scale_fallback():
    pick = lambda evidence: Reason("noise" if evidence["p"] > 0.01 else "departure", "p-value", str(evidence["p"]))  # noqa: E731
    table = evaluate([_claim("P", "f", reason=pick)], {"f": "F", "p": 0.03})
    assert table.loc[0, "reason"] == "noise" and table.loc[0, "evidence"] == "0.03"
    fallback = scale_reason(3000, sampled=True, folds=2, paper_folds=10)
    assert fallback.kind == "noise" and "3000 rows (a sample), 2 folds" in fallback.evidence
    table = evaluate([_claim("P", "f"), _claim("P", "f", reason=pick)], {"f": "F", "p": 0.0}, fallback=fallback)
    assert table["reason"].tolist() == ["noise", "departure"] and unexplained(table).empty
    assert scale_reason(32561, sampled=False, folds=10, paper_folds=10) is None


def test_reason_kinds_are_checked_and_counted():
    with pytest.raises(ValueError, match="kind must be one of"):
        Reason("bad luck", "why", "1")
    with pytest.raises(ValueError, match="evidence"):
        Reason("noise", "why", "")
    with pytest.raises(ValueError, match="text"):
        Reason("noise", " ", "1")
    claims = [
        Claim("X", "s", "t", "P", lambda e: e, dataset="adult", reason=Reason("data", "rows", "1")),
        Claim("X", "s", "t", "P", lambda e: e, dataset="adult"),
        Claim("X", "s", "t", "F", lambda e: e, dataset="bank"),
    ]
    counts = reason_counts(evaluate(claims, "F"))
    assert counts.loc["adult"].to_dict() == {"agree": 0, "differ: data": 1, "differ: none": 1}
    assert counts.loc["bank"].to_dict() == {"agree": 1, "differ: data": 0, "differ: none": 0}
    assert set(REASON_KINDS) == {"data", "ambiguous", "unreachable", "noise", "departure"}
