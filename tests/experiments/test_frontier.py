"""Notebook 05's experiments: on a data set that is none of the papers' (result rows carry its name, the k-NN
views learn from a generalized ordinal quasi-identifier), a release kind added by one registry entry, and the
membership attack on every view's classifier beside its release's attack."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from own_data import write_own_data
from sklearn.dummy import DummyClassifier
from sklearn.neighbors import KNeighborsClassifier

from privnb.attacks import AttackResult
from privnb.data import load
from privnb.experiments import View, data_support, run_folds, tidy_frame
from privnb.experiments.privacy_frontier import (
    MEMBERSHIP_COLUMNS,
    PEERS,
    POINT_COLUMNS,
    RELEASES,
    AttackScorer,
    ReleaseKind,
    anatomy_and_k_anonymity,
    definetti_rates,
    frontier_points,
    membership_reading,
    membership_table,
    nbc_release_audit,
    rate_spread,
    register_release,
    release_view,
    view_table,
)
from privnb.workbench.frontier_plot import frontier_plot


@pytest.fixture(scope="module")
def ward(tmp_path_factory):
    card = write_own_data(tmp_path_factory.mktemp("own"))["table"]
    return load(card), data_support(card)


def test_nbc_release_audit_names_its_rows_after_the_data_set(ward):
    data, _ = ward
    frame = data.frame[["ward", "sex", "severity", data.target]]
    rows = nbc_release_audit(
        frame,
        ["ward", "sex", "severity"],
        class_column=data.target,
        dataset_name="ward",
        gammas=[2],
        epsilons=[1.0],
        max_size=1,
        random_state=0,
    )
    assert set(rows["dataset"]) == {"ward"} and {"error", "majority_error", "r_closeness"} <= set(rows["metric"])
    assert (rows.loc[rows["metric"] == "r_closeness_max_size", "value"] == 1).all()


@pytest.fixture(scope="module")
def ward_views(ward):
    data, support = ward  # severity is ordinal; its generalized labels (low-medium, *) lie outside its order
    return anatomy_and_k_anonymity(
        data,
        ls=[2],
        k_anonymity=[10],
        hierarchies=support.generalization_hierarchies,
        n_splits=3,
        folds=[0],
        n_iter=2,
        random_state=0,
    )


def test_generalized_views_learn_from_a_generalized_ordinal_quasi_identifier(ward_views):
    rows = ward_views
    errors = rows[rows["metric"] == "error"].set_index("method")["value"]
    assert {"generalized", "mondrian"} <= set(errors.index) and errors.between(0, 1).all()


def test_every_view_is_attacked_by_membership_inference_beside_its_release(ward_views):
    rows = ward_views.set_index(["method", "metric"])["value"]
    methods = ["original", "anatomized", "pruned", "generalized", "mondrian"]
    for method in methods:  # 197 test rows against as many training rows; 99 + 99 of them held out
        assert rows[method, "membership_baseline"] == 0.5 and rows[method, "membership_n_targets"] == 198
        assert abs(rows[method, "membership_advantage"]) < 0.15 and 0.35 < rows[method, "membership_auc"] < 0.65
    # members count the rows the mechanism suppressed: full-domain k = 10 drops some
    assert rows["generalized", "membership_suppressed_share"] > 0 == rows["original", "membership_suppressed_share"]
    table = membership_table(ward_views).set_index("method")
    assert list(table.columns) == [c for c in MEMBERSHIP_COLUMNS if c != "method"]
    assert list(table.index) == [*methods, *PEERS]  # anatomy's peers at its l run by default, on a card too
    assert (table.loc[list(PEERS), "release_attack"] == "definetti").all()
    assert (table["loss"] == "log loss").all() and table.loc["original", "release_attack"] == ""
    assert table.loc["anatomized", "release_attack"] == "definetti"
    assert table.loc["mondrian", "release_advantage"] == rows["mondrian", "homogeneity_advantage"]
    assert table.loc["pruned", "membership_advantage"] == rows["pruned", "membership_advantage"]


class ToyAttack:
    """A toy attack on any release: it "guesses" the majority class of the training rows."""

    def __call__(self, fitted, data, param, options):
        share = float(np.mean(data.y_train == fitted.classes_[0]))
        return [AttackResult("toy", "share of rows of the first class", share, 0.5, len(data.y_train))]


def test_a_registered_toy_attack_reaches_the_frontier_table_and_plot():
    rng = np.random.RandomState(0)
    data = SimpleNamespace(name="toy", X=pd.DataFrame({"a": rng.rand(60)}), y=np.array([0] * 40 + [1] * 20))
    register_release(ReleaseKind("toy", ToyAttack(), "toy", "toy share - 1/2", "toy release", "k", "Toy panel"))
    try:
        views = [release_view("toy", 3, DummyClassifier(strategy="most_frequent"), "dummy")]
        rows = run_folds(data, views, n_splits=2, random_state=0, progress=False)
        points = frontier_points(rows)
        fig = frontier_plot(points)
    finally:
        RELEASES.pop("toy")
    assert list(points.columns) == list(POINT_COLUMNS)
    (point,) = points.itertuples(index=False)
    assert point.method == "toy" and point.param == 3 and point.axis == "toy share - 1/2" and point.n_folds == 2
    assert point.success == pytest.approx(2 / 3) and point.attack == pytest.approx(2 / 3 - 0.5)
    # the constant guess is the majority: its error is the majority error, flagged
    assert point.error == point.majority_error and point.at_or_above_majority
    assert fig.axes[0].get_title() == "Toy panel"


def test_register_release_refuses_a_second_entry_of_one_method():
    with pytest.raises(ValueError, match="registered already"):
        register_release(RELEASES["anatomized"])


def test_definetti_rates_and_their_spread_over_anatomy_seeds():
    rng = np.random.RandomState(0)
    q = rng.randint(0, 4, 400)
    frame = pd.DataFrame({"q": q, "s": np.where(rng.rand(400) < 0.7, q, rng.randint(0, 4, 400)).astype(str)})
    rates = definetti_rates(frame, "s", ls=[2, 3, 9], seeds=[0, 1])  # l = 9 exceeds the 4 values: no row
    assert list(rates["l"]) == [2, 2, 3, 3] and rates["converged"].all()
    assert (rates["strongest"] == rates[["join", "em_early", "em"]].max(axis=1)).all()
    assert (rates["strongest"] > rates["baseline"] + 0.2).all()
    spread = rate_spread(rates)
    assert spread.loc[2, ("strongest", "min")] == rates.loc[rates["l"] == 2, "strongest"].min()


def test_view_table_puts_the_majority_error_beside_every_error():
    rows = tidy_frame(
        [("d", "c", method, 2.0, fold, metric, value, 10, 0, "")
         for method, error in (("a", 0.1), ("b", 0.4))
         for fold in (0, 1)
         for metric, value in (("error", error), ("majority_error", 0.3), ("hit", fold))]
    )  # fmt: skip
    table = view_table(rows, ["a", "b"], ["hit", "absent"])
    assert list(table.columns) == ["hit", "error", "majority_error", "≥ majority"]
    assert list(table["≥ majority"]) == [False, True] and list(table["hit"]) == [0.5, 0.5]
    assert list(view_table(rows, ["a", "b"], ["hit"], by_metric=True).columns) == ["a 2", "b 2"]


def test_the_scorer_attacks_the_trained_model_unless_told_not_to():
    rng = np.random.RandomState(0)
    data = SimpleNamespace(name="toy", X=pd.DataFrame({"a": rng.rand(60)}), y=rng.randint(0, 2, 60))
    memorising = SimpleNamespace(name="toy", X=data.X, y=data.y)
    views = [
        release_view("original", None, DummyClassifier(strategy="prior"), "dummy"),
        View("memory", None, KNeighborsClassifier(1), AttackScorer("1-NN")),
        View("quiet", None, KNeighborsClassifier(1), AttackScorer("1-NN", membership=False)),
    ]
    rows = run_folds(memorising, views, n_splits=2, random_state=0, progress=False).set_index(["method", "metric"])
    assert abs(rows.loc[("original", "membership_auc"), "value"].mean() - 0.5) < 0.2
    assert rows.loc[("memory", "membership_tpr"), "value"].eq(1).all()  # 1-NN: every member's loss is 0
    assert rows.loc[("memory", "membership_auc"), "value"].mean() > 0.6
    assert not any(metric.startswith("membership") for metric in rows.loc["quiet"].index)


def test_membership_table_reads_the_release_headline_and_the_fold_means():
    rows = tidy_frame(
        [("d", "c", method, param, fold, metric, value, 10, 0, note)
         for method, param in (("original", float("nan")), ("anatomized", 2.0))
         for fold in (0, 1)
         for metric, value, note in (("membership", 0.5 + fold / 10, "m; loss=log loss"),
                                     ("membership_advantage", fold / 10, ""), ("definetti_advantage", 0.2, ""),
                                     ("error", 0.3, ""))]
    )  # fmt: skip
    table = membership_table(rows)
    assert list(table["method"]) == ["original", "anatomized"] and list(table["n_folds"]) == [2, 2]
    assert list(table["membership_advantage"]) == [0.05, 0.05] and list(table["loss"]) == ["log loss"] * 2
    assert table["release_advantage"].iloc[0] != table["release_advantage"].iloc[0]  # NaN: nothing released
    assert table["release_advantage"].iloc[1] == 0.2 and table["release_attack"].iloc[1] == "definetti"


def test_membership_reading_compares_each_view_with_the_unprotected_one_beyond_two_standard_errors():
    columns = ["dataset", "classifier", "method", "param", "membership_advantage", "membership_auc", "n_targets"]
    table = pd.DataFrame(
        [("d", "5-NN", "original", float("nan"), 0.0, 0.5, 400),  # band 2 * sqrt(2) * 0.5 / sqrt(400) = 0.071
         ("d", "5-NN", "anatomized", 2.0, -0.1, 0.4, 400),
         ("d", "5-NN", "pruned", 2.0, 0.07, 0.5, 400),
         ("d", "5-NN", "mondrian", 5.0, 0.2, 0.7, 400),
         ("d", "LinearSVC", "full", float("nan"), 0.01, 0.5, 100),  # band 0.141
         ("d", "LinearSVC", "k-ac", 5.0, 0.15, 0.5, 100),
         ("d", "NBC", "original", float("nan"), 0.0, 0.5, 100)],  # no protected NBC view: no sentence
        columns=columns,
    ).assign(n_folds=1)  # fmt: skip
    knn, svm = membership_reading(table)
    assert knn.startswith("5-NN on d") and "less: anatomized 2; more: mondrian 5." in knn and "pruned" not in knn
    assert "range from -0.100 to 0.200" in knn
    assert svm.startswith("LinearSVC on d: trained on full rows") and "no measurable difference" in svm
