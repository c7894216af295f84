"""Tests of FSAC's baselines (privnb.mechanisms.flipping, privnb.mechanisms.dp_release, greedy CM),
privnb.data.binarize and privnb.experiments.feature_selection."""

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from privnb.data import binarize_adult
from privnb.data.binarize import density
from privnb.experiments import COLUMNS
from privnb.experiments.feature_selection import side_by_side, summary_table
from privnb.experiments.feature_selection._views import METHODS
from privnb.experiments.feature_selection.runner import evaluate_methods
from privnb.learn import STOP_RULES, greedy_cm
from privnb.mechanisms import DP_MECHANISMS, dataset_ac, dp_select_release, feature_hamdist, randomized_flipping
from privnb.mechanisms.containment import classification_metric, dataset_anonymity
from privnb.mechanisms.dp_release import hamdist_sensitivity

matrices = arrays(np.int8, st.tuples(st.integers(3, 12), st.integers(1, 5)), elements=st.integers(0, 1))


def labels_for(X, seed):
    y = np.random.default_rng(seed).integers(0, 2, X.shape[0])
    y[0], y[1] = 0, 1
    return y


def brute_cm(X, y, S):
    keys = [tuple(r) for r in X[:, S]]
    cost = 0
    for key in set(keys):
        members = np.array([k == key for k in keys])
        cost += min((y[members] == 1).sum(), (y[members] == 0).sum())
    return cost


@settings(max_examples=40, deadline=None)
@given(matrices, st.integers(0, 1000), st.integers(1, 3), st.sampled_from(STOP_RULES))
def test_cm_greedy_is_the_exact_greedy_on_cm(X, seed, k, stop):
    y = labels_for(X, seed)
    k = min(k, X.shape[0])
    for r in range(X.shape[1] + 1):
        for S in combinations(range(X.shape[1]), r):
            assert classification_metric(X, y, list(S)) == brute_cm(X, y, list(S))
    selected = []
    while True:
        best, saved = None, 0
        for f in sorted(set(range(X.shape[1])) - set(selected)):
            if stop == "best-feasible" and dataset_ac(X, selected + [f]) < k:
                continue
            gain = brute_cm(X, y, selected) - brute_cm(X, y, selected + [f])
            if gain > saved:
                best, saved = f, gain
        if best is None or dataset_ac(X, selected + [best]) < k:
            break
        selected.append(best)
    assert greedy_cm(X, y, k, stop=stop).order.tolist() == selected


@settings(max_examples=40, deadline=None)
@given(matrices, st.integers(1, 4), st.integers(0, 1000))
def test_randomized_flipping_is_k_anonymous_and_counts_its_flips(X, k, seed):
    k = min(k, X.shape[0])
    out = randomized_flipping(X, k, random_state=seed)
    flipped = out.X.toarray()
    assert dataset_anonymity(flipped) >= k
    assert out.flipped_share == pytest.approx((flipped != X).mean())
    again = randomized_flipping(X, k, random_state=seed)
    assert (again.X != out.X).nnz == 0


def test_randomized_flipping_keeps_large_groups():
    X = np.array([[1, 0]] * 3 + [[0, 1]] * 3)
    out = randomized_flipping(X, 3, random_state=0)
    assert out.flipped_share == 0 and out.n_clusters == 2


@pytest.mark.parametrize("mechanism", DP_MECHANISMS)
def test_dp_release_spends_epsilon_and_releases_the_table(mechanism):
    rng = np.random.default_rng(0)
    X = (rng.random((300, 12)) < 0.3).astype(int)
    y = (X[:, 0] | (rng.random(300) < 0.2)).astype(int)
    out = dp_select_release(X, y, 3, 1.0, mechanism=mechanism, random_state=0)
    assert out.epsilon_spent == pytest.approx(1.0)
    assert out.features.size == 3 and out.X.shape == (out.y.size, 3)
    assert set(np.unique(out.X)) <= {0, 1} and set(np.unique(out.y)) <= {0, 1}
    big = dp_select_release(X, y, 3, 1e4, mechanism=mechanism, random_state=0)
    assert 0 in big.features  # huge epsilon: the informative feature wins
    assert abs(big.y.size - 300) <= 8  # and the table is nearly exact


