"""How a view of the frontier is scored: its test error, the majority-class error of the same fold, and the
attacks of its release kind (:data:`~privnb.experiments.privacy_frontier.RELEASES`) as tidy values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from privnb.experiments.folds import FoldData, Score, View, error_rate

from .registry import RELEASES

__all__ = ["AttackScorer", "attack_scores", "release_view"]


def attack_scores(results, classifier: str) -> list[Score]:
    """The values of attack records as scores (``AttackResult.values``, the metric and text details as notes).

    Parameters
    ----------
    results : iterable of AttackResult
        The records.
    classifier : str
        The classifier of the rows.

    Returns
    -------
    list of Score
    """
    return [
        Score(classifier, name, value, result.notes() if name == result.attack else "")
        for result in results
        for name, value in result.values().items()
    ]


def majority_error(data: FoldData) -> float:
    """The test error of predicting the training fold's most frequent class.

    Parameters
    ----------
    data : FoldData
        The fold.

    Returns
    -------
    float
    """
    labels, counts = np.unique(np.asarray(data.y_train), return_counts=True)
    return error_rate(data.y_test, np.full(len(data.y_test), labels[np.argmax(counts)]))


@dataclass(frozen=True)
class AttackScorer:
    """Scores a fitted view: ``error`` and ``majority_error`` on the raw test rows, then its release's attacks.

    Parameters
    ----------
    classifier : str
        The classifier name of the rows.
    param : float or None
        The release's parameter, handed to the attack.
    attack : callable, optional
        ``attack(fitted, data, param, options) -> AttackResults`` (a :class:`ReleaseKind`'s); None for a
        view nobody attacks (the original data).
    options : mapping
        The attack's options.
    """

    classifier: str
    param: float | None = None
    attack: Callable | None = None
    options: Mapping = field(default_factory=dict)

    def __call__(self, fitted, data: FoldData) -> list[Score]:
        """The view's errors and attack values on ``data``."""
        scores = [
            Score(self.classifier, "error", error_rate(data.y_test, fitted.predict(data.X_test))),
            Score(self.classifier, "majority_error", majority_error(data)),
        ]
        if self.attack is not None:
            scores += attack_scores(self.attack(fitted, data, self.param, self.options), self.classifier)
        return scores

    @property
    def outputs(self) -> tuple[tuple[str, str], ...]:
        """The ``(classifier, metric)`` pair of an N/A view: its error."""
        return ((self.classifier, "error"),)


def release_view(method: str, param, estimator, classifier: str, options=None, *, attack=None, batch=None) -> View:
    """A frontier view: the estimator learns from the release, its release kind's attacks measure it.

    Parameters
    ----------
    method : str
        The view's method; its :data:`RELEASES` entry (when there is one) gives the attack.
    param : float or None
        The privacy parameter.
    estimator : estimator
        The unfitted view (a ``privnb.learn`` training view, or a release estimator).
    classifier : str
        The classifier name of the rows.
    options : mapping, optional
        The attack's options.
    attack : callable, optional
        An attack for a view with no registry entry (default the entry's, or none).
    batch : hashable, optional
        As in :class:`~privnb.experiments.View`.

    Returns
    -------
    View
    """
    if attack is None and method in RELEASES:
        attack = RELEASES[method].attack
    scorer = AttackScorer(classifier, param, attack, dict(options or {}))
    return View(method, param, estimator, scorer, batch=batch)
