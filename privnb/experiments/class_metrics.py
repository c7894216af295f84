"""Metrics for imbalanced targets, beside the papers' error: balanced accuracy and the AUC.

The papers report the test error alone. On a target whose positive class is rare (13.5% of the rows, say)
every view's error ties with the majority class's, which predicts the frequent class for everyone; the
balanced accuracy (the mean recall over the classes: 0.5 for any constant guess) and the AUC (the
probability that a positive row is scored above a negative one: 0.5 for a constant score) tell the views
apart. :data:`CLASSIFICATION_METRICS` is what notebooks 00-02 give every view; :func:`measure` is the one place a
scorer turns a fitted classifier's predictions and scores into those values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd


def error_rate(y_true, y_pred) -> float:
    """Fraction of misclassified rows: the papers' evaluation metric.

    Parameters
    ----------
    y_true, y_pred : array-like
        True and predicted labels.

    Returns
    -------
    float
    """
    return float(np.mean(np.asarray(y_true) != np.asarray(y_pred)))


def balanced_accuracy(y_true, y_pred) -> float:
    """The mean over the classes present in ``y_true`` of the share of their rows predicted right (recall).

    A constant guess scores 1 / (number of classes) whatever the class shares; scikit-learn's
    ``balanced_accuracy_score`` (without ``adjusted``) is the same number.

    Parameters
    ----------
    y_true, y_pred : array-like
        True and predicted labels.

    Returns
    -------
    float
        NaN for no rows.
    """
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.size == 0:
        return float("nan")
    classes, codes = np.unique(y_true, return_inverse=True)
    right = np.bincount(codes, weights=(y_true == y_pred).astype(float), minlength=len(classes))
    return float(np.mean(right / np.bincount(codes, minlength=len(classes))))


def roc_auc(y_true, scores) -> float:
    """The area under the ROC curve of ``scores`` for the positive class (label 1, else the largest label).

    The Mann-Whitney reading: the chance that a positive row scores above a negative one, ties counting one
    half (average ranks). 0.5 for a constant score, 1 for a perfect ranking.

    Parameters
    ----------
    y_true : array-like
        Two class labels (0/1 as privnb's data sets code the target).
    scores : array-like
        Higher means more likely positive.

    Returns
    -------
    float
        NaN when ``y_true`` holds a single class (no pair to rank).
    """
    from scipy.stats import rankdata

    y_true, scores = np.asarray(y_true), np.asarray(scores, dtype=float)
    labels = np.unique(y_true)
    if len(labels) > 2:
        raise ValueError(f"roc_auc needs two classes, got {len(labels)}: {labels.tolist()}")
    if len(labels) < 2:
        return float("nan")
    positive = y_true == labels[positive_column(labels)]
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    ranks = rankdata(scores)
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


@dataclass(frozen=True)
class RankingMetric:
    """A metric of a classifier's scores for the positive class rather than its predictions (the AUC).

    :class:`~privnb.experiments.PredictionScorer` hands such a metric :func:`positive_scores` instead of the
    predicted labels.

    Parameters
    ----------
    function : callable
        ``function(y_true, scores) -> float``.
    """

    function: Callable

    def __call__(self, y_true, scores) -> float:
        """The metric of ``scores`` against ``y_true``."""
        return self.function(y_true, scores)


#: The metrics notebooks 00-02 give every view: the papers' error, then balanced accuracy and the AUC.
CLASSIFICATION_METRICS: Mapping[str, Callable] = {
    "error": error_rate,
    "balanced_accuracy": balanced_accuracy,
    "auc": RankingMetric(roc_auc),
}

#: What each metric measures, in words (captions and headlines name the metric with it).
METRIC_MEANINGS: Mapping[str, str] = {
    "error": "test error (share of rows misclassified; lower is better)",
    "balanced_accuracy": "balanced accuracy (mean recall over the classes; a constant guess scores 0.5)",
    "auc": "AUC (chance a positive row is scored above a negative one; a constant score gives 0.5)",
}


def positive_column(classes) -> int:
    """The position of the positive class among a classifier's ``classes_``: label 1, else the last one."""
    classes = list(classes)
    return classes.index(1) if 1 in classes else len(classes) - 1


def positive_scores(fitted, X) -> np.ndarray:
    """A fitted classifier's score for the positive class (label 1, else its last class) on rows ``X``.

    ``predict_proba``'s column of that class where the classifier has one, else ``decision_function``, else its
    predictions (a classifier that only predicts ranks its rows by their label).

    Parameters
    ----------
    fitted : classifier
        Fitted, with ``classes_`` where it has ``predict_proba``.
    X : rows
        What ``predict`` takes.

    Returns
    -------
    array of float
    """
    if hasattr(fitted, "predict_proba"):
        return np.asarray(fitted.predict_proba(X))[:, positive_column(getattr(fitted, "classes_", [0, 1]))]
    if hasattr(fitted, "decision_function"):
        scores = np.asarray(fitted.decision_function(X), dtype=float)
        return scores if scores.ndim == 1 else scores[:, -1]
    return np.asarray(fitted.predict(X), dtype=float)


def measure(y_true, prediction, scores, metrics: Mapping[str, Callable] = CLASSIFICATION_METRICS) -> dict:
    """One classifier's ``metrics`` on one test fold: the one place a scorer computes them.

    Parameters
    ----------
    y_true, prediction : array-like
        True and predicted labels.
    scores : array-like or None
        The positive class's scores (:func:`positive_scores`), read by the :class:`RankingMetric` ones.
    metrics : mapping of str to callable
        Default :data:`CLASSIFICATION_METRICS`.

    Returns
    -------
    dict
        Metric name -> value.
    """
    return {
        name: float(metric(y_true, scores if isinstance(metric, RankingMetric) else prediction))
        for name, metric in metrics.items()
    }


def metric_outputs(classifiers: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """The ``(classifier, metric)`` pairs of every :data:`CLASSIFICATION_METRICS` metric (a view's N/A rows)."""
    return tuple((name, metric) for name in classifiers for metric in CLASSIFICATION_METRICS)


def metric_means(results: pd.DataFrame, *, by: Sequence[str] = ("classifier", "method", "param")) -> pd.DataFrame:
    """Mean over folds of each :data:`CLASSIFICATION_METRICS` metric, one column each, one row per view.

    Parameters
    ----------
    results : DataFrame
        Tidy rows (:data:`privnb.experiments.COLUMNS`); rows of other metrics are ignored.
    by : sequence of str
        The columns a view is told apart by.

    Returns
    -------
    DataFrame
        Columns ``by``, ``view`` (Org., L=3, ...), one per metric present (error first), then the mean
        ``n_train`` and ``n_suppressed``, in the papers' order of views.
    """
    from privnb.experiments.labels import method_label, method_sort_key

    rows = results[results["metric"].isin(list(CLASSIFICATION_METRICS))]
    groups = rows.groupby([*by, "metric"], dropna=False, sort=False)
    table = groups["value"].mean().unstack("metric")
    table = table.reindex(columns=[m for m in CLASSIFICATION_METRICS if m in table.columns])
    table = table.join(rows.groupby(list(by), dropna=False, sort=False)[["n_train", "n_suppressed"]].mean())
    table = table.reset_index()
    table.columns.name = None
    table.insert(len(by), "view", [method_label(m, p) for m, p in zip(table["method"], table["param"])])
    others = [c for c in by if c not in ("method", "param")]

    def order(i: int) -> tuple:
        row = table.iloc[i]
        return (*(str(row[c]) for c in others), method_sort_key(row["method"], row["param"]))

    return table.iloc[sorted(range(len(table)), key=order)].reset_index(drop=True)


def metric_values(summary: pd.DataFrame, pattern: str = "{metric}_{view}") -> dict:
    """Every metric of :func:`metric_means` as a flat dict of headline numbers, each key naming its metric.

    Parameters
    ----------
    summary : DataFrame
        :func:`metric_means`'s table.
    pattern : str
        The key, formatted with ``metric`` and the row's columns (``view``, ``method``, ``classifier``, ...):
        ``"{metric}_{method}"`` gives ``error_original``, ``balanced_accuracy_original``, ``auc_original``.

    Returns
    -------
    dict
        Key -> mean rounded to 6 places; a view without a value (N/A) is left out.
    """
    metrics = [m for m in CLASSIFICATION_METRICS if m in summary.columns]
    return {
        pattern.format(metric=metric, **row): round(float(row[metric]), 6)
        for row in summary.to_dict("records")
        for metric in metrics
        if pd.notna(row[metric])
    }
