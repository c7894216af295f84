"""The three readings of how RF and DP are tested, the SVM settings, the claims table and the rank correlation."""

import math

import numpy as np
import pandas as pd
import pytest

from privnb.experiments import CLAIM_COLUMNS, Claim, tidy_frame, unexplained
from privnb.experiments.feature_selection import (
    maximal_order_range,
    reading_table,
    selection_claims_table,
    selection_counts,
    selection_metrics,
    summary_table,
    svm_setting_table,
)
from privnb.experiments.feature_selection.claims import selection_claims
from privnb.experiments.feature_selection.runner import READINGS, evaluate_methods
from privnb.learn import greedy_cm, greedy_distcnt


@pytest.fixture(scope="module")
def results():
    rng = np.random.default_rng(0)
    X = (rng.random((100, 6)) < 0.4).astype(int)
    y = (X[:, 0] | X[:, 1]).astype(int)
    return evaluate_methods(
        X,
        y,
        dataset_name="toy",
        methods=["greedy-distcnt", "rf", "full", "laplace-dp"],
        k_ac=[3],
        epsilons=[1.0],
        n_splits=2,
        n_runs=1,
        readings=READINGS,
        svm_settings=("tuned", "default"),
        random_state=0,
    )


def test_every_reading_and_setting_has_rows(results):
    methods = set(results["method"])
    assert {
        "rf",
        "rf@whole",
        "rf@both-folds",
        "rf@C=1",
        "full@C=1",
        "laplace-dp",
        "laplace-dp@whole",
        "laplace-dp@both-folds",
    } <= methods
    assert not any("@whole@" in m or "@both-folds@" in m for m in methods)  # C = 1 only for the first reading
    assert results.loc[results["metric"] == "auc", "value"].between(0, 1).all()


def test_first_reading_alone_gives_the_same_rows_as_before(results):
    rng = np.random.default_rng(0)
    X = (rng.random((100, 6)) < 0.4).astype(int)
    y = (X[:, 0] | X[:, 1]).astype(int)
    plain = evaluate_methods(X, y, dataset_name="toy", methods=["rf"], k_ac=[3], n_splits=2, n_runs=1, random_state=0)
    assert set(plain["method"]) == {"rf"}
    with pytest.raises(ValueError, match="readings"):
        evaluate_methods(X, y, dataset_name="toy", readings=("test-fold",))


def test_reading_and_setting_tables(results):
    summary = summary_table(results, n_splits=2)
    readings = reading_table(summary)
    rf = readings[readings["baseline"] == "RF"].iloc[0]
    assert {"train-fold", "whole", "both-folds"} <= set(readings.columns) and math.isnan(rf["paper"])
    settings = svm_setting_table(summary)
    assert {"C tuned", "C=1 (LIBLINEAR default)"} <= set(settings.columns)
    assert settings["C tuned"].notna().all() and settings["C=1 (LIBLINEAR default)"].notna().all()


def test_closest_reading_to_the_papers_rf():
    summary = pd.DataFrame(
        {
            "dataset": ["pu1"] * 3,
            "method": ["rf", "rf@whole", "rf@both-folds"],
            "param": [5.0] * 3,
            "auc": [0.99, 0.88, 0.70],
            "n_features": [10.0] * 3,
        }
    )
    table = reading_table(summary)
    assert table["paper"].iloc[0] == 0.87 and table["closest"].iloc[0] == "whole"


def test_claims_ties_within_the_margin():
    methods = [
        "maximal",
        "greedy-hamdist",
        "greedy-distcnt",
        "cm-greedy",
        "k-anonymity-hamdist",
        "k-anonymity-distcnt",
        "rf",
        "laplace-dp",
    ]
    auc = [0.90, 0.85, 0.95, 0.96, 0.845, 0.80, 0.99, 0.6]
    summary = pd.DataFrame({"dataset": "pu1", "method": methods, "param": [5.0] * 7 + [1.0], "auc": auc})
    records = selection_claims(summary)
    assert all(isinstance(c, Claim) and c.paper == "FSAC" and c.dataset == "pu1" for c in records)
    table = selection_claims_table(summary)
    assert tuple(table.columns) == CLAIM_COLUMNS and len(table) == len(records) == 8
    claims = table.assign(claim=table["claim"].str.partition(" at k = 5")[0]).set_index("claim")
    twin = claims.loc["Greedy-DistCnt (k-AC) beats its k-anonymity twin"]
    assert twin["privnb value"] == "yes (AUC +0.150)" and twin["verdict"] == "agree"
    assert claims.loc["Greedy-HamDist (k-AC) beats its k-anonymity twin", "privnb value"].startswith("tie")  # 0.005
    assert claims.loc["every k-AC selector beats CM greedy", "privnb value"] == "no (AUC -0.110)"
    assert claims.loc["Greedy-DistCnt beats RF", "verdict"] == "differ"
    assert "Table 6 says yes, AUC +0.140" in table["claim"].iloc[0]  # the paper's own .95 against .81
    assert claims.loc["Greedy-DistCnt beats Laplace-DP (eps = 1)", "verdict"] == "agree"
    assert set(table["paper value"]) == {"yes"}


def test_rank_correlation_leaves_out_the_full_feature_set():
    side = pd.DataFrame(
        {
            "dataset": "pu1",
            "k": 5,
            "method": ["A", "B", "C", "Full-Feature-Set"],
            "rank_paper": [1, 2, 3, 4],
            "rank_ours": [3, 2, 1, 4],
        }
    )
    metrics = selection_metrics(pd.DataFrame(columns=["dataset", "method", "param", "auc", "n_features"]), side, {})
    assert metrics["pu1_k5_rank_spearman"] == pytest.approx(-1.0)
    assert metrics["pu1_k5_rank_spearman_with_full"] == pytest.approx(0.2)


