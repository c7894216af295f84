"""privnb.experiments.nbc_publishing: the Section 8 experiments of MZ09 on small views whose answers are
known by hand."""

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from privnb.data import Hierarchy, nbc_figure1_databases
from privnb.experiments import CLAIM_COLUMNS
from privnb.experiments.claims import unexplained
from privnb.experiments.nbc_data import adult_nbc_frame
from privnb.experiments.nbc_publishing import (
    claims_table,
    corollary4_report,
    est_experiment,
    exact_audits,
    figure8_metrics,
    figure9,
    figure9_metrics,
    safety_transform_sweep,
)
from privnb.nbc import NBCViews, SafetyTransform, audit, condition8_ratio, nbc_equivalent

PRIOR = {0: 0.75, 1: 0.25}


@pytest.fixture
def views():
    """Counts x1: 0 -> (2, 0), 1 -> (1, 3), 2 -> (2, 1); x2: 0 -> (3, 1), 1 -> (2, 3); P = (5, 4)."""
    rows0 = [(0, 0), (0, 1), (1, 0), (2, 0), (2, 1)]
    rows1 = [(1, 0), (1, 1), (1, 1), (2, 1)]
    frame = pd.DataFrame([(a, b, 0) for a, b in rows0] + [(a, b, 1) for a, b in rows1], columns=["x1", "x2", "c"])
    return NBCViews.from_frame(frame, ["x1", "x2"], "c")


def test_adult_nbc_frame_ranks_education_and_samples():
    frame = pd.DataFrame({"education": ["HS-grad", "Doctorate", "Bachelors", "HS-grad"], "income": [0, 1, 1, 0]})
    data = SimpleNamespace(frame=frame, orders={"education": ["HS-grad", "Bachelors", "Doctorate"]})
    out = adult_nbc_frame(data)
    assert out["education-num"].tolist() == [1, 3, 2, 1]
    assert "education-num" not in frame  # a copy
    sample = adult_nbc_frame(data, n_rows=2, random_state=0)
    assert len(sample) == 2 and sample.index.tolist() == [0, 1]
    assert sample.equals(adult_nbc_frame(data, n_rows=2, random_state=0))


def test_corollary4_report_by_hand(views):
    zero_rows, ratios, gammas = corollary4_report(views)
    assert zero_rows == {"x1": 1, "x2": 0}  # x1 = 0 never has class 1
    assert ratios == {"x1": {1: 3.0, 2: 2.0}, "x2": {0: 3.0, 1: 1.5}}
    assert list(gammas) == [
        "min_gamma_zeros_kept",
        "min_gamma_zeros_skipped",
        "max_ratio_zeros_skipped",
        "min_gamma_plus_one",
    ]
    assert math.isinf(gammas["min_gamma_zeros_kept"])
    # without the zero row the largest ratio is 3, so Corollary 4's gamma = 3 ** n = 9
    assert gammas["min_gamma_zeros_skipped"] == pytest.approx(9.0)
    assert gammas["max_ratio_zeros_skipped"] == pytest.approx(3.0)
    # +1 on every count: x1 -> (3, 1), (2, 4), (3, 2); x2 -> (4, 2), (3, 4): largest ratio still 3
    assert gammas["min_gamma_plus_one"] == pytest.approx(9.0)


def test_safety_transform_sweep_rows_and_guarantee(views):
    fig8, rows = safety_transform_sweep(views, [2, 30], PRIOR, n_train=9, random_state=0)
    # changed on purpose: no "r_bound" (gamma is not an r-closeness bound), condition (8) from the audit instead
    assert fig8.columns.tolist() == [
        "gamma",
        "k",
        "achieved_gamma",
        "r_measured",
        "r_measured_prior",
        "condition8",
        "seconds",
        "audit",
    ]
    assert fig8["gamma"].tolist() == [2, 30] and (fig8["r_measured"] >= 1).all()
    assert (fig8["audit"] == "").all()  # small views: every audit runs in full within the budget
    for gamma, r, c8 in zip(fig8["gamma"], fig8["r_measured"], fig8["condition8"]):
        views_out = SafetyTransform(gamma, random_state=0).fit(views).views_
        assert r == audit(views_out).r_closeness and c8 == condition8_ratio(views_out)  # the audit's numbers
    # the classifier predicts 1 on some tuple, so against a 25% prior no equivalent views get below r = 2
    assert (fig8["r_measured_prior"] >= 2 - 1e-9).all()
    assert [(r.param, r.metric, r.n_train, r.note) for r in rows] == [
        (2, "r_closeness", 9, ""),
        (2, "r_closeness_prior", 9, "prior 0.75 on label 0"),
        (30, "r_closeness", 9, ""),
        (30, "r_closeness_prior", 9, "prior 0.75 on label 0"),
    ]
    assert all((r.dataset, r.classifier, r.method) == ("adult", "nbc", "safety_transform") for r in rows)
    assert [rows[0].value, rows[2].value] == fig8["r_measured"].tolist()
    fitted = SafetyTransform(2, random_state=0).fit(views)
    assert fig8["k"].iloc[0] == fitted.k_ and nbc_equivalent(views, fitted.views_)


