"""Cross-validation of views, tidy rows, method labels and the papers' paired t-test tables.

The training views of privnb.learn.training are replaced by small stand-in estimators here, so these tests
check the evaluation machinery alone.
"""

import math
import types

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from joblib import parallel_config
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.dummy import DummyClassifier
from sklearn.naive_bayes import GaussianNB

from privnb.experiments import (
    COLUMNS,
    cross_validate_views,
    error_rate,
    method_label,
    paired_t_test,
    t_test_table,
    tidy_frame,
)
from privnb.experiments.labels import method_sort_key


class NotBuildable(ValueError):
    """Stands in for NotLDiverseError."""


class StandInView(ClassifierMixin, BaseEstimator):
    """A meta-estimator like privnb.learn.training's: drops ``drop`` rows' worth of training data, wraps
    ``estimator``."""

    def __init__(self, estimator, *, drop=0, l=None, random_state=None):
        self.estimator = estimator
        self.drop = drop
        self.l = l
        self.random_state = random_state

    def fit(self, X, y):
        if self.l is not None and self.l > 3:
            raise NotBuildable(f"l={self.l} exceeds the 3 sensitive values")
        self.estimator_ = clone(self.estimator).fit(X.iloc[self.drop :], y[self.drop :])
        self.n_train_, self.n_suppressed_ = len(X) - self.drop, self.drop
        self.classes_ = self.estimator_.classes_
        return self

    def predict(self, X):
        return self.estimator_.predict(X)


class Exploding(StandInView):
    def fit(self, X, y):
        raise RuntimeError("a bug, not an N/A view")


@pytest.fixture(scope="module")
def toy():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.normal(size=120), "b": rng.integers(0, 3, size=120)})
    y = (X["a"] + 0.5 * rng.normal(size=120) > 0.3).astype(int).to_numpy()
    return types.SimpleNamespace(name="toy", X=X, y=y)


def views():
    dummy = DummyClassifier(strategy="most_frequent")
    return {
        "original": StandInView(dummy),
        ("anatomized", 2): StandInView(dummy, drop=4, l=2),
        ("anatomized", 5): StandInView(dummy, l=5),
    }


def run(toy, **kwargs):
    return cross_validate_views(
        toy, views(), n_splits=4, random_state=0, na_errors=(NotBuildable,), progress=False, **kwargs
    )


def test_rows_have_exactly_the_contract_columns(toy):
    rows = run(toy)
    assert tuple(rows.columns) == COLUMNS
    assert len(rows) == 4 * 3
    assert set(rows["classifier"]) == {"DummyClassifier"} and set(rows["dataset"]) == {"toy"}
    assert rows.loc[rows["method"] == "original", "param"].isna().all()
    assert sorted(rows["fold"].unique()) == [0, 1, 2, 3]


def test_na_views_give_nan_rows_with_the_reason(toy):
    rows = run(toy)
    na = rows[rows["param"] == 5]
    assert na["value"].isna().all() and na["note"].str.contains("exceeds the 3 sensitive values").all()
    assert (rows.loc[rows["param"] != 5, "note"] == "").all()


def test_other_errors_propagate(toy):
    with pytest.raises(RuntimeError, match="a bug"):
        cross_validate_views(
            toy,
            {"original": Exploding(DummyClassifier())},
            n_splits=2,
            random_state=0,
            na_errors=(NotBuildable,),
            progress=False,
        )


def test_every_row_is_tested_once_brute_force(toy):
    """Most-frequent-class errors, weighted by fold size, count the minority rows of the whole table."""
    rows = run(toy)
    original = rows[rows["method"] == "original"].sort_values("fold")
    test_sizes = len(toy.y) - original["n_train"].to_numpy()
    assert test_sizes.sum() == len(toy.y)
    assert round((original["value"].to_numpy() * test_sizes).sum()) == min(toy.y.sum(), len(toy.y) - toy.y.sum())


def test_view_counts_come_from_the_fitted_view(toy):
    rows = run(toy)
    original, anatomized = rows[rows["method"] == "original"], rows[rows["param"] == 2]
    assert (anatomized["n_train"].to_numpy() == original["n_train"].to_numpy() - 4).all()
    assert (anatomized["n_suppressed"] == 4).all() and (original["n_suppressed"] == 0).all()


def test_same_seed_same_table_and_parallel_folds_agree(toy):
    randomized = {"original": StandInView(DummyClassifier(strategy="uniform"))}
    kwargs = dict(n_splits=3, random_state=7, na_errors=(NotBuildable,), progress=False)
    first = cross_validate_views(toy, randomized, **kwargs)
    pd.testing.assert_frame_equal(first, cross_validate_views(toy, randomized, **kwargs))
    with parallel_config(backend="threading"):  # the joblib path without process start-up
        pd.testing.assert_frame_equal(first, cross_validate_views(toy, randomized, n_jobs=2, **kwargs))
    other = cross_validate_views(toy, randomized, **{**kwargs, "random_state": 8})
    assert not np.array_equal(first["value"], other["value"])


def test_keys_may_name_the_classifier(toy):
    rows = cross_validate_views(
        toy,
        {("1-NN", "original", None): StandInView(DummyClassifier())},
        n_splits=2,
        random_state=0,
        na_errors=(),
        progress=False,
    )
    assert set(rows["classifier"]) == {"1-NN"}


