"""Notebook 05's experiments: on a data set that is none of the papers' (result rows carry its name, the k-NN
views learn from a generalized ordinal quasi-identifier), a view added by one class and one registry line, a
second attack on a release type added by one function and one line, and the membership attack on every view's
classifier beside its release's attack."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from own_data import write_own_data
from sklearn.dummy import DummyClassifier
from sklearn.neighbors import KNeighborsClassifier

from privnb.attacks import ATTACKS, AttackResult, register_attack
from privnb.data import load
from privnb.experiments import View, data_support, run_folds, tidy_frame
from privnb.experiments.privacy_frontier import (
    anatomy_and_k_anonymity,
    definetti_rates,
    frontier_points,
    lira_table,
    lira_unrun,
    membership_reading,
    membership_table,
    nbc_release_audit,
    population_rows,
    rate_spread,
    view_table,
)
from privnb.experiments.privacy_frontier._scoring import AttackScorer, release_view
from privnb.experiments.privacy_frontier.leakage import MEMBERSHIP_COLUMNS
from privnb.experiments.privacy_frontier.points import POINT_COLUMNS
from privnb.experiments.privacy_frontier.views import PEERS, VIEWS, FrontierView, register_view
from privnb.learn import ProtectedTraining
from privnb.mechanisms import Anatomy, GeneralizedRelease, Mechanism
from privnb.mechanisms.releases import row_classes
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
    methods = ["original", "anatomized", "pruned", "generalized", "mondrian", "mdav"]
    for method in methods:  # 197 test rows against as many training rows; 99 + 99 of them held out
        assert rows[method, "membership_baseline"] == 0.5 and rows[method, "membership_n_targets"] == 198
        assert abs(rows[method, "membership_advantage"]) < 0.15 and 0.35 < rows[method, "membership_auc"] < 0.65
    # members count the rows the mechanism suppressed: full-domain k = 10 drops some
    assert rows["generalized", "membership_suppressed_share"] > 0 == rows["original", "membership_suppressed_share"]
    table = membership_table(ward_views).set_index("method")
    assert list(table.columns) == [c for c in MEMBERSHIP_COLUMNS if c != "method"]
    assert list(table.index) == [*methods, *PEERS]  # anatomy's peers at its l run by default, on a card too
    assert (table.drop(index="original")["release_attack"] == "common").all()  # one adversary for every release
    assert (table["loss"] == "log loss").all() and table.loc["original", "release_attack"] == ""
    assert table.loc["mondrian", "release_advantage"] == rows["mondrian", "common_advantage"]
    baselines = rows.xs("common_baseline", level="metric")
    assert baselines.nunique() == 1  # the same rows, the same background: one baseline
    assert table.loc["pruned", "membership_advantage"] == rows["pruned", "membership_advantage"]


class Rounding(Mechanism):
    """A toy mechanism: ages rounded down to multiples of ``width``, published as a generalized release."""

    def __init__(self, width=10):
        self.width = width

    def transform(self, X):
        """``X`` with its ages rounded."""
        return X.assign(age=(X["age"].astype(float) // self.width) * self.width)

    def _fit_resample(self, rows, y):
        released = self.transform(rows.reset_index(drop=True))
        self.suppressed_ = released.index[:0]
        classes = row_classes(released, ["age"])
        self.release_ = GeneralizedRelease(released, ("age",), classes, self.suppressed_, 1, "rounding")
        return released, y


def toy_attack(release, targets, options):
    """A second attack on anatomy: the share of groups holding l values (always 1 on anatomy)."""
    return [AttackResult("toy", "share of full groups", 1.0, 0.5, int(release.it["gid"].nunique()))]


def test_a_view_and_a_second_attack_reach_the_frontier_table_and_plot_with_one_line_each(ward):
    data, _ = ward
    register_view(FrontierView("rounding", "k", lambda setting, k: ProtectedTraining(Rounding(k), setting.knn())))
    register_attack(Anatomy, toy_attack, headline="toy")
    try:
        rows = anatomy_and_k_anonymity(data, ls=[2], k_anonymity=[10], n_splits=3, folds=[0], n_iter=2, peers=[])
        points = frontier_points(rows)
        fig = frontier_plot(points)
    finally:
        VIEWS.pop("rounding")
        ATTACKS[Anatomy].pop()
    assert list(points.columns) == list(POINT_COLUMNS)
    rounding = points[points["method"] == "rounding"].set_index("attack")
    assert {"common", "homogeneity"} <= set(rounding.index) and (rounding["param"] == 10).all()
    toy = points[points["attack"] == "toy"]
    assert list(toy["method"]) == ["anatomized"] and toy["advantage"].iloc[0] == 0.5
    legend = [t.get_text() for ax in fig.axes for t in (ax.get_legend().get_texts() if ax.get_legend() else [])]
    legend += [t.get_text() for lg in fig.legends for t in lg.get_texts()]
    assert "rounding" in legend and "toy" in [ax.get_title() for ax in fig.axes]


def test_register_view_refuses_a_second_entry_of_one_method():
    with pytest.raises(ValueError, match="registered already"):
        register_view(VIEWS["anatomized"])


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
                                     ("membership_advantage", fold / 10, ""), ("error", 0.3, ""),
                                     *([("definetti_advantage", 0.2, "")] if method == "anatomized" else []))]
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


def test_the_population_is_the_multiset_of_rows_left_out_and_a_size_draws_that_many_of_them(ward):
    data, _ = ward
    doubled = SimpleNamespace(frame=pd.concat([data.frame, data.frame.iloc[:40]], ignore_index=True))  # 40 twice
    sample = SimpleNamespace(frame=doubled.frame.sample(150, random_state=3))
    rows = [tuple(r) for r in doubled.frame.astype(str).itertuples(index=False)]
    drawn_rows = pd.Series([rows[i] for i in sample.frame.index]).value_counts()
    left = pd.Series(rows).value_counts().sub(drawn_rows, fill_value=0)
    population = population_rows(doubled, sample)
    found = pd.Series([tuple(r) for r in population.astype(str).itertuples(index=False)]).value_counts()
    assert found.sort_index().equals(left[left > 0].astype(int).sort_index())  # brute force: count by count
    drawn = population_rows(doubled, sample, size=100, random_state=1)
    assert len(drawn) == 100 and drawn.index.isin(population.index).all() and drawn.index.is_monotonic_increasing
    assert drawn.equals(population_rows(doubled, sample, size=100, random_state=1))
    assert population_rows(doubled, sample, size=10_000).equals(population)
    with pytest.raises(ValueError, match="population_size"):
        population_rows(doubled, sample, size=-1)


def test_lira_attacks_the_views_it_is_asked_to_with_shadow_models_on_the_population(ward):
    data, _ = ward
    sample = data.sample(300, random_state=0)
    population = population_rows(data, sample)
    rows = anatomy_and_k_anonymity(
        sample, ls=[2], k_anonymity=[], n_splits=3, folds=[0], n_iter=2, peers=[], population=population,
        lira_views=["original"], lira_shadows=4, random_state=0,
    )  # fmt: skip
    lira = lira_table(rows)
    assert list(lira["method"]) == ["original"] and lira["lira_online_auc"].between(0, 1).all()
    assert rows.query("metric == 'lira_online_n_shadows'")["value"].tolist() == [4]
    assert not rows.query("method == 'anatomized' and metric.str.startswith('lira')").size
    assert lira_unrun("d", population, ["original"]) == ""


def test_lira_says_why_it_attacked_no_view(ward):
    data, _ = ward
    rows = anatomy_and_k_anonymity(
        data, ls=[2], k_anonymity=[], n_splits=3, folds=[0], n_iter=2, peers=[], population=None,
        lira_views=["original"], lira_shadows=4, random_state=0,
    )  # fmt: skip
    assert lira_table(rows).empty
    assert "every row of d" in lira_unrun("d", None, ["original"])
    assert "names no view" in lira_unrun("d", population_rows(data, data.sample(100, random_state=0)), [])
