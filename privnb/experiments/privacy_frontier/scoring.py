"""How a view of the frontier is scored: its test error, the majority-class error of the same fold, and the
attacks of its release kind (:data:`~privnb.experiments.privacy_frontier.RELEASES`) as tidy values, and the
membership attack on the classifier it trained (:func:`membership_scores`).

The membership attack is one attack applied to every view, not a registry entry per release kind: it reads
the fitted classifier, never the release, so it is the same for every kind, and the original view (no
release kind) needs it as the reference.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from privnb.attacks import AttackResult, membership_attack
from privnb.attacks.registry import RELEASES
from privnb.experiments.folds import FoldData, Score, View, error_rate

__all__ = ["AttackScorer", "attack_scores", "membership_scores", "release_view"]


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


def membership_scores(fitted, data: FoldData) -> AttackResult:
    """Who was in the training fold: the loss-threshold attack (:func:`privnb.attacks.membership_attack`).

    Members are the raw training rows of the fold, every one, also those the mechanism suppressed (they
    were in the fold the curator held; the model never saw them, so they look like non-members and lower
    the advantage by about their share, ``suppressed_share``); non-members are the raw test rows. The larger
    side is subsampled to the smaller, seeded with the fold's seed.

    Parameters
    ----------
    fitted : fitted classifier
        The view (it predicts on raw rows).
    data : FoldData
        The fold.

    Returns
    -------
    AttackResult
        ``membership``, its details with ``suppressed_share`` (training rows the mechanism dropped, over
        all training rows).
    """
    result = membership_attack(fitted, data.X_train, data.y_train, data.X_test, data.y_test, random_state=data.seed)
    suppressed = getattr(fitted, "n_suppressed_", 0) / max(1, len(data.y_train))
    return replace(result, details={**result.details, "suppressed_share": float(suppressed)})


@dataclass(frozen=True)
class AttackScorer:
    """Scores a fitted view: ``error`` and ``majority_error`` on the raw test rows, its release's attacks,
    and the membership attack on the fitted view (:func:`membership_scores`).

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
    membership : bool
        Also attack the fitted view by membership inference (``membership*`` rows).
    """

    classifier: str
    param: float | None = None
    attack: Callable | None = None
    options: Mapping = field(default_factory=dict)
    membership: bool = True

    def __call__(self, fitted, data: FoldData) -> list[Score]:
        """The view's errors and attack values on ``data``."""
        scores = [
            Score(self.classifier, "error", error_rate(data.y_test, fitted.predict(data.X_test))),
            Score(self.classifier, "majority_error", majority_error(data)),
        ]
        if self.attack is not None:
            scores += attack_scores(self.attack(fitted, data, self.param, self.options), self.classifier)
        if self.membership:
            scores += attack_scores([membership_scores(fitted, data)], self.classifier)
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