def test_exact_audits_count_every_quasi_identifier_value(views):
    audits = exact_audits(views, (0.51, 0.8), gamma=30, random_state=0)
    # quasi-identifier values: 3 + 2 of one attribute, 3 * 2 of both; one row per value and class
    assert audits["exact_audit_rows"] == 2 * (3 + 2 + 6)
    assert math.isinf(audits["r_closeness_original"])  # a zero count makes a posterior 0
    assert audits["breaches_original"] > 0 and audits["breaches_published"] == 0
    assert list(audits) == [
        "r_closeness_original",
        "breaches_original",
        "breaches_published",
        "exact_audit_seconds",
        "exact_audit_rows",
        "audit_note",
    ]
    assert audits["audit_note"] == ""  # every audit in full within the budget


def test_exact_audits_of_figure1():
    db_a, _ = nbc_figure1_databases()
    va = NBCViews.from_frame(db_a, ["Adr", "Age"], "Sal")
    assert exact_audits(va, (0.51, 0.8), gamma=2, random_state=0)["breaches_original"] == 1  # Alice: 71% -> 88%


def test_figure8_metrics():
    fig8 = pd.DataFrame({"r_measured": [1.1, 1.5, 1.9], "r_measured_prior": [2.3, 2.1, 2.6], "seconds": [3, 1, 2]})
    assert figure8_metrics(fig8, 2.0) == {
        "r_closeness_at_max_gamma": 1.9,
        "r_closeness_prior_min": 2.1,
        "r_floor_prior": 2.0,
        "safety_transform_seconds": 2.0,
    }


def test_est_experiment_fails_at_the_prior_floor(views):
    run = est_experiment(views, PRIOR, 1.3, random_state=0)
    m = run.metrics
    # scores X_c = P_c prod N/P_c: class 1 wins on (1, 0) (0.75 > 0.6) and (1, 1) (2.25 > 0.4) only
    assert (m["tuples"], m["tuples_predicted_positive"]) == (6, 2)
    assert m["est_success"] is False and m["est_r_lower_bound"] == 2
    assert run.largest == (3, 3) and m["lemma12_s_m"] == 1.0  # two counts of 3
    assert math.isinf(m["statement14_log10_r_s_m"])  # S_M <= 1: Statement 14 guarantees nothing
    assert (run.big_m, run.small_m, run.f_tilde) == (5, 1, 3)  # M = P_0 = 5, m = 1, F~ = 0.75 / 0.25
    assert run.uniform.success and run.uniform.achieved_r <= 1.3
    assert list(m)[-2:] == ["est_seconds_full", "est_r"] and m["est_seconds_full"] == run.above.seconds
    assert m["est_r"] == 1.3
    shown = run.table()["value"]
    assert len(shown) == 9 and shown["EST at r = 1.3"].startswith("failed after")
    assert shown["smallest r any large-count release can meet (prior floor)"] == "2"


