"""The claims of MC17 (privnb.experiments.knn_l_diversity.claims) on small results tables with known verdicts."""

import numpy as np
import pandas as pd
import pytest

from privnb.bounds import expected_rho_squared
from privnb.experiments import tidy_frame
from privnb.experiments.claims import CLAIM_COLUMNS, unexplained
from privnb.experiments.knn_l_diversity import (
    catalan_values,
    chain_holds,
    convergence_drops,
    knn_aspects,
    knn_claims,
    knn_mean_errors,
    knn_suppression,
    knn_t_tests,
    rho_squared_table,
    series_readings,
    theorem_17_table,
    theorem_17_within_bounds,
)
from privnb.experiments.knn_l_diversity.claims import ASPECT_COLUMNS

# per-fold errors of three folds, (classifier, method, param) -> values. Org. vs L=2 is significant for
# 1-NN (a steady shift) and not for 3-NN (a noisy one); Org. vs L=3 the other way round.
ERRORS = {
    ("1-NN", "original", None): [0.20, 0.22, 0.21],
    ("1-NN", "identifying", None): [0.19] * 3,
    ("1-NN", "anatomized", 2): [0.24, 0.255, 0.255],
    ("1-NN", "anatomized", 3): [0.31, 0.15, 0.23],
    ("1-NN", "generalized", 2): [0.30] * 3,
    ("3-NN", "original", None): [0.15, 0.17, 0.16],
    ("3-NN", "identifying", None): [0.18] * 3,
    ("3-NN", "anatomized", 2): [0.16, 0.19, 0.16],
    ("3-NN", "anatomized", 3): [0.20, 0.215, 0.215],
}


def results_table(errors=ERRORS, dataset="adult", na=()):
    rows = []
    for (classifier, method, param), values in errors.items():
        for fold, value in enumerate(values):
            if (classifier, method, param) in na:
                rows.append((dataset, classifier, method, param, fold, "error", np.nan, np.nan, np.nan, "N/A: l"))
            else:
                suppressed = 3 * fold if method == "anatomized" and param == 3 else 0
                rows.append((dataset, classifier, method, param, fold, "error", value, 100, suppressed, ""))
    return tidy_frame(rows)


def curves_table(curves, dataset="adult"):
    """Convergence rows: (method, param) -> error at 1, 2, 3 parts, the same in both folds."""
    return tidy_frame(
        [
            (dataset, "1-NN", method, param, fold, "incremental_error", value, 10 * (j + 1), 0, "")
            for (method, param), values in curves.items()
            for fold in (0, 1)
            for j, value in enumerate(values)
        ]
    )


def verdicts(claims, reading=("", "paired t-test")):
    claims = claims[claims["reading"].isin(reading)]
    return dict(zip(claims["claim"], claims["privnb value"]))


def test_adult_claims_and_t_test_cells():
    claims = knn_claims(results_table(), "adult")
    assert list(claims.columns) == list(CLAIM_COLUMNS)
    got = verdicts(claims)
    assert got["1-NN: original beats anatomized, l = 2..5"] == "yes"
    assert got["1-NN: identifying beats original (sensitive a bad predictor)"] == "yes"
    assert got["anatomized 1-NN beats the anonymized 1-NN (k = l)"] == "yes"
    assert got["k = 3..9: original beats anatomized, every l"] == "yes"
    assert got["k = 3..9: original beats identifying (sensitive a good predictor)"] == "yes"
    # no convergence rows: aspect 4 cannot be measured
    assert got["anatomized 1-NN converges faster for l = 2, 3"] == "n/a"
    tests = claims[claims["reading"] == "paired t-test"].set_index("claim")
    assert list(tests.index) == ["1-NN, Org. vs L=2", "1-NN, Org. vs L=3", "3-NN, Org. vs L=2", "3-NN, Org. vs L=3"]
    assert tests["privnb value"].tolist() == ["P", "F", "F", "P"]
    assert tests["paper value"].tolist() == ["F", "F", "F", "P"]  # Table 1 of MC17, rows k = 1, 3
    assert (tests["verdict"] == "agree").tolist() == [False, True, True, True]
    assert set(claims["paper"]) == {"MC17"} and set(claims["dataset"]) == {"adult"}
    assert set(claims.loc[claims["source"] == "t-test table", "reading"]) == {"paired t-test", "unpaired t-test"}
    paired = claims[claims["reading"] != "unpaired t-test"]
    assert (paired["verdict"] == "agree").sum() == 5 + 3  # five "yes" claims, three t-test cells


