"""Figure 9 of MZ09 (Section 8.2): an NBC trained on k-anonymized rows against the published NBC, and the
majority-class baseline beside them.

Section 8.2: "Each time, we used 50% of the tuples for training and the rest for testing": one stratified
split, not cross-validation. Its training views (the original NBC, the published one, one generalized NBC per
k and the majority class) are :class:`privnb.experiments.View` records scored on that split by
:func:`privnb.experiments.folds.evaluate_view`, the step :func:`privnb.experiments.run_folds` takes per fold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin

from privnb._docstrings import shared_doc
from privnb.data import Hierarchy, adult_hierarchies
from privnb.experiments.folds import (
    PredictionScorer,
    View,
    evaluate_view,
    majority_view,
    stratified_holdout,
    tidy_frame,
)
from privnb.mechanisms import FullDomainGeneralizer
from privnb.nbc.safety import safety_transform
from privnb.nbc.views import NBCViews

EDUCATION_NUM_CUTS = [[3, 5, 7, 9, 11, 13, 15], [5, 9, 13], [9]]
"""Interval cuts of the education-num hierarchy over 1..16 for Figure 9 (the paper does not give one)."""


def accuracy(y_true, y_pred) -> float:
    """Share of rows predicted right (Figure 9(a) of MZ09).

    Parameters
    ----------
    y_true, y_pred : array-like of int
        True and predicted labels.

    Returns
    -------
    float
    """
    return float((np.asarray(y_pred, dtype=int) == np.asarray(y_true)).mean())


def recall(y_true, y_pred) -> float:
    """Share of label-1 rows predicted 1 (Figure 9(b) of MZ09: the recall of >50K).

    Parameters
    ----------
    y_true, y_pred : array-like of int
        True and predicted labels.

    Returns
    -------
    float
    """
    return float(np.asarray(y_pred, dtype=int)[np.asarray(y_true) == 1].mean())


FIGURE9_METRICS = {"accuracy": accuracy, "recall": recall}
"""The metrics of Figure 9, in its panels' order."""


@shared_doc
class NBCTraining(ClassifierMixin, BaseEstimator):
    """An NBC (NBC-enabling views, Section 3 of MZ09) trained on the original, published or k-anonymized rows.

    Parameters
    ----------
    attributes : sequence of str
        The attributes the views count.
    target : str
        The class column; ``fit`` and ``predict`` take frames holding the attributes (and, in ``fit``, this
        column, as :meth:`privnb.nbc.NBCViews.from_frame` does).
    k : int, optional
        Full-domain k-anonymity (Incognito's lattice, 2% suppression) of the training rows first; None: none.
    hierarchies : mapping of str to Hierarchy, optional
        One per attribute, for ``k``.
    gamma : float, optional
        Publish the views through SafetyTransform(gamma) (NBC-equivalent: predicts alike); None: the views.
    random_state : int, RandomState or None
        SafetyTransform's.
        {random_state}

    Attributes
    ----------
    views_ : NBCViews
        The fitted views.
    generalizer_ : FullDomainGeneralizer or None
        The fitted mechanism (test rows are recoded by it).
    n_suppressed_ : int
        Training rows the mechanism suppressed.
    """

    def __init__(self, attributes, target, *, k=None, hierarchies=None, gamma=None, random_state=None):
        self.attributes = attributes
        self.target = target
        self.k = k
        self.hierarchies = hierarchies
        self.gamma = gamma
        self.random_state = random_state

    def fit(self, X: pd.DataFrame, y=None) -> NBCTraining:
        """Count the views of ``X`` (generalized first when ``k`` is set, published when ``gamma`` is).

        Parameters
        ----------
        X : DataFrame
            Training rows with the attributes and the class column.
        y : ignored
            The labels are ``X[target]``.

        Returns
        -------
        self
        """
        self.generalizer_ = None
        rows = X
        if self.k is not None:
            hierarchies = {a: self.hierarchies[a] for a in self.attributes}
            self.generalizer_ = FullDomainGeneralizer(list(self.attributes), self.k, hierarchies).fit(X)
            rows = self.generalizer_.transform(X).drop(index=self.generalizer_.suppressed_)
        views = NBCViews.from_frame(rows, self.attributes, self.target)
        if self.gamma is not None:
            views = safety_transform(views, self.gamma, random_state=self.random_state)
        self.views_ = views
        self.n_suppressed_ = 0 if self.generalizer_ is None else len(self.generalizer_.suppressed_)
        self.classes_ = np.asarray(views.labels)
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """The NBC's labels for raw rows (recoded to the training generalization when ``k`` is set).

        Parameters
        ----------
        X : DataFrame
            Rows with the attributes.

        Returns
        -------
        ndarray
        """
        return self.views_.predict(X if self.generalizer_ is None else self.generalizer_.transform(X))