def test_figure9_k1_keeps_the_classifier_and_a_huge_k_predicts_the_majority():
    rng = np.random.default_rng(0)
    x1 = rng.integers(0, 4, 400)
    frame = pd.DataFrame({"x1": x1, "x2": rng.integers(0, 4, 400), "y": (x1 == 3).astype(int)})
    hierarchies = {a: Hierarchy.intervals(0, 4, cuts=[[1, 2, 3], [2]], name=a) for a in ("x1", "x2")}
    fig9, rows = figure9(
        frame, ["x1", "x2"], [1, 200], test_size=0.5, class_column="y", hierarchies=hierarchies, random_state=0
    )
    assert fig9.columns.tolist() == ["method", "k", "n_suppressed", "accuracy", "recall", "at or below majority"]
    assert fig9["method"].tolist() == ["original", "generalized", "generalized", "majority"]
    original, k1, k200, majority = fig9.to_dict("records")
    assert math.isnan(original["k"]) and original["accuracy"] == 1.0 and original["recall"] == 1.0  # y = [x1 == 3]
    assert (k1["accuracy"], k1["recall"], k1["n_suppressed"]) == (1.0, 1.0, 0)
    y_test_share = 1 - frame["y"].mean()  # stratified: the test half holds the same class shares
    assert k200["recall"] == 0.0 and k200["accuracy"] == pytest.approx(y_test_share, abs=0.01)
    # the majority class of the training half (label 0) on the same test half: recall 0, accuracy its share
    y_test = frame["y"].iloc[[i for i in range(400) if i not in set(_train_index(frame))]]
    assert majority["recall"] == 0.0 and majority["accuracy"] == (y_test == 0).mean()
    # k = 200 predicts the majority class everywhere: marked; the original NBC is not
    assert fig9["at or below majority"].tolist() == [False, False, True, False]
    keys = [(r.classifier, r.method, None if math.isnan(r.param) else r.param, r.metric) for r in rows]
    assert keys[:4] == [
        ("nbc", "original", None, "accuracy"),
        ("nbc", "original", None, "recall"),
        ("nbc", "published", None, "accuracy"),
        ("nbc", "published", None, "recall"),
    ]
    assert rows[0].value == rows[2].value and rows[1].value == rows[3].value  # the published NBC predicts alike
    assert keys[4:] == [
        ("nbc", "generalized", 1, "accuracy"),
        ("nbc", "generalized", 1, "recall"),
        ("nbc", "generalized", 200, "accuracy"),
        ("nbc", "generalized", 200, "recall"),
        ("majority", "majority", None, "accuracy"),
        ("majority", "majority", None, "recall"),
    ]
    assert all(r.n_train == 200 and r.fold == 0 for r in rows)


def _train_index(frame):
    from sklearn.model_selection import train_test_split

    train, _ = train_test_split(frame, test_size=0.5, stratify=frame["y"], random_state=0)
    return train.index


def test_figure9_metrics():
    fig9 = pd.DataFrame(
        {
            "method": ["original", "generalized", "generalized", "majority"],
            "accuracy": [0.8, 0.75, 0.7, 0.76],
            "recall": [0.5, 0.4, 0.45, 0.0],
        }
    )
    assert figure9_metrics(fig9) == pytest.approx(
        {
            "accuracy_original": 0.8,
            "recall_original": 0.5,
            "accuracy_drop_max": 0.1,
            "recall_drop_max": 0.1,
            "accuracy_majority": 0.76,
        }
    )


def _metrics(**changes):
    metrics = dict(
        p_negative=24720,
        p_positive=7841,
        min_gamma_zeros_skipped=238.0,
        max_ratio_zeros_skipped=6.2,
        min_gamma_plus_one=100.0,
        tuples=115632,
        exact_audit_rows=1234,
        exact_audit_seconds=1.5,
        est_seconds=0.25,
        est_seconds_full=2.5,
        safety_transform_seconds=0.5,
        est_success=False,
        tuples_predicted_positive=5000,
        est_r_lower_bound=2.0,
        statement14_log10_r_s_m=427.7,
        lemma12_s_m=1.02,
        statement14_log10_r_s_min=1.23e6,
        min_score_ratio=1.0000001,
        r_closeness_prior_min=2.0004,
        r_floor_prior=2.0,
        accuracy_drop_max=0.05,
        recall_drop_max=0.3,
        recall_original=0.4,
        prior_negative=0.75,
        est_r=1.3,
    )
    return {**metrics, **changes}