@pytest.mark.parametrize("bad, message", [({}, "views is empty"), ({("a", 1, 2, 3): DummyClassifier()}, "key")])
def test_bad_views_are_rejected(toy, bad, message):
    with pytest.raises(ValueError, match=message):
        cross_validate_views(toy, bad, n_splits=2, na_errors=(), progress=False)


def test_views_wrapping_different_estimators_need_a_classifier_name(toy):
    mixed = {"original": StandInView(DummyClassifier()), "identifying": StandInView(GaussianNB())}
    with pytest.raises(ValueError, match="classifier="):
        cross_validate_views(toy, mixed, n_splits=2, na_errors=(), progress=False)


def test_error_rate():
    assert error_rate([0, 1, 1, 0], [0, 0, 1, 1]) == 0.5


@pytest.mark.parametrize(
    "method, param, label",
    [
        ("original", None, "Org."),
        ("identifying", math.nan, "Id."),
        ("anatomized", 2, "L=2"),
        ("pruned", 5.0, "L=5"),
        ("generalized", 3.0, "k=3"),
        ("custom", None, "custom"),
        ("custom", 0.5, "custom=0.5"),
    ],
)
def test_method_label(method, param, label):
    assert method_label(method, param) == label


def test_method_sort_key_follows_the_papers_figures():
    views = [
        ("generalized", 2.0),
        ("anatomized", 3.0),
        ("identifying", math.nan),
        ("anatomized", 2.0),
        ("original", math.nan),
    ]
    assert [method_label(*v) for v in sorted(views, key=lambda v: method_sort_key(*v))] == [
        "Org.",
        "Id.",
        "L=2",
        "L=3",
        "k=2",
    ]


@settings(max_examples=40)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=3, max_size=12))
def test_paired_t_test_matches_the_textbook_formula(pairs):
    a, b = np.array(pairs).T
    d = np.round(a - b, 12)
    result = paired_t_test(a, b)
    if np.ptp(d) == 0:  # zero variance: significant exactly when the samples differ
        assert result.significant == bool(np.any(d != 0))
        return
    t = d.mean() / (d.std(ddof=1) / math.sqrt(len(d)))
    p = 2 * stats.t.sf(abs(t), df=len(d) - 1)
    assert result.statistic == pytest.approx(t, rel=1e-6, abs=1e-9)
    assert result.pvalue == pytest.approx(p, rel=1e-6, abs=1e-9)
    assert result.significant == (p < 0.05)
    assert paired_t_test(b, a).pvalue == pytest.approx(result.pvalue, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(
    "a, b, message",
    [([0.1], [0.2], "length >= 2"), ([0.1, 0.2], [0.1], "same length"), ([0.1, math.nan], [0.1, 0.2], "NaN")],
)
def test_paired_t_test_rejects_bad_samples(a, b, message):
    with pytest.raises(ValueError, match=message):
        paired_t_test(a, b)


def tidy(classifier, method, param, values, dataset="adult"):
    return [
        (dataset, classifier, method, param, fold, "error", value, 100, 0, "" if value == value else "N/A: l")
        for fold, value in enumerate(values)
    ]


def test_t_test_table_has_the_papers_layout():
    base = [0.20, 0.21, 0.19, 0.22, 0.20]
    rows = tidy_frame(
        tidy("1-NN", "original", math.nan, base)
        + tidy("1-NN", "anatomized", 2.0, [v + 0.05 + 0.001 * i for i, v in enumerate(base)])
        + tidy("1-NN", "anatomized", 3.0, [0.21, 0.20, 0.20, 0.21, 0.20])
        + tidy("1-NN", "anatomized", 5.0, [math.nan] * 5)
        + tidy("1-NN", "identifying", math.nan, [0.5] * 5)
        + tidy("3-NN", "original", math.nan, base)
        + tidy("3-NN", "anatomized", 2.0, base)
    )
    table = t_test_table(rows)
    assert list(table.columns) == ["Org. vs L=2", "Org. vs L=3", "Org. vs L=5"]
    assert table.index.name == "classifier" and list(table.index) == ["1-NN", "3-NN"]
    assert table.loc["1-NN"].tolist() == ["P", "F", "N/A"]
    assert table.loc["3-NN"].tolist() == ["F", "N/A", "N/A"]  # identical errors: no difference


def test_t_test_table_refuses_to_mix_datasets():
    rows = tidy_frame(
        tidy("SVC", "original", math.nan, [0.1, 0.2]) + tidy("SVC", "original", math.nan, [0.1, 0.2], dataset="bank")
    )
    with pytest.raises(ValueError, match="add 'dataset' to rows"):
        t_test_table(rows)
    assert t_test_table(rows, rows="dataset").empty  # no private view: no column


def test_tidy_frame_requires_the_columns():
    with pytest.raises(ValueError, match="lack the columns"):
        tidy_frame(pd.DataFrame({"dataset": ["a"]}))


def test_t_test_table_tests_views_without_a_parameter():
    import math

    from privnb.experiments import t_test_table, tidy_frame

    rows = [
        ("d", "c", method, math.nan, fold, "error", value + 0.001 * fold, 10, 0, "")
        for method, value in (("original", 0.1), ("identifying", 0.3))
        for fold in range(5)
    ]
    table = t_test_table(tidy_frame(rows), against=["identifying"])
    assert table.loc["c", "Org. vs Id."] == "P"  # before, a NaN parameter never matched and read "N/A"