def test_verdicts_follow_the_measurements():
    worse = {**ERRORS, ("1-NN", "identifying", None): [0.40] * 3, ("1-NN", "generalized", 2): [0.10] * 3}
    table = knn_claims(results_table(worse), "adult")
    got = verdicts(table)
    assert got["1-NN: identifying beats original (sensitive a bad predictor)"] == "no"
    assert got["anatomized 1-NN beats the anonymized 1-NN (k = l)"] == "no"
    assert got["1-NN: original beats anatomized, l = 2..5"] == "yes"
    # every differing claim carries a reason read from the errors, without a fallback
    assert unexplained(table).empty and (table["verdict"] == "differ").any()
    why = table.set_index("claim").loc["1-NN: identifying beats original (sensitive a bad predictor)"]
    assert why["reason"] == "ambiguous" and "1-NN identifying - original" in why["evidence"]  # beyond the noise,
    assert "Adult's rows are the paper's" in why["why"]  # on the paper's rows: privnb's reading of MC17
    hierarchies = table.set_index("claim").loc["anatomized 1-NN beats the anonymized 1-NN (k = l)"]
    assert hierarchies["reason"] == "data" and "Inan et al.'s hierarchies" in hierarchies["why"]


def test_convergence_claims_read_the_incremental_rows():
    curves = curves_table(
        {
            ("original", np.nan): [0.30, 0.25, 0.20],  # drop 0.10
            ("anatomized", 2.0): [0.40, 0.30, 0.20],  # drop 0.20: faster
            ("anatomized", 3.0): [0.30, 0.28, 0.26],
        }
    )  # drop 0.04: slower
    drops = convergence_drops(curves)
    assert drops.to_dict() == pytest.approx({"Org.": 0.10, "L=2": 0.20, "L=3": 0.04})
    both = pd.concat([results_table(dataset="fars"), curves], ignore_index=True)
    got = verdicts(knn_claims(both, "fars"))
    assert got["anatomized 1-NN converges faster for l = 2"] == "yes"
    assert got["anatomized 1-NN converges slower for l = 3, 4"] == "yes"
    got = verdicts(knn_claims(pd.concat([results_table(), curves], ignore_index=True), "adult"))
    assert got["anatomized 1-NN converges faster for l = 2, 3"] == "no"  # l = 3 is slower
    assert got["anatomized 1-NN converges slower for l = 4, 5"] == "no"  # no l = 4, 5 measured
    # the convergence rows change neither the mean errors nor the t-tests
    pd.testing.assert_series_equal(knn_mean_errors(both), knn_mean_errors(results_table(dataset="fars")))


def test_not_applicable_views_and_the_k_and_l_that_ran():
    table = results_table(na={("1-NN", "anatomized", 3), ("3-NN", "anatomized", 3)})
    assert ("1-NN", "anatomized", 3.0) not in knn_mean_errors(table).index
    ttest = knn_t_tests(table)
    assert list(ttest.index) == ["1-NN", "3-NN"] and ttest["Org. vs L=3"].tolist() == ["N/A", "N/A"]
    claims = knn_claims(table, "bank", n_neighbors=[3], ls=[2])
    cells = claims[claims["source"] == "t-test table"]
    assert cells["claim"].tolist() == ["3-NN, Org. vs L=2"] * 2  # paired and unpaired
    assert knn_claims(table, "pu1").empty and list(knn_claims(table, "pu1").columns) == list(CLAIM_COLUMNS)