def test_claims_table():
    db_a, db_b = nbc_figure1_databases()
    figure1 = [NBCViews.from_frame(db, ["Adr", "Age"], "Sal") for db in (db_a, db_b)]
    fig8 = pd.DataFrame({"r_measured": [1.01, 1.2]})
    table = claims_table(_metrics(), fig8, [1.5, 283], figure1_views=figure1, alice={"Adr": "W", "Age": 40})
    assert table.columns.tolist() == list(CLAIM_COLUMNS) and len(table) == 15
    assert set(table["verdict"]) <= {"agree", "differ", "n/a"} and (table["paper"] == "MZ09").all()
    assert (table["source"].str.startswith("Section")).all()
    ours = dict(zip(table["claim"], table["privnb value"]))
    said = dict(zip(table["claim"], table["verdict"]))
    assert said["Figure 1 example: posterior of Alice"] == "agree"  # 88.0% and 77.8% round to 88% and 78%
    assert said["Definition 1 with L1 = 0.5, L2 = 0.6"] == "differ"  # as printed, neither view breaches
    assert said["Adult: class counts"] == "agree" and said["minimum gamma of Corollary 4"] == "agree"  # 238.0
    assert said["Corollary 4 blocks amplification gamma (condition (8))"] == "n/a"  # no search in these metrics
    assert said["achieved r-closeness well below the bound"] == "n/a"  # no EST runs for Figure 8 either
    assert said["EST runtime on Adult"] == "n/a"  # no successful run to time
    assert said["EST with prior 75% and r = 1.3"] == "differ" and said["Statement 14 for Adult (F~ = 3)"] == "differ"
    assert said["best r-closeness w.r.t. prior 75% keeping accuracy"] == "differ"  # 2.0004 > 1.3
    assert said["accuracy drop with k-anonymity"] == "agree" and said["recall (>50K) drop with k-anonymity"] == "agree"
    assert unexplained(table).empty  # every differing claim carries its reason, computed on the metrics
    why = table.set_index("claim")[["reason", "evidence"]]
    assert why.loc["Definition 1 with L1 = 0.5, L2 = 0.6"].tolist() == [
        "ambiguous",
        "breaches of V1, V2: strict 0, 0; non-strict 6, 6",
    ]
    assert why.loc["EST with prior 75% and r = 1.3"].tolist() == [
        "unreachable",
        "r >= 2 (>50K predicted on 5,000 tuples)",
    ]
    assert why.loc["best r-closeness w.r.t. prior 75% keeping accuracy"].tolist() == [
        "unreachable",
        "floor 2, measured 2.0004",
    ]
    assert why.loc["Statement 14 for Adult (F~ = 3)", "evidence"].startswith("log10 r >= 1.23e+06")
    assert ours["Figure 1 example: posterior of Alice"] == "88.0%, 77.8% (exact: 22/25, 7/9)"
    assert ours["Adult: class counts"] == "24720 : 7841"
    assert ours["achieved r-closeness well below the bound"] == (
        "SafetyTransform vs the uniform prior (audited): r = 1.0100 .. 1.2000 for gamma 1.5 .. 283"
    )
    assert ours["Definition 1 with L1 = 0.5, L2 = 0.6"] == "strict (as printed): 0 and 0 breaches; non-strict: 6 and 6"
    assert ours["Lemma 10: k-SIND of SafetyTransform on Figure 1(a)"].startswith("k = 2 ")
    assert ours["EST runtime on Adult"].startswith("not comparable: EST never publishes")
    assert ours["EST with prior 75% and r = 1.3"].startswith("impossible: >50K is predicted on 5,000 of 115,632")
    assert ours["EST with prior 75% and r = 1.3"].endswith(
        "so r >= 2 for any NBC-equivalent views with large counts (premise checked on the data)"
    )
    assert ours["recall (>50K) drop with k-anonymity"] == "up to 30.0% (from 40.0%)"
    success = claims_table(_metrics(est_success=True), fig8, [2], figure1_views=figure1, alice={"Adr": "W", "Age": 40})
    assert dict(zip(success["claim"], success["privnb value"]))["EST with prior 75% and r = 1.3"] == "publishes"
    assert dict(zip(success["claim"], success["verdict"]))["EST with prior 75% and r = 1.3"] == "agree"
    # another task than the paper's (prior, r) or a sample of Adult: those claims are not measured
    other = claims_table(
        _metrics(prior_negative=0.5, est_r=2.0, p_negative=300, p_positive=100),
        fig8,
        [2],
        figure1_views=figure1,
        alice={"Adr": "W", "Age": 40},
    )
    said = dict(zip(other["claim"], other["verdict"]))
    assert said["EST with prior 75% and r = 1.3"] == "n/a" and said["Adult: class counts"] == "n/a"
    assert said["best r-closeness w.r.t. prior 75% keeping accuracy"] == "n/a"


