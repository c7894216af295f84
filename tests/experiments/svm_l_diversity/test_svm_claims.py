"""The claims of MC16 (privnb.experiments.svm_l_diversity.claims) on small results tables with known verdicts."""

import numpy as np
import pandas as pd
import pytest

from privnb.bounds import rp2_range_from_data, theorem_4_1_terms
from privnb.experiments import CLAIM_COLUMNS, COLUMNS, Claim, count_verdicts, tidy_frame, unexplained
from privnb.experiments.svm_l_diversity import (
    AT_MAJORITY,
    THEOREM_4_1_MAIN_COLUMNS,
    svm_aspects,
    svm_claims,
    svm_summary,
    theorem_4_1_table,
)
from privnb.experiments.svm_l_diversity.claims import SVM_CLAIMS
from privnb.experiments.svm_l_diversity.tables import THEOREM_4_1_COLUMNS

# per-fold errors of three folds; Org. vs L=4 is not significant (F), Org. vs L=5 is (P)
SVC = {
    ("original", None): [0.20, 0.22, 0.21],
    ("identifying", None): [0.15] * 3,
    ("pruned", 2): [0.20] * 3,
    ("pruned", 3): [0.19] * 3,
    ("pruned", 4): [0.10, 0.26, 0.18],
    ("pruned", 5): [0.16, 0.185, 0.165],
    **{("generalized", k): [0.25] * 3 for k in (2, 3, 4, 5)},
}
SVM = {
    ("original", None): [0.10] * 3,
    ("identifying", None): [0.11] * 3,
    **{("pruned", l): [0.12 + 0.01 * (l - 2)] * 3 for l in (2, 3, 4, 5)},
    **{("generalized", k): [0.30] * 3 for k in (2, 3, 4, 5)},
}


def results_table(errors_by_classifier, dataset="adult", na=()):
    """Tidy error rows; (classifier, method, param) in ``na`` become N/A rows."""
    rows = []
    for classifier, errors in errors_by_classifier.items():
        for (method, param), values in errors.items():
            for fold, value in enumerate(values):
                if (classifier, method, param) in na:
                    rows.append(
                        (
                            dataset,
                            classifier,
                            method,
                            param,
                            fold,
                            "error",
                            np.nan,
                            np.nan,
                            np.nan,
                            "N/A: not l-diverse",
                        )
                    )
                else:
                    rows.append((dataset, classifier, method, param, fold, "error", value, 100, 2 * fold, ""))
    return tidy_frame(rows)


def reading(claims, name="paired t-test"):
    """The claims under one reading of the t-test: those read from a t-test under ``name``, and the others."""
    return claims[claims["reading"].isin(["", name])].reset_index(drop=True)


def test_adult_claims_have_the_verdicts_of_the_table():
    both = svm_claims(results_table({"SVC": SVC, "SVM": SVM}), "adult")
    assert list(both.columns) == list(CLAIM_COLUMNS)
    claims = reading(both).rename(columns={"privnb value": "privnb measures"})
    assert claims["dataset"].eq("adult").all() and len(claims) == 12
    assert claims["claim"].str.contains("SVC").tolist() == [True] * 7 + [False] * 5
    assert [c.classifier for c in SVM_CLAIMS["adult"] if c.reading != "unpaired t-test"] == ["SVC"] * 7 + ["SVM"] * 5
    assert claims["verdict"].tolist() == [
        "agree",
        "agree",
        "agree",
        "differ",
        "differ",
        "agree",
        "agree",
        "agree",
        "agree",
        "agree",
        "differ",
        "agree",
    ]
    assert both["source"].str.fullmatch(r"aspect [123], MC16a?:\d+").all()  # every claim names its line of the paper
    assert (both["paper"] == np.where(both["source"].str.contains("MC16a"), "MC16a", "MC16")).all()
    measures = claims["privnb measures"].tolist()
    assert measures[0] == "4 of 4 l values"  # pruned SVC below original for every l
    assert measures[1] == "-0.0100"  # slope of the pruned SVC's error in l
    assert measures[2:4] == ["F", "P"]  # Table 1 cells
    assert measures[4] == "F F F P"  # the text: not significant for every l (C.3)
    assert measures[5] == "3 of 3 l values" and measures[8] == "+0.0100"
    assert measures[9] == "P P P P"  # Table 2's text: significant for several l
    assert measures[10] == "0 of 4 l values"  # pruned SVM never beats identifying