def test_aspects():
    aspects = knn_aspects(results_table()).set_index(["k", "l"])
    assert aspects.index.tolist() == [(1, 2), (1, 3), (3, 2), (3, 3)]
    assert aspects.loc[(1, 2), "L"] == pytest.approx(0.25) and aspects.loc[(3, 3), "Org."] == pytest.approx(0.16)
    assert not aspects.loc[(1, 2), ASPECT_COLUMNS[0]]  # 0.25 > 0.21
    assert not aspects.loc[(1, 2), ASPECT_COLUMNS[1]]  # identifying 0.19 beats original 0.21
    assert aspects.loc[(1, 3), ASPECT_COLUMNS[3]] is None  # no anonymized 1-NN with k = 3
    assert bool(aspects.loc[(1, 2), ASPECT_COLUMNS[3]]) and aspects.loc[(3, 2), ASPECT_COLUMNS[3]] is None
    assert bool(aspects.loc[(3, 2), ASPECT_COLUMNS[2]])  # 0.16 <= 0.17 <= 0.18


def test_rho_squared_table_and_theorem_17():
    rho = rho_squared_table(30, 0, dims=(1,), sizes=(50,))
    assert rho.shape == (1, 7)
    assert rho.loc[0, "E{rho^2} (19)"] == pytest.approx(float(expected_rho_squared(1, 50)))
    limits, table = theorem_17_table([40, 80], 0, n_test=200)
    assert table["N"].tolist() == [40, 80] and table.iloc[:, 1:].stack().between(0, 1).all()
    assert limits["bayes_A"] <= limits["nn_A"] <= 2 * limits["bayes_A"]
    inside = pd.DataFrame({"anatomized 1-NN, test ~ D_A": [0.5, 1.5 * limits["bayes_A"]]})
    outside = pd.DataFrame({"anatomized 1-NN, test ~ D_A": [0.0, 2 * limits["bayes_A"] + 0.05]})
    assert theorem_17_within_bounds(limits, inside) and not theorem_17_within_bounds(limits, outside)


def test_both_na_counted_apart_and_both_t_test_readings():
    from privnb.experiments.claims import count_verdicts, verdict

    assert [verdict("N/A", "N/A"), verdict("F", "N/A"), verdict("yes", "n/a"), verdict("P", "P")] == [
        "both N/A",
        "differ",
        "n/a",
        "agree",
    ]
    # Fatality has no l = 5 (4 alcohol values): the paper's N/A against privnb's N/A is no agreement
    errors = {**ERRORS, ("1-NN", "anatomized", 5): [0.3] * 3, ("3-NN", "anatomized", 5): [0.3] * 3}
    table = results_table(errors, dataset="fars", na={("1-NN", "anatomized", 5), ("3-NN", "anatomized", 5)})
    claims = knn_claims(table, "fars")
    paired = claims[claims["reading"] != "unpaired t-test"].set_index("claim")
    unpaired = claims[claims["reading"] == "unpaired t-test"].set_index("claim")
    assert paired.loc["1-NN, Org. vs L=5", ["paper value", "privnb value", "verdict"]].tolist() == [
        "N/A",
        "N/A",
        "both N/A",
    ]
    # paired and unpaired readings side by side: the steady 1-NN shift at l = 2 is significant when paired
    # (0.20, 0.22, 0.21 against 0.24, 0.255, 0.255), and with Student's two-sample test too; the 3-NN shift
    # at l = 3 (0.15, 0.17, 0.16 against 0.20, 0.215, 0.215) likewise; the noisy ones are not
    assert [paired.loc["1-NN, Org. vs L=3", "privnb value"], unpaired.loc["1-NN, Org. vs L=3", "privnb value"]] == [
        "F",
        "F",
    ]
    counts = count_verdicts(claims)
    assert counts.loc["paired t-test", "both N/A"] == 2 and counts.loc["unpaired t-test", "both N/A"] == 2
    assert counts.loc["paired t-test"].sum() == counts.loc["unpaired t-test"].sum() == len(unpaired)


def test_unpaired_reading_can_differ_from_the_paired_one():
    from privnb.experiments.ttest import paired_t_test, unpaired_t_test

    base = np.array([0.10, 0.30, 0.20, 0.40, 0.25])
    shifted = base + 0.01 + np.array([0.0, 0.001, -0.001, 0.0005, 0.0])  # steady small shift, large spread
    assert paired_t_test(base, shifted).significant and not unpaired_t_test(base, shifted).significant
    table = tidy_frame(
        [
            ("adult", "1-NN", m, p, f, "error", v, 100, 0, "")
            for m, p, vals in (("original", None, base), ("anatomized", 2, shifted))
            for f, v in enumerate(vals)
        ]
    )
    assert knn_t_tests(table).iloc[0, 0] == "P" and knn_t_tests(table, paired=False).iloc[0, 0] == "F"


