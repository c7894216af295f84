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
from privnb.experiments.claims import gap_reason, one_run_error, t_test_reason


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


def test_a_t_test_cell_differs_by_noise_by_the_readings_or_by_the_data_sets_cause():
    cause = ("data", "the rows differ")
    original = [0.20, 0.21, 0.19, 0.20, 0.22, 0.18, 0.20, 0.21, 0.19, 0.20]
    se = math.sqrt(0.2 * 0.8 / 40000)  # 0.20 points: one run's error on 40000 rows
    small = t_test_reason(original, [e + 0.001 for e in original[::-1]], rows=40000, cause=cause)  # 0.1 points
    assert small.kind == "noise" and small.text.startswith("the difference is within two standard errors")
    assert small.evidence.endswith(
        f"difference +0.10 points, standard error of one run {100 * se:.2f} points (40000 rows)"
    )
    shifted = [e + 0.03 for e in original]  # 3 points, every fold: both readings significant
    clear = t_test_reason(original, shifted, rows=40000, cause=cause)
    assert clear.kind == "data" and clear.text.endswith("; the rows differ")
    paired_only = [e + 0.005 + 0.001 * (i % 2) for i, e in enumerate(original)]  # steady 0.5 points: paired P only
    split = t_test_reason(original, paired_only, rows=40000, cause=cause)
    assert split.kind == "ambiguous" and "paired and unpaired readings split" in split.text
    assert one_run_error(0.2, 40000) == pytest.approx(se)


def test_gaps_against_a_claim_beside_the_noise_of_one_run():
    cause = ("ambiguous", "privnb chose")
    assert gap_reason([], error=0.2, rows=40000, cause=cause) is None  # nothing against the claim
    within = gap_reason([("L=2", 0.003)], error=0.2, rows=40000, cause=cause)  # 0.3 < 2 x 0.2 points
    assert within.kind == "noise" and within.evidence.startswith("gaps against the claim (points): L=2 +0.30;")
    beyond = gap_reason([("L=2", 0.003), ("L=3", -0.01)], error=0.2, rows=40000, cause=cause)
    assert beyond.kind == "ambiguous" and beyond.text.endswith("; privnb chose")