def test_verdicts_follow_the_measurements():
    """Swapping the original and identifying SVCs turns the aspect-2 claim and keeps aspect 1's count."""
    swapped = {**SVC, ("original", None): SVC[("identifying", None)], ("identifying", None): [0.30] * 3}
    claims = svm_claims(results_table({"SVC": swapped}), "adult").set_index("claim")
    assert claims.loc["identifying SVC beats pruned SVC for l = 2..4 (bad predictor)", "verdict"] == "differ"
    assert (
        claims.loc["identifying SVC beats pruned SVC for l = 2..4 (bad predictor)", "privnb value"] == "0 of 3 l values"
    )
    assert claims.loc["pruned SVC beats original SVC for several l (Fig. 5, C.1)", "verdict"] == "differ"
    # every differing claim carries a reason read from the errors, without a fallback
    assert unexplained(claims.reset_index()).empty
    why = claims.loc["identifying SVC beats pruned SVC for l = 2..4 (bad predictor)"]
    assert why["reason"] == "ambiguous" and "pruned - identifying" in why["evidence"]  # a gap beyond the noise:
    assert "svm-scale" in why["why"]  # Adult's rows are the paper's, so the cause is privnb's reading of MC16


def test_only_the_classifiers_that_ran_and_the_datasets_of_the_paper():
    only_svm = results_table({"SVM": SVM})
    claims = reading(svm_claims(only_svm, "bank"))
    assert claims["claim"].str.contains("SVM").all() and len(claims) == 3
    assert claims["verdict"].tolist() == ["agree", "agree", "agree"]  # original and identifying beat pruned
    empty = svm_claims(only_svm, "pu1")
    assert empty.empty and list(empty.columns) == list(CLAIM_COLUMNS)


def test_fars_not_applicable_l_reads_as_n_a_in_table_1():
    fars = {key: value for key, value in SVC.items() if key[0] != "generalized"}
    table = results_table({"SVC": fars}, dataset="fars", na={("SVC", "pruned", 5)})
    claims = reading(svm_claims(table, "fars")).set_index("claim")
    assert claims.loc["Table 1 (SVC): Org. vs L=5 N/A (4 alcohol values)", ["privnb value", "verdict"]].tolist() == [
        "N/A",
        "both N/A",
    ]  # no l = 5 on either side: counted apart, not agreement
    # |pruned - original| reaches 3 points at l = 4: not "about equal"
    equal = claims.loc["pruned SVC about equal to original SVC for all l (C.7): |difference| < 0.5 points"]
    assert equal["privnb value"] == "+0.0300" and equal["verdict"] == "differ"


def test_summary_and_aspects():
    table = results_table({"SVC": SVC}, na={("SVC", "pruned", 5)})
    summary = svm_summary(table).set_index("view")
    assert summary.loc["L=3", "mean_error"] == pytest.approx(0.19) and summary.loc["L=5", "note"].startswith("N/A")
    assert summary.loc["Org.", "n_suppressed"] == pytest.approx(2.0)
    aspects = svm_aspects(table, ls=[2, 3, 4, 5], k_anonymity=[2, 3]).set_index("l")
    assert aspects.loc[3, "pruned - original"] == pytest.approx(-0.02)
    assert aspects.loc[2, "pruned - identifying"] == pytest.approx(0.05)
    assert aspects.loc[3, "pruned - generalized(k=l)"] == pytest.approx(-0.06)
    assert np.isnan(aspects.loc[4, "pruned - generalized(k=l)"])  # k = 4 not among k_anonymity
    assert np.isnan(aspects.loc[5, "pruned"]) and np.isnan(aspects.loc[5, "suppressed per fold"])
    pd.testing.assert_frame_equal(
        svm_aspects(table, k_anonymity=[2, 3]), aspects.reset_index()[svm_aspects(table).columns]
    )  # ls read from the table


#: Two folds of what theorem_4_1_inputs records for one pruned linear SVC.
THEOREM_INPUTS = {
    "w_norm": [2.0, 4.0],
    "r2_min": [1.0, 0.5],
    "r2_max": [3.0, 2.0],
    "appendix_b_r2_min": [5.0, 6.0],
    "appendix_b_r2_max": [9.0, 9.0],
}


