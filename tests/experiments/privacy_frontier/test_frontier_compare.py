"""Anatomy against its peers at the same l (notebook 05's like-for-like section) and the utility rows of every
release: runner rows on an Adult sample, the l-diversity the comparison relies on, utility rows equal to
release_utility computed apart, the tables."""

import numpy as np
import pandas as pd
import pytest

from privnb.data import load
from privnb.experiments.folds import FoldData
from privnb.experiments.privacy_frontier import anatomy_and_k_anonymity, like_for_like_table, utility_tables
from privnb.experiments.privacy_frontier._scoring import UTILITY_METRICS, utility_scores
from privnb.experiments.privacy_frontier.views import PEERS
from privnb.learn import GeneralizedTraining, IBkClassifier
from privnb.mechanisms import DistinctLDiversity, FullDomainGeneralizer, release_utility

LS = [2, 3]


@pytest.fixture(scope="module")
def adult():
    return load("adult").sample(600, random_state=3)


@pytest.fixture(scope="module")
def rows(adult):
    options = dict(ls=LS, k_anonymity=[], n_splits=3, folds=[0], n_iter=5, random_state=0)
    return anatomy_and_k_anonymity(adult, **options)


def test_every_peer_is_run_at_every_l_and_attacked_like_anatomy(rows, adult):
    metrics = ["error", "majority_error", "definetti", "definetti_baseline", "original_model", "membership_advantage"]
    for method in ("anatomized", *PEERS):
        view = rows[rows["method"] == method]
        assert sorted(view["param"].unique()) == LS, method
        values = view.pivot_table(index="param", columns="metric", values="value")
        assert set(metrics) <= set(values.columns), method
        assert values["error"].between(0, 1).all() and values["definetti"].between(0, 1).all()
        assert {f"utility_{name}" for name in UTILITY_METRICS} <= set(values.columns), method
    again = anatomy_and_k_anonymity(adult, ls=LS, k_anonymity=[], n_splits=3, folds=[0], n_iter=5, random_state=0)
    pd.testing.assert_frame_equal(rows, again)  # deterministic


def test_every_l_diverse_release_holds_l_distinct_values_in_each_class(rows):
    values = rows[rows["metric"] == "homogeneity_l_diversity"].set_index(["method", "param"])["value"]
    for method in ("l-diverse full-domain", "l-diverse Mondrian"):
        for l in LS:
            assert values[(method, l)] >= l
        homogeneity = rows.query("method == @method and metric == 'homogeneity'")["value"]
        assert (homogeneity == 0).all()


def test_utility_rows_equal_release_utility_computed_apart(adult):
    X, y = adult.frame.drop(columns=[adult.target]), adult.y
    train = np.random.RandomState(0).permutation(len(y))[:400]  # labels not 0..n-1: the runner must relabel
    X_train, y_train = X.iloc[train], y[train]
    qi, hier, s = list(adult.quasi_identifiers), adult.hierarchies, adult.sensitive
    view = GeneralizedTraining(
        IBkClassifier(1),
        quasi_identifiers=qi,
        k=3,
        hierarchies=hier,
        sensitive=s,
        privacy_models=[DistinctLDiversity(3)],
    ).fit(X_train, y_train)
    data = FoldData(0, 0, X_train, y_train, X.iloc[:5], y[:5])
    found = {score.metric: score.value for score in utility_scores(view, data, "1-NN")}
    apart = X_train.reset_index(drop=True)
    generalizer = FullDomainGeneralizer(qi, 3, hier, sensitive=s, privacy_models=[DistinctLDiversity(3)]).fit(apart)
    expected = release_utility(generalizer.generalized_, apart, qi, k=3, hierarchies=hier).iloc[0]
    assert found == {f"utility_{name}": pytest.approx(float(expected[name])) for name in UTILITY_METRICS}


def test_the_tables_read_the_rows(rows):
    table = like_for_like_table(rows)
    assert list(dict.fromkeys(table.index.get_level_values("method"))) == ["anatomized", *PEERS]
    assert list(table.xs("anatomized", level="method").index) == LS and (table["n_folds"] == 1).all()
    assert table.loc[("anatomized", 2), "definetti"] == pytest.approx(
        rows.query("method == 'anatomized' and param == 2 and metric == 'definetti'")["value"].mean()
    )
    assert np.isnan(table.loc[("anatomized", 2), "homogeneity"])
    utilities = utility_tables(rows)
    assert set(utilities) == {"anatomized", "pruned", *PEERS}  # the original rows have no release
    assert list(utilities["l-diverse Mondrian"].columns) == list(UTILITY_METRICS)
    assert (utilities["anatomized"]["c_avg"] == 1).all()  # groups of exactly l rows


def test_unknown_peers_are_refused(adult):
    with pytest.raises(ValueError, match="not among"):
        anatomy_and_k_anonymity(adult, ls=[2], k_anonymity=[], n_splits=3, folds=[0], peers=["l-close Mondrian"])
