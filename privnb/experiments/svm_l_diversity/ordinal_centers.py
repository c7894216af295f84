"""Appendix B of MC16a says "set mode of the discrete values to be mean": ordinal codes centred on their mean
or on their mode, compared on the pruned views over the folds of :func:`run_svm_grid`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, clone

from privnb._docstrings import shared_doc
from privnb.experiments.folds import FoldData, Score, View, error_rate, run_folds
from privnb.experiments.svm_l_diversity.grid import SvmLearner, fitted_models
from privnb.learn.svm import CLASSIFIER_NAMES, KERNELS
from privnb.learn.training import PrunedTraining

#: Columns of :func:`compare_ordinal_centers`.
CENTER_COLUMNS = (
    "classifier",
    "l",
    "rows",
    "kept rows differing",
    "share differing",
    "error (mean)",
    "error (mode)",
    "mode - mean",
)

_CENTERS = ("mean", "mode")


class CenteredPair(BaseEstimator):
    """Two pruned views of the same training rows, ordinal codes centred on the mean and on the mode.

    Both get the same seed (the fold's, through ``random_state`` left at None), so they share one anatomy.

    Parameters
    ----------
    mean, mode : privnb.learn.PrunedTraining
        The views, with ``ordinal_center`` "mean" and "mode".
    """

    def __init__(self, mean, mode):
        self.mean = mean
        self.mode = mode

    def fit(self, X, y):
        """Fit both views on ``(X, y)``.

        Parameters
        ----------
        X : DataFrame
            The raw training fold.
        y : array-like
            Its labels.

        Returns
        -------
        self
        """
        self.views_ = {center: clone(getattr(self, center)).fit(X, y) for center in _CENTERS}
        return self


@dataclass(frozen=True)
class CenterScorer:
    """Per classifier: |D_P|, the kept rows that differ between the two centrings, and both test errors.

    Parameters
    ----------
    classifiers : tuple of str
        The bank's classifiers.
    """

    classifiers: tuple[str, ...]

    def __call__(self, fitted: CenteredPair, data: FoldData) -> list[Score]:
        """The scores of a fitted pair on ``data``'s raw test rows.

        Parameters
        ----------
        fitted : CenteredPair
            Fitted.
        data : FoldData
            The fold.

        Returns
        -------
        list of Score
        """
        views = fitted.views_
        differ = float(np.sum(views["mean"].pruning_.kept != views["mode"].pruning_.kept))
        rows = float(len(views["mean"].pruning_.kept))
        encoded = {c: v.estimator_[0].transform(v.test_view(data.X_test)) for c, v in views.items()}
        scores = []
        for name in self.classifiers:
            errors = {c: error_rate(data.y_test, fitted_models(v)[name].predict(encoded[c])) for c, v in views.items()}
            scores += [Score(name, "rows", rows), Score(name, "kept rows differing", differ)]
            scores += [Score(name, f"error ({c})", errors[c]) for c in _CENTERS]
        return scores

    @property
    def outputs(self) -> tuple[tuple[str, str], ...]:
        """The N/A rows of an l beyond the sensitive domain (dropped from the table)."""
        return tuple((name, "rows") for name in self.classifiers)


@shared_doc
def compare_ordinal_centers(
    dataset,
    *,
    ls: Sequence[int] = (2, 3, 4, 5),
    kernels: Sequence[str] = KERNELS,
    n_splits: int = 10,
    space: str = "appendix_b",
    solver: str = "libsvm",
    random_state=None,
    folds=None,
    **options,
):
    """Appendix B's "set mode of the discrete values to be mean", read both ways, on the pruned views.

    For each fold (the folds and per-fold seeds of :func:`run_svm_grid`, so the anatomy is the grid's) and
    each l, the training fold is anatomized once and pruned with ordinal codes centred on their mean and on
    their mode; the kept rows are compared individual by individual and every kernel is fitted on both D_P
    and scored on the raw test fold.

    Parameters
    ----------
    dataset : privnb.data.Dataset
        Needs a sensitive attribute.
    ls : sequence of int
        l of the pruned views (an l beyond the sensitive domain is left out).
    kernels : sequence of {"linear", "rbf"}
        The classifiers.
    n_splits : int
        Folds.
    space : str
        The input space (:data:`privnb.learn.SPACES`).
    solver : str
        As in :func:`run_svm_grid`.
    random_state : int, RandomState or None
        Seeds the folds and the anatomies.
        {random_state}
    folds : sequence of int, optional
        Fold indices to run (default all).
    options
        :func:`~privnb.learn.svm_classifier`'s options.

    Returns
    -------
    DataFrame
        Columns :data:`CENTER_COLUMNS`, one row per (classifier, l), averaged over folds: ``rows`` (|D_P|),
        ``kept rows differing`` (individuals whose kept candidate differs), ``share differing``, ``error
        (mean)``, ``error (mode)`` and ``mode - mean``. A data set without ordinal attributes gives 0 differing
        rows and equal errors.
    """
    names = tuple(CLASSIFIER_NAMES[k] for k in kernels)
    pairs = [
        View(
            "pruned",
            l,
            CenteredPair(*(_pruned(dataset, l, center, kernels, space, solver, options) for center in _CENTERS)),
            CenterScorer(names),
        )
        for l in ls
    ]
    rows = run_folds(dataset, pairs, n_splits=n_splits, random_state=random_state, folds=folds, progress=False)
    rows = rows[rows["value"].notna()]
    if rows.empty:
        return pd.DataFrame(columns=list(CENTER_COLUMNS))
    table = (
        rows.pivot_table(index=["classifier", "param", "fold"], columns="metric", values="value", sort=False)
        .groupby(["classifier", "param"], sort=False)
        .mean()
        .rename_axis(index={"param": "l"})
        .reset_index()
    )
    table["l"] = table["l"].astype(int)
    table["share differing"] = table["kept rows differing"] / table["rows"]
    table["mode - mean"] = table["error (mode)"] - table["error (mean)"]
    return table[list(CENTER_COLUMNS)].rename_axis(None, axis=1)


def _pruned(dataset, l, center, kernels, space, solver, options) -> PrunedTraining:
    learner = SvmLearner.from_options(kernels, solver, space, center, **options)
    return PrunedTraining(
        learner.estimator(dataset),
        sensitive=dataset.sensitive,
        l=l,
        kinds=dict(dataset.kinds),
        orders=dict(dataset.orders),
        ordinal_center=center,
    )