def test_theorem_4_1_table_from_the_rows_of_the_pruned_svcs():
    base = results_table({"SVC": {("original", None): [0.20, 0.30], ("pruned", 2): [0.25, 0.40]}})
    inputs = THEOREM_INPUTS
    rows = [
        ("adult", "SVC", "pruned", 2.0, fold, metric, values[fold], 100, 2 * fold, "")
        for metric, values in inputs.items()
        for fold in (0, 1)
    ]
    table = theorem_4_1_table(pd.concat([base, tidy_frame(rows)], ignore_index=True), d=3)
    assert list(table.columns) == list(THEOREM_4_1_COLUMNS) and table["l"].tolist() == [2]
    row = table.iloc[0]
    assert row["measured gap"] == pytest.approx(((0.25 - 0.20) + (0.40 - 0.30)) / 2)
    assert row["error"] == pytest.approx(0.325) and row["n_suppressed"] == pytest.approx(1.0)
    ranges = [rp2_range_from_data(1.0, 3.0, 2.0), rp2_range_from_data(0.5, 2.0, 4.0)]
    first, second = theorem_4_1_terms(np.array([100, 100]), 3, *np.array(ranges).T)
    assert row["rp2_max"] == pytest.approx((12.0 + 32.0) / 2)
    assert row["bound"] == pytest.approx(np.mean(first + second))
    assert row["bound"] == pytest.approx(row["vc_term"] + row["pruning_term"])
    assert 0 < row["pruning_share"] < 1
    none = theorem_4_1_table(base, d=3)
    assert none.empty and list(none.columns) == ["l"]
    assert list(base.columns) == list(COLUMNS)


def test_paired_and_unpaired_readings_side_by_side():
    """The paper says "Student's t-test" only: both verdicts are given, and they can differ."""
    base = [0.10, 0.30, 0.20, 0.40, 0.25]
    steady = [v + 0.01 + d for v, d in zip(base, [0.0, 0.001, -0.001, 0.0005, 0.0])]
    svc = {("original", None): base, ("identifying", None): [0.1] * 5, **{("pruned", l): steady for l in (2, 3, 4, 5)}}
    claims = svm_claims(results_table({"SVC": svc}), "bank")
    rows = claims[claims["claim"] == "Table 1 (SVC): Org. vs L=4 not significant (F)"].set_index("reading")
    assert (rows.loc["paired t-test", "privnb value"], rows.loc["paired t-test", "verdict"]) == ("P", "differ")
    assert (rows.loc["unpaired t-test", "privnb value"], rows.loc["unpaired t-test", "verdict"]) == ("F", "agree")
    counts = count_verdicts(claims)
    assert counts.loc["paired t-test", "agree"] < counts.loc["unpaired t-test", "agree"]


def test_theorem_4_1_table_takes_d_from_the_learners_dimension_and_compare_spaces():
    from privnb.experiments.svm_l_diversity import compare_spaces

    base = results_table({"SVC": {("original", None): [0.20, 0.30], ("pruned", 2): [0.25, 0.40]}})

    def with_inputs(dimension, error_shift=0.0):
        inputs = {"dimension": [dimension] * 2, **THEOREM_INPUTS}
        rows = [
            ("adult", "SVC", "pruned", 2.0, fold, metric, values[fold], 100, 0, "")
            for metric, values in inputs.items()
            for fold in (0, 1)
        ]
        shifted = base.assign(value=base["value"] + error_shift)
        return pd.concat([shifted, tidy_frame(rows)], ignore_index=True)

    one_hot, appendix_b = with_inputs(40.0), with_inputs(4.0, error_shift=0.01)
    assert theorem_4_1_table(appendix_b)["d"].tolist() == [3.0]
    pd.testing.assert_frame_equal(theorem_4_1_table(appendix_b), theorem_4_1_table(appendix_b, d=3), check_dtype=False)
    assert theorem_4_1_table(one_hot)["bound"].iloc[0] > theorem_4_1_table(appendix_b)["bound"].iloc[0]
    with pytest.raises(ValueError, match="pass d"):
        theorem_4_1_table(with_inputs(4.0).query("metric != 'dimension'"))
    table = compare_spaces({"one_hot": one_hot, "appendix_b": appendix_b}).set_index("view")
    assert table.loc["Org.", "appendix_b - one_hot"] == pytest.approx(0.01)
    assert (table.loc["L=2", "d (one_hot)"], table.loc["L=2", "d (appendix_b)"]) == (39.0, 3.0)
    assert np.isnan(table.loc["Org.", "bound (appendix_b)"])
    assert table.loc["L=2", "bound (appendix_b)"] == pytest.approx(theorem_4_1_table(appendix_b)["bound"].iloc[0])