def test_selection_counts_per_stopping_rule_and_maximal_orders():
    rng = np.random.default_rng(3)
    X = (rng.random((60, 9)) < 0.35).astype(int)
    y = (X[:, 0] ^ (rng.random(60) < 0.2)).astype(int)
    counts = selection_counts({"toy": (X, y, None)}, [2])
    assert len(counts) == 1 + 5 * 2 and counts["paper"].isna().all() and counts["training folds"].isna().all()
    rules = counts.set_index(["method", "stop rule"])["whole data"]
    assert rules["Greedy-DistCnt", "first-infeasible"] == greedy_distcnt(X, y, 2).features.size
    assert rules["CM Greedy", "best-feasible"] == greedy_cm(X, y, 2, stop="best-feasible").features.size
    assert ("Maximal", "") in rules.index
    summary = pd.DataFrame(
        {"dataset": "toy", "method": ["greedy-distcnt@best-feasible"], "param": [2.0], "n_features": [4.5]}
    )
    with_folds = selection_counts({"toy": (X, y, None)}, [2], summary=summary).set_index(["method", "stop rule"])
    assert with_folds.loc[("Greedy-DistCnt", "best-feasible"), "training folds"] == 4.5
    ranges = maximal_order_range(X, y, [2, 3], n_orders=3, random_state=0)
    assert ranges["orders"].tolist() == [4 + 3, 4 + 3] and (ranges["smallest"] <= ranges["largest"]).all()


def test_adult_rf_claim_takes_section_5_4_and_every_differing_claim_has_a_reason():
    methods = ["maximal", "greedy-hamdist", "greedy-distcnt", "cm-greedy", "k-anonymity-hamdist"]
    methods += ["k-anonymity-distcnt", "rf", "rf@whole", "laplace-dp"]
    auc = [0.74, 0.77, 0.78, 0.71, 0.775, 0.73, 0.80, 0.70, 0.6]
    params = [5.0] * 8 + [1.0]
    summary = pd.DataFrame({"dataset": "adult", "method": methods, "param": params, "auc": auc, "n_features": 3.0})
    table = selection_claims_table(summary)
    claims = table.assign(claim=table["claim"].str.partition(" at k = 5")[0]).set_index("claim")
    rf = claims.loc["Greedy-DistCnt beats RF"]
    assert rf["source"] == "Section 5.4, FSAC:356" and rf["paper value"] == "no" and rf["verdict"] == "agree"
    assert rf["privnb value"] == "no (AUC -0.020); RF by reading: train-fold 0.800, whole 0.700"
    assert claims.loc["Maximal beats CM greedy", "source"] == "Section 5.3, FSAC:324"
    assert claims.loc["Greedy-DistCnt beats Laplace-DP (eps = 1)", "source"] == "Section 5.5, FSAC:360"
    assert unexplained(table).empty and (table["verdict"] == "differ").any()
    twin = claims.loc["Greedy-HamDist (k-AC) beats its k-anonymity twin"]  # AUC -0.005: within the margin
    assert twin["verdict"] == "differ" and twin["reason"] == "noise" and "margin 0.01" in twin["evidence"]
    assert claims.loc["Greedy-DistCnt beats CM greedy", "reason"] == ""  # agrees: no reason shown


def test_a_tie_is_noise_only_within_the_spread_of_its_folds():
    methods = ["greedy-hamdist", "k-anonymity-hamdist", "greedy-distcnt", "k-anonymity-distcnt", "cm-greedy"]
    folds = {  # per-fold AUCs at k = 5: HamDist ahead by a steady 0.008, DistCnt by a noisy 0.002, CM the same
        "greedy-hamdist": [0.80, 0.81, 0.79, 0.80, 0.82],
        "k-anonymity-hamdist": [0.792, 0.802, 0.782, 0.792, 0.812],
        "greedy-distcnt": [0.83, 0.77, 0.84, 0.76, 0.81],
        "k-anonymity-distcnt": [0.80, 0.80, 0.80, 0.80, 0.80],
        "cm-greedy": [0.83, 0.77, 0.84, 0.76, 0.81],
    }
    rows = [("adult", "linear-svm", m, 5.0, f, "auc", v, 100, 0, "") for m in methods for f, v in enumerate(folds[m])]
    rows += [("adult", "linear-svm", m, 5.0, f, "n_features", 3.0, 100, 0, "") for m in methods for f in range(5)]
    results = tidy_frame(rows)
    summary = summary_table(results, n_splits=5)
    claims = selection_claims_table(summary, results=results)
    claims = claims.assign(claim=claims["claim"].str.partition(" at k = 5")[0]).set_index("claim")
    steady = claims.loc["Greedy-HamDist (k-AC) beats its k-anonymity twin"]  # beyond two standard errors of 0.000
    assert steady["reason"] == "ambiguous" and steady["evidence"].endswith("standard error over the 5 folds 0.000")
    noisy = claims.loc["Greedy-DistCnt (k-AC) beats its k-anonymity twin"]  # 0.002 against 0.016
    assert noisy["reason"] == "noise" and noisy["evidence"].endswith("standard error over the 5 folds 0.016")
    same = claims.loc["Greedy-DistCnt beats CM greedy"]  # equal on every fold: the data set's reason
    assert same["reason"] == "data" and same["why"].startswith("Adult's 19 binary features")
    assert unexplained(claims.reset_index()).empty
