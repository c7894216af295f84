"""Notebook 05's experiments: on a data set that is none of the papers' (result rows carry its name, the k-NN
views learn from a generalized ordinal quasi-identifier), and a release kind added by one registry entry."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from own_data import write_own_data
from sklearn.dummy import DummyClassifier

from privnb.attacks import AttackResult
from privnb.data import load
from privnb.experiments import (
    RELEASES,
    ReleaseKind,
    anatomy_and_k_anonymity,
    data_support,
    definetti_rates,
    frontier_points,
    nbc_release_audit,
    rate_spread,
    register_release,
    run_folds,
    tidy_frame,
    view_table,
)
from privnb.experiments.privacy_frontier import POINT_COLUMNS, release_view
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


def test_generalized_views_learn_from_a_generalized_ordinal_quasi_identifier(ward):
    data, support = ward  # severity is ordinal; its generalized labels (low-medium, *) lie outside its order
    rows = anatomy_and_k_anonymity(
        data,
        ls=[2],
        k_anonymity=[10],
        hierarchies=support.generalization_hierarchies,
        n_splits=3,
        folds=[0],
        n_iter=2,
        random_state=0,
    )
    errors = rows[rows["metric"] == "error"].set_index("method")["value"]
    assert {"generalized", "mondrian"} <= set(errors.index) and errors.between(0, 1).all()


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