def test_claims_are_claim_records_and_t_test_claims_come_in_both_readings():
    for dataset, claims in SVM_CLAIMS.items():
        assert all(isinstance(claim, Claim) and claim.dataset == dataset for claim in claims)
        assert {claim.paper for claim in claims} <= {"MC16", "MC16a"}
        readings = pd.Series([claim.reading for claim in claims]).value_counts()
        assert readings["paired t-test"] == readings["unpaired t-test"] > 0
    texts = [claim.text for claim in SVM_CLAIMS["adult"] if claim.reading]
    assert texts[0::2] == texts[1::2]  # each t-test claim: paired, then unpaired


def test_summary_flags_views_at_or_above_the_majority_class():
    table = results_table({"SVC": SVC, "majority": {("majority", None): [0.2, 0.2, 0.2]}})
    summary = svm_summary(table).set_index(["classifier", "view"])
    assert summary.loc[("majority", "Majority"), "mean_error"] == pytest.approx(0.2)
    flagged = summary[summary[AT_MAJORITY]].index.get_level_values("view")
    assert sorted(flagged) == ["L=2", "Org.", "k=2", "k=3", "k=4", "k=5"]  # 0.21 and 0.20 and 0.25 >= 0.20
    assert not summary.loc[("majority", "Majority"), AT_MAJORITY]
    assert not svm_summary(results_table({"SVC": SVC}))[AT_MAJORITY].any()  # no baseline: nothing flagged
    assert "majority" not in set(svm_aspects(table)["classifier"])


def test_theorem_4_1_main_columns_are_a_reading_subset():
    assert set(THEOREM_4_1_MAIN_COLUMNS) < set(THEOREM_4_1_COLUMNS)
    assert [c for c in THEOREM_4_1_COLUMNS if c in THEOREM_4_1_MAIN_COLUMNS] == list(THEOREM_4_1_MAIN_COLUMNS)


def test_compare_space_claims_shows_which_verdicts_change():
    from privnb.experiments.svm_l_diversity import compare_space_claims

    swapped = {**SVC, ("original", None): SVC[("identifying", None)], ("identifying", None): [0.30] * 3}
    spaces = {"a": results_table({"SVC": SVC, "SVM": SVM}), "b": results_table({"SVC": swapped})}
    table = compare_space_claims(spaces, "adult", values=True).set_index(["claim", "reading"])
    row = table.loc[("identifying SVC beats pruned SVC for l = 2..4 (bad predictor)", "")]
    assert (row["a"], row["b"], row["verdict changes"]) == ("agree", "differ", True)
    assert row["value (b)"] == "0 of 3 l values"
    svm = table.loc[("pruned SVM error grows with l (C.2)", "")]
    assert (svm["a"], svm["b"], svm["verdict changes"]) == ("agree", "", False)  # b has no SVM
    assert list(compare_space_claims(spaces, "adult").columns) == [
        "source",
        "claim",
        "reading",
        "a",
        "b",
        "verdict changes",
    ]


def test_summary_and_spaces_list_views_in_the_papers_order():
    table = results_table({"SVC": SVC})
    order = ["Org.", "Id.", "L=2", "L=3", "L=4", "L=5", "k=2", "k=3", "k=4", "k=5"]
    assert svm_summary(table)["view"].tolist() == order
    from privnb.experiments.svm_l_diversity import compare_spaces

    spaces = compare_spaces({"a": table, "b": table})
    assert spaces["view"].tolist() == order
    assert not [c for c in spaces if c.startswith(("d (", "bound ("))]  # no linear SVC's Theorem 4.1 rows: no bound