def test_figure8_est_keeps_failures_as_failures(views):
    from privnb.experiments.nbc_publishing import figure8_est, figure8_est_metrics

    table = figure8_est(views, [1.5, 3, 1e6], PRIOR, random_state=0)
    assert table.columns.tolist() == ["gamma", "success", "achieved_r", "stage", "seconds", "reason"]
    assert table["stage"].iloc[0] == "prior floor" and not table["success"].iloc[0]  # gamma 1.5 < floor 2
    failed = table[~table["success"]]
    assert failed["achieved_r"].isna().all() and (failed["reason"] != "").all()
    ok = table[table["success"]]
    assert (ok["achieved_r"] <= ok["gamma"]).all() and (ok["achieved_r"] >= 2 - 1e-9).all()  # audited
    m = figure8_est_metrics(table)
    assert m["est_figure8_runs"] == 3 and m["est_figure8_successes"] == len(ok)
    assert (m["est_like_for_like_seconds"] is None) == ok.empty


def test_counterexample_report():
    from privnb.experiments.nbc_publishing import counterexample_report

    _found, m = counterexample_report(n_views=20_000, max_count=6, random_state=0)
    assert m["counterexample_rows"] == 12 and m["counterexample_gamma"] == 9
    assert m["counterexample_r"] == pytest.approx(28 / 3) and m["condition8_rows"] == 6
    assert m["counterexample_views"] == [[7, 5], [[6, 2], [1, 3]], [[1, 3], [6, 2]]]


def test_claims_compare_timing_only_like_for_like():
    db_a, db_b = nbc_figure1_databases()
    figure1 = [NBCViews.from_frame(db, ["Adr", "Age"], "Sal") for db in (db_a, db_b)]
    fig8 = pd.DataFrame({"r_measured": [1.01, 1.2]})

    def runtime(**changes):
        table = claims_table(_metrics(**changes), fig8, [2], figure1_views=figure1, alice={"Adr": "W", "Age": 40})
        return dict(zip(table["claim"], table["privnb value"]))["EST runtime on Adult"]

    assert runtime(est_like_for_like_seconds=0.5, prior_negative=0.75).startswith("0.50 s (Python")
    assert runtime(est_like_for_like_seconds=0.5, prior_negative=0.5).startswith("not comparable: EST publishes")
    assert runtime(est_like_for_like_seconds=None, prior_negative=0.75).startswith("not comparable: EST never")


def test_claims_verdicts_of_figure8_and_the_counterexample():
    db_a, db_b = nbc_figure1_databases()
    figure1 = [NBCViews.from_frame(db, ["Adr", "Age"], "Sal") for db in (db_a, db_b)]
    fig8 = pd.DataFrame({"r_measured": [1.01, 1.2]})
    found = dict(counterexample_rows=12, counterexample_gamma=9.0, counterexample_r=9.3, counterexample_condition8=17.6)
    est_runs = dict(est_figure8_runs=2, est_figure8_failures="", est_figure8_r_min=1.2, condition8_rows=6)

    def said(**changes):
        table = claims_table(_metrics(**changes), fig8, [2], figure1_views=figure1, alice={"Adr": "W", "Age": 40})
        return dict(zip(table["claim"], table["verdict"]))

    assert said(**found, **est_runs, est_figure8_successes=2)["achieved r-closeness well below the bound"] == "agree"
    failing = said(**found, **est_runs, est_figure8_successes=1)
    assert failing["achieved r-closeness well below the bound"] == "differ"
    assert failing["Corollary 4 blocks amplification gamma (condition (8))"] == "differ"
    assert said(est_like_for_like_seconds=0.5)["EST runtime on Adult"] == "agree"  # 0.5 s <= 10 x 2.92 s
    assert said(est_like_for_like_seconds=0.5, prior_negative=0.5)["EST runtime on Adult"] == "n/a"