def test_dp_bad_input():
    X, y = np.eye(4, dtype=int), np.array([0, 1, 0, 1])
    with pytest.raises(ValueError, match="mechanism"):
        dp_select_release(X, y, 2, 1.0, mechanism="gaussian")
    with pytest.raises(ValueError, match="n_features"):
        dp_select_release(X, y, 9, 1.0)
    with pytest.raises(ValueError, match="epsilon"):
        dp_select_release(X, y, 2, 0.0)


def test_hamdist_sensitivity_bounds_one_row():
    rng = np.random.default_rng(3)
    X = (rng.random((40, 6)) < 0.5).astype(int)
    y = np.r_[np.ones(15, int), np.zeros(25, int)]
    h = feature_hamdist(X, y)
    for drop in range(40):
        keep = np.arange(40) != drop
        assert np.abs(feature_hamdist(X[keep], y[keep]) - h).max() <= hamdist_sensitivity(y[keep]) + 1e-12


def test_binarize_adult_on_hand_made_rows():
    frame = pd.DataFrame(
        {
            "age": [17, 40, 90],
            "workclass": ["Private", "State-gov", None],
            "education": ["HS-grad", "Masters", "9th"],
            "marital-status": ["Never-married", "Divorced", "Widowed"],
            "occupation": ["Sales", "Exec-managerial", None],
            "race": ["White", "Black", "White"],
            "sex": ["Male", "Female", "Male"],
            "hours-per-week": [40, 60, 10],
        }
    )
    B = binarize_adult(frame)
    assert B.shape == (3, 19) and set(np.unique(B)) <= {0, 1}
    assert B.sum(axis=1).tolist() == [3 + 3, 3 + 2, 3 + 2]
    assert density(B) == pytest.approx(16 / 57)
    with pytest.raises(ValueError, match="lacks"):
        binarize_adult(frame.drop(columns="sex"))
    with pytest.raises(ValueError, match="education"):
        binarize_adult(frame.assign(education=["HS-grad", "PhD", "9th"]))


def test_evaluate_methods_tidy_rows_and_summary():
    rng = np.random.default_rng(0)
    X = (rng.random((120, 8)) < 0.35).astype(int)
    y = (X[:, 0] | X[:, 1]).astype(int)
    res = evaluate_methods(X, y, dataset_name="toy", k_ac=[3], epsilons=[1.0], n_splits=2, n_runs=2, random_state=0)
    assert list(res.columns) == list(COLUMNS)
    assert set(res["method"]) == set(METHODS)
    ac = res[res["metric"] == "ac"]
    assert (ac["value"] >= 3).all()
    rf = res[(res["method"] == "rf") & (res["metric"] == "auc")]
    assert sorted(rf["fold"]) == [0, 1, 2, 3]  # run * n_splits + fold
    summary = summary_table(res, n_splits=2)
    assert summary.loc[summary["method"] == "rf", "runs"].tolist() == [2]
    assert summary["auc"].between(0, 1).all()
    with pytest.raises(ValueError, match="unknown methods"):
        evaluate_methods(X, y, dataset_name="toy", methods=["lasso"])


def test_side_by_side_ranks_the_papers_tables():
    side = side_by_side(
        pd.DataFrame(columns=["dataset", "method", "param", "auc", "n_features", "auc_std", "flipped_share"])
    )
    adult5 = side[(side["dataset"] == "adult") & (side["k"] == 5)].set_index("method")
    assert adult5.loc["Full-Feature-Set", "rank_paper"] == 1 and adult5.loc["RF", "rank_paper"] == 2
    assert len(side) == 2 * 8 * 3