def adult_figure9_hierarchies() -> dict[str, Hierarchy]:
    """Adult's ARX hierarchies and intervals :data:`EDUCATION_NUM_CUTS` for education-num (Figure 9's)."""
    hierarchies = adult_hierarchies()
    hierarchies["education-num"] = Hierarchy.intervals(1, 16, cuts=EDUCATION_NUM_CUTS, name="education-num")
    return hierarchies


@shared_doc
def figure9_views(
    attributes: Sequence[str],
    target: str,
    k_values: Sequence[int],
    hierarchies: Mapping[str, Hierarchy],
    *,
    gamma: float = 2,
    random_state=None,
) -> list[View]:
    """Figure 9's training views: the original NBC, the published one, one per k, the majority class.

    Parameters
    ----------
    attributes : sequence of str
        The attributes counted.
    target : str
        The class column.
    k_values : sequence of int
        The k of the k-anonymized views.
    hierarchies : mapping of str to Hierarchy
        One per attribute.
    gamma : float
        SafetyTransform's gamma for the published NBC.
    random_state : int, RandomState or None
        SafetyTransform's.
        {random_state}

    Returns
    -------
    list of View
        Methods "original", "published", "generalized" (param k) and "majority", each scored by accuracy and
        recall (classifier "nbc", the baseline's "majority").
    """
    scorer = PredictionScorer("nbc", FIGURE9_METRICS)
    published = NBCTraining(attributes, target, gamma=gamma, random_state=random_state)
    views = [
        View("original", None, NBCTraining(attributes, target), scorer),
        View("published", None, published, scorer),
    ]
    for k in k_values:
        views.append(View("generalized", k, NBCTraining(attributes, target, k=k, hierarchies=hierarchies), scorer))
    return [*views, majority_view(FIGURE9_METRICS)]


@shared_doc
def figure9(
    frame: pd.DataFrame,
    attributes: Sequence[str],
    k_values: Sequence[int],
    *,
    test_size: float = 0.5,
    gamma: float = 2,
    class_column: str = "income",
    hierarchies: Mapping[str, Hierarchy] | None = None,
    dataset: str = "adult",
    random_state=None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Figure 9 of MZ09 (Section 8.2): NBC accuracy and recall (of class 1) trained on k-anonymized data.

    A stratified split (``test_size``, the paper's 50%); full-domain k-anonymity over ``attributes`` of the
    training part; the NBC trained on the released rows is tested on the test part recoded to the same
    generalization. The original NBC, the published one (SafetyTransform(gamma), NBC-equivalent) and the
    majority class of the training part (the baseline every NBC must beat) are scored too.

    Parameters
    ----------
    frame : DataFrame
        The attributes and the 0/1 class column.
    attributes : sequence of str
        The attributes counted.
    k_values : sequence of int
        The k of the k-anonymized NBCs.
    test_size : float
        Share of rows tested.
    gamma : float
        SafetyTransform's gamma for the published NBC.
    class_column : str
        The class column.
    hierarchies : mapping of str to Hierarchy, optional
        One per attribute; default Adult's (:func:`adult_figure9_hierarchies`).
    dataset : str
        The result rows' data set name.
    random_state : int, RandomState or None
        The split's and SafetyTransform's.
        {random_state}

    Returns
    -------
    fig9 : DataFrame
        ``method`` ("original", "generalized" per k, "majority"), ``k`` (NaN but for "generalized"),
        ``n_suppressed``, ``accuracy``, ``recall`` and ``at or below majority`` (accuracy no higher than the
        majority class's; False for the majority row itself).
    rows : list of ResultRow
        Accuracy and recall of every view, in the order of :func:`figure9_views`.
    """
    data = stratified_holdout(frame, class_column, test_size, random_state)
    hierarchies = adult_figure9_hierarchies() if hierarchies is None else hierarchies
    views = figure9_views(attributes, class_column, k_values, hierarchies, gamma=gamma, random_state=random_state)
    rows = [row for view in views for row in evaluate_view(dataset, view, data, ())]
    return figure9_table(tidy_frame(rows)), rows


def figure9_table(rows: pd.DataFrame) -> pd.DataFrame:
    """Figure 9's table from its result rows: one row per view but "published" (it predicts as "original").

    Parameters
    ----------
    rows : DataFrame
        :func:`figure9`'s result rows as a tidy frame (:func:`privnb.experiments.tidy_frame`).

    Returns
    -------
    DataFrame
        Columns as :func:`figure9`'s ``fig9``.
    """
    records = []
    for (method, param), part in rows[rows["method"] != "published"].groupby(
        ["method", "param"], dropna=False, sort=False
    ):
        values = dict(zip(part["metric"], part["value"]))
        records.append((method, param, int(part["n_suppressed"].iloc[0]), *(values[m] for m in FIGURE9_METRICS)))
    table = pd.DataFrame(records, columns=["method", "k", "n_suppressed", *FIGURE9_METRICS])
    majority = table.loc[table["method"] == "majority", "accuracy"].iloc[0]
    table["at or below majority"] = (table["accuracy"] <= majority) & (table["method"] != "majority")
    return table.reset_index(drop=True)
