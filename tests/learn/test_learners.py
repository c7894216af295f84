"""Tests of privnb.learn.training: the training views as scikit-learn meta-estimators."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_validate
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from privnb.data import Hierarchy
from privnb.learn import (
    AnatomizedTraining,
    FrameEncoder,
    GeneralizedTraining,
    IdentifyingTraining,
    OriginalTraining,
    TrainingView,
)
from privnb.learn.training import TrainingData
from privnb.mechanisms import anatomize

KINDS = {"age": "numeric", "job": "nominal", "edu": "nominal"}


class Recorder(ClassifierMixin, BaseEstimator):
    """Remembers what it was trained on and what it was asked to predict; predicts the first class."""

    def fit(self, X, y):
        self.X_, self.y_ = X.copy(), np.asarray(y).copy()
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        self.seen_ = X.copy()
        return np.full(len(X), self.classes_[0])


def frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, n)
    edu = rng.choice(list("abcdef"), n, p=[0.3, 0.2, 0.2, 0.1, 0.1, 0.1])
    job = rng.choice(["x", "y", "z"], n)
    y = ((age > 45) ^ (rng.random(n) < 0.1)).astype(int)
    return pd.DataFrame({"age": age, "job": job, "edu": edu}), y


def model():
    return make_pipeline(FrameEncoder(KINDS), KNeighborsClassifier(5))


def test_original_is_the_plain_estimator():
    X, y = frame()
    view = OriginalTraining(model()).fit(X, y)
    np.testing.assert_array_equal(view.predict(X), model().fit(X, y).predict(X))
    assert view.n_train_ == len(X) and view.n_suppressed_ == 0
    assert list(view.classes_) == [0, 1]


def test_identifying_drops_the_sensitive_column_at_fit_and_predict():
    X, y = frame()
    view = IdentifyingTraining(Recorder(), sensitive="edu").fit(X, y)
    assert list(view.estimator_.X_.columns) == ["age", "job"] and view.n_train_ == len(X)
    view.predict(X)
    assert list(view.estimator_.seen_.columns) == ["age", "job"]


def test_anatomized_trains_on_the_join():
    X, y = frame()
    X.index = X.index * 7 + 3  # any unique labels (a cross-validation fold)
    view = AnatomizedTraining(Recorder(), sensitive="edu", l=3, random_state=5).fit(X, y)
    data = X.reset_index(drop=True).assign(__target__=y)
    joined = anatomize(data, "edu", 3, random_state=5).join()
    pd.testing.assert_frame_equal(view.estimator_.X_, joined[["age", "job", "edu"]])
    np.testing.assert_array_equal(view.estimator_.y_, joined["__target__"])
    assert view.n_train_ == 3 * len(view.anatomy_.it)
    assert view.n_suppressed_ == len(view.anatomy_.suppressed) == len(X) - len(view.anatomy_.it)
    # each individual: its true row among its l candidates, and its own label on every candidate
    truth = set(zip(data.index, data["edu"], y))
    candidates = set(zip(joined["row_id"], joined["edu"], joined["__target__"]))
    assert {t for t in truth if t[0] in view.anatomy_.it.index} <= candidates
    view.predict(X)
    pd.testing.assert_frame_equal(view.estimator_.seen_, X)  # raw test rows


def test_views_inside_cross_validate():
    X, y = frame(400)
    for view in (
        OriginalTraining(model()),
        IdentifyingTraining(model(), sensitive="edu"),
        AnatomizedTraining(model(), sensitive="edu", l=2, random_state=0),
    ):
        scores = cross_validate(view, X, y, cv=3, scoring="accuracy", return_estimator=True)
        assert (scores["test_score"] > 0.7).all()
        assert all(est.n_train_ > 0 for est in scores["estimator"])


def test_arrays_by_position():
    X, y = frame()
    codes = X.assign(
        job=X["job"].map({"x": 0, "y": 1, "z": 2}), edu=X["edu"].map(dict(zip("abcdef", range(6))))
    ).to_numpy(float)
    view = AnatomizedTraining(LogisticRegression(), sensitive=2, l=2, random_state=0).fit(codes, y)
    assert view.view_columns_ == [0, 1, 2] and view.n_train_ == 2 * len(view.anatomy_.it)
    assert view.predict_proba(codes).shape == (len(codes), 2)
    view = IdentifyingTraining(Recorder(), sensitive=-1).fit(codes, y)
    assert view.view_columns_ == [0, 1]


def test_errors():
    X, y = frame(20)
    with pytest.raises(NotFittedError):
        OriginalTraining(model()).predict(X)
    with pytest.raises(ValueError, match="neither a column"):
        IdentifyingTraining(model(), sensitive="salary").fit(X, y)
    with pytest.raises(ValueError, match="6 distinct value"):
        AnatomizedTraining(model(), sensitive="edu", l=7).fit(X, y)
    with pytest.raises(ValueError, match="only the sensitive one"):
        IdentifyingTraining(model(), sensitive="edu").fit(X[["edu"]], y)
    with pytest.raises(ValueError, match="mondrian"):
        GeneralizedTraining(model(), quasi_identifiers=["age"], k=2).fit(X, y)
    with pytest.raises(ValueError, match="method must be"):
        GeneralizedTraining(model(), quasi_identifiers=["age"], k=2, method="lattice").fit(X, y)
    with pytest.raises(NotImplementedError):
        TrainingView(model()).fit(X, y)


def test_generalized_mondrian_recodes_training_and_test_rows():
    pytest.importorskip("privnb.mechanisms")
    X, y = frame()
    view = GeneralizedTraining(Recorder(), quasi_identifiers=["age", "job"], k=10, method="mondrian", kinds=KINDS).fit(
        X, y
    )
    seen = view.estimator_.X_
    assert seen["age"].dtype.kind == "f"  # interval midpoints
    assert seen.groupby(["age", "job"]).size().min() >= 10  # k-anonymous on the quasi-identifiers
    assert (seen["edu"].to_numpy() == X["edu"].to_numpy()).all() and view.n_suppressed_ == 0
    view.predict(X)
    pd.testing.assert_frame_equal(view.estimator_.seen_.reset_index(drop=True), seen)
    scores = cross_validate(
        GeneralizedTraining(model(), quasi_identifiers=["age", "job"], k=10, method="mondrian", kinds=KINDS), X, y, cv=3
    )
    assert (scores["test_score"] > 0.6).all()


def test_generalized_full_domain():
    X, y = frame()
    hierarchies = {"age": Hierarchy.intervals(18, 80, width=5, name="age")}
    view = GeneralizedTraining(
        Recorder(), quasi_identifiers=["age"], k=20, hierarchies=hierarchies, max_suppression=0.05
    ).fit(X, y)
    seen = view.estimator_.X_
    assert seen["age"].value_counts().min() >= 20
    assert view.n_train_ + view.n_suppressed_ == len(X)
    assert view.n_suppressed_ == len(view.generalizer_.suppressed_)


def test_training_data_default_suppression():
    assert TrainingData(pd.DataFrame(), np.array([])).n_suppressed == 0


# Which of scikit-learn's estimator checks do not apply (numeric arrays, sensitive = column 0):
# - IdentifyingTraining / check_classifiers_train: the check's blobs have 2 features and the view
#   drops column 0 (the sensitive one), so the 0.83 accuracy bar is out of reach by design.
# AnatomizedTraining passes them all, although it trains on N*l rows: predictions are of raw rows.
# GeneralizedTraining is left out: it needs quasi-identifier roles and hierarchies that the generic
# random arrays do not carry; the tests above cover it.
EXPECTED_FAILURES = {
    "IdentifyingTraining": {
        "check_classifiers_train": "the view drops the sensitive column, one of the blobs' 2 features",
    },
}


@parametrize_with_checks(
    [
        OriginalTraining(LogisticRegression()),
        IdentifyingTraining(LogisticRegression(), sensitive=0),
        AnatomizedTraining(LogisticRegression(), sensitive=0, l=2, random_state=0),
    ],
    expected_failed_checks=lambda est: EXPECTED_FAILURES.get(type(est).__name__, {}),
)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_toy_anatomized_3nn_classifies_the_red_test_point():
    """Figure 2 of MC17: the anatomized 3-NN classifier labels a point in the red cluster red."""
    datasets = pytest.importorskip("privnb.data")
    toy = datasets.anatomy_toy()
    view = AnatomizedTraining(
        make_pipeline(FrameEncoder.from_dataset(toy), KNeighborsClassifier(3)),
        sensitive=toy.sensitive,
        l=2,
        random_state=0,
    ).fit(toy.X, toy.y)
    assert view.n_train_ == 12 and view.n_suppressed_ == 0  # "12 instances in total"
    test = pd.DataFrame({"A_1": [6.5], "A_2": [3.0]})
    assert view.predict(test).tolist() == [1]