def test_every_claim_that_can_differ_carries_its_reason():
    """Metrics against every claim a run can measure: each differing claim says why, of a named kind."""
    db_a, db_b = nbc_figure1_databases()
    figure1 = [NBCViews.from_frame(db, ["Adr", "Age"], "Sal") for db in (db_a, db_b)]
    against = _metrics(
        min_gamma_zeros_skipped=150.0,
        counterexample_rows=12,
        counterexample_gamma=9.0,
        counterexample_r=9.3,
        counterexample_condition8=17.6,
        condition8_rows=6,
        est_figure8_runs=18,
        est_figure8_successes=0,
        est_figure8_failures="3 at prior floor, 15 at merging",
        est_figure8_r_min=None,
        est_like_for_like_seconds=60.0,
        accuracy_drop_max=0.15,
        recall_drop_max=0.1,
    )
    fig8 = pd.DataFrame({"r_measured": [1.01, 1.2]})
    table = claims_table(against, fig8, [2], figure1_views=figure1, alice={"Adr": "W", "Age": 40})
    differ = table[table["verdict"] == "differ"].set_index("claim")
    assert len(differ) == 10 and unexplained(table).empty
    assert differ["reason"].to_dict() == {
        "Definition 1 with L1 = 0.5, L2 = 0.6": "ambiguous",
        "minimum gamma of Corollary 4": "ambiguous",
        "Corollary 4 blocks amplification gamma (condition (8))": "unreachable",
        "achieved r-closeness well below the bound": "unreachable",
        "EST runtime on Adult": "departure",
        "EST with prior 75% and r = 1.3": "unreachable",
        "Statement 14 for Adult (F~ = 3)": "unreachable",
        "best r-closeness w.r.t. prior 75% keeping accuracy": "unreachable",
        "accuracy drop with k-anonymity": "ambiguous",
        "recall (>50K) drop with k-anonymity": "ambiguous",
    }
    assert differ.loc["minimum gamma of Corollary 4", "evidence"] == "zeros skipped 150, +1 100; paper 238"
    assert differ.loc["achieved r-closeness well below the bound", "evidence"] == (
        "published 0 of 18; failed: 3 at prior floor, 15 at merging; prior floor 2"
    )
    assert differ.loc["EST runtime on Adult", "evidence"] == "60.00 s against 2.92 s"


def test_nbc_data_of_own_cards(tmp_path):
    from own_data import write_own_data

    from privnb.data import load
    from privnb.experiments import data_support
    from privnb.experiments.nbc_publishing import nbc_data

    cards = write_own_data(tmp_path)
    table = load(cards["table"])
    # Adult's attributes are not all in the card: its quasi-identifiers are used, numeric age as whole numbers
    own = nbc_data(data_support(cards["table"], table), table, ["age", "education-num"], n_rows=200, random_state=0)
    assert (own.name, own.target, own.label_names, own.missing) == ("ward", "readmitted", ("no", "yes"), "")
    assert own.attributes == ["age", "ward", "sex", "severity"] and own.attribute_table["used"].all()
    assert len(own.frame) == 200 and own.frame["age"].dtype == np.int64 and set(own.frame["readmitted"]) == {0, 1}
    assert own.figure9_missing == "" and set(own.hierarchies) == set(own.attributes)
    views = NBCViews.from_frame(own.frame, own.attributes, own.target)
    assert views.domain_sizes[1:] == (4, 2, 3)
    named = nbc_data(data_support(cards["table"], table), table, ["ward", "sex"])
    assert named.attributes == ["ward", "sex"] and len(named.frame) == len(table.frame)
    items = load(cards["items"])
    skipped = nbc_data(data_support(cards["items"], items), items, ["age"])
    assert skipped.attributes == [] and "item matrix" in skipped.missing


