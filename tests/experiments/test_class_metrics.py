"""Balanced accuracy and the AUC beside the error (notebooks 00-02), against scikit-learn and by hand."""

import types

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score, roc_auc_score

from privnb.experiments import cross_validate_views, majority_view
from privnb.experiments.class_metrics import (
    CLASSIFICATION_METRICS,
    METRIC_MEANINGS,
    balanced_accuracy,
    metric_means,
    roc_auc,
)

labels = st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=60)


def test_balanced_accuracy_of_a_small_case_by_hand_and_as_sklearn():
    y_true = [0, 0, 0, 0, 0, 0, 1, 1]
    y_pred = [0, 0, 0, 0, 0, 1, 1, 0]
    # recall of class 0: 5/6, of class 1: 1/2
    assert balanced_accuracy(y_true, y_pred) == pytest.approx((5 / 6 + 1 / 2) / 2)
    assert balanced_accuracy(y_true, y_pred) == pytest.approx(balanced_accuracy_score(y_true, y_pred))


def test_a_constant_guess_has_balanced_accuracy_one_half_whatever_the_shares():
    y_true = np.array([0] * 865 + [1] * 135)
    assert balanced_accuracy(y_true, np.zeros_like(y_true)) == 0.5
    assert roc_auc(y_true, np.zeros(len(y_true))) == 0.5


@pytest.mark.filterwarnings("ignore:y_pred contains classes not in y_true")
@settings(max_examples=60, deadline=None)
@given(labels)
def test_balanced_accuracy_matches_sklearn(pairs):
    y_true, y_pred = map(np.array, zip(*pairs))
    assert balanced_accuracy(y_true, y_pred) == pytest.approx(balanced_accuracy_score(y_true, y_pred))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(-3, 3)), min_size=2, max_size=60))
def test_auc_matches_sklearn_and_the_pair_count(pairs):
    y_true, scores = map(np.array, zip(*pairs))
    if len(set(y_true)) < 2:
        assert np.isnan(roc_auc(y_true, scores))
        return
    auc = roc_auc(y_true, scores)
    assert 0 <= auc <= 1
    assert auc == pytest.approx(roc_auc_score(y_true, scores))
    positive, negative = scores[y_true == 1], scores[y_true == 0]
    by_pairs = np.mean([(p > n) + 0.5 * (p == n) for p in positive for n in negative])
    assert auc == pytest.approx(by_pairs)


def test_auc_refuses_more_than_two_classes():
    with pytest.raises(ValueError, match="two classes"):
        roc_auc([0, 1, 2], [0.1, 0.2, 0.3])


def test_cross_validation_gives_every_metric_within_its_range_and_the_baseline_at_one_half():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=300)})
    y = (X["a"] + rng.normal(size=300) > 1.2).astype(int).to_numpy()  # a rare positive class
    data = types.SimpleNamespace(name="toy", X=X, y=y)
    views = {"original": LogisticRegression(), ("majority", "majority", None): majority_view().estimator}
    rows = cross_validate_views(data, views, n_splits=3, random_state=0, metrics=CLASSIFICATION_METRICS, progress=False)
    assert set(rows["metric"]) == set(CLASSIFICATION_METRICS)
    assert rows["value"].between(0, 1).all()
    means = metric_means(rows)
    assert list(means.columns[-5:-2]) == list(CLASSIFICATION_METRICS)  # then n_train, n_suppressed
    majority = means[means["classifier"] == "majority"].iloc[0]
    original = means[means["method"] == "original"].iloc[0]
    assert majority["balanced_accuracy"] == 0.5 and majority["auc"] == 0.5
    assert original["auc"] > 0.75 and original["balanced_accuracy"] > 0.5
    assert set(METRIC_MEANINGS) == set(CLASSIFICATION_METRICS)
