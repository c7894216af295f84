"""The one fold runner: the same rows as a hand-written loop, the N/A rule, batches, parallel tasks."""

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils import check_random_state

from privnb.data import Dataset
from privnb.experiments import COLUMNS, PredictionScorer, View, cross_validate_views, majority_view, run_folds
from privnb.experiments.folds import ResultRow, Score
from privnb.learn import AnatomizedTraining, OriginalTraining


def _table(n=120, seed=0):
    rng = np.random.RandomState(seed)
    X = pd.DataFrame({"a": rng.randint(0, 5, n), "b": rng.randint(0, 3, n), "s": rng.randint(0, 3, n)})
    X["y"] = ((X["a"] + rng.randint(0, 3, n)) > 3).astype(int)
    return Dataset(
        name="toy",
        frame=X,
        target="y",
        quasi_identifiers=("a", "b"),
        sensitive="s",
        kinds={"a": "numeric", "b": "numeric", "s": "nominal"},
    )


def _by_hand(dataset, estimator, n_splits, random_state):
    """The protocol written out: the same folds and per-fold seeds, fit, predict, error."""
    rng = check_random_state(random_state)
    splitter = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=rng.randint(2**31 - 1))
    seeds = rng.randint(2**31 - 1, size=n_splits)
    errors = []
    for fold, (train, test) in enumerate(splitter.split(np.zeros(len(dataset.y)), dataset.y)):
        model = clone(estimator)
        if "random_state" in model.get_params():
            model.set_params(random_state=int(seeds[fold]))
        model.fit(dataset.X.iloc[train], dataset.y[train])
        errors.append(float(np.mean(model.predict(dataset.X.iloc[test]) != dataset.y[test])))
    return errors


def test_run_folds_gives_the_rows_of_the_protocol_written_by_hand():
    data = _table()
    view = AnatomizedTraining(KNeighborsClassifier(3), sensitive="s", l=2)
    rows = run_folds(data, [View("anatomized", 2, view, PredictionScorer("3-NN"))], n_splits=4, random_state=7)
    assert list(rows.columns) == list(COLUMNS)
    assert rows["value"].tolist() == pytest.approx(_by_hand(data, view, 4, 7))
    assert set(rows["classifier"]) == {"3-NN"} and set(rows["param"]) == {2.0}


def test_a_view_that_cannot_be_built_gives_na_rows_for_each_output():
    data = _table()
    scorer = PredictionScorer("3-NN", {"error": lambda t, p: float(np.mean(t != p)), "hits": lambda t, p: 0.0})
    view = View("anatomized", 4, AnatomizedTraining(KNeighborsClassifier(3), sensitive="s", l=4), scorer)
    rows = run_folds(data, [view], n_splits=3, random_state=0, progress=False)
    assert len(rows) == 6 and rows["value"].isna().all() and rows["n_train"].isna().all()
    assert rows["note"].str.startswith("N/A: ").all()
    assert sorted(set(rows["metric"])) == ["error", "hits"]


class _Broken(KNeighborsClassifier):
    def fit(self, X, y):
        raise RuntimeError("broken on purpose")


def test_other_errors_propagate():
    with pytest.raises(RuntimeError, match="broken on purpose"):
        run_folds(_table(), [View("original", None, _Broken(), PredictionScorer("x"))], n_splits=3, progress=False)


def test_batches_and_parallel_tasks_give_the_same_rows():
    data = _table(150, seed=3)
    views = [
        View("original", None, OriginalTraining(KNeighborsClassifier(1)), PredictionScorer("1-NN"), batch="a"),
        View(
            "anatomized", 2, AnatomizedTraining(KNeighborsClassifier(1), sensitive="s", l=2), PredictionScorer("1-NN")
        ),
        View(
            "anatomized", 3, AnatomizedTraining(KNeighborsClassifier(1), sensitive="s", l=3), PredictionScorer("1-NN")
        ),
    ]
    one = run_folds(data, views, n_splits=3, random_state=1, progress=False)
    two = run_folds(data, views, n_splits=3, random_state=1, n_jobs=2, progress=False)
    pd.testing.assert_frame_equal(one, two)
    # fold-major, then the views in order of their batch's first appearance
    assert one[["fold", "method", "param"]].fillna(0).values.tolist()[:3] == [
        [0, "original", 0],
        [0, "anatomized", 2],
        [0, "anatomized", 3],
    ]


def test_cross_validate_views_is_run_folds_over_a_dict():
    data = _table()
    views = {
        "original": OriginalTraining(KNeighborsClassifier(3)),
        ("anatomized", 2): AnatomizedTraining(KNeighborsClassifier(3), sensitive="s", l=2),
    }
    rows = cross_validate_views(data, views, n_splits=3, random_state=5, progress=False)
    direct = run_folds(
        data,
        [
            View("original", None, views["original"], PredictionScorer("KNeighborsClassifier"), batch=0),
            View("anatomized", 2, views[("anatomized", 2)], PredictionScorer("KNeighborsClassifier"), batch=1),
        ],
        n_splits=3,
        random_state=5,
        progress=False,
    )
    pd.testing.assert_frame_equal(rows, direct)


def test_majority_view_scores_the_constant_guess():
    data = _table(90, seed=2)
    rows = run_folds(data, [majority_view()], n_splits=3, random_state=0, progress=False)
    assert set(rows["method"]) == {"majority"}
    minority = min(np.mean(data.y), 1 - np.mean(data.y))
    assert rows["value"].mean() == pytest.approx(minority, abs=0.02)


def test_scorers_may_give_several_classifiers_and_notes():
    def two(fitted, data):
        return [Score("a", "error", 0.25), Score("b", "size", float(len(data.y_test)), note="rows")]

    rows = run_folds(_table(), [View("original", None, KNeighborsClassifier(1), two)], n_splits=3, progress=False)
    assert rows.groupby("classifier").size().to_dict() == {"a": 3, "b": 3}
    assert set(rows.loc[rows["classifier"] == "b", "note"]) == {"rows"}


def test_result_row_defaults_are_missing_counts():
    row = ResultRow("d", "c", "m", math.nan, 0, "error", 0.1)
    assert math.isnan(row.n_train) and math.isnan(row.n_suppressed) and row.note == ""