def test_nbc_data_leaves_out_fractional_and_many_valued_numbers():
    from privnb.data import Dataset
    from privnb.experiments import DataSupport
    from privnb.experiments.nbc_publishing import nbc_data

    frame = pd.DataFrame({"x": [0.5, 1.5, 2.5, 0.5], "n": [1, 2, 3, 4], "c": ["a", "b", "a", "b"], "y": [0, 1, 0, 1]})
    data = Dataset("t", frame, ("x", "n", "c"), None, "y", {"x": "numeric", "n": "numeric", "c": "nominal"})
    support = DataSupport("t.yaml", "t", None, quasi_identifiers=("x", "n", "c"), hierarchies={"n": object()})
    out = nbc_data(support, data, [], max_values=3)
    assert out.attributes == ["c"] and out.attribute_table["used"].tolist() == [False, False, True]
    why = out.attribute_table.set_index("attribute")["why not"]
    assert "fractional" in why["x"] and "4 values (over 3)" in why["n"]
    assert out.hierarchies is None and "no generalization hierarchy for c" in out.figure9_missing
    none_left = nbc_data(support, data, ["x"])
    assert none_left.attributes == [] and none_left.missing.startswith("no attribute of 't' is discrete")


def test_claims_are_records_measured_on_one_evidence():
    from privnb.experiments import Claim, evaluate
    from privnb.experiments.nbc_publishing.claims import NBC_CLAIMS, Reading, claims_evidence

    db_a, db_b = nbc_figure1_databases()
    figure1 = [NBCViews.from_frame(db, ["Adr", "Age"], "Sal") for db in (db_a, db_b)]
    fig8 = pd.DataFrame({"r_measured": [1.01, 1.2]})
    evidence = claims_evidence(_metrics(), fig8, [2], figure1_views=figure1, alice={"Adr": "W", "Age": 40})
    assert evidence.alice == (22 / 25, 7 / 9) and evidence.k_sind == evidence.smallest_class == 2
    assert evidence.breaches == {"strict": [0, 0], "non-strict": [6, 6]}
    assert all(isinstance(c, Claim) and c.paper == "MZ09" for c in NBC_CLAIMS) and len(NBC_CLAIMS) == 15
    table = evaluate(NBC_CLAIMS, evidence)
    assert table.equals(claims_table(_metrics(), fig8, [2], figure1_views=figure1, alice={"Adr": "W", "Age": 40}))
    # a reading the run cannot judge keeps its text for the table but reads "n/a" for the verdict
    unmeasured = Reading("not comparable: another prior", None)
    assert str(unmeasured) == "n/a" and NBC_CLAIMS[0].verdict(unmeasured) == "n/a"
    assert NBC_CLAIMS[0].shown(unmeasured) == "not comparable: another prior"
    first = NBC_CLAIMS[0]
    assert first.verdict(Reading("x", True)) == "agree" and first.verdict(Reading("x", False)) == "differ"


def test_audits_of_counts_the_budget_cannot_hold_adapt_and_say_so_instead_of_raising():
    """Issue 31: notebook 04 stopped on AuditTooLarge (17.3 GiB) on a card whose views count one attribute of two
    values. SafetyTransform publishes counts near 10^8 there: the sweep, the exact audits and EST take the
    largest audit that fits the budget and say which, with the same numbers whatever memory is free."""
    import pandas as pd

    from privnb.experiments.nbc_publishing import exact_audits, figure8_est
    from privnb.experiments.nbc_publishing.release import planned_audit_plans
    from privnb.nbc import NBCViews

    table = pd.DataFrame([[1400, 160], [1270, 170]], index=["female", "male"], columns=[0, 1])
    views = NBCViews(pd.Series([2670, 330], index=[0, 1]), {"sex": table})
    fig8, _ = safety_transform_sweep(views, [2], PRIOR, n_train=3000, random_state=0)
    assert "method 'expected'" in fig8["audit"].iloc[0] and "audit_memory" in fig8["audit"].iloc[0]
    assert fig8["r_measured"].iloc[0] >= 1
    audits = exact_audits(views, (0.51, 0.8), gamma=2, random_state=0)
    assert audits["audit_note"].startswith("published: audited quasi-identifiers of up to 1 attribute(s)")
    assert planned_audit_plans(views, [2], audit_memory=None, random_state=0).startswith("gamma 2: ")
    tight = figure8_est(views, [2], PRIOR, random_state=0, audit_memory=2**20)
    assert not tight["success"].iloc[0] and tight["stage"].iloc[0] == "audit"
    assert "out of reach" in tight["reason"].iloc[0]