def test_suppression_per_l():
    table = knn_suppression(results_table())
    assert table.index.tolist() == [2, 3] and table.index.name == "l"
    assert table["suppressed per fold"].tolist() == [0, 3]  # 0, 3 and 6 rows in the three folds at l = 3
    assert not table["N/A"].any()
    assert knn_suppression(results_table(na={("1-NN", "anatomized", 3)})).loc[3, "N/A"]


def test_equations_2_3_and_7():
    readings = series_readings((1, 3, 5))
    assert readings["k"].tolist() == [1, 3, 5]
    assert readings["(k+1)/2: equals the majority error"].all()  # the printed k+1/2 read as (k+1)/2
    assert not readings["(k-1)/2: equals the majority error"].any()
    values = catalan_values()
    assert values["equal"].all() and values["(3) summed"].tolist() == ["1/10", "3/10", "1/2", "1/5"]
    assert chain_holds(11)


def test_anonymized_1nn_reads_a_generalized_ordinal_as_nominal(tmp_path):
    """The card's ordinal severity generalizes to range labels ("low-medium", "*") outside its order: the
    anonymized 1-NN's distance must read it as nominal rather than fail.
    """
    from own_data import write_own_data

    from privnb.data import load
    from privnb.experiments import data_support
    from privnb.experiments.knn_l_diversity import cross_validate_knn

    card = write_own_data(tmp_path)["table"]
    data = load(card)
    hierarchies = data_support(card, data).generalization_hierarchies
    results = cross_validate_knn(
        data,
        n_neighbors=[1],
        ls=[2],
        n_splits=2,
        random_state=0,
        hierarchies=hierarchies,
        k_anonymity=[2, 50],
        views=("generalized",),
        progress=False,
    )
    assert set(results["param"]) == {2.0, 50.0} and results["value"].between(0, 1).all()


def test_error_table_has_the_majority_row_and_flags_views_at_or_above_it():
    from privnb.experiments.knn_l_diversity import knn_error_table

    majority = {("majority", "majority", None): [0.215, 0.215, 0.215]}
    table = knn_error_table(results_table({**ERRORS, **majority}))
    assert list(table.columns) == ["1-NN", "3-NN", "≥ majority"]
    assert table.index.tolist() == ["Org.", "Id.", "L=2", "L=3", "k=2", "Majority"]
    assert table.loc["Majority", ["1-NN", "3-NN"]].tolist() == pytest.approx([0.215, 0.215])
    # 1-NN: L=2 0.25, L=3 0.23, k=2 0.30 are above the baseline, original 0.21 is below; 3-NN: none is above
    assert table["≥ majority"].tolist() == ["", "", "1", "1", "1", ""]
    assert (knn_error_table(results_table())["≥ majority"] == "").all()  # no baseline rows, no flags


def test_figures_draw_the_majority_baseline_dashed():
    from privnb.workbench import convergence_plot, error_boxplot

    majority = {("majority", "majority", None): [0.215, 0.215, 0.215]}
    results = results_table({**ERRORS, **majority})
    one = results[results["classifier"] == "1-NN"]
    (axis,) = error_boxplot(one, baseline=0.215).axes
    assert [t.get_text() for t in axis.get_xticklabels()] == ["Org.", "Id.", "L=2 ≥", "L=3 ≥", "k=2 ≥"]
    assert [line.get_linestyle() for line in axis.get_lines() if line.get_label().startswith("majority")] == ["--"]
    curves = curves_table({("original", np.nan): [0.3, 0.2, 0.1], ("majority", np.nan): [0.4, 0.4, 0.4]})
    curves.loc[curves["method"] == "majority", "classifier"] = "majority"
    (axis,) = convergence_plot(curves, metric="incremental_error", baseline_method="majority").axes
    dashed = [line for line in axis.get_lines() if line.get_linestyle() == "--"]
    assert [line.get_label() for line in dashed] == ["Majority"] and list(dashed[0].get_ydata()) == [0.4] * 3
